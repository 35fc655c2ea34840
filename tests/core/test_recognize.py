"""The fast recogniser is never more lenient than the models."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import ValidationError

from scorecard.contract._models import WorkflowObservation
from scorecard.core._recognize import is_plainly_valid
from tests.conftest import ROOT, conformance_rows
from tests.strategies import corrupted, observations

PROFILE = settings(
    max_examples=300, deadline=2000, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def models_accept(document: Any) -> bool:
    """Whether the pydantic models validate ``document``."""
    try:
        WorkflowObservation.model_validate(document)
    except ValidationError:
        return False
    return True


@PROFILE
@given(corrupted())
def test_whatever_is_recognised_the_models_accept(document: dict[str, Any]) -> None:
    """Soundness on corrupted documents: recognised implies valid (as the readers call it too)."""
    if is_plainly_valid(document) or is_plainly_valid(document, parsed_json=True):
        assert models_accept(document)


@PROFILE
@given(observations())
def test_generated_valid_observations_are_recognised(document: dict[str, Any]) -> None:
    """Completeness on the generator's valid documents: they take the fast path."""
    assert models_accept(document)
    assert is_plainly_valid(document)


def test_the_sample_data_takes_the_fast_path() -> None:
    """Every committed sample observation is recognised without models."""
    paths = sorted((ROOT / "observations").glob("*/observations.jsonl"))
    documents = [json.loads(line) for path in paths for line in path.read_text().splitlines()]
    assert len(documents) >= 560
    assert all(is_plainly_valid(document) for document in documents)


def test_conformance_observations_agree_with_the_models() -> None:
    """On the reference rows, the recogniser accepts exactly the model-valid documents."""
    for row in conformance_rows():
        document = row["observation"]
        if is_plainly_valid(document):
            assert models_accept(document), row["id"]
        elif models_accept(document) and document["schema"].endswith("v1"):
            raise AssertionError(f"{row['id']} is valid but not recognised")


def test_unknown_fields_fall_back_to_the_models(observation: dict[str, Any]) -> None:
    """An extra field is valid but not plain: the models must report it."""
    observation["base"]["trace"]["vendor"] = 1
    assert models_accept(observation)
    assert not is_plainly_valid(observation)


def test_unusual_numbers_fall_back_to_the_models(observation: dict[str, Any]) -> None:
    """A float where an int is required, or a bool where a number is, is not recognised."""
    observation["metrics"]["attempts"] = 1.0
    assert not is_plainly_valid(observation)
    observation["metrics"]["attempts"] = True
    assert not is_plainly_valid(observation)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, True, -1, -0.5])
@pytest.mark.parametrize("field", ["costUsd", "settlementMs"])
def test_numbers_the_models_reject_are_not_recognised(
    observation: dict[str, Any], field: str, value: Any
) -> None:
    """Infinities, NaN, bools and negatives never pass as metric numbers."""
    observation["metrics"][field] = value
    assert not models_accept(observation)
    assert not is_plainly_valid(observation)


@pytest.mark.parametrize("value", [math.inf, math.nan, True, "1"])
def test_efficiency_numbers_the_models_reject_are_not_recognised(
    observation: dict[str, Any], value: Any
) -> None:
    """The same holds for the open-ended numbers of efficiency and budget."""
    observation["base"]["efficiency"] = {"latencyMs": value}
    assert not models_accept(observation)
    assert not is_plainly_valid(observation)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("base", "observedCalls"), ("a", "b")),
        (("base", "observedCalls"), {"a"}),
        (("artifactDigests",), frozenset()),
        (("base", "trace", "receiptIds"), ("r1",)),
    ],
)
def test_python_containers_the_models_refuse_are_not_recognised(
    observation: dict[str, Any], path: tuple[str, ...], value: Any
) -> None:
    """Tuples and sets where lists belong: the models refuse them, so must the recogniser."""
    target = observation
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert not models_accept(observation)
    assert not is_plainly_valid(observation)


def test_parsed_json_is_recognised_without_the_type_walk(observation: dict[str, Any]) -> None:
    """The readers' documents skip the walk and get the same answer."""
    assert is_plainly_valid(observation, parsed_json=True)
    assert is_plainly_valid(observation)
    observation["metrics"]["attempts"] = -1
    assert not is_plainly_valid(observation, parsed_json=True)
