"""The scored record's row: one column table, one parser generated from it."""

from __future__ import annotations

import copy
import json
import math
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorecard.contract import ROW_COLUMNS, ROW_FIELDS, InputError, load_catalog, record_row, row_of
from scorecard.contract._record import walk_row
from scorecard.core import ScoredRecord, record_line
from scorecard.engine import read_records, score_records, scored_row
from tests.conftest import ROOT

DIMENSIONS = (
    "hard_invariants",
    "lifecycle_integrity",
    "semantic_outcome",
    "trajectory_restraint",
    "trace_completeness",
    "quality_efficiency",
    "continuation_integrity",
    "presentation_fidelity",
)
#: docs/records.md, "Parquet": the columns and their types, written out.
DOCUMENTED = [
    ("bundle", "string"),
    ("candidate", "string"),
    ("provider", "string"),
    ("model", "string"),
    ("tier", "string"),
    ("case", "string"),
    ("repetition", "int64"),
    ("classification", "string"),
    *((f"score_{name}", "double") for name in DIMENSIONS),
    *((f"passed_{name}", "bool") for name in DIMENSIONS),
    ("overall_score", "double"),
    ("gate_passed", "bool"),
    ("passed", "bool"),
    ("settlement_ms", "double"),
    ("first_progress_ms", "double"),
    ("total_tokens", "double"),
    ("cost_usd", "double"),
    ("attempts", "int64"),
    ("tool_count", "int64"),
]


def _record() -> dict[str, Any]:
    """A small well-formed record (only what a row reads, plus a key it ignores)."""
    return {
        "schema": "scorecard.record.v1",
        "bundleId": "b1",
        "caseId": "final-response",
        "candidateId": "cand",
        "provider": "codex",
        "model": "m-1",
        "tier": None,
        "repetition": 2,
        "classification": "completed",
        "metrics": {"attempts": 1, "toolCount": 3, "settlementMs": 1200, "costUsd": 0.25},
        "audit": {"passed": 1},
        "gatePassed": True,
        "scorecard": {
            "dimensions": {
                name: {"score": 1 if index % 2 else 0.5, "passed": index != 3, "reasons": []}
                for index, name in enumerate(DIMENSIONS)
            },
            "overall": {"score": 0.75, "gatePassed": True, "passed": False},
        },
    }


EXPECTED_ROW = (
    "b1",
    "cand",
    "codex",
    "m-1",
    None,
    "final-response",
    2,
    "completed",
    0.5,
    1.0,
    0.5,
    1.0,
    0.5,
    1.0,
    0.5,
    1.0,
    True,
    True,
    True,
    False,
    True,
    True,
    True,
    True,
    0.75,
    True,
    False,
    1200.0,
    math.nan,
    math.nan,
    0.25,
    1,
    3,
)


def _same(left: tuple[Any, ...], right: tuple[Any, ...]) -> bool:
    """Equal value for value and type, NaN equal to NaN."""
    return len(left) == len(right) and all(
        type(a) is type(b)
        and (a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)))
        for a, b in zip(left, right, strict=True)
    )


def test_the_table_is_the_documented_parquet_schema() -> None:
    """Column names, order and Arrow types are those docs/records.md lists."""
    from scorecard.engine.parquet import PARQUET_SCHEMA

    assert [(field.name, str(field.type)) for field in PARQUET_SCHEMA] == DOCUMENTED
    assert tuple(name for name, _ in DOCUMENTED) == ROW_FIELDS


def test_a_record_flattens_into_its_row() -> None:
    """Every column takes the value at its pointer; whole numbers become floats, absent ones NaN."""
    assert _same(record_row(_record()), EXPECTED_ROW)


def test_any_mapping_is_read_like_a_dict() -> None:
    """Records and their objects may be any mapping (the checking path reads them)."""

    def frozen(value: Any) -> Any:
        if isinstance(value, dict):
            return MappingProxyType({key: frozen(item) for key, item in value.items()})
        return value

    assert _same(record_row(frozen(_record())), EXPECTED_ROW)


def _without(record: dict[str, Any], pointer: str) -> dict[str, Any]:
    *path, key = pointer.split("/")[1:]
    parent = record
    for token in path:
        parent = parent[token]
    parent.pop(key, None)
    return record


def _with(record: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    *path, key = pointer.split("/")[1:]
    parent = record
    for token in path:
        parent = parent[token]
    parent[key] = value
    return record


OPTIONAL = {"model", "tier", "settlement_ms", "first_progress_ms", "total_tokens", "cost_usd"}


@pytest.mark.parametrize("column", ROW_COLUMNS, ids=lambda column: column.name)
def test_a_missing_value_is_located(column: Any) -> None:
    """A required value left out is reported at its pointer; an optional one is a null/NaN."""
    record = _without(_record(), column.pointer)
    if column.name in OPTIONAL:
        value = record_row(record)[ROW_FIELDS.index(column.name)]
        assert value is None or math.isnan(value)
        return
    with pytest.raises(InputError) as raised:
        record_row(record)
    assert (raised.value.pointer, raised.value.rule) == (column.pointer, "record_missing_field")
    assert raised.value.message == "required field is missing"


#: Per kind: values it refuses and what the error says.
REFUSED: dict[str, tuple[list[Any], str]] = {
    "id": (["", 7, None], "must be a non-empty string"),
    "label": (["", 7, False], "must be a non-empty string"),
    "run": ([0, -1, True, 1.0, "1"], "must be a positive integer"),
    "classification": (
        ["done", None, ["completed"]],
        "must be one of completed, candidate_failure, infrastructure_failure, skipped",
    ),
    "score": ([math.inf, math.nan, True, "0.5", 10**400], "must be a finite number or null"),
    "flag": ([1, 0, "true"], "must be true, false or null"),
    "measure": (
        [-1.5, -1, math.inf, False, "1", 10**400],
        "must be a non-negative number or null",
    ),
    "count": ([True, -1, 1.0, None], "must be a non-negative integer"),
}
REFUSALS = [
    pytest.param(column, value, id=f"{column.name}={value!r}")
    for column in ROW_COLUMNS
    for value in REFUSED[column.kind][0]
]


@pytest.mark.parametrize(("column", "value"), REFUSALS)
def test_a_wrong_value_is_located(column: Any, value: Any) -> None:
    """A value its kind refuses is reported at its pointer with what it must be."""
    with pytest.raises(InputError) as raised:
        record_row(_with(_record(), column.pointer, value))
    assert (raised.value.pointer, raised.value.rule) == (column.pointer, "record_field")
    assert raised.value.message == REFUSED[column.kind][1]


@pytest.mark.parametrize(
    ("pointer", "value"),
    [("/scorecard", []), ("/scorecard/dimensions", "x"), ("/metrics", None)],
)
def test_a_parent_that_is_not_an_object_is_located(pointer: str, value: Any) -> None:
    """An object on the way to a value that is not an object is reported at its own pointer."""
    with pytest.raises(InputError) as raised:
        record_row(_with(_record(), pointer, value))
    assert (raised.value.pointer, raised.value.message) == (pointer, "must be an object")


def test_the_record_itself_is_checked() -> None:
    """Not an object, or another schema, is refused before any column."""
    with pytest.raises(InputError, match="a scored record must be a JSON object"):
        record_row([1])
    with pytest.raises(InputError) as raised:
        record_row(_with(_record(), "/schema", "scorecard.record.v0"))
    assert (raised.value.pointer, raised.value.rule) == ("/schema", "unsupported_schema")


def test_the_first_problem_in_column_order_is_reported() -> None:
    """Two problems: the one of the earlier column is reported, whichever path finds it."""
    record = _without(_with(_record(), "/metrics/toolCount", -1), "/candidateId")
    with pytest.raises(InputError) as raised:
        record_row(record)
    assert raised.value.pointer == "/candidateId"
    record = _with(_with(_record(), "/candidateId", ""), "/scorecard/overall", [])
    with pytest.raises(InputError) as raised:
        record_row(record)
    assert raised.value.pointer == "/candidateId"


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "x", "completed", "skipped"]),
    st.just([]),
    st.just({}),
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.data())
def test_the_generated_parser_reads_as_the_table_says(data: st.DataObject) -> None:
    """The straight-line parser gives walk_row's row, or its error, for any changed record."""
    record = _record()
    for column in data.draw(st.lists(st.sampled_from(ROW_COLUMNS), max_size=6, unique=True)):
        if data.draw(st.booleans()):
            _without(record, column.pointer)
        else:
            _with(record, column.pointer, data.draw(_VALUES))

    def outcome(parse: Any) -> tuple[str, Any]:
        try:
            return "row", parse(copy.deepcopy(record))
        except InputError as error:
            return "error", (error.pointer, error.message, error.rule)

    (fast_kind, fast), (walked_kind, walked) = outcome(record_row), outcome(walk_row)
    assert fast_kind == walked_kind
    assert _same(fast, walked) if fast_kind == "row" else fast == walked


def _scored() -> list[ScoredRecord]:
    found = score_records(read_records([str(ROOT / "observations")]), catalog=load_catalog())
    return [record for record in found if isinstance(record, ScoredRecord)]


def test_rows_of_scored_records_are_the_rows_of_their_records() -> None:
    """scored_row (through row_of) gives the row of the record the records format writes, as
    data and as the line read back."""
    records = _scored()
    assert len(records) == 560
    for record in records:
        row = scored_row(record)
        assert _same(row, record_row(record.record_json()))
        assert _same(row, record_row(json.loads(record_line(record))))


def test_row_of_is_the_row_of_the_record_with_those_values() -> None:
    """row_of checks and flattens exactly the record its arguments make."""
    record = _record()
    row = row_of(
        bundle_id="b1",
        case_id="final-response",
        candidate_id="cand",
        provider="codex",
        model="m-1",
        tier=None,
        repetition=2,
        classification="completed",
        metrics=record["metrics"],
        scorecard=record["scorecard"],
        gate_passed=True,
    )
    assert _same(row, EXPECTED_ROW)


def test_the_first_sample_record_holds_its_observation_and_roster_facts() -> None:
    """The record of the first sample line: keys in order, model and tier from the roster."""
    first = _scored()[0].record_json()
    assert list(first) == [
        "schema",
        "bundleId",
        "caseId",
        "candidateId",
        "provider",
        "model",
        "tier",
        "repetition",
        "classification",
        "metrics",
        "failure",
        "source",
        "gatePassed",
        "audit",
        "scorecard",
    ]
    assert {key: first[key] for key in list(first)[:13]} == {
        "schema": "scorecard.record.v1",
        "bundleId": "campaign-2026-11-01",
        "caseId": "final-response",
        "candidateId": "codex-luna",
        "provider": "codex",
        "model": "gpt-5.6-luna",
        "tier": "strong",
        "repetition": 1,
        "classification": "completed",
        "metrics": {
            "attempts": 1,
            "toolCount": 1,
            "timeToFirstVisibleProgressMs": 3280,
            "settlementMs": 54682,
            "totalTokens": 39132,
            "costUsd": 0.5386,
        },
        "failure": None,
        "source": {
            "file": str(ROOT / "observations/2026-11-01-nightly/observations.jsonl"),
            "line": 1,
            "index": None,
        },
        "gatePassed": True,
    }
    assert first["audit"] == {
        "passed": 13,
        "failed": 0,
        "notObserved": 0,
        "findings": [],
        "gates": False,
    }
