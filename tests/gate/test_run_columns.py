"""Runs made from columns held to the one-run-at-a-time definition.

``facts_of_columns`` makes a block of runs from columns (lists or numpy arrays) with one
``zip``; ``facts_of_row`` makes one run of one row. They must give equal runs on rows with
NaN and None values, unicode ids, and no rows. The findings a side reads are made once per
value; they equal the ones made per run.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

from scorecard.contract import DIMENSIONS, ROW_COLUMNS
from scorecard.engine import ROW_FIELDS
from scorecard.gate._input import _gate_detail
from scorecard.gate._runs import AuditFinding, facts_of_columns, facts_of_row

_FLAGS = {column.name for column in ROW_COLUMNS if column.arrow_type == "bool_"}
_FLOATS = {column.name for column in ROW_COLUMNS if column.arrow_type == "float64"}


def _row(rng: random.Random) -> tuple[Any, ...]:
    values: dict[str, Any] = {
        "bundle": rng.choice(["b-1", "пакет"]),
        "candidate": rng.choice(["cand-a", "候选", "cand-\U0001f600"]),
        "provider": rng.choice(["codex", "кодекс"]),
        "model": rng.choice(["m-1", None]),
        "tier": rng.choice([None, "high"]),
        "case": rng.choice(["final-response", "ordered-markers"]),
        "repetition": rng.randint(1, 9),
        "classification": rng.choice(["completed", "skipped"]),
    }
    for name in ROW_FIELDS[8:]:
        if name in _FLAGS:
            values[name] = rng.choice([True, False, None])
        elif name in _FLOATS:
            values[name] = rng.choice([math.nan, 0.0, -0.0, rng.random()])
        else:
            values[name] = rng.randint(0, 99)
    return tuple(values[name] for name in ROW_FIELDS)


def _detail(rng: random.Random) -> tuple[Any, ...]:
    reasons = tuple(
        tuple(rng.sample(["late", "ошибка", "x"], rng.randint(0, 2))) for _ in DIMENSIONS
    )
    findings = tuple(
        AuditFinding("code", f"/p/{index}", "1", "2", rng.choice(["", "hint"]))
        for index in range(rng.randint(0, 2))
    )
    return (reasons, findings, rng.random() < 0.5, rng.choice([None, "boom: 💥"]), "f.json:3")


def _one_by_one(rows: list[tuple[Any, ...]], details: list[tuple[Any, ...]]) -> list[Any]:
    gate = ROW_FIELDS.index("gate_passed")
    return [
        facts_of_row(
            row,
            gate_passed=row[gate],
            reasons=detail[0],
            findings=detail[1],
            audit_gates=detail[2],
            failure=detail[3],
            source=detail[4],
        )
        for row, detail in zip(rows, details, strict=True)
    ]


def _same(found: list[Any], expected: list[Any]) -> None:
    assert found == expected  # missing numbers are None on both sides, never NaN
    assert [type(run.repetition) for run in found] == [int] * len(found)
    assert [repr(run) for run in found] == [repr(run) for run in expected]  # -0.0 kept


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("as_arrays", [False, True])
def test_runs_of_columns_are_the_runs_of_their_rows(seed: int, as_arrays: bool) -> None:
    rng = random.Random(seed)
    rows = [_row(rng) for _ in range(rng.randint(1, 60))]
    details = [_detail(rng) for _ in rows]
    columns: dict[str, Any] = {
        name: [row[index] for row in rows] for index, name in enumerate(ROW_FIELDS)
    }
    if as_arrays:
        for name in _FLOATS:
            columns[name] = np.array(columns[name], dtype=np.float64)
        columns["repetition"] = np.array(columns["repetition"], dtype=np.int64)
    found = facts_of_columns(columns, iter(details))
    expected = _one_by_one(rows, details)
    _same(found, expected)
    assert all(run.overall is None or not math.isnan(run.overall) for run in found)


def test_runs_of_no_columns() -> None:
    assert facts_of_columns({name: [] for name in ROW_FIELDS}, iter(())) == []


def test_a_detail_without_five_parts_is_refused() -> None:
    rng = random.Random(1)
    row = _row(rng)
    columns = {name: [row[index]] for index, name in enumerate(ROW_FIELDS)}
    with pytest.raises(ValueError, match="a detail is"):
        facts_of_columns(columns, iter([(1, 2, 3)]))


def test_findings_met_before_are_the_same_objects_and_equal_fresh_ones() -> None:
    found = (("code-a", "/p", "1", "2", "hint"), ("код", "/q", "[]", "{}", ""))
    detail = ((), found, True, None, "f:1")
    made: dict[Any, Any] = {}
    first = _gate_detail(detail, made)
    second = _gate_detail(((), tuple(found), False, "x", None), made)
    fresh = _gate_detail(detail)
    assert first == fresh
    assert first[1] is second[1]
    assert second[2:] == (False, "x", None)
    assert _gate_detail(((), (), False, None, None), made)[1] == ()
    assert fresh[1] == (AuditFinding(*found[0]), AuditFinding(*found[1]))


@pytest.mark.parametrize("seed", range(4))
def test_a_tables_columns_are_its_runs_values(seed: int) -> None:
    """What the rules read of a table made from a frame (failing gates by code, gate failed,
    scoreable runs, a candidate's runs) is what each run made of it says."""
    from collections import Counter

    from scorecard.aggregate import rows_frame
    from scorecard.gate._table import RunTable

    rng = random.Random(seed)
    rows = [_row(rng) for _ in range(rng.randint(1, 120))]
    frame, order = rows_frame(rows)
    details = {index: _detail(rng) for index in range(len(frame)) if rng.random() < 0.5}
    table = RunTable.of_frame(frame, details)
    runs = list(table)
    positions = list(range(len(runs)))
    rng.shuffle(positions)
    assert table.failing_at(positions) == [runs[index].failing_gates() for index in positions]
    assert [table.failing_gates(index) for index in positions[:5]] == [
        runs[index].failing_gates() for index in positions[:5]
    ]
    assert table.gate_failed.tolist() == [run.gate_failed for run in runs]
    assert table.scoreable_runs() == Counter((r.candidate, r.case) for r in runs if r.scoreable)
    for candidate in ["cand-a", "候选", "nobody"]:
        mine = [run.candidate == candidate for run in runs]
        assert table.of_candidate(candidate).tolist() == mine
    as_runs = RunTable.of_runs(runs)
    assert as_runs.failing_at(positions) == table.failing_at(positions)
    assert table.failing_at([]) == []
    assert order.size == len(rows)
