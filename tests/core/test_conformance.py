"""Parity with the reference paperclip scorer: every conformance row, floats exact, through the
model-level API and through each engine (the Python general path and the C fast path)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scorecard.contract._bundles import eval_bundle_id, parse_manifest
from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError, ObservationError
from scorecard.contract._jsformat import js_json
from scorecard.contract._policy import Policy
from scorecard.contract._secrets import matches_reference_secret
from scorecard.core._scoring import score_observation
from scorecard.core._validation import accept_observation, validate_observation
from tests.conftest import (
    CONFORMANCE,
    Engine,
    assert_valid_scorecard,
    conformance_rows,
    general_path,
    must_be_scored_in_c,
    runner_line,
)

ROWS = conformance_rows()
SCORED = [row for row in ROWS if "error" not in row["expected"]]
REJECTED = [row for row in ROWS if "error" in row["expected"]]
# The rule each deliberately broken row must be rejected for, by the suffix of its id.
RULE_BY_SUFFIX = {
    "invalid-schema": "unsupported_schema",
    "invalid-case": "unknown_case_id",
    "invalid-blank-candidate": "blank_candidate_id",
    "invalid-empty-checks": "empty_checks",
    "invalid-dup-check": "duplicate_check_id",
    "invalid-no-failure": "failure_required",
    "invalid-secret-sk": "secret_in_failure_message",
    "invalid-secret-bearer": "secret_in_failure_message",
}


def _policy(options: dict[str, Any]) -> Policy:
    # The reference accepts weights summing to zero (overall score 0); conformance does too.
    return Policy.from_overrides(
        options.get("weights"), options.get("thresholds"), require_positive_total=False
    )


def test_the_table_covers_scored_and_rejected_rows() -> None:
    """The conformance file has 600 rows, 537 scored and 63 rejected."""
    assert (len(ROWS), len(SCORED), len(REJECTED)) == (600, 537, 63)


@pytest.mark.parametrize("row", SCORED, ids=[row["id"] for row in SCORED])
def test_scorecard_equals_reference(row: dict[str, Any], catalog: Catalog) -> None:
    """The scorecard, serialised and parsed back, deep-equals the reference, floats exact."""
    observation = validate_observation(row["observation"])
    card = score_observation(
        observation,
        catalog[observation.case_id],
        bundle_id=row["bundleId"],
        policy=_policy(row["options"]),
    )
    written = json.loads(js_json(card.model_dump(by_alias=True)))
    assert written == row["expected"]
    assert list(written["dimensions"]) == list(row["expected"]["dimensions"])
    assert_valid_scorecard(written)


@pytest.mark.parametrize("row", SCORED, ids=[row["id"] for row in SCORED])
def test_each_engine_writes_the_reference_scorecard(
    row: dict[str, Any], catalog: Catalog, engine: Engine
) -> None:
    """What `scorecard score` writes for the row, in Python and in C (the recogniser, the wire
    scorer or its C twin, JS numbers), parsed back, deep-equals the reference, floats exact."""
    scored = engine.score_line(
        runner_line(row["observation"]), catalog, _policy(row["options"]), row["bundleId"]
    )
    assert not isinstance(scored, InputError)
    written = json.loads(scored[0])
    assert written == row["expected"]
    assert list(written["dimensions"]) == list(row["expected"]["dimensions"])


@pytest.mark.parametrize("row", REJECTED, ids=[row["id"] for row in REJECTED])
def test_each_engine_rejects_the_broken_row_for_its_rule(
    row: dict[str, Any], catalog: Catalog, engine: Engine
) -> None:
    """A row the reference rejects gives no scorecard in either engine, but its rule's error."""
    suffix = next(key for key in RULE_BY_SUFFIX if row["id"].endswith(key))
    rejected = engine.score_line(runner_line(row["observation"]), catalog, Policy())
    assert isinstance(rejected, InputError)
    assert rejected.rule == RULE_BY_SUFFIX[suffix]


def test_nearly_every_scored_row_is_one_the_c_engine_must_score(catalog: Catalog) -> None:
    """The C engine falls back to Python only for the few rows with unknown fields."""
    must = [
        must_be_scored_in_c(
            raw := runner_line(row["observation"]),
            _policy(row["options"]),
            general_path(raw, catalog, _policy(row["options"]), row["bundleId"]),
        )
        for row in SCORED
    ]
    assert sum(must) >= 500


@pytest.mark.parametrize("row", REJECTED, ids=[row["id"] for row in REJECTED])
def test_broken_observation_is_rejected_for_its_rule(row: dict[str, Any]) -> None:
    """Each broken row is rejected naming the rule it breaks, without echoing secrets."""
    suffix = next(key for key in RULE_BY_SUFFIX if row["id"].endswith(key))
    with pytest.raises(ObservationError) as raised:
        validate_observation(row["observation"])
    assert raised.value.rule == RULE_BY_SUFFIX[suffix]
    with pytest.raises(ObservationError) as hot:
        accept_observation(row["observation"])
    assert (hot.value.rule, hot.value.pointer) == (raised.value.rule, raised.value.pointer)
    assert not matches_reference_secret(str(raised.value))
    message = row["observation"].get("failure", {}).get("message", "")
    if matches_reference_secret(message):
        assert message not in str(raised.value)


def test_parity_check_notices_a_single_ulp() -> None:
    """Deep equality with == distinguishes neighbouring doubles, so parity is bit for bit."""
    value = 0.8708333333333332
    assert json.loads(js_json({"score": value}))["score"] == value
    assert json.loads(js_json({"score": value + 1.1e-16}))["score"] != value


BUNDLE_ROWS = [
    json.loads(line) for line in (CONFORMANCE / "bundle-ids.jsonl").read_text("utf-8").splitlines()
]


@pytest.mark.parametrize("row", BUNDLE_ROWS, ids=[row["id"] for row in BUNDLE_ROWS])
def test_bundle_id_equals_reference(row: dict[str, Any]) -> None:
    """The content-addressed id of each eval-bundle manifest equals the reference's."""
    assert parse_manifest(row["bundleText"]).id == row["expected"]["bundleId"]
    assert eval_bundle_id(json.loads(row["bundleText"])) == row["expected"]["bundleId"]
    digest = row["expected"]["evidence"]["contentSha256"]
    assert digest.startswith("sha256:" + row["expected"]["bundleId"][4:])
