"""Baseline nights pooled as columns (sides made of frames) are the nights pooled run by run:
the same runs, renumbered the same way, the same detail, frame and verdict."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scorecard.gate import GateRules, GateSide, evaluate_gate, pool_sides, rows_side
from scorecard.gate._input import gate_side
from scorecard.report import render_gate_json, verdict_line
from scorecard.store import Store, open_store
from tests.store.conftest import write_campaign


def _sides(store: Store, bundles: list[str]) -> list[GateSide]:
    return [
        rows_side(store.detailed_rows(bundle, findings_only=True), source=bundle, shown=False)
        for bundle in bundles
    ]


def _run_by_run(sides: list[GateSide]) -> GateSide:
    """The same nights as sides of run facts: pool_sides pools those run by run."""
    return pool_sides([gate_side(list(side.runs), source=side.bundle) for side in sides])


def _assert_same_side(columns: GateSide, runs: GateSide) -> None:
    assert columns.table.of_a_frame  # the two paths were taken
    assert not runs.table.of_a_frame
    assert (columns.bundle, columns.bundles) == (runs.bundle, runs.bundles)
    left, right = columns.table, runs.table
    assert len(left) == len(right)
    assert (left.candidate, left.case, left.classification) == (
        right.candidate,
        right.case,
        right.classification,
    )
    for name in ("scoreable", "gate_failed", "settlement_ms", "cost_usd"):
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name))
    everyone = list(range(len(left)))
    assert left.failing_at(everyone) == right.failing_at(everyone)
    assert left.finding_runs() == right.finding_runs()
    assert [left.findings(index) for index in everyone] == [
        right.findings(index) for index in everyone
    ]
    assert [(run.repetition, run.findings) for run in left] == [
        (run.repetition, run.findings) for run in right
    ]
    pd.testing.assert_frame_equal(left.frame(), right.frame())


@pytest.fixture(scope="module")
def generated_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    folder = tmp_path_factory.mktemp("pooled")
    store = open_store(folder / "store", create=True)
    report = store.ingest(
        [str(path) for path in write_campaign(folder / "nights", seed=7, bundles=4)], workers=1
    )
    assert report.ok, report
    return store


@pytest.mark.parametrize("which", ["sample_store", "generated_store"])
def test_pooled_columns_are_the_runs_pooled_one_by_one(
    which: str, request: pytest.FixtureRequest
) -> None:
    store: Store = request.getfixturevalue(which)
    ids = [entry.id for entry in store.bundles()]
    sides = _sides(store, ids[:-1])
    columns, runs = pool_sides(sides), _run_by_run(sides)
    _assert_same_side(columns, runs)
    current = rows_side(store.detailed_rows(ids[-1]), source=ids[-1])
    found = evaluate_gate(current, columns, GateRules(), seed=0)
    expected = evaluate_gate(current, runs, GateRules(), seed=0)
    assert render_gate_json(found) == render_gate_json(expected)
    assert verdict_line(found) == verdict_line(expected)


def test_runs_repeated_across_nights_are_renumbered_after_the_earlier_nights(
    sample_store: Store,
) -> None:
    """Two nights of the same candidate and case: the second's repetitions follow the first's."""
    ids = [entry.id for entry in sample_store.bundles()]
    sides = _sides(sample_store, ids[:2])
    pooled = pool_sides(sides)
    first = [
        run
        for run in sides[0].runs
        if (run.candidate, run.case) == (pooled.runs[0].candidate, pooled.runs[0].case)
    ]
    both = [
        run
        for run in pooled.runs
        if (run.candidate, run.case) == (first[0].candidate, first[0].case)
    ]
    assert [run.repetition for run in both] == list(range(1, len(both) + 1))
    assert len(both) > len(first) > 0


@pytest.mark.parametrize("which", ["sample_store", "generated_store"])
def test_a_baseline_night_from_its_frame_is_the_side_of_its_rows(
    which: str, request: pytest.FixtureRequest
) -> None:
    """The gate's baseline night made of the runs file's frame and the findings of the runs
    that have them is the side rows_side makes of every row: runs, detail, frame, verdict."""
    from scorecard.api._gate import _baseline_side

    store: Store = request.getfixturevalue(which)
    ids = [entry.id for entry in store.bundles()]
    current = rows_side(store.detailed_rows(ids[-1]), source=ids[-1])
    for bundle in ids[:-1]:
        from_frame = _baseline_side(store, bundle)
        (from_rows,) = _sides(store, [bundle])
        assert from_frame.bundle == from_rows.bundle
        left, right = from_frame.table, from_rows.table
        assert (left.candidate, left.case, left.classification) == (
            right.candidate,
            right.case,
            right.classification,
        )
        everyone = list(range(len(left)))
        assert left.failing_at(everyone) == right.failing_at(everyone)
        assert dict(left.details) == dict(right.details)
        assert left.finding_runs()  # the samples' baselines hold failed findings
        pd.testing.assert_frame_equal(left.frame(), right.frame())
        found = evaluate_gate(current, from_frame, GateRules(), seed=0)
        expected = evaluate_gate(current, from_rows, GateRules(), seed=0)
        assert render_gate_json(found) == render_gate_json(expected)
