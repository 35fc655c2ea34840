"""pydantic errors as located messages: the JSON type seen is named, the value never is."""

from __future__ import annotations

from typing import Any

import pytest

from scorecard.contract import ObservationError, json_type_name
from scorecard.core._validation import validate_observation


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null"),
        (True, "a boolean"),
        (3, "an integer"),
        (3.0, "a number"),
        (3.5, "a number with a fractional part"),
        ("3", "a string"),
        ([3], "an array"),
        ({"n": 3}, "an object"),
    ],
)
def test_every_json_type_has_a_name(value: Any, name: str) -> None:
    """Messages say what kind of value was seen, in JSON's words."""
    assert json_type_name(value) == name


def test_each_problem_of_a_record_is_listed_with_its_pointer(observation: dict[str, Any]) -> None:
    """The first problem locates the error; the others follow in the message, each located."""
    observation["metrics"]["attempts"] = "2"
    observation["metrics"]["toolCount"] = None
    observation["traceLineage"]["capture"] = True
    with pytest.raises(ObservationError) as raised:
        validate_observation(observation)
    error = raised.value
    assert (error.pointer, error.rule) == ("/traceLineage/capture", "invalid_value")
    assert error.message == (
        "observation field: Input should be 'on' or 'off' (got a boolean); also: "
        "/metrics/attempts: expected an integer, got a string; "
        "/metrics/toolCount: null is not allowed here"
    )


def test_many_problems_are_counted_past_the_first_few(observation: dict[str, Any]) -> None:
    """A record wrong everywhere gets a bounded message."""
    for key in list(observation["metrics"]):
        observation["metrics"][key] = "x"
    for key in ("candidateId", "provider", "caseId"):
        observation[key] = 7
    with pytest.raises(ObservationError) as raised:
        validate_observation(observation)
    assert raised.value.message.count("; ") == 6
    assert raised.value.message.endswith("; and 3 more problem(s)")
