"""Parity with the reference paperclip scorer: every conformance row, floats exact."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scorecard.contract._bundles import eval_bundle_id, parse_manifest
from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import ObservationError
from scorecard.contract._jsformat import js_json
from scorecard.contract._policy import Policy
from scorecard.contract._secrets import matches_reference_secret
from scorecard.core._scoring import score_observation, score_wire
from scorecard.core._validation import accept_observation, validate_observation
from tests.conftest import CONFORMANCE, assert_valid_scorecard, conformance_rows

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
def test_the_hot_path_equals_reference(row: dict[str, Any], catalog: Catalog) -> None:
    """What `scorecard score` writes (recogniser, wire scorer, JS numbers) equals the reference."""
    observation, _ = accept_observation(row["observation"])
    card = score_wire(
        observation,
        catalog[observation["caseId"]],
        bundle_id=row["bundleId"],
        policy=_policy(row["options"]),
    )
    assert json.loads(js_json(dict(card))) == row["expected"]


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
