"""The compiled fast path gives what the Python path gives, byte for byte, or declines.

The Python path (recogniser, models, ``score_wire``, ``audit_observation``, ``scorecard_line``)
is the definition; ``scorecard.fastpath`` with the C extension is a second implementation of the
usual case. Each test feeds both the same line and compares the output line and the run tally.
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorecard import _fastscore, fastpath
from scorecard.bundles import BundleInfo
from scorecard.catalog import Catalog
from scorecard.errors import InputError
from scorecard.io import parse_line
from scorecard.parallel import score_text
from scorecard.pipeline import RunSummary, Tally, score_record
from scorecard.policy import Policy
from scorecard.recognize import PlainObservation, is_plainly_valid

from .conftest import ROOT, conformance_rows
from .strategies import corrupted, observations

PROFILE = settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
ROWS = conformance_rows()
SCORED = [row for row in ROWS if "error" not in row["expected"]]
REJECTED = [row for row in ROWS if "error" in row["expected"]]
BUNDLE = "local-fastpath"


def runner_line(document: Any) -> bytes:
    """``document`` written as runners write it (compact, their field order), when the
    recogniser accepts it; otherwise compact JSON in the document's own order."""
    try:
        return msgspec.json.encode(msgspec.convert(document, PlainObservation, strict=True))
    except (msgspec.ValidationError, TypeError):
        return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()


def general_path(
    raw: bytes, catalog: Catalog, policy: Policy, bundle_id: str = BUNDLE
) -> tuple[Tally, str] | InputError:
    """What the Python path makes of one JSON Lines record."""
    bundle = BundleInfo(id=bundle_id, kind="override")
    record = parse_line(raw, number=1, source="t.jsonl", bundle=bundle)
    result = score_record(record, catalog=catalog, policy=policy)
    if isinstance(result, InputError):
        return result
    return result.tally(), result.render("jsonl")


def fast_path(
    raw: bytes, catalog: Catalog, policy: Policy, bundle_id: str = BUNDLE
) -> tuple[Tally, str] | None:
    scorer = fastpath.fast_scorer(catalog, policy)
    assert scorer is not None
    return scorer.score(raw, bundle_id)


def assert_same_or_declined(raw: bytes, catalog: Catalog, policy: Policy) -> bool:
    """The fast path equals the Python path or declines; True when it answered."""
    fast = fast_path(raw, catalog, policy)
    if fast is None:
        return False
    assert fast == general_path(raw, catalog, policy)
    return True


def test_the_extension_is_built() -> None:
    """Installing the project compiles the C extension (CI machines have a C compiler)."""
    assert fastpath.compiled()


@pytest.mark.parametrize("row", SCORED, ids=[row["id"] for row in SCORED])
def test_conformance_row_takes_the_fast_path_and_equals_the_reference(
    row: dict[str, Any], catalog: Catalog
) -> None:
    """Every scored row the recogniser accepts is scored by the C extension, equal to the
    reference scorecard (floats exact) and to the Python path's line and tally."""
    policy = Policy.from_overrides(
        row["options"].get("weights"),
        row["options"].get("thresholds"),
        require_positive_total=False,
    )
    if not is_plainly_valid(row["observation"]):
        pytest.skip("carries unknown fields: the Python path reports them")
    raw = runner_line(row["observation"])
    fast = fast_path(raw, catalog, policy, row["bundleId"])
    assert fast is not None
    assert json.loads(fast[1]) == row["expected"]
    assert fast == general_path(raw, catalog, policy, row["bundleId"])


def test_most_conformance_rows_are_plain() -> None:
    """The skip above is the exception: nearly every scored row exercises the fast path."""
    plain = sum(is_plainly_valid(row["observation"]) for row in SCORED)
    assert plain >= 500


@pytest.mark.parametrize("row", REJECTED, ids=[row["id"] for row in REJECTED])
def test_broken_row_never_takes_the_fast_path(row: dict[str, Any], catalog: Catalog) -> None:
    """A row the reference rejects is declined, so the Python path reports its error."""
    raw = runner_line(row["observation"])
    assert fast_path(raw, catalog, Policy()) is None
    assert isinstance(general_path(raw, catalog, Policy()), InputError)


def test_every_sample_observation_takes_the_fast_path(catalog: Catalog) -> None:
    """The sample bundles are written in runner order, and all 560 lines are scored in C."""
    lines = [
        line
        for path in sorted((ROOT / "observations").rglob("*.jsonl"))
        for line in path.read_bytes().splitlines()
    ]
    assert len(lines) == 560
    assert all(assert_same_or_declined(line, catalog, Policy()) for line in lines)


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
    weights = {
        name: draw(st.integers(0, 5) | st.floats(0, 10, allow_nan=False, allow_infinity=False))
        for name in (
            "semantic_outcome",
            "trajectory_restraint",
            "trace_completeness",
            "quality_efficiency",
            "continuation_integrity",
            "presentation_fidelity",
        )
        if draw(st.booleans())
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
    """Valid observations with audit evidence, under generated policies: the fast path
    answers, with the Python path's line and tally (audit failures included)."""
    document = data.draw(audited_observations(catalog))
    policy = data.draw(policies())
    assert assert_same_or_declined(runner_line(document), catalog, policy)


@PROFILE
@given(document=corrupted())
def test_corrupted_observations_are_declined_or_agree(
    document: dict[str, Any], catalog: Catalog
) -> None:
    """With one field deleted or replaced, the fast path declines or agrees; it never scores
    what the Python path rejects."""
    assert_same_or_declined(runner_line(document), catalog, Policy())


@PROFILE
@given(document=observations(), seed=st.integers(0, 2**32 - 1))
def test_another_field_order_is_declined_or_agrees(
    document: dict[str, Any], seed: int, catalog: Catalog
) -> None:
    """Fields in another order than the runners' give the same result (usually by declining)."""
    shuffled = _shuffled(json.loads(runner_line(document)), random.Random(seed))
    assert_same_or_declined(json.dumps(shuffled, separators=(",", ":")).encode(), catalog, Policy())


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: _shuffled(item, rng) for key, item in items}
    if isinstance(value, list):
        return [_shuffled(item, rng) for item in value]
    return value


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


def test_score_line_declines_what_is_not_a_recognised_observation(catalog: Catalog) -> None:
    """The C function returns None for a plain dict instead of guessing."""
    line = next((ROOT / "observations").rglob("*.jsonl")).read_bytes().splitlines()[0]
    plan = fastpath.case_plan(catalog["final-response"])
    policy = fastpath.policy_plan(Policy())
    assert policy is not None
    assert _fastscore.score_line(json.loads(line), plan, policy, "{") is None


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
