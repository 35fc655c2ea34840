"""Shared fixtures: where things are, the catalog, schema validators, a valid observation, and
the two scoring engines (the Python general path and the C fast path) behind one fixture."""

from __future__ import annotations

import copy
import faulthandler
import importlib.abc
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from jsonschema import Draft202012Validator

from scorecard.contract._bundles import BundleInfo
from scorecard.contract._catalog import Catalog, load_catalog
from scorecard.contract._errors import InputError
from scorecard.contract._jsformat import js_json
from scorecard.contract._policy import Policy
from scorecard.contract._secrets import redact
from scorecard.core._audit import audit_observation
from scorecard.core._recognize import PlainObservation, is_plainly_valid
from scorecard.core._scoring import score_observation
from scorecard.core._validation import validate_observation
from scorecard.engine._io import parse_line
from scorecard.engine._pipeline import score_record
from scorecard.fast import _fastpath as fastpath
from scorecard.fast._extension import ENGINE_VARIABLE, chosen_engine

PYTHON_ONLY = chosen_engine(os.environ.get(ENGINE_VARIABLE)) == "python"
"""Whether this run is the suite's second pass, ``SCORECARD_ENGINE=python``: the C extension
off, every line scored by the Python general path (``docs/architecture.md``, "Both engines")."""
EXTENSION = "scorecard.fast._fastscore"


def c_only(why: str) -> pytest.MarkDecorator:
    """Skips a test under ``SCORECARD_ENGINE=python``, saying why: it checks the C extension
    itself (``why``), which the suite's first pass, with the extension on, runs."""
    return pytest.mark.skipif(PYTHON_ONLY, reason=f"{ENGINE_VARIABLE}=python: {why}")


class _ExtensionRefused(importlib.abc.MetaPathFinder):
    """Under ``SCORECARD_ENGINE=python``, fails any import of the C extension loudly (not as
    the ImportError that would read as "not built"): a code path that ignored the switch would
    otherwise score in C unseen."""

    def find_spec(self, name: str, path: object, target: object = None) -> None:
        if name == EXTENSION:
            raise AssertionError(f"{EXTENSION} imported under {ENGINE_VARIABLE}=python")


def pytest_report_header() -> str:
    return f"scoring engines: {'Python only' if PYTHON_ONLY else 'C fast path and Python'}"


def pytest_configure(config: pytest.Config) -> None:
    """The tests and the programs they start keep the catalog plans (``fast._plans``) in a
    folder of their own, never the user's cache. Under ``SCORECARD_ENGINE=python`` no test may
    load the C extension: none has (the imports above included), and none can from here on."""
    if PYTHON_ONLY:
        assert EXTENSION not in sys.modules, f"{EXTENSION} loaded under {ENGINE_VARIABLE}=python"
        sys.meta_path.insert(0, _ExtensionRefused())
    folder = tempfile.mkdtemp(prefix="scorecard-test-cache-")
    config.stash[_CACHE_FOLDER] = (folder, os.environ.get("SCORECARD_CACHE_DIR"))
    os.environ["SCORECARD_CACHE_DIR"] = folder


def pytest_sessionfinish(session: pytest.Session) -> None:
    """No test loaded the C extension under ``SCORECARD_ENGINE=python`` (one that swallowed
    the refusal above included)."""
    if PYTHON_ONLY and EXTENSION in sys.modules:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        sys.stderr.write(f"{EXTENSION} was loaded under {ENGINE_VARIABLE}=python\n")


def pytest_unconfigure(config: pytest.Config) -> None:
    folder, before = config.stash[_CACHE_FOLDER]
    if before is None:
        os.environ.pop("SCORECARD_CACHE_DIR", None)
    else:
        os.environ["SCORECARD_CACHE_DIR"] = before
    shutil.rmtree(folder, ignore_errors=True)
    # After the tests the interpreter joins every thread that is not a daemon (a process pool's
    # manager among them): one that never ends hangs the run with no word of why, until CI's
    # time limit. Past EXIT_SECONDS, print every thread's stack and exit 1.
    faulthandler.dump_traceback_later(EXIT_SECONDS, exit=True, file=sys.__stderr__ or 2)


EXIT_SECONDS = 120.0
"""How long the test process may take to exit once the tests are done."""
POOL_END_SECONDS = 10.0
"""How long a test's process pools may take to end after it."""


@pytest.fixture(autouse=True)
def _no_pool_outlives_its_test() -> Iterator[None]:
    """Every process pool a test starts (through the engine or not) has ended once it is done:
    its manager thread gone, the engine's table of live pools empty. A pool left running would
    be joined, forever if it is stuck, as the interpreter exits."""
    yield
    from concurrent.futures.process import _ExecutorManagerThread

    lifetime = sys.modules.get("scorecard.engine._lifetime")
    deadline = time.monotonic() + POOL_END_SECONDS
    managers = [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread)]
    for manager in managers:
        manager.join(timeout=max(0.0, deadline - time.monotonic()))
    alive = [manager.name for manager in managers if manager.is_alive()]
    pools = len(lifetime._pools) if lifetime is not None else 0
    assert (alive, pools) == ([], 0), "a process pool outlived the test that started it"


_CACHE_FOLDER = pytest.StashKey[tuple[str, "str | None"]]()

ROOT = Path(__file__).resolve().parents[1]


def without_receipt(text: str) -> str:
    """A JSON output's text up to its receipt (the last member, ``docs/receipts.md``), which
    names the inputs read: outputs of the same runs read in other forms (Parquet, records,
    observations) are the same bytes up to it. Text without a receipt is returned whole."""
    head, receipt, _ = text.partition(',\n  "receipt": {')
    return head if receipt else text


SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"
SCHEMAS = SHARED / "upstream-schemas"


def load_script(path: Path) -> Any:
    """A script of the repository (``dev/``, ``benchmarks/``) loaded as a module, for tests of
    its functions."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_schema(name: str) -> Draft202012Validator:
    """A validator for one of the published upstream schemas."""
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


SCORECARD_SCHEMA = load_schema("eval-scorecard.v2.schema.json")
CASE_SCHEMA = load_schema("runner-workflow-eval-case.v1.schema.json")
OBSERVATION_SCHEMA = load_schema("runner-workflow-observation.v1.schema.json")


def assert_valid_scorecard(card: Any) -> None:
    """Fail with every schema violation when ``card`` is not a valid v2 scorecard."""
    problems = [error.message for error in SCORECARD_SCHEMA.iter_errors(card)]
    assert problems == []


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The repository's 12-case catalog."""
    return load_catalog(ROOT / "cases")


def conformance_rows() -> list[dict[str, Any]]:
    """Every row of the reference scoring conformance table."""
    with (CONFORMANCE / "scoring-v2.jsonl").open(encoding="utf-8") as stream:
        return [json.loads(line) for line in stream]


_GOOD = next(
    row["observation"]
    for row in conformance_rows()
    if row["expected"].get("overall", {}).get("passed") is True
    and row["observation"]["classification"] == "completed"
    and "wireEvents" not in row["observation"]["base"]["trace"]
)


@pytest.fixture
def observation() -> dict[str, Any]:
    """A fresh copy of an observation the reference scores as fully passed."""
    return copy.deepcopy(_GOOD)


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[..., Path]:
    """Write records as JSON Lines into a new file and return its path."""

    def write(records: list[Any], name: str = "observations.jsonl") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
        return path

    return write


# --- the two engines ---------------------------------------------------------------------------

#: What one scored line adds to the run summary: (scored, gate failures, unscoreable, audit failed).
Counts = tuple[int, int, int, int]
Scored = tuple[str, Counts]
"""A ``jsonl`` line (with its newline) and its counts."""
BUNDLE = "local-engine"


def runner_line(document: Any) -> bytes:
    """``document`` written as runners write it (compact, their field order), when the
    recogniser accepts it; otherwise compact JSON in the document's own order."""
    try:
        return msgspec.json.encode(msgspec.convert(document, PlainObservation, strict=True))
    except (msgspec.ValidationError, TypeError):
        return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()


def general_path(
    raw: bytes, catalog: Catalog, policy: Policy, bundle_id: str = BUNDLE
) -> Scored | InputError:
    """What the Python path makes of one JSON Lines record: its text and summary counts."""
    bundle = BundleInfo(id=bundle_id, kind="override")
    record = parse_line(raw, number=1, source="t.jsonl", bundle=bundle)
    result = score_record(record, catalog=catalog, policy=policy)
    if isinstance(result, InputError):
        return result
    tally = result.tally()
    gate_failure = tally.gate_failed and not tally.unscoreable
    counts = (1, int(gate_failure), int(tally.unscoreable), tally.audit_failed)
    return result.render("jsonl") + "\n", counts


def fast_path(
    raw: bytes, catalog: Catalog, policy: Policy, bundle_id: str = BUNDLE
) -> Scored | None:
    """What the C extension makes of one line: its text and counts, or None when it declines."""
    scorer = fastpath.fast_scorer(catalog, policy)
    if scorer is None:
        return None
    pieces, counts = scorer.score_block(raw, 1, bundle_id)
    if pieces == [(1, raw)]:
        assert counts == (0, 0, 0, 0)
        return None
    assert len(pieces) == 1
    assert isinstance(pieces[0], str)
    return pieces[0], counts


def _what_c_reads(value: Any, depth: int = 1) -> bool:
    """Whether the C scanner reads every value in ``value`` (``strict.c``), a container
    ``depth`` levels deep: containers at most 256 deep, integers JavaScript holds exactly (up
    to 2**53 in magnitude), other numbers below 1e308."""
    if isinstance(value, dict | list):
        items = value.values() if isinstance(value, dict) else value
        return depth <= 256 and all(_what_c_reads(item, depth + 1) for item in items)
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, int):
        return abs(value) <= 2**53
    return isinstance(value, float) and abs(value) < 1e308


def must_be_scored_in_c(raw: bytes, policy: Policy, general: Scored | InputError) -> bool:
    """Whether the fast path has to answer ``raw``: a plainly valid observation in runner
    order that the general path scores, under a policy C arithmetic holds exactly, holding
    nothing the scanner declines wherever it is (the byte-level fuzzer found such numbers and
    nesting in an open provenance field)."""
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return (
        not isinstance(general, InputError)
        and fastpath.policy_plan(policy) is not None
        and is_plainly_valid(document, parsed_json=True)
        and runner_line(document) == raw
        and _what_c_reads(document)
    )


@dataclass(frozen=True)
class Engine:
    """One of the scorer's two implementations, scoring one JSON Lines line.

    ``python`` is the general path, the definition. ``c`` is the compiled fast path, falling
    back to the general path (as ``scorecard score`` does) only for a line it may decline; a
    decline of a line it must score (:func:`must_be_scored_in_c`) fails the test, so a field one
    twin misses never hides behind the slow path.
    """

    name: str

    def score_line(
        self, raw: bytes, catalog: Catalog, policy: Policy, bundle_id: str = BUNDLE
    ) -> Scored | InputError:
        """The line's scorecard text and counts, or the located error."""
        general = general_path(raw, catalog, policy, bundle_id)
        if self.name == "python":
            return general
        fast = fast_path(raw, catalog, policy, bundle_id)
        if fast is None:
            assert not must_be_scored_in_c(raw, policy, general), (
                f"the C fast path declined a line it must score: {raw[:300]!r}"
            )
            return general
        return fast


@pytest.fixture(scope="session", params=["python", "c"])
def engine(request: pytest.FixtureRequest) -> Engine:
    """Each scoring engine in turn (pallets/markupsafe runs its suite against both twins so);
    under ``SCORECARD_ENGINE=python`` the Python one alone."""
    if request.param == "c":
        if PYTHON_ONLY:
            pytest.skip(f"{ENGINE_VARIABLE}=python: the C engine is off")
        assert fastpath.compiled(), "the C extension is not built"
    return Engine(request.param)


def model_scored(
    document: Any, catalog: Catalog, policy: Policy, bundle_id: str = BUNDLE
) -> Scored:
    """What the model-level API makes of a valid document (``score_observation`` on the
    pydantic model, serialised by ``js_json``; the audit's failed findings counted): the
    oracle both engines are held to."""
    model = validate_observation(document)
    case = catalog[model.case_id]
    card = score_observation(model, case, bundle_id=bundle_id, policy=policy)
    data = card.model_dump(by_alias=True)
    for dimension in data["dimensions"].values():
        dimension["reasons"] = [redact(reason) for reason in dimension["reasons"]]
    overall = data["overall"]
    unscoreable = overall["score"] is None
    failed = sum(finding.status == "failed" for finding in audit_observation(case, document))
    counts = (1, int(overall["gatePassed"] is False and not unscoreable), int(unscoreable), failed)
    return js_json(data) + "\n", counts
