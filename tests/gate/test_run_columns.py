"""Runs made from columns held to the one-run-at-a-time definition.

``facts_of_columns`` makes a block of runs from columns (lists or numpy arrays) with one
``zip``; ``facts_of_row`` makes one run of one row. They must give equal runs on rows with
NaN and None values, unicode ids, and no rows. The findings a side reads are made once per
value; they equal the ones made per run.
"""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import numpy as np
import pytest

from scorecard.contract import CASE_IDS, DIMENSIONS, ROW_COLUMNS
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
        "case": rng.choice(CASE_IDS[:4]),
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
        AuditFinding("code", f"/p/{index}", "1", "2", rng.choice(["", "hint"]), "/assertions/x")
        for index in range(rng.randint(0, 2))
    )
    return (reasons, findings, rng.random() < 0.5, rng.choice([None, "boom: 💥"]), "f.json:3", None)


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
            evidence=detail[5],
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


def test_a_runs_names_are_one_object_for_every_run_that_names_them() -> None:
    """Rows as parsed records give them (each its own copy of every name): the facts of two
    runs share each equal name, and the values are unchanged."""
    rng = random.Random(7)
    row = list(_row(rng))
    for name in ("bundle", "candidate", "provider", "case", "classification", "model", "tier"):
        row[ROW_FIELDS.index(name)] = "".join(["name-", name])  # built: never interned
    copy = [
        "".join(value) if isinstance(value, str) else value  # an equal string, another object
        for value in row
    ]
    assert copy[ROW_FIELDS.index("candidate")] is not row[ROW_FIELDS.index("candidate")]
    first, second = _one_by_one([tuple(row), tuple(copy)], [_detail(rng), _detail(rng)])
    for name in ("bundle", "candidate", "provider", "case", "classification", "model", "tier"):
        assert getattr(first, name) == f"name-{name}"
        assert getattr(first, name) is getattr(second, name), name


def test_equal_scores_passes_and_reasons_are_shared_only_where_equal_means_the_same() -> None:
    """Runs repeat their scores, passes and reasons: equal ones are one object. Never across
    values that are equal but not the same: passes of True and scores of 1.0, a score of
    -0.0 and one of 0.0, a whole number and a float."""
    rng = random.Random(3)
    scores = [ROW_FIELDS.index(f"score_{name}") for name in DIMENSIONS]
    passes = [ROW_FIELDS.index(f"passed_{name}") for name in DIMENSIONS]

    def row(score: Any, passed: Any) -> tuple[Any, ...]:
        values = list(_row(rng))
        for index in scores:
            values[index] = score
        for index in passes:
            values[index] = passed
        return tuple(values)

    given = [row(1.0, True), row(1.0, True), row(True, 1.0), row(-0.0, False), row(0.0, False)]
    given += [row(1, None), row(0.0, False), row(-0.0, False)]
    reasons = tuple(("".join(["late ", str(at)]),) for at in range(len(DIMENSIONS)))  # built
    details = [(tuple(tuple("".join(r) for r in rs) for rs in reasons), *_detail(rng)[1:])
               for _ in given]  # fmt: skip
    runs = _one_by_one(given, details)
    assert runs[0].scores is runs[1].scores
    assert runs[0].dimension_passed is runs[1].dimension_passed
    assert runs[0].reasons is runs[1].reasons
    assert runs[0].reasons == reasons
    assert runs[4].scores is runs[6].scores
    assert runs[3].scores is runs[7].scores
    assert runs[3].scores is not runs[4].scores
    expected = [(1.0, True), (1.0, True), (True, 1.0), (-0.0, False), (0.0, False), (1, None),
                (0.0, False), (-0.0, False)]  # fmt: skip
    for run, (score, passed) in zip(runs, expected, strict=True):
        assert [repr(value) for value in run.scores] == [repr(score)] * len(DIMENSIONS)
        assert [repr(value) for value in run.dimension_passed] == [repr(passed)] * len(DIMENSIONS)


def test_runs_of_no_columns() -> None:
    assert facts_of_columns({name: [] for name in ROW_FIELDS}, iter(())) == []


def test_a_detail_without_six_parts_is_refused() -> None:
    rng = random.Random(1)
    row = _row(rng)
    columns = {name: [row[index]] for index, name in enumerate(ROW_FIELDS)}
    with pytest.raises(ValueError, match="a detail is"):
        facts_of_columns(columns, iter([(1, 2, 3)]))


def test_findings_met_before_are_the_same_objects_and_equal_fresh_ones() -> None:
    found = (("code-a", "/p", "1", "2", "hint", "/assertions/a"), ("код", "/q", "[]", "{}", "", ""))
    detail = ((), found, True, None, "f:1", None)
    made: dict[Any, Any] = {}
    first = _gate_detail(detail, made)
    second = _gate_detail(((), tuple(found), False, "x", None, None), made)
    fresh = _gate_detail(detail)
    assert first == fresh
    assert first[1] is second[1]
    assert second[2:] == (False, "x", None, None)
    assert _gate_detail(((), (), False, None, None, None), made)[1] == ()
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


def _side_pairs(rng: random.Random, size: int) -> list[tuple[tuple[Any, ...], Any]]:
    """``size`` (row, detail) pairs of one bundle, no run twice, detail on some (None else)."""
    keys = set()
    pairs: list[tuple[tuple[Any, ...], Any]] = []
    while len(pairs) < size:
        row = _row(rng)
        key = (row[1], row[5], row[6] + 100 * len(pairs))
        if key in keys:
            continue
        keys.add(key)
        row = (*row[:6], key[2], *row[7:])
        row = ("night-1", *row[1:])
        raw = None
        if rng.random() < 0.3:
            reasons, findings, audit_gates, failure, source, evidence = _detail(rng)
            raw = (
                reasons,
                tuple(dataclasses.astuple(finding) for finding in findings),
                audit_gates,
                failure,
                source,
                evidence,
            )
        pairs.append((row, raw))
    return pairs


@pytest.mark.parametrize("shown", [True, False])
def test_a_side_of_rows_keeps_each_runs_detail(shown: bool) -> None:
    """Over several blocks of pairs (and their edges), each run made from a side is its row
    with its own detail (a side not shown: the findings only)."""
    from scorecard.gate._input import rows_side

    rng = random.Random(4)
    pairs = _side_pairs(rng, 9_000)
    for edge in (0, 4095, 4096, 8191, 8192, 8999):
        row, _ = pairs[edge]
        pairs[edge] = (
            row,
            ((("edge",),) * len(DIMENSIONS), (("c", "/", "1", "2", "", ""),), True, "f", "s", None),
        )
    side = rows_side(iter(pairs), shown=shown)
    order = {case: index for index, case in enumerate(CASE_IDS)}
    ordered = sorted(pairs, key=lambda pair: (pair[0][1], order[pair[0][5]], pair[0][6]))
    expected_details: list[tuple[Any, ...]] = []
    for _, raw in ordered:
        if raw is None:
            expected_details.append((tuple(() for _ in DIMENSIONS), (), False, None, None, None))
            continue
        findings = tuple(AuditFinding(*item) for item in raw[1])
        if shown:
            expected_details.append((raw[0], findings, raw[2], raw[3], raw[4], raw[5]))
        else:
            expected_details.append(
                (tuple(() for _ in DIMENSIONS), findings, raw[2], None, None, None)
            )
    expected = _one_by_one([row for row, _ in ordered], expected_details)
    assert list(side.runs) == expected


def test_a_side_of_rows_refuses_the_reserved_candidate_and_a_repeat() -> None:
    from scorecard.contract import InputError
    from scorecard.gate._input import ALL_CANDIDATES, gate_side, rows_side

    rng = random.Random(2)
    pairs = _side_pairs(rng, 50)
    gate = ROW_FIELDS.index("gate_passed")

    def facts(rows: list[tuple[Any, ...]]) -> list[Any]:
        return [
            facts_of_row(
                row,
                gate_passed=row[gate],
                reasons=tuple(() for _ in DIMENSIONS),
                findings=(),
                audit_gates=False,
                failure=None,
                source=None,
            )
            for row in rows
        ]

    reserved = [
        ((*row[:1], ALL_CANDIDATES, *row[2:]) if index == 7 else row, None)
        for index, (row, _) in enumerate(pairs)
    ]
    repeated = [*((row, None) for row, _ in pairs), (pairs[3][0], None)]
    for given in (reserved, repeated):
        with pytest.raises(InputError) as raised:
            rows_side(iter(given), source="x")
        with pytest.raises(InputError) as expected:
            gate_side(facts([row for row, _ in given]), source="x")
        assert str(raised.value) == str(expected.value)
