"""The C scorer's case plans, kept between runs for catalogs that validated before.

Every run reads its catalog's files. Validating them (YAML with line numbers, then the case
models) needs PyYAML and pydantic, which together are most of a start (``docs/performance.md``,
"Start-up without pydantic"), yet the result is the same for the same bytes under the same code.
So once a catalog has validated, its plans (:func:`case_plan` of each case) are written to a cache file named by a key over:

- the case files' names and bytes (:attr:`~scorecard.contract.CaseFiles.digest`);
- this code: every module of ``scorecard.contract`` (what validates a case) and of
  ``scorecard.fast`` (what plans it), the package version, the Python version, and the files of
  pydantic, pydantic-core and PyYAML that change with their versions.

A later run whose key finds a file takes the plans from it and loads its catalog
:meth:`~scorecard.contract.Catalog.checked`: its cases are validated only if something asks
for one (a line the C scorer declines, another output format). A file that cannot be read, or
that does not hold plans of the 12 cases as JSON in this module's format, is ignored; writing is
best effort and atomic. A file that is not the user's own, or that others may write, is not
read. ``SCORECARD_CACHE_DIR`` names the folder (empty: no cache); the default
is ``$XDG_CACHE_HOME/scorecard`` or ``~/.cache/scorecard``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorecard.contract import CASE_IDS

if TYPE_CHECKING:
    from scorecard.contract import CaseFiles, Catalog, WorkflowCase

__all__ = ["cache_folder", "case_plan", "case_plans", "code_identity", "known_plans"]

FORMAT = 1
"""Version of the cache file's layout."""
KEEP = 32
"""Cache files kept: writing one removes the oldest beyond this many."""
ABANDONED = 600
"""Seconds after which a temporary file in the cache folder is a killed writer's, removed."""
_PREFIX = "plans-"

Plans = dict[str, tuple[Any, ...]]

_known: dict[str, Plans] = {}
"""Plans found or made in this process, by key (forked workers inherit them)."""
_code: str | None = None


def cache_folder() -> Path | None:
    """Where cache files live, or None when ``SCORECARD_CACHE_DIR`` is set empty."""
    configured = os.environ.get("SCORECARD_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "scorecard"


_PACKAGE = Path(__file__).resolve().parents[1]


def code_identity(package: Path = _PACKAGE) -> str:
    """A hash of the code a kept plan depends on: the modules of ``package``'s ``contract`` and
    ``fast``, and the versions around them (read once per process for this package)."""
    global _code
    if package == _PACKAGE and _code is not None:
        return _code
    import scorecard

    hashed = hashlib.sha256(f"{FORMAT}\0{scorecard.__version__}\0{sys.version}\0".encode())
    for folder in ("contract", "fast"):
        for path in sorted((package / folder).glob("*.py")):
            hashed.update(b"%s\0%d\0" % (path.name.encode(), path.stat().st_size))
            hashed.update(path.read_bytes())
    for name in ("pydantic", "pydantic_core", "yaml"):
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin is not None:
            stat = os.stat(os.path.join(os.path.dirname(origin), _VERSIONED[name]))
            hashed.update(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    identity = hashed.hexdigest()
    if package == _PACKAGE:
        _code = identity
    return identity


# A file of each package that its every release rewrites (it holds the version).
_VERSIONED = {"pydantic": "version.py", "pydantic_core": "__init__.py", "yaml": "__init__.py"}


def _key(files: CaseFiles) -> str | None:
    try:
        return hashlib.sha256(f"{code_identity()}\0{files.digest}".encode()).hexdigest()
    except OSError:  # a module file that cannot be read: no cache
        return None


def known_plans(files: CaseFiles) -> Plans | None:
    """The plans of ``files`` if they validated before (in this process or a cache file)."""
    key = _key(files)
    if key is None:
        return None
    plans = _known.get(key)
    if plans is None:
        plans = _read(key)
        if plans is not None:
            _known[key] = plans
    return plans


def case_plan(case: WorkflowCase) -> tuple[Any, ...]:
    """What the C scorer needs of a case, in the order the C code reads it (``PLAN_*`` in
    ``src/fastscore/fastscore.h``)."""
    assertions = case.assertions
    trace = assertions.trace

    def items(values: list[str] | None) -> tuple[str, ...]:
        return tuple(values or ())

    return (
        trace is not None,
        trace.capture if trace is not None else "either",
        items(trace.dispositions if trace is not None else None),
        items(trace.lineage if trace is not None else None),
        assertions.issue_status,
        assertions.run_status,
        assertions.semantic_disposition,
        assertions.max_attempts,
        assertions.max_runs,
        assertions.recovery_owner,
        assertions.comment_count,
        assertions.response_source,
        items(assertions.ordered_markers),
        items(assertions.required_prp_event_types),
        items(assertions.forbidden_prp_event_types),
        items(assertions.required_activity_families),
        items(assertions.artifact_digests),
        items(assertions.required_operation_ids),
        trace.digest_verified if trace is not None else None,
        trace.ordered if trace is not None else None,
        tuple(case.providers),
    )


def case_plans(catalog: Catalog) -> Plans:
    """Each case's plan, in catalog order: kept ones for files that validated before, else
    made from the validated cases (and kept, when the catalog came from files)."""
    files = catalog.files
    plans = known_plans(files) if files is not None else None
    if plans is not None:
        return plans
    plans = {case.id: case_plan(case) for case in catalog.cases.values()}
    key = _key(files) if files is not None else None
    if key is not None:
        _known[key] = plans
        _write(key, plans)
    return plans


def _read(key: str) -> Plans | None:
    folder = cache_folder()
    if folder is None:
        return None
    try:
        with open(folder / f"{_PREFIX}{key}.json", "rb") as stream:
            if not _private(os.fstat(stream.fileno())):
                return None
            document = json.loads(stream.read())
    except (OSError, ValueError):
        return None
    return _plans_of(document, key)


def _private(stat: os.stat_result) -> bool:
    """Whether a cache file is this user's and no one else may write it: anyone who can write
    one could change how every run with that catalog scores (the key is no secret)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # pragma: no cover - not POSIX: no owners or modes to check
        return True
    return stat.st_uid == getuid() and not stat.st_mode & 0o022


def _plans_of(document: Any, key: str) -> Plans | None:
    """The plans a cache document holds, or None unless it is one of this format and key."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return None
    if document.get("key") != key:
        return None
    plans = document.get("plans")
    if not isinstance(plans, dict) or list(plans) != list(CASE_IDS):
        return None
    restored = {case_id: _tuples(plan) for case_id, plan in plans.items()}
    if not all(isinstance(plan, tuple) for plan in restored.values()):
        return None
    return restored


def _tuples(value: Any) -> Any:
    """JSON arrays as the tuples they were written from."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    return value


def _write(key: str, plans: Mapping[str, tuple[Any, ...]]) -> None:
    folder = cache_folder()
    if folder is None:
        return
    text = json.dumps({"format": FORMAT, "key": key, "plans": plans}, ensure_ascii=False)
    restored = _plans_of(json.loads(text), key)
    if restored is None or repr(restored) != repr(dict(plans)):
        return  # a value JSON would not give back as it is: not kept
    import tempfile

    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".plans-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, folder / f"{_PREFIX}{key}.json")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        _prune(folder)
    except OSError:
        return  # a cache that cannot be written costs the next run its validation, no more


def _prune(folder: Path) -> None:
    """Remove the oldest cache files beyond :data:`KEEP`, and temporary files that a killed
    writer left (older than :data:`ABANDONED` seconds)."""
    kept = []
    for path in folder.glob(f"{_PREFIX}*.json"):
        with contextlib.suppress(OSError):
            kept.append((path.stat().st_mtime_ns, path))
    kept.sort(reverse=True)
    abandoned = []
    for path in folder.glob(f".{_PREFIX}*.tmp"):
        with contextlib.suppress(OSError):
            if path.stat().st_mtime < time.time() - ABANDONED:
                abandoned.append(path)
    for path in [*(path for _, path in kept[KEEP:]), *abandoned]:
        with contextlib.suppress(OSError):
            path.unlink()
