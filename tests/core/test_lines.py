"""Output lines assembled from the record's shape equal the general serialiser's, byte for byte."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorecard.contract._bundles import BundleInfo
from scorecard.contract._catalog import Catalog
from scorecard.contract._jsformat import js_json
from scorecard.contract._policy import Policy
from scorecard.contract._secrets import redact
from scorecard.core._lines import json_scalar, scorecard_line
from scorecard.core._record import ScoredRecord, record_line
from scorecard.engine._io import RawRecord
from scorecard.engine._pipeline import score_paths_serially, score_record
from tests.conftest import ROOT, conformance_rows
from tests.strategies import observations

PROFILE = settings(
    max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
HOSTILE_TEXT = st.text() | st.sampled_from(
    [
        "sk-" + "A" * 24,
        "Bearer abcdefghijklmnopqrstuvwxyz",
        "\ud800 lone",
        'quote " and \\ backslash',
        "\x00\x1f\x7f\u2028\u2029",
        "é",
    ]
)
NUMBERS = (
    st.floats(allow_nan=False, allow_infinity=False)
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.sampled_from([0.0, -0.0, 1.0, 1e-7, 1e21, 5e-324, 2.0**53, 0.1 + 0.2])
    | st.none()
)


def assert_lines_match(record: ScoredRecord) -> None:
    """Both streaming lines of ``record`` equal ``js_json`` of their JSON data."""
    assert scorecard_line(record.card) == js_json(record.scorecard_json())
    assert record_line(record) == js_json(record.record_json())


def test_sample_lines_match_the_general_serialiser(catalog: Catalog) -> None:
    """Every committed sample observation, with the bundle rosters (model and tier set)."""
    records = [
        result
        for result in score_paths_serially([str(ROOT / "observations")], catalog=catalog)
        if isinstance(result, ScoredRecord)
    ]
    assert len(records) >= 560
    assert any(record.bundle.candidates for record in records)
    for record in records:
        assert_lines_match(record)


def test_conformance_lines_match_the_general_serialiser(catalog: Catalog) -> None:
    """Every reference row the engine scores, failures, audit findings and all."""
    checked = 0
    for row in conformance_rows():
        raw = RawRecord(
            row["observation"], "conformance.jsonl", 1, None, BundleInfo("b", "override")
        )
        result = score_record(raw, catalog=catalog, policy=Policy())
        if isinstance(result, ScoredRecord):
            assert_lines_match(result)
            checked += 1
    assert checked >= 500


@PROFILE
@given(observations(), HOSTILE_TEXT, HOSTILE_TEXT, st.integers(min_value=0, max_value=2**53))
def test_hostile_text_and_numbers_match(
    document: dict[str, Any], reason: str, message: str, tokens: int
) -> None:
    """Secrets, surrogates, control characters and large numbers spelt the same way."""
    document = copy.deepcopy(document)
    for part in ("lifecycle", "presentation"):
        for check in document[part]["checks"]:
            check["passed"] = False
            check["reason"] = reason
    document["metrics"]["totalTokens"] = tokens
    if "failure" in document:
        document["failure"]["message"] = message
    from scorecard.contract._catalog import load_catalog

    raw = RawRecord(document, "x.jsonl", 7, None, BundleInfo("b", "override"))
    result = score_record(raw, catalog=load_catalog(), policy=Policy())
    if isinstance(result, ScoredRecord):
        assert_lines_match(result)


@PROFILE
@given(NUMBERS, NUMBERS, st.lists(HOSTILE_TEXT, max_size=3), HOSTILE_TEXT)
def test_scorecards_of_any_numbers_and_text_match(
    score: Any, weight: Any, reasons: list[str], candidate: str
) -> None:
    """Arbitrary scores, weights, reasons and ids: the line is ``js_json`` of the card."""
    dimension = {
        "dimension": "semantic_outcome",
        "score": score,
        "passed": None,
        "gate": False,
        "weight": weight,
        "reasons": reasons,
    }
    card: Any = {
        "schema": "paperclip.runner.eval-scorecard.v2",
        "bundleId": "b",
        "caseId": "final-response",
        "candidateId": candidate,
        "classification": "completed",
        "dimensions": {"semantic_outcome": dimension, "hard_invariants": dict(dimension)},
        "overall": {"score": score, "gatePassed": True, "passed": False},
    }
    expected = copy.deepcopy(card)
    for item in expected["dimensions"].values():
        item["reasons"] = [redact(reason) for reason in item["reasons"]]
    assert scorecard_line(card) == js_json(expected)


@PROFILE
@given(NUMBERS | HOSTILE_TEXT | st.booleans())
def test_scalars_match(value: Any) -> None:
    """Any JSON scalar is spelt as ``js_json`` spells it."""
    assert json_scalar(value) == js_json(value)


def test_numbering_a_record_changes_only_its_repetition(catalog: Catalog) -> None:
    """``numbered`` is ``dataclasses.replace(record, repetition=n)``, field for field."""
    records = [
        result
        for result in score_paths_serially([str(ROOT / "observations")], catalog=catalog)
        if isinstance(result, ScoredRecord)
    ][:50]
    for record in records:
        assert record.numbered(7) == dataclasses.replace(record, repetition=7)
