"""Observation validation: structure and SCORING.md section 1, located and secret-free."""

from __future__ import annotations

from typing import Any

import pytest

from scorecard.contract._errors import InputError, ObservationError
from scorecard.contract._json import parse_json_document
from scorecard.contract._models import CASE_IDS
from scorecard.core._validation import collect_unknown_fields, validate_observation


def _rejection(document: Any) -> ObservationError:
    with pytest.raises(ObservationError) as raised:
        validate_observation(document)
    return raised.value


def test_a_valid_observation_is_accepted(observation: dict[str, Any]) -> None:
    """The fixture observation validates and keeps its identity."""
    model = validate_observation(observation)
    assert (model.case_id, model.candidate_id) == (
        observation["caseId"],
        observation["candidateId"],
    )


@pytest.mark.parametrize(
    ("path", "rule", "pointer"),
    [
        (("base",), "missing_field", "/base"),
        (("base", "trace"), "missing_field", "/base/trace"),
        (("metrics", "attempts"), "missing_field", "/metrics/attempts"),
        (("traceLineage", "capture"), "missing_field", "/traceLineage/capture"),
    ],
)
def test_a_missing_required_field_is_located(
    observation: dict[str, Any], path: tuple[str, ...], rule: str, pointer: str
) -> None:
    """Removing a required field names it by JSON Pointer."""
    node = observation
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    error = _rejection(observation)
    assert (error.rule, error.pointer) == (rule, pointer)


@pytest.mark.parametrize(
    ("pointer", "value", "rule"),
    [
        ("/base/controlPlaneOwned", "false", "wrong_type"),
        ("/base/observedCalls", "finish_task", "wrong_type"),
        ("/metrics/attempts", "2", "wrong_type"),
        ("/metrics/attempts", 1.5, "wrong_type"),
        ("/metrics/costUsd", -1, "out_of_range"),
        ("/classification", "crashed", "invalid_value"),
        ("/base/finalState/observed", "deleted", "invalid_value"),
        ("/traceLineage/capture", True, "invalid_value"),
        ("/lifecycle/checks/0/passed", 1, "wrong_type"),
        ("/base/trace/runId", None, "null_not_allowed"),
        ("/failure", None, "null_not_allowed"),
        ("/base/efficiency", None, "null_not_allowed"),
    ],
)
def test_a_wrong_value_is_rejected_at_its_pointer(
    observation: dict[str, Any], pointer: str, value: Any, rule: str
) -> None:
    """Wrong types, enums, ranges and nulls are rejected naming the field, never coerced."""
    *parents, last = pointer.strip("/").split("/")
    node: Any = observation
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    node[last] = value
    error = _rejection(observation)
    assert (error.rule, error.pointer) == (rule, pointer)


def test_non_object_input_is_rejected() -> None:
    """A JSON array where an observation should be is a typed error, not a crash."""
    assert _rejection([1, 2]).rule == "wrong_type"


@pytest.mark.parametrize(
    ("mutate", "rule", "pointer"),
    [
        (
            lambda o: o.update(schema="paperclip.runner.workflow-observation.v2"),
            "unsupported_schema",
            "/schema",
        ),
        (lambda o: o.update(caseId="no-such-case"), "unknown_case_id", "/caseId"),
        (lambda o: o.update(candidateId="   "), "blank_candidate_id", "/candidateId"),
        (lambda o: o["continuation"].update(checks=[]), "empty_checks", "/continuation/checks"),
        (
            lambda o: o["presentation"]["checks"].append(dict(o["presentation"]["checks"][0])),
            "duplicate_check_id",
            None,
        ),
        (lambda o: o.update(classification="skipped"), "failure_required", "/failure"),
    ],
)
def test_contract_rules_are_enforced(
    observation: dict[str, Any], mutate: Any, rule: str, pointer: str | None
) -> None:
    """Each rule of SCORING.md section 1 rejects with its own stable rule name."""
    observation.pop("failure", None)
    mutate(observation)
    error = _rejection(observation)
    assert error.rule == rule
    if pointer is None:
        count = len(observation["presentation"]["checks"])
        assert error.pointer == f"/presentation/checks/{count - 1}/id"
    else:
        assert error.pointer == pointer


@pytest.mark.parametrize(
    "message",
    [
        "provider said sk-ABCDEFGHIJKLMNOPQRSTUV",
        "header was Bearer abcdefghijklmnopqrstuvwxyz",
        "BEARER    0123456789abcdef0123",
    ],
)
def test_a_secret_in_the_failure_message_is_rejected_without_echo(
    observation: dict[str, Any], message: str
) -> None:
    """A secret-shaped failure message is rejected and the error text never contains it."""
    observation["failure"] = {
        "code": "provider_unavailable",
        "category": "provider",
        "retryable": True,
        "message": message,
    }
    error = _rejection(observation)
    assert (error.rule, error.pointer) == ("secret_in_failure_message", "/failure/message")
    secret = message.split()[-1]
    assert secret not in str(error)
    assert secret not in repr(error.to_record())


def test_structural_errors_never_quote_the_input(observation: dict[str, Any]) -> None:
    """A secret placed in a wrongly typed field does not appear in the error."""
    secret = "sk-live0123456789abcdefghij"
    observation["metrics"]["attempts"] = secret
    error = _rejection(observation)
    assert error.pointer == "/metrics/attempts"
    assert secret not in str(error)


def test_unknown_fields_are_kept_and_reported(observation: dict[str, Any]) -> None:
    """Observations are open: unknown fields survive validation and become notices."""
    observation["runnerBuild"] = "abc"
    observation["base"]["trace"]["vendorTrace"] = {"x": 1}
    observation["lifecycle"]["checks"][0]["weight"] = 2
    model = validate_observation(observation)
    assert model.model_extra == {"runnerBuild": "abc"}
    assert [notice.pointer for notice in collect_unknown_fields(model)] == [
        "/runnerBuild",
        "/base/trace/vendorTrace",
        "/lifecycle/checks/0/weight",
    ]


def test_a_known_observation_has_no_notices(observation: dict[str, Any]) -> None:
    """A contract-conforming observation yields no unknown-field notices."""
    assert collect_unknown_fields(validate_observation(observation)) == []


@pytest.mark.parametrize(
    ("text", "rule", "pointer"),
    [
        ('{"a": 1, "a": 2}', "duplicate_key", "/a"),
        ('{"a": {"b": [1, {"c": 1, "c": 1}]}}', "duplicate_key", "/a/b/1/c"),
        ('{"a": [1, NaN]}', "non_finite_number", "/a/1"),
        ('{"a": -Infinity}', "non_finite_number", "/a"),
        ('{"a": ', "malformed_json", ""),
        ("", "malformed_json", ""),
    ],
)
def test_json_text_problems_are_located(text: str, rule: str, pointer: str) -> None:
    """Duplicate keys, NaN/Infinity and syntax errors are errors with a line and pointer."""
    with pytest.raises(InputError) as raised:
        parse_json_document(text, source="f.jsonl", line=7)
    assert (raised.value.rule, raised.value.pointer, raised.value.line) == (rule, pointer, 7)


@pytest.mark.parametrize(
    ("case_id", "hint"),
    [
        ("final-responze", "(did you mean final-response?)"),
        ("Trace-Lineage", "(did you mean trace-lineage?)"),
        ("restart_recovery", "(did you mean restart-recovery?)"),
    ],
)
def test_a_near_miss_case_id_gets_a_suggestion(
    observation: dict[str, Any], case_id: str, hint: str
) -> None:
    """An unknown case id close to a catalog id names that id (and never echoes the input)."""
    observation["caseId"] = case_id
    with pytest.raises(ObservationError) as caught:
        validate_observation(observation)
    assert caught.value.rule == "unknown_case_id"
    assert caught.value.message.endswith(hint)
    assert case_id not in caught.value.message


def test_a_far_case_id_lists_the_catalog(observation: dict[str, Any]) -> None:
    """With no close match the message lists every catalog id, in catalog order."""
    observation["caseId"] = "zzz-unrelated"
    with pytest.raises(ObservationError) as caught:
        validate_observation(observation)
    assert caught.value.message.endswith("(known: " + ", ".join(CASE_IDS) + ")")
