"""Property tests: broken and hostile input never crashes, hangs or leaks; scoring is stable.

Example counts are fixed by the `settings` below (and printed by
`pytest --hypothesis-show-statistics`); the seed is derandomised so CI is reproducible.
"""

from __future__ import annotations

import io
import json
import math
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorecard.contract._bundles import parse_manifest
from scorecard.contract._catalog import Catalog, parse_case
from scorecard.contract._errors import CaseError, InputError, ManifestError
from scorecard.contract._jsformat import js_json
from scorecard.contract._models import ScorecardV2
from scorecard.core._record import ScoredRecord
from scorecard.core._scoring import score_observation
from scorecard.core._validation import validate_observation
from scorecard.engine._pipeline import score_paths_serially
from tests.conftest import ROOT, assert_valid_scorecard
from tests.strategies import corrupted, observations

PROFILE = settings(
    max_examples=200,
    deadline=2000,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
CASE_TEXT = (ROOT / "cases" / "12-trace-lineage.yaml").read_text(encoding="utf-8")


def score_bytes(data: bytes, catalog: Catalog) -> list[ScoredRecord | InputError]:
    """Score JSON Lines bytes as if they came on stdin."""
    return list(score_paths_serially(["-"], catalog=catalog, stdin=io.BytesIO(data)))


@PROFILE
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_crash(catalog: Catalog, data: bytes) -> None:
    """Any byte string yields only scorecards and located errors."""
    for result in score_bytes(data, catalog):
        assert isinstance(result, ScoredRecord | InputError)
        if isinstance(result, InputError):
            assert result.line is not None
            assert result.rule


@PROFILE
@given(corrupted())
def test_corrupted_observations_are_scored_or_rejected_with_a_pointer(
    catalog: Catalog, document: dict[str, Any]
) -> None:
    """One wrong or missing field is either harmless or a located, typed rejection."""
    text = json.dumps(document, allow_nan=True).encode()
    (result,) = score_bytes(text + b"\n", catalog)
    if isinstance(result, InputError):
        assert result.pointer.startswith("/") or result.pointer == ""
        assert result.line == 1
    else:
        assert_valid_scorecard(result.scorecard_json())


@PROFILE
@given(observations())
def test_scorecards_obey_the_invariants(catalog: Catalog, document: dict[str, Any]) -> None:
    """Scores lie in [0, 1], a failed gate zeroes the overall score, passed implies gates."""
    observation = validate_observation(document)
    card = score_observation(observation, catalog[observation.case_id], bundle_id="b")
    written = json.loads(js_json(card.model_dump(by_alias=True)))
    assert_valid_scorecard(written)
    overall = card.overall
    if overall.score is None:
        assert overall.passed is None
        assert overall.gate_passed is None
        return
    assert 0 <= overall.score <= 1
    if not overall.gate_passed:
        assert overall.score == 0
        assert overall.passed is False
    if overall.passed:
        assert all(dimension.passed for dimension in card.dimensions.values())
        assert math.isclose(overall.score, 1)
    assert ScorecardV2.model_validate(written) == card


@PROFILE
@given(st.lists(observations(), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_scoring_is_deterministic_and_order_independent(
    catalog: Catalog, documents: list[dict[str, Any]], shuffler: random.Random
) -> None:
    """Each record's scorecard bytes do not depend on its neighbours or their order."""
    data = b"".join(json.dumps(d).encode() + b"\n" for d in documents)
    first = [
        js_json(r.scorecard_json())
        for r in score_bytes(data, catalog)
        if isinstance(r, ScoredRecord)
    ]
    again = [
        js_json(r.scorecard_json())
        for r in score_bytes(data, catalog)
        if isinstance(r, ScoredRecord)
    ]
    order = list(range(len(documents)))
    shuffler.shuffle(order)
    shuffled = b"".join(json.dumps(documents[i]).encode() + b"\n" for i in order)
    moved = [
        js_json(r.scorecard_json())
        for r in score_bytes(shuffled, catalog)
        if isinstance(r, ScoredRecord)
    ]
    assert first == again
    assert sorted(first) == sorted(moved)
    assert len(first) == len(documents)


@PROFILE
@given(st.data())
def test_corrupted_case_text_only_raises_case_errors(data: st.DataObject) -> None:
    """Truncated or spliced case YAML is a CaseError, never another exception."""
    cut = data.draw(st.integers(0, len(CASE_TEXT)))
    junk = data.draw(st.text(max_size=30))
    text = CASE_TEXT[:cut] + junk + CASE_TEXT[cut:][: data.draw(st.integers(0, 50))]
    problem: CaseError | None = None
    try:
        parse_case(text, source="case.yaml")
    except CaseError as error:
        problem = error
    assert problem is None or problem.source == "case.yaml"


@PROFILE
@given(st.text(max_size=300))
def test_arbitrary_manifest_text_only_raises_manifest_errors(text: str) -> None:
    """Any manifest text is an id or a ManifestError."""
    outcome: str
    try:
        outcome = parse_manifest(text).id
    except ManifestError as error:
        outcome = error.rule
    assert outcome


def test_deep_nesting_is_rejected_not_crashed(catalog: Catalog) -> None:
    """A document nested 100,000 levels deep is a located error, not a RecursionError."""
    (result,) = score_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n", catalog)
    assert isinstance(result, InputError)
    assert result.rule == "too_deep"


def test_deep_payload_inside_a_valid_observation_is_survivable(
    catalog: Catalog, observation: dict[str, Any]
) -> None:
    """Deep but parseable nesting inside an open field is scored or rejected cleanly."""
    text = json.dumps(observation)[:-1] + ', "vendor": ' + "[" * 900 + "]" * 900 + "}"
    (result,) = score_bytes(text.encode() + b"\n", catalog)
    assert isinstance(result, ScoredRecord | InputError)


def test_edge_files_give_clear_results(catalog: Catalog, observation: dict[str, Any]) -> None:
    """Empty input, BOM, CRLF and blank lines are handled; only truly bad lines are errors."""
    line = json.dumps(observation).encode()
    assert score_bytes(b"", catalog) == []
    results = score_bytes(
        b"\xef\xbb\xbf" + line + b"\r\n\r\n   \n" + line[:40] + b"\n" + line, catalog
    )
    kinds = [type(result).__name__ for result in results]
    assert kinds == ["ScoredRecord", "InputError", "ScoredRecord"]
    error = results[1]
    assert isinstance(error, InputError)
    assert (error.line, error.rule) == (4, "malformed_json")


def _existing_prefix_gap(document: Any, pointer: str) -> int:
    """How many trailing tokens of ``pointer`` do not exist in ``document``."""
    tokens = pointer.split("/")[1:]
    node = document
    for position, token in enumerate(tokens):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return len(tokens) - position
    return 0


@PROFILE
@given(observations())
def test_reason_pointers_lead_into_the_observation(
    catalog: Catalog, document: dict[str, Any]
) -> None:
    """Every reason of every dimension points at fields of the observation (or where an absent
    optional value would stand, at most its object and key missing)."""
    from scorecard.core._scoring import raw_dimension_results
    from scorecard.core._validation import accept_observation

    observation, _ = accept_observation(document)
    if observation["classification"] in ("infrastructure_failure", "skipped"):
        return
    for result in raw_dimension_results(observation, catalog[observation["caseId"]]).values():
        for reason in result.reasons:
            assert reason.pointers
            for pointer in reason.pointers:
                assert _existing_prefix_gap(document, pointer) <= 2, (reason.text, pointer)
