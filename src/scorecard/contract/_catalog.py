"""The workflow case catalog: ``cases/`` holds one YAML (or JSON) file per case.

Loading enforces exactly the 12 known ids, closed and strictly typed cases, unique tags and
providers, no PRP event type both required and forbidden, and flags YAML 1.1 traps.

A catalog keeps the bytes it was read from (:class:`CaseFiles`). Files a caller has seen
validate before (the same bytes, under the same code: ``fast._plans``) can be loaded
``checked``: their cases are then validated when one is first asked for, so a run that never
asks (every line scored in C) imports neither YAML nor pydantic (``docs/performance.md``,
"Start-up without pydantic").
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ._arguments import arguments, check_path
from ._errors import CaseError
from ._names import CASE_IDS

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from ._models import WorkflowCase

__all__ = [
    "CaseFiles",
    "Catalog",
    "default_cases_dir",
    "load_case",
    "load_catalog",
    "parse_case",
    "read_case_files",
]

CASE_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class CaseFiles:
    """The case files of a catalog folder as read: (path, bytes) of each, in name order."""

    folder: str
    files: tuple[tuple[str, bytes], ...]

    @functools.cached_property
    def digest(self) -> str:
        """SHA-256 of the files' names and bytes, in order (the folder's own name aside),
        framed as every file digest is (:class:`~scorecard.contract.FramedDigest`), hashed
        once."""
        from ._digest import FramedDigest

        hashed = FramedDigest()
        for path, data in self.files:
            hashed.add(os.path.basename(path), data)
        return hashed.hexdigest()


class Catalog(Mapping[str, "WorkflowCase"]):
    """The 12 workflow cases keyed by id, in canonical catalog order, and the file each came
    from (``sources``); ``files``, the bytes they were read from (None when built in memory)."""

    __slots__ = ("_cases", "_files", "_sources")

    def __init__(
        self,
        cases: Mapping[str, WorkflowCase] | None,
        sources: Mapping[str, str] | None,
        *,
        files: CaseFiles | None = None,
    ) -> None:
        if (cases is None or sources is None) and files is None:
            raise TypeError("a catalog needs its cases or the files to validate them from")
        self._cases = cases
        self._sources = sources
        self._files = files

    @classmethod
    def checked(cls, files: CaseFiles) -> Catalog:
        """The catalog of ``files``, which validated before: validated on first use."""
        return cls(None, None, files=files)

    def _validated(self) -> tuple[Mapping[str, WorkflowCase], Mapping[str, str]]:
        if self._cases is not None and self._sources is not None:
            return self._cases, self._sources
        if self.files is None:  # pragma: no cover - the constructor refuses it
            raise TypeError("a catalog without cases or files")
        loaded = _validate(self.files)
        self._cases, self._sources = loaded.cases, loaded.sources
        return loaded.cases, loaded.sources

    @property
    def files(self) -> CaseFiles | None:
        return self._files

    @property
    def cases(self) -> Mapping[str, WorkflowCase]:
        return self._validated()[0]

    @property
    def sources(self) -> Mapping[str, str]:
        return self._validated()[1]

    def __getitem__(self, case_id: str) -> WorkflowCase:
        return self.cases[case_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.cases)

    def __len__(self) -> int:
        return len(self.cases)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Catalog):
            return NotImplemented
        return dict(self.cases) == dict(other.cases) and dict(self.sources) == dict(other.sources)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        where = self.files.folder if self.files is not None else "memory"
        state = "" if self._cases is not None else ", not validated yet"
        return f"Catalog(from {where!r}{state})"


def parse_case(text: str, *, source: str) -> WorkflowCase:
    """Parse and validate one case from YAML (JSON is YAML too)."""
    from pydantic import ValidationError

    from ._models import WorkflowCase
    from ._structure import structural_error
    from ._yaml import parse_yaml

    parsed = parse_yaml(text, source=source, error_type=CaseError)
    try:
        case = WorkflowCase.model_validate(parsed.data)
    except ValidationError as error:
        problem = structural_error(error, parsed.data, CaseError, what="case field:")
        message = problem.message
        if problem.pointer in parsed.implicit_booleans:
            message += (
                "; YAML 1.1 reads an unquoted on/off/yes/no as a boolean, quote it"
                ' (for example capture: "on")'
            )
        raise CaseError(
            message,
            rule=problem.rule,
            pointer=problem.pointer,
            source=source,
            line=parsed.lines.get(problem.pointer) or _nearest_line(parsed.lines, problem.pointer),
        ) from None
    both = set(case.assertions.required_prp_event_types or ()) & set(
        case.assertions.forbidden_prp_event_types or ()
    )
    if both:
        pointer = "/assertions/forbiddenPrpEventTypes"
        raise CaseError(
            f"PRP event type(s) both required and forbidden: {', '.join(sorted(both))}",
            rule="prp_event_required_and_forbidden",
            pointer=pointer,
            source=source,
            line=parsed.lines.get(pointer),
        )
    return case


def _nearest_line(lines: Mapping[str, int], pointer: str) -> int | None:
    while pointer:
        pointer = pointer.rpartition("/")[0]
        if pointer in lines:
            return lines[pointer]
    return lines.get("")


def load_case(path: Path) -> WorkflowCase:
    """Read and validate one case file."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise _unreadable(path, error) from None
    return _case_of(str(path), data)


def _case_of(source: str, data: bytes) -> WorkflowCase:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _unreadable(source, error) from None
    # As a file read as text reads it (universal newlines).
    return parse_case(text.replace("\r\n", "\n").replace("\r", "\n"), source=source)


def _unreadable(source: str | Path, error: Exception) -> CaseError:
    return CaseError(
        f"cannot read case file: {type(error).__name__}", rule="unreadable", source=str(source)
    )


def default_cases_dir() -> Path | Traversable:
    """Where the catalog lives when none is given.

    ``$SCORECARD_CASES`` if set; else the cases installed with the package (package data,
    ``scorecard/cases``, copied from the repository's ``cases/`` when a wheel is built); else
    the ``cases/`` folder of the checkout this package runs from (an editable install:
    ``src/scorecard`` -> repository root); else ``./cases``. The repository's ``cases/`` is the
    one source of both.
    """
    configured = os.environ.get("SCORECARD_CASES")
    if configured:
        return Path(configured)
    import importlib.resources  # here: a run given --cases does not need it

    installed = importlib.resources.files("scorecard") / "cases"
    if installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parents[3] / "cases"
    if checkout.is_dir():
        return checkout
    return Path("cases")


def read_case_files(directory: str | os.PathLike[str] | Traversable | None = None) -> CaseFiles:
    """The bytes of every case file of ``directory`` (default: :func:`default_cases_dir`)."""
    folder = (
        Path(directory)
        if isinstance(directory, str | os.PathLike)
        else directory or default_cases_dir()
    )
    if not folder.is_dir():
        raise CaseError("case catalog folder not found", rule="catalog_missing", source=str(folder))
    files = []
    for path in sorted(folder.iterdir(), key=lambda item: item.name):
        if os.path.splitext(path.name)[1] not in CASE_SUFFIXES or not path.is_file():
            continue
        try:
            files.append((str(path), path.read_bytes()))
        except OSError as error:
            raise _unreadable(str(path), error) from None
    return CaseFiles(str(folder), tuple(files))


def _catalog_folder(value: object, where: str) -> object:
    """A folder of case files: a path (``str`` or ``Path``), package data (a
    :class:`~importlib.resources.abc.Traversable`), or None (the default catalog)."""
    from importlib.resources.abc import Traversable

    if value is None or isinstance(value, Traversable):
        return value
    return check_path(value, where)


@arguments(directory=_catalog_folder)
def load_catalog(
    directory: str | os.PathLike[str] | Traversable | None = None,
    *,
    files: CaseFiles | None = None,
) -> Catalog:
    """Load every case file of ``directory`` (or the ``files`` already read from one) and check
    the catalog is exactly the 12 cases."""
    return _validate(files if files is not None else read_case_files(directory))


def _validate(files: CaseFiles) -> Catalog:
    found: dict[str, WorkflowCase] = {}
    sources: dict[str, str] = {}
    for path, data in files.files:
        case = _case_of(path, data)
        if case.id in found:
            raise CaseError(
                f"case {case.id} is defined twice (also in {sources[case.id]})",
                rule="duplicate_case_id",
                pointer="/id",
                source=path,
            )
        found[case.id] = case
        sources[case.id] = path
    missing = [case_id for case_id in CASE_IDS if case_id not in found]
    if missing:
        raise CaseError(
            f"catalog lacks case(s): {', '.join(missing)}",
            rule="catalog_incomplete",
            source=files.folder,
        )
    return Catalog(
        {case_id: found[case_id] for case_id in CASE_IDS},
        {case_id: sources[case_id] for case_id in CASE_IDS},
        files=files,
    )
