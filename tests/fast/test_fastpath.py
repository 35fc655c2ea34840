"""The compiled fast path gives what the Python path gives, byte for byte, or declines.

The Python path (recogniser, models, ``score_wire``, ``audit_observation``, ``scorecard_line``)
is the definition; ``scorecard.fast._fastpath`` with the C extension is a second implementation of the
usual case. Each test feeds both the same line and compares the output line and the run tally,
and does so for every producer's spelling of the observation (``src/scorecard/simulate/producers.py``): the
runners', Node's in another key order, ``json.dumps`` defaults, sorted keys, shuffled keys and
everything escaped.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorecard.contract._bundles import BundleInfo
from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError
from scorecard.contract._models import DIMENSIONS, GATE_DIMENSIONS, WorkflowObservation
from scorecard.contract._policy import Policy
from scorecard.core._recognize import OBSERVATION_DECODER, PlainObservation, is_plainly_valid
from scorecard.core._validation import validate_observation
from scorecard.engine._chunk_scorer import ROWS as ROWS_FORMAT
from scorecard.engine._chunk_scorer import ChunkScorer
from scorecard.engine._chunks import Chunk
from scorecard.engine._parallel import score_rows_parallel, score_text
from scorecard.engine._pipeline import RunSummary
from scorecard.fast import _fastpath as fastpath
from scorecard.simulate.producers import WRITERS, shuffle_keys
from tests.conftest import (
    BUNDLE,
    ROOT,
    Engine,
    c_only,
    conformance_rows,
    fast_path,
    general_path,
    model_scored,
    must_be_scored_in_c,
    runner_line,
)
from tests.contract.shapes import all_keys, model_fields
from tests.strategies import corrupted, observations

# Each test here compares the C fast path with the Python path (whose side the suite's first
# pass runs), or checks what only the extension does.
pytestmark = c_only("these compare the C fast path with the Python path")

PROFILE = settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
ROWS = conformance_rows()
SCORED = [row for row in ROWS if "error" not in row["expected"]]
REJECTED = [row for row in ROWS if "error" in row["expected"]]


def spellings(document: Any) -> list[tuple[str, bytes]]:
    """``document`` as every producer writes it: (producer, line), the runners' first."""
    return [("runner", runner_line(document))] + [
        (name, write(document)) for name, write in WRITERS.items()
    ]


def assert_same_or_declined(raw: bytes, catalog: Catalog, policy: Policy) -> bool:
    """The fast path equals the Python path or declines a line it may decline (never a plainly
    valid runner-order line the Python path scores); True when it answered."""
    fast, general = fast_path(raw, catalog, policy), general_path(raw, catalog, policy)
    if fast is None:
        assert not must_be_scored_in_c(raw, policy, general)
        return False
    assert fast == general
    return True


def test_the_extension_is_built() -> None:
    """Installing the project compiles the C extension (CI machines have a C compiler)."""
    assert fastpath.compiled()


@pytest.mark.parametrize("row", SCORED, ids=[row["id"] for row in SCORED])
def test_conformance_row_takes_the_fast_path_and_equals_the_reference(
    row: dict[str, Any], catalog: Catalog
) -> None:
    """Every scored row the recogniser accepts is scored by the C extension, in every
    producer's spelling, equal to the reference scorecard (floats exact) and to the Python
    path's line and tally."""
    policy = Policy.from_overrides(
        row["options"].get("weights"),
        row["options"].get("thresholds"),
        require_positive_total=False,
    )
    if not is_plainly_valid(row["observation"]):
        pytest.skip("carries unknown fields: the Python path reports them")
    for producer, raw in spellings(row["observation"]):
        fast = fast_path(raw, catalog, policy, row["bundleId"])
        assert fast is not None, producer
        assert json.loads(fast[0]) == row["expected"]
        assert fast == general_path(raw, catalog, policy, row["bundleId"]), producer


def test_most_conformance_rows_are_plain() -> None:
    """The skip above is the exception: nearly every scored row exercises the fast path."""
    plain = sum(is_plainly_valid(row["observation"]) for row in SCORED)
    assert plain >= 500


@pytest.mark.parametrize("row", REJECTED, ids=[row["id"] for row in REJECTED])
def test_broken_row_never_takes_the_fast_path(row: dict[str, Any], catalog: Catalog) -> None:
    """A row the reference rejects is declined in every spelling, so the Python path reports
    its error."""
    for producer, raw in spellings(row["observation"]):
        assert fast_path(raw, catalog, Policy()) is None, producer
        assert isinstance(general_path(raw, catalog, Policy()), InputError), producer


def test_every_sample_observation_takes_the_fast_path(catalog: Catalog) -> None:
    """All 560 lines of the sample bundles are scored in C, as the runners wrote them and as
    every other producer would."""
    lines = [
        line
        for path in sorted((ROOT / "observations").rglob("*.jsonl"))
        for line in path.read_bytes().splitlines()
    ]
    assert len(lines) == 560
    for line in lines:
        assert assert_same_or_declined(line, catalog, Policy())
        for producer, raw in spellings(json.loads(line))[1:]:
            assert assert_same_or_declined(raw, catalog, Policy()), producer


def _own_values(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


@st.composite
def audited_observations(draw: st.DrawFn, catalog: Catalog) -> dict[str, Any]:
    """Valid observations that also carry the evidence the case-assertion audit reads, drawn
    mostly from what their own case asserts, so findings pass, fail and repeat."""
    document = draw(observations())
    assertions = catalog[document["caseId"]].assertions

    def one(name: str, *extra: Any) -> Any:
        return draw(st.sampled_from([*_own_values(getattr(assertions, name)), *extra]))

    def some(*names: str) -> list[Any]:
        choices = [value for name in names for value in _own_values(getattr(assertions, name))]
        return draw(st.lists(st.sampled_from([*choices, "noise"]), max_size=7))

    lifecycle = document["lifecycle"]
    for key, name in (
        ("issueStatus", "issue_status"),
        ("runStatus", "run_status"),
        ("semanticDisposition", "semantic_disposition"),
        ("recoveryOwner", "recovery_owner"),
    ):
        if draw(st.booleans()):
            lifecycle[key] = one(name, "other")
    for key in ("attempts", "runs"):
        if draw(st.booleans()):
            lifecycle[key] = draw(st.integers(0, 4))
    presentation = document["presentation"]
    if draw(st.booleans()):
        presentation["commentCount"] = draw(st.integers(0, 3))
    if draw(st.booleans()):
        presentation["responseSource"] = one("response_source", "other")
    markers = _own_values(assertions.ordered_markers)
    if len(markers) > 0 and draw(st.booleans()):
        # The case's markers in order, maybe with one dropped, moved or repeated, and noise.
        shown = list(markers)
        edit = draw(st.sampled_from(["none", "drop", "swap", "repeat"]))
        at = draw(st.integers(0, len(shown) - 1))
        if edit == "drop":
            del shown[at]
        elif edit == "swap" and at + 1 < len(shown):
            shown[at], shown[at + 1] = shown[at + 1], shown[at]
        elif edit == "repeat":
            shown.insert(at, shown[-1])
        presentation["markers"] = shown + some()
    elif draw(st.booleans()):
        presentation["markers"] = some("ordered_markers")
    if draw(st.booleans()):
        presentation["activityFamilies"] = some("required_activity_families")
    document["artifactDigests"] = some("artifact_digests")
    document["observedPrpEventTypes"] = some(
        "required_prp_event_types", "forbidden_prp_event_types"
    )
    document["base"]["observedCalls"] += some("required_operation_ids")
    return document


@st.composite
def policies(draw: st.DrawFn) -> Policy:
    """Weights and thresholds of every kind the policy files allow: ints, floats, zeros."""
    weights: dict[str, float] = {
        name: draw(st.integers(0, 5) | st.floats(0, 10, allow_nan=False, allow_infinity=False))
        for name in DIMENSIONS
        if name not in GATE_DIMENSIONS and draw(st.booleans())
    }
    thresholds = {
        name: draw(st.sampled_from([0, 1]) | st.floats(0, 1, allow_nan=False))
        for name in ("hard_invariants", "semantic_outcome", "trace_completeness")
        if draw(st.booleans())
    }
    return Policy.from_overrides(weights, thresholds, require_positive_total=False)


@PROFILE
@given(data=st.data())
def test_generated_observations_take_the_fast_path_and_agree(
    data: st.DataObject, catalog: Catalog
) -> None:
    """Valid observations with audit evidence, under generated policies, in every producer's
    spelling: the fast path answers, with the Python path's line and tally (audit failures
    included)."""
    document = data.draw(audited_observations(catalog))
    policy = data.draw(policies())
    for producer, raw in spellings(document):
        assert assert_same_or_declined(raw, catalog, policy), producer


@PROFILE
@given(data=st.data())
def test_generated_observations_score_in_each_engine_as_the_models_do(
    data: st.DataObject, catalog: Catalog, engine: Engine
) -> None:
    """Valid observations with audit evidence, under generated policies: each engine writes the
    model-level scorer's line and counts (C without falling back: they are plainly valid)."""
    document = data.draw(audited_observations(catalog))
    policy = data.draw(policies())
    expected = model_scored(document, catalog, policy)
    assert engine.score_line(runner_line(document), catalog, policy) == expected


def _value(shape: Any) -> Any:
    """A valid value of a model field's shape that no contract rule refuses."""
    kind, detail = shape
    if kind == "fields":
        return _filled(detail, {})
    if kind == "list":
        return [_value(detail)]
    return {
        "string": "x",
        "boolean": False,
        "integer": 1,
        "number": 1.5,
        "object": {},
        "literal": sorted(detail)[0] if kind == "literal" else None,
    }[kind]


def _filled(model: Any, document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with every field of ``model`` it lacks added, all the way down."""
    for key, (_, shape) in model_fields(model).items():
        if key not in document:
            document[key] = _value(shape)
        elif shape[0] == "fields":
            _filled(shape[1], document[key])
        elif shape[0] == "list" and shape[1][0] == "fields":
            for item in document[key]:
                _filled(shape[1][1], item)
    return document


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in _keys(item)}
    if isinstance(value, list):
        return {key for item in value for key in _keys(item)}
    return set()


def test_an_observation_with_every_model_field_is_scored_alike_in_each_engine(
    observation: dict[str, Any], catalog: Catalog, engine: Engine
) -> None:
    """Every field the models define, filled in from the models themselves: the recogniser
    accepts it, and each engine (C without falling back) writes the model-level scorer's line.
    A field added to the models alone makes the C engine decline it, and this test fail."""
    document = _filled(WorkflowObservation, observation)
    assert all_keys(WorkflowObservation) <= _keys(document)
    assert validate_observation(document).model_extra == {}
    assert is_plainly_valid(document)
    raw = runner_line(document)
    assert must_be_scored_in_c(raw, Policy(), general_path(raw, catalog, Policy()))
    assert engine.score_line(raw, catalog, Policy()) == model_scored(document, catalog, Policy())


@PROFILE
@given(document=corrupted())
def test_corrupted_observations_are_declined_or_agree(
    document: dict[str, Any], catalog: Catalog
) -> None:
    """With one field deleted or replaced, the fast path declines or agrees, in every
    spelling; it never scores what the Python path rejects."""
    for _, raw in spellings(document):
        assert_same_or_declined(raw, catalog, Policy())


@PROFILE
@given(document=observations(), seed=st.integers(0, 2**32 - 1))
def test_another_field_order_takes_the_fast_path_and_agrees(
    document: dict[str, Any], seed: int, catalog: Catalog
) -> None:
    """Fields in any order are scored in C, with the result of the runners' order."""
    shuffled = shuffle_keys(json.loads(runner_line(document)), random.Random(seed))
    raw = json.dumps(shuffled, separators=(",", ":")).encode()
    assert assert_same_or_declined(raw, catalog, Policy())
    assert fast_path(raw, catalog, Policy()) == fast_path(runner_line(document), catalog, Policy())


@pytest.mark.parametrize(
    "mutation",
    [
        pytest.param(
            lambda text: text.replace(b'"candidateId":"', b'"candidateId":" '), id="space"
        ),
        pytest.param(lambda text: text.replace(b":", b": ", 1), id="whitespace"),
        pytest.param(lambda text: text.replace(b"}", b',"extra":1}', 1), id="unknown-field"),
        pytest.param(lambda text: text[:-1] + b',"caseId":"final-response"}', id="repeated-key"),
        pytest.param(
            lambda text: text.replace(b'"checks":[{', b'"checks":[{"x":1,', 1), id="extra"
        ),
    ],
)
def test_edited_sample_lines_are_declined_or_agree(mutation: Any, catalog: Catalog) -> None:
    """Hand edits that make a line no longer plain or valid are declined or give equal output."""
    path = next((ROOT / "observations").rglob("*.jsonl"))
    for line in path.read_bytes().splitlines()[:40]:
        edited = mutation(line)
        assert edited != line
        assert_same_or_declined(edited, catalog, Policy())


# (observed, budget, the fast path answers): spellings the C code makes itself (integers
# JavaScript holds exactly, doubles repr writes without an exponent) and the ones it asks jsformat
# for (exponents, -0). Integers past 2**53 are declined before scoring.
OVER_BUDGET = [
    (180001, 180000, True),
    (2**53, 2**53 - 1, True),
    (2**53 + 2, 2**53, False),
    (10**22, 10**21, False),
    (0.6749, 0.5, True),
    (1e-7, 0, True),
    (1.5e-5, 1e-5, True),
    (1.2345678901234568e20, 1e20, True),
    (1e21, 1e16, True),
    (5, -0.0, True),
    (1, -5, True),
]


@pytest.mark.parametrize(
    ("observed", "limit", "answered"), OVER_BUDGET, ids=[repr(case[:2]) for case in OVER_BUDGET]
)
def test_numbers_over_budget_are_spelt_as_the_general_path_spells_them(
    observed: float, limit: float, answered: bool, catalog: Catalog
) -> None:
    """Every efficiency metric over its budget names both numbers in a reason, however the
    producer spells them."""
    document = json.loads(_sample_lines()[0])
    names = ("latencyMs", "totalTokens", "costUsd", "attempts")
    document["base"]["efficiency"] = dict.fromkeys(names, observed)
    document["base"]["budget"] = {f"max{name[0].upper()}{name[1:]}": limit for name in names}
    for producer, raw in spellings(document):
        expected = general_path(raw, catalog, Policy())
        assert not isinstance(expected, InputError)
        assert expected[0].count("exceeds budget") == 4
        assert assert_same_or_declined(raw, catalog, Policy()) is answered, producer


def test_secret_shaped_candidate_is_declined(catalog: Catalog) -> None:
    """Ids are checked for secrets before the fast path writes them; the Python path rejects."""
    line = next((ROOT / "observations").rglob("*.jsonl")).read_bytes().splitlines()[0]
    document = json.loads(line)
    document["candidateId"] = "sk-" + "a" * 24
    raw = runner_line(document)
    assert fast_path(raw, catalog, Policy()) is None
    rejected = general_path(raw, catalog, Policy())
    assert isinstance(rejected, InputError)
    assert rejected.rule == "secret_in_identifier"


def _sample_lines() -> list[bytes]:
    return next((ROOT / "observations").rglob("*.jsonl")).read_bytes().splitlines()


def _text_and_summary(chunk: Any, scorer: Any) -> tuple[list[Any], str]:
    """A chunk's jsonl output with runs of text joined, errors as records, and its summary."""
    items, summary = scorer.text(chunk)
    joined: list[Any] = []
    for item in items:
        if isinstance(item, str) and joined and isinstance(joined[-1], str):
            joined[-1] += item
        else:
            joined.append(item if isinstance(item, str) else item.to_record())
    return joined, summary.line()


PRODUCERS = {"runner": runner_line, **WRITERS}


def _mixed_block(producer: str = "runner") -> bytes:
    """26 plain sample lines, as ``producer`` writes them, after a byte order mark, CRLF, blank
    and whitespace-only lines, broken JSON, an unknown field and a secret-shaped candidate id."""
    write = PRODUCERS[producer]
    lines = [write(json.loads(line)) for line in _sample_lines()[:30]]
    secret = json.loads(lines[3])
    secret["candidateId"] = "sk-" + "b" * 24
    return b"\n".join(
        [
            b"\xef\xbb\xbf" + lines[0],
            lines[1] + b"\r",
            b"",
            b" \t ",
            b"{not json",
            lines[2].replace(b"}", b',"extra":1}', 1),
            write(secret),
            *lines[4:],
            b"",
        ]
    )


@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("first_line", [1, 41])
def test_a_block_with_lines_to_decline_equals_the_general_path(
    first_line: int, producer: str, monkeypatch: pytest.MonkeyPatch, catalog: Catalog
) -> None:
    """A block mixing plain lines with blank, CRLF, broken, unknown-field and secret-shaped
    lines (and a byte order mark) gives the general path's text, errors, line numbers and
    summary."""
    block = _mixed_block(producer)
    chunk = Chunk("t.jsonl", BundleInfo(id=BUNDLE, kind="override"), block, first_line)
    compiled = ChunkScorer(catalog, Policy(), "jsonl")
    assert compiled.fast is not None
    fast = _text_and_summary(chunk, compiled)
    monkeypatch.setattr(compiled, "fast", None)
    general = _text_and_summary(chunk, compiled)
    assert fast == general
    rules = [item["rule"] for item in fast[0] if isinstance(item, dict)]
    # Broken JSON and the secret-shaped id; a BOM is only skipped at the start of a file.
    assert len(rules) == (2 if first_line == 1 else 3)


def _rows_and_summary(chunk: Any, scorer: Any) -> tuple[list[Any], str]:
    """A chunk's aggregation rows (NaN spelt out, with each value's type), errors as records,
    and its summary."""
    items, summary = scorer.rows(chunk)
    shown: list[Any] = []
    for item in items:
        if isinstance(item, InputError):
            shown.append(item.to_record())
            continue
        key, row = item
        shown.append((key, [("nan" if value != value else value, type(value)) for value in row]))
    return shown, summary.line()


def rows_of(raw: bytes, catalog: Catalog, policy: Policy) -> tuple[list[Any], list[Any]]:
    """The rows of one plain line through the fast path (the C code made its row: it did not
    decline it) and through the general path."""
    chunk = Chunk("t.jsonl", BundleInfo(id=BUNDLE, kind="override"), raw, 1)
    scorer = ChunkScorer(catalog, policy, ROWS_FORMAT)
    assert scorer.fast is not None
    pieces, _ = scorer.fast.score_rows(raw, 1, BUNDLE, {}, 0)
    assert [len(piece) for piece in pieces] == [3]  # a row, not a declined line
    fast = _rows_and_summary(chunk, scorer)
    scorer.fast = None
    return fast[0], _rows_and_summary(chunk, scorer)[0]


@PROFILE
@given(data=st.data())
def test_rows_of_generated_observations_equal_the_general_path_rows(
    data: st.DataObject, catalog: Catalog
) -> None:
    """Parquet rows made from the C scorecard equal the general path's, value and type, in
    every producer's spelling."""
    document = data.draw(audited_observations(catalog))
    policy = data.draw(policies())
    for producer, raw in spellings(document):
        assert fast_path(raw, catalog, policy) is not None, producer  # C scored it
        # With the audit gating, the row's gate is the effective one: failed findings fail it.
        for audited in (policy, dataclasses.replace(policy, audit_gate=True)):
            fast, general = rows_of(raw, catalog, audited)
            assert fast == general
            assert len(fast) == 1


@pytest.mark.parametrize("row", SCORED[::7], ids=[row["id"] for row in SCORED[::7]])
def test_rows_of_conformance_observations_equal_the_general_path_rows(
    row: dict[str, Any], catalog: Catalog
) -> None:
    """Every seventh scored conformance row, as a Parquet row, in every spelling: the same
    either way."""
    for producer, raw in spellings(row["observation"]):
        assert fast_path(raw, catalog, Policy()) is not None, producer  # C scored it
        fast, general = rows_of(raw, catalog, Policy())
        assert fast == general


def test_rows_of_ids_holding_unicode_line_separators_equal_the_general_path_rows(
    catalog: Catalog,
) -> None:
    """JSON leaves U+2028, U+2029 and U+0085 raw in a scorecard line: they do not end it."""
    document = json.loads(_sample_lines()[0])
    document["candidateId"] = "codex\u2028luna\u2029\x85x"
    for producer, raw in spellings(document):
        assert fast_path(raw, catalog, Policy()) is not None, producer  # C scored it
        fast, general = rows_of(raw, catalog, Policy())
        assert fast == general
        assert len(fast) == 1


@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("first_line", [1, 41])
def test_a_block_with_lines_to_decline_gives_the_general_path_rows(
    first_line: int, producer: str, catalog: Catalog
) -> None:
    """Rows of plain lines (from C) and of declined lines (general path) keep their places
    among blank, CRLF, broken and secret-shaped lines; errors keep their line numbers."""
    block = _mixed_block(producer)
    chunk = Chunk("t.jsonl", BundleInfo(id=BUNDLE, kind="override"), block, first_line)
    scorer = ChunkScorer(catalog, Policy(), ROWS_FORMAT)
    assert scorer.fast is not None
    fast = _rows_and_summary(chunk, scorer)
    scorer.fast = None
    assert fast == _rows_and_summary(chunk, scorer)
    # 30 sample lines, less the secret-shaped one and, past a file's start, the one after a BOM.
    assert sum(isinstance(item, tuple) for item in fast[0]) == 29 - (first_line != 1)


@pytest.mark.parametrize("workers", [1, 2])
def test_parquet_rows_of_the_samples_are_the_same_without_the_extension(
    workers: int, monkeypatch: pytest.MonkeyPatch, catalog: Catalog
) -> None:
    """The sample bundles (with candidate manifests: model and tier) as rows, numbered: the
    same values, types and summary with the extension and without."""

    def run() -> tuple[list[Any], str]:
        summary = RunSummary()
        rows = score_rows_parallel(
            [str(ROOT / "observations")],
            catalog=catalog,
            policy=Policy(),
            workers=workers,
            summary=summary,
            chunk_bytes=1 << 16,
        )
        shown = [
            [("nan" if value != value else value, type(value)) for value in row]
            for row in rows
            if not isinstance(row, InputError)
        ]
        return shown, summary.line()

    compiled = run()
    monkeypatch.setattr(fastpath, "_fastscore", None)
    assert run() == compiled
    assert len(compiled[0]) == 560
    assert any(row[3][0] is not None for row in compiled[0])  # a model from a manifest


def test_a_line_the_decoder_rejects_is_declined(catalog: Catalog) -> None:
    """Text that is not an observation at all comes back for the general path, counted nowhere."""
    scorer = fastpath.fast_scorer(catalog, Policy())
    assert scorer is not None
    assert scorer.score_block(b"[1, 2]\n\n{}", 7, BUNDLE) == (
        [(7, b"[1, 2]"), (9, b"{}")],
        (0, 0, 0, 0),
    )


_INTEGER_FIELDS = (
    ("metrics", "attempts"),
    ("metrics", "toolCount"),
    ("traceLineage", "frameCount"),
    ("traceLineage", "byteCount"),
    ("lifecycle", "attempts"),
    ("presentation", "commentCount"),
)


@pytest.mark.parametrize(("part", "name"), _INTEGER_FIELDS)
def test_an_integral_float_is_declined_by_c_and_scored_as_its_integer(
    part: str, name: str, catalog: Catalog
) -> None:
    """JSON Schema counts 1.0 as an integer: C declines the line (its decoder holds ints only)
    and the general path scores it exactly as the integer: line, counts and row."""
    document = json.loads(_sample_lines()[0])
    whole = runner_line(document)
    spelt = f'"{name}":{document[part][name]}'.encode()
    assert whole.count(spelt) >= 1
    text = json.dumps(document[part], separators=(",", ":")).encode()
    floated = text.replace(spelt, f'"{name}":{float(document[part][name])}'.encode())
    raw = whole.replace(text, floated)
    assert raw != whole
    assert fast_path(raw, catalog, Policy()) is None
    assert general_path(raw, catalog, Policy()) == general_path(whole, catalog, Policy())
    chunk = Chunk("t.jsonl", BundleInfo(id=BUNDLE, kind="override"), raw, 1)
    scorer = ChunkScorer(catalog, Policy(), ROWS_FORMAT)
    floated_rows = _rows_and_summary(chunk, scorer)
    assert floated_rows == _rows_and_summary(dataclasses.replace(chunk, block=whole), scorer)


def test_a_policy_doubles_cannot_hold_exactly_has_no_plan() -> None:
    """Weights beyond 2**53 would round in C arithmetic; such policies take the Python path."""
    policy = Policy.from_overrides({"semantic_outcome": 2**60})
    assert fastpath.policy_plan(policy) is None
    assert fastpath.policy_plan(Policy()) is not None


def test_output_is_the_same_without_the_extension(
    monkeypatch: pytest.MonkeyPatch, catalog: Catalog
) -> None:
    """Where the extension is missing, every record takes the Python path: same text, same
    summary."""

    def run() -> tuple[str, str]:
        summary = RunSummary()
        pieces = score_text(
            [str(ROOT / "observations")],
            catalog=catalog,
            policy=Policy(),
            workers=1,
            summary=summary,
        )
        return "".join(piece for piece in pieces if isinstance(piece, str)), summary.line()

    compiled = run()
    monkeypatch.setattr(fastpath, "_fastscore", None)
    assert fastpath.fast_scorer(catalog, Policy()) is None
    assert run() == compiled
    assert compiled[0].count("\n") == 560


# ---------------------------------------------------------------------------------------------
# What the general path's strict parser objects to, or reads otherwise than msgspec, is declined
# in every spelling, and the general path then gives what it always gave: the located error, or
# the scorecard the reference gives.

_MARK = "@@marked@@"
_WIRE_LINE = next(
    line
    for path in sorted((ROOT / "observations").rglob("*.jsonl"))
    for line in path.read_bytes().splitlines()
    if b'"semantic_tool":{' in line
)


def _marked(document: dict[str, Any], where: tuple[str | int, ...], key: bytes | None) -> None:
    """Puts the marker at ``where``: as its value, or, to stand for ``key`` (a JSON string),
    as a new key of the object there with the value ``key`` has in it."""
    parent: Any = document
    for token in where if key is not None else where[:-1]:
        parent = parent[token]
    if key is not None:
        parent[_MARK] = parent.get(json.loads(key), "marked")
    else:
        parent[where[-1]] = _MARK


# (id, the line, where the marker goes and whether it is a key, its replacement, what the general
# path gives: ("error", rule, pointer) or ("scored", a reason it writes or None)).
STRICTNESS: list[tuple[str, bytes, tuple[str | int, ...], bool, bytes, tuple[Any, ...]]] = [
    ("repeated top-level key", b"", (), True, b'"caseId"', ("error", "duplicate_key", "/caseId")),
    (
        "repeated key in base.trace",
        b"",
        ("base", "trace"),
        True,
        b'"terminalPresent"',
        ("error", "duplicate_key", "/base/trace/terminalPresent"),
    ),
    (
        "repeated key in a check",
        b"",
        ("lifecycle", "checks", 0),
        True,
        b'"id"',
        ("error", "duplicate_key", "/lifecycle/checks/0/id"),
    ),
    (
        "repeated key in a wire event payload",
        _WIRE_LINE,
        ("base", "trace", "wireEvents", 0, "payload", "semantic_tool"),
        True,
        b'"phase"',
        ("error", "duplicate_key", "/base/trace/wireEvents/0/payload/semantic_tool/phase"),
    ),
    (
        "repeated key spelt with an escape",
        b"",
        (),
        True,
        b'"\\u0063ase\\u0049d"',
        ("error", "duplicate_key", "/caseId"),
    ),
    *(
        (
            f"{spelling.decode()} in efficiency",
            b"",
            ("base", "efficiency", "latencyMs"),
            False,
            spelling,
            ("error", "non_finite_number", "/base/efficiency/latencyMs"),
        )
        for spelling in (b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1.5E+309")
    ),
    (
        "integer past 2**53 in efficiency",
        b"",
        ("base", "efficiency", "latencyMs"),
        False,
        b"9007199254740993",
        ("scored", "latencyMs 9007199254740992 exceeds budget 180000"),
    ),
    (
        "integer past 2**64 in a payload",
        _WIRE_LINE,
        ("base", "trace", "wireEvents", 0, "payload", "sequence"),
        False,
        b"-18446744073709551617",
        ("scored", None),
    ),
    *(
        (
            f"lone surrogate escape {spelling.decode()}",
            b"",
            ("candidateId",),
            False,
            b'"codex-' + spelling + b'"',
            # Refused where JSON is read (README, hostile input): no UTF-8 output can hold it.
            ("error", "lone_surrogate", "/candidateId"),
        )
        for spelling in (b"\\ud800", b"\\uDC00luna", b"\\ud83d\\u0041", b"\\ud83d\\ud83d")
    ),
    (
        "invalid UTF-8",
        b"",
        ("candidateId",),
        False,
        b'"codex-\xff"',
        ("error", "invalid_utf8", ""),
    ),
    (
        "an encoded surrogate (invalid UTF-8)",
        b"",
        ("presentation", "checks", 0, "reason"),
        False,
        b'"\xed\xa0\xbd"',
        ("error", "invalid_utf8", ""),
    ),
    (
        "nesting 300 deep",
        b"",
        ("base", "provenance", "nested"),
        False,
        b"[" * 300 + b"]" * 300,
        ("scored", None),
    ),
]


def _strictness_lines(
    line: bytes, where: tuple[str | int, ...], key: bool, raw: bytes
) -> Iterator[tuple[str, bytes]]:
    """``line`` (a sample line if empty) in every spelling with ``raw`` at ``where``."""
    document = json.loads(line or _sample_lines()[0])
    _marked(document, where, raw if key else None)
    escaped_mark = WRITERS["escaped"]([_MARK])[1:-1].strip()
    for producer, text in spellings(document):
        marked = text.replace(json.dumps(_MARK).encode(), raw).replace(escaped_mark, raw)
        assert marked != text, producer
        yield producer, marked


@pytest.mark.parametrize(
    ("line", "where", "key", "raw", "expected"),
    [case[1:] for case in STRICTNESS],
    ids=[case[0] for case in STRICTNESS],
)
def test_what_the_strict_parser_objects_to_is_declined_and_the_general_path_answers(
    line: bytes,
    where: tuple[str | int, ...],
    key: bool,
    raw: bytes,
    expected: tuple[Any, ...],
    monkeypatch: pytest.MonkeyPatch,
    catalog: Catalog,
) -> None:
    """A repeated key at any depth, NaN and Infinity, numbers past a double's range, integers
    JavaScript does not hold exactly, lone surrogate escapes, invalid UTF-8 and deep nesting
    are declined in every spelling; the general path gives its located error or its scorecard,
    also in a block among plain lines."""
    for producer, marked in _strictness_lines(line, where, key, raw):
        assert fast_path(marked, catalog, Policy()) is None, producer
        general = general_path(marked, catalog, Policy())
        if expected[0] == "error":
            assert isinstance(general, InputError), producer
            assert (general.rule, general.pointer) == expected[1:], producer
        else:
            assert not isinstance(general, InputError), producer
            assert expected[1] is None or expected[1] in general[0]
        plain = _sample_lines()[1]
        block = b"\n".join([plain, marked, plain])
        chunk = Chunk("t.jsonl", BundleInfo(id=BUNDLE, kind="override"), block, 1)
        compiled = ChunkScorer(catalog, Policy(), "jsonl")
        fast = _text_and_summary(chunk, compiled)
        monkeypatch.setattr(compiled, "fast", None)
        assert fast == _text_and_summary(chunk, compiled)


def test_a_repeated_key_is_the_scanners_to_decline(catalog: Catalog) -> None:
    """msgspec alone would read a line with a repeated key (keeping the last value) into a valid
    observation: the scanner is what declines it."""
    for producer, marked in _strictness_lines(b"", ("base", "trace"), True, b'"terminalPresent"'):
        assert isinstance(OBSERVATION_DECODER.decode(marked), PlainObservation), producer
        assert fast_path(marked, catalog, Policy()) is None


def test_trailing_text_is_declined_and_the_general_path_reports_it(catalog: Catalog) -> None:
    """Text after the observation is malformed JSON for the general path, whoever wrote it."""
    for producer, raw in spellings(json.loads(_sample_lines()[0])):
        for tail in (b" x", b"{}", b",", b"\x00"):
            assert fast_path(raw + tail, catalog, Policy()) is None, producer
            general = general_path(raw + tail, catalog, Policy())
            assert isinstance(general, InputError)
            assert general.rule == "malformed_json"


def test_the_row_plan_follows_the_column_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The C code fills the columns of ``ROW_COLUMNS`` in their order, and a column it cannot
    fill stops the plan instead of leaving a hole in every row."""
    from scorecard.contract._record import ROW_COLUMNS, Column

    plan = fastpath.row_plan()
    assert len(plan) == len(ROW_COLUMNS)
    by_name = dict(zip((column.name for column in ROW_COLUMNS), plan, strict=True))
    assert by_name["score_semantic_outcome"] == (8, DIMENSIONS.index("semantic_outcome"))
    assert by_name["passed_hard_invariants"] == (9, DIMENSIONS.index("hard_invariants"))
    assert by_name["cost_usd"] == (13, "costUsd")
    assert by_name["tool_count"] == (14, "toolCount")
    extra = Column("reviewer", "label", "/reviewer")
    monkeypatch.setattr(fastpath, "ROW_COLUMNS", (*ROW_COLUMNS, extra))
    with pytest.raises(LookupError, match="reviewer"):
        fastpath.row_plan()
