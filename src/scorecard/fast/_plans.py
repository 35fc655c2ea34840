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
for one (a line the C scorer declines, another output format). The file is opened only as the
regular file this module writes (never through a link, never waiting on a FIFO), at most
:data:`MAX_BYTES`; anything else, a file that does not hold plans of the 12 cases in this
module's format and shape, or whose plans do not carry the digest this code gives them (an
edited file), is ignored and the plans are made again; writing is best effort and atomic. A
file that is not the user's own, or that others may write, is not read.
``SCORECARD_CACHE_DIR`` names the folder (empty: no cache); the default is
``$XDG_CACHE_HOME/scorecard`` or ``~/.cache/scorecard``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import importlib.util
import json
import os
import stat
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorecard.contract import CASE_IDS

if TYPE_CHECKING:
    from scorecard.contract import CaseFiles, Catalog, WorkflowCase

__all__ = ["cache_folder", "case_plan", "case_plans", "code_identity", "known_plans"]

FORMAT = 2
"""Version of the cache file's layout (2: plans carry their digest)."""
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
            found = os.stat(os.path.join(os.path.dirname(origin), _VERSIONED[name]))
            hashed.update(f"{name}\0{found.st_size}\0{found.st_mtime_ns}\0".encode())
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


MAX_BYTES = 256 << 10
"""The largest cache file read (the 12 cases' plans take about 5 kB): a bigger one is not."""

_FLAG = bool | None
_TEXT = str | None
_COUNT = "count"
_TEXTS = "texts"
#: The type of each item of a plan, in :func:`case_plan`'s order: what a cache file's plan must
#: hold to be read at all (``_COUNT``: a non-negative int or None; ``_TEXTS``: a list of str).
PLAN_SHAPE: tuple[Any, ...] = (
    bool,
    ("on", "off", "either"),
    _TEXTS,
    _TEXTS,
    _TEXT,
    _TEXT,
    _TEXT,
    _COUNT,
    _COUNT,
    _TEXT,
    _COUNT,
    _TEXT,
    _TEXTS,
    _TEXTS,
    _TEXTS,
    _TEXTS,
    _TEXTS,
    _TEXTS,
    _FLAG,
    _FLAG,
    _TEXTS,
)


def _read(key: str) -> Plans | None:
    """The plans a cache file holds for ``key``, or None. The file is opened only as what this
    module writes, a regular file: not through a link (``O_NOFOLLOW``), never waiting on a
    FIFO or a device (``O_NONBLOCK``, then ``S_ISREG``), this user's own, at most
    :data:`MAX_BYTES`; its JSON's depth is bounded by its shape, checked item by item, and its
    plans must carry the digest this code gives them (:func:`_digest`)."""
    folder = cache_folder()
    if folder is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        handle = os.open(folder / f"{_PREFIX}{key}.json", flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        found = os.fstat(handle)
        if not stat.S_ISREG(found.st_mode) or not _private(found) or found.st_size > MAX_BYTES:
            return None
        data = os.read(handle, MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(handle)
    if len(data) > MAX_BYTES:
        return None
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return _plans_of(document, key)


def _private(found: os.stat_result) -> bool:
    """Whether a cache file is this user's and no one else may write it: anyone who can write
    one could change how every run with that catalog scores (the key is no secret)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # pragma: no cover - not POSIX: no owners or modes to check
        return True
    return found.st_uid == getuid() and not found.st_mode & 0o022


def _digest(key: str, plans: Mapping[str, Any]) -> str:
    """HMAC-SHA256 of the plans' canonical JSON, keyed by the cache key (the catalog's bytes and
    this code): an edit of a kept plan that does not also compute this is not read."""
    text = json.dumps(plans, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    return hmac.new(key.encode(), f"{FORMAT}\0{text}".encode(), hashlib.sha256).hexdigest()


def _fits(value: Any, shape: Any) -> bool:
    """Whether one item of a plan read from JSON has the type :data:`PLAN_SHAPE` gives it."""
    if shape == _TEXTS:
        return isinstance(value, list) and all(type(item) is str for item in value)
    if shape == _COUNT:
        return value is None or (type(value) is int and value >= 0)
    if isinstance(shape, tuple):
        return value in shape and type(value) is str
    if shape is bool:
        return type(value) is bool
    if shape == _FLAG:
        return value is None or type(value) is bool
    return value is None or type(value) is str  # _TEXT


def _plans_of(document: Any, key: str) -> Plans | None:
    """The plans a cache document holds, or None unless it is one of this format and key, each
    plan of the shape :func:`case_plan` makes, and its digest this code's."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return None
    if document.get("key") != key:
        return None
    plans = document.get("plans")
    if not isinstance(plans, dict) or list(plans) != list(CASE_IDS):
        return None
    for plan in plans.values():
        if not isinstance(plan, list) or len(plan) != len(PLAN_SHAPE):
            return None
        if not all(_fits(value, shape) for value, shape in zip(plan, PLAN_SHAPE, strict=True)):
            return None
    if not hmac.compare_digest(str(document.get("digest")), _digest(key, plans)):
        return None
    return {case_id: _tuples(plan) for case_id, plan in plans.items()}


def _tuples(value: Any) -> Any:
    """JSON arrays as the tuples they were written from (a checked plan: two levels)."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    return value


def _write(key: str, plans: Mapping[str, tuple[Any, ...]]) -> None:
    folder = cache_folder()
    if folder is None:
        return
    document = {"format": FORMAT, "key": key, "digest": _digest(key, plans), "plans": plans}
    text = json.dumps(document, ensure_ascii=False)
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
