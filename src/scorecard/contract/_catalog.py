"""The workflow case catalog: ``cases/`` holds one YAML (or JSON) file per case.

Loading enforces exactly the 12 known ids, closed and strictly typed cases, unique tags and
providers, no PRP event type both required and forbidden, and flags YAML 1.1 traps.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ._errors import CaseError
from ._models import CASE_IDS, WorkflowCase
from ._structure import structural_error
from ._yaml import parse_yaml

__all__ = ["Catalog", "default_cases_dir", "load_case", "load_catalog", "parse_case"]

CASE_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Catalog(Mapping[str, WorkflowCase]):
    """The 12 workflow cases keyed by id, in canonical catalog order."""

    cases: Mapping[str, WorkflowCase]
    sources: Mapping[str, str]

    def __getitem__(self, case_id: str) -> WorkflowCase:
        return self.cases[case_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.cases)

    def __len__(self) -> int:
        return len(self.cases)


def parse_case(text: str, *, source: str) -> WorkflowCase:
    """Parse and validate one case from YAML (JSON is YAML too)."""
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
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise CaseError(
            f"cannot read case file: {type(error).__name__}", rule="unreadable", source=str(path)
        ) from None
    return parse_case(text, source=str(path))


def default_cases_dir() -> Path:
    """Where the catalog lives when none is given.

    ``$SCORECARD_CASES`` if set, else the ``cases/`` folder of the checkout this package runs
    from (``src/scorecard`` -> repository root), else ``./cases``.
    """
    configured = os.environ.get("SCORECARD_CASES")
    if configured:
        return Path(configured)
    checkout = Path(__file__).resolve().parents[3] / "cases"
    if checkout.is_dir():
        return checkout
    return Path("cases")


def load_catalog(directory: Path | None = None) -> Catalog:
    """Load every case file of ``directory`` and check the catalog is exactly the 12 cases."""
    folder = directory or default_cases_dir()
    if not folder.is_dir():
        raise CaseError("case catalog folder not found", rule="catalog_missing", source=str(folder))
    found: dict[str, WorkflowCase] = {}
    sources: dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix not in CASE_SUFFIXES or not path.is_file():
            continue
        case = load_case(path)
        if case.id in found:
            raise CaseError(
                f"case {case.id} is defined twice (also in {sources[case.id]})",
                rule="duplicate_case_id",
                pointer="/id",
                source=str(path),
            )
        found[case.id] = case
        sources[case.id] = str(path)
    missing = [case_id for case_id in CASE_IDS if case_id not in found]
    if missing:
        raise CaseError(
            f"catalog lacks case(s): {', '.join(missing)}",
            rule="catalog_incomplete",
            source=str(folder),
        )
    return Catalog(
        cases={case_id: found[case_id] for case_id in CASE_IDS},
        sources={case_id: sources[case_id] for case_id in CASE_IDS},
    )
