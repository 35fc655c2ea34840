"""The runner output contract of a rejected observation: its ``--errors`` record names the field
(a JSON Pointer), what was expected, what was observed and the ``$id`` of the schema applied;
what was observed is a JSON type, ``missing``, a number or a length, never a string's content."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract import ObservationError
from scorecard.core._validation import accept_observation, validate_observation
from scorecard.engine._run import score_run
from tests.conftest import SCHEMAS

SCHEMA_ID = json.loads((SCHEMAS / "runner-workflow-observation.v1.schema.json").read_text())["$id"]


def _set(document: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.strip("/").split("/")
    node: Any = document
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if value is _DELETE:
        del node[last]
    else:
        node[int(last) if isinstance(node, list) else last] = value


_DELETE = object()

#: (change, pointer, expected, observed), each written out by hand.
CASES: list[tuple[Callable[[dict[str, Any]], None], str, str, str]] = [
    (
        lambda d: _set(d, "/metrics/attempts", "2"),
        "/metrics/attempts",
        "an integer",
        "a string",
    ),
    (
        lambda d: _set(d, "/metrics/attempts", 1.5),
        "/metrics/attempts",
        "an integer",
        "a number with a fractional part",
    ),
    (
        lambda d: _set(d, "/classification", _DELETE),
        "/classification",
        "a value (a required field)",
        "missing",
    ),
    (
        lambda d: _set(d, "/classification", "sk-live-0123456789abcdefghijklmnop"),
        "/classification",
        "one of 'completed', 'candidate_failure', 'infrastructure_failure' or 'skipped'",
        "another string",
    ),
    (lambda d: _set(d, "/metrics/attempts", -1), "/metrics/attempts", "a number >= 0", "-1"),
    (
        lambda d: _set(d, "/caseId", "no-such-case"),
        "/caseId",
        "one of the 12 catalog case ids",
        "another id",
    ),
    (lambda d: _set(d, "/candidateId", "  "), "/candidateId", "a non-blank id", "blank"),
    (
        lambda d: _set(d, "/schema", "paperclip.runner.workflow-observation.v0"),
        "/schema",
        "paperclip.runner.workflow-observation.v1",
        "paperclip.runner.workflow-observation.v0",
    ),
    (
        lambda d: _set(d, "/schema", "Bearer abcdefghijklmnopqrstuvwxyz0123456789"),
        "/schema",
        "paperclip.runner.workflow-observation.v1",
        "a string",
    ),
    (
        lambda d: _set(d, "/schema", _DELETE),
        "/schema",
        "paperclip.runner.workflow-observation.v1",
        "missing",
    ),
    (
        lambda d: _set(d, "/lifecycle/checks", []),
        "/lifecycle/checks",
        "at least one check",
        "an empty array",
    ),
]


@pytest.mark.parametrize(("change", "pointer", "expected", "observed"), CASES)
def test_a_rejected_observation_names_pointer_expected_observed_and_schema(
    observation: dict[str, Any],
    change: Callable[[dict[str, Any]], None],
    pointer: str,
    expected: str,
    observed: str,
) -> None:
    document = copy.deepcopy(observation)
    change(document)
    for validate in (validate_observation, accept_observation):
        with pytest.raises(ObservationError) as caught:
            validate(document)
        record = caught.value.to_record()
        assert (record["pointer"], record["expected"], record["observed"]) == (
            pointer,
            expected,
            observed,
        )
        assert record["schema"] == SCHEMA_ID
        # Travels from a worker whole.
        assert pickle.loads(pickle.dumps(caught.value)).to_record() == record


def test_no_string_of_the_observation_is_echoed(observation: dict[str, Any]) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    for path in ("/classification", "/provider", "/schema", "/metrics/attempts"):
        document = copy.deepcopy(observation)
        _set(document, path, secret)
        with pytest.raises(ObservationError) as caught:
            accept_observation(document)
        assert secret not in json.dumps(caught.value.to_record())


def test_errors_file_lines_carry_the_contract(observation: dict[str, Any], tmp_path: Path) -> None:
    """What ``--errors`` writes, through a scoring run (a worker's pool included)."""
    good = json.dumps(observation)
    bad = copy.deepcopy(observation)
    bad["metrics"]["attempts"] = "2"
    path = tmp_path / "night.jsonl"
    path.write_text(f"{good}\n{json.dumps(bad)}\n{good}\n", encoding="utf-8")
    for workers in (None, 2):
        errors = [
            item for item in score_run([path], workers=workers).text() if not isinstance(item, str)
        ]
        assert [error.to_record() for error in errors] == [
            {
                "source": str(path),
                "line": 2,
                "index": None,
                "pointer": "/metrics/attempts",
                "rule": "wrong_type",
                "message": "observation field: expected an integer, got a string",
                "expected": "an integer",
                "observed": "a string",
                "schema": SCHEMA_ID,
            }
        ]


def test_an_error_that_is_not_about_the_observation_contract_names_no_schema(
    tmp_path: Path,
) -> None:
    path = tmp_path / "night.jsonl"
    path.write_text("{not json\n", encoding="utf-8")
    (error,) = [item for item in score_run([path]).text() if not isinstance(item, str)]
    record = error.to_record()
    assert record["rule"] == "malformed_json"
    assert (record["expected"], record["observed"], record["schema"]) == (None, None, None)
