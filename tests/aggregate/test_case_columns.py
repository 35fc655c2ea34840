"""The comparison columns of one frame shared between metrics.

``CaseColumns.with_metric`` reads only the metric's own columns and shares the rest; every
column must equal the one ``CaseColumns(frame, metric)`` reads by itself, and the families of
a frame must give the same tests whichever metric was read first.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from typing import Any

import numpy as np
import pytest

from scorecard.aggregate._compare import METRICS, CaseColumns, ComparisonSettings
from scorecard.aggregate._families import Comparisons, drop_tests
from scorecard.aggregate._frames import records_frame
from tests.aggregate.test_frames import make_record

_CANDIDATES = ["cand-a", "候选", "cand-\U0001f600"]
_CASES = ["final-response", "ordered-markers", "child-result-only"]


def _frame(seed: int, bundles: tuple[str, ...] = ("night-1", "night-2")) -> Any:
    rng = random.Random(seed)
    records = []
    for bundle in bundles:
        for candidate in _CANDIDATES:
            for case in _CASES:
                for repetition in range(1, rng.randint(2, 5)):
                    scoreable = rng.random() < 0.85
                    records.append(
                        make_record(
                            candidate,
                            case,
                            repetition,
                            bundle=bundle,
                            classification="completed" if scoreable else "skipped",
                            scores=[rng.random() for _ in range(8)] if scoreable else None,
                            gate_passed=rng.random() < 0.7 if scoreable else None,
                            passed=rng.random() < 0.5 if scoreable else None,
                        )
                    )
    return records_frame(records)


def _columns(columns: CaseColumns) -> dict[str, Any]:
    return {name: value for name, value in vars(columns).items() if name not in ("pairings",)}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("first", METRICS)
def test_columns_of_another_metric_are_the_ones_read_alone(seed: int, first: str) -> None:
    frame = _frame(seed)
    read = CaseColumns(frame, first)  # type: ignore[arg-type]
    for metric in METRICS:
        shared = _columns(read.with_metric(frame, metric))
        alone = CaseColumns(frame, metric)
        alone._groups()
        expected = _columns(alone)
        assert sorted(shared) == sorted(expected)
        for name, value in expected.items():
            if name == "_index":
                assert sorted(shared[name]) == sorted(value)
                for key, rows in value.items():
                    np.testing.assert_array_equal(shared[name][key], rows)
            elif isinstance(value, np.ndarray):
                assert shared[name].dtype == value.dtype, name
                np.testing.assert_array_equal(shared[name], value)
            else:
                assert shared[name] == value, name
        assert shared["metric"] == metric
    assert read.metric == first  # the columns read first are left as they were


def test_drop_tests_do_not_depend_on_the_metric_read_first() -> None:
    frame = _frame(5)
    settings = ComparisonSettings(seed=1, resamples=200)
    found = []
    for order in (list(METRICS), list(reversed(METRICS))):
        comparisons = Comparisons(frame, settings)
        for metric in order:
            comparisons.columns(metric)
        found.append(drop_tests(comparisons, "night-1", "night-2", METRICS, METRICS, 0.01))
    assert repr(found[0]) == repr(found[1])


def _reference_json(value: Any) -> Any:
    """The JSON form as first written: ``dataclasses.asdict``, then NaN as None and tuples as
    lists."""

    def jsonable(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: jsonable(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [jsonable(inner) for inner in item]
        if isinstance(item, float) and item != item:
            return None
        return item

    return jsonable(dataclasses.asdict(value))


@pytest.mark.parametrize("seed", range(3))
def test_a_comparisons_json_is_its_fields_as_json(seed: int) -> None:
    """Every field, nested ones and the unscoreable runs left out included, NaN as None."""
    frame = _frame(seed)
    settings = ComparisonSettings(seed=seed, resamples=200)
    comparisons = Comparisons(frame, settings)
    found = drop_tests(comparisons, "night-1", "night-2", METRICS, METRICS[:1], 0.01)
    assert found
    for test in found.values():
        comparison = test.comparison
        expected = _reference_json(comparison)
        expected["coverage"] = comparison.coverage
        assert comparison.to_json() == expected
        assert json.dumps(comparison.to_json()) == json.dumps(expected)
    # A comparison with no paired case: NaN means, intervals and p-values.
    empty = next(iter(found.values())).comparison
    overall = dataclasses.replace(empty.overall, current=math.nan, low=math.nan)
    bare = dataclasses.replace(empty, overall=overall, paired_cases=(), dimensions=())
    expected = _reference_json(bare)
    expected["coverage"] = bare.coverage
    assert bare.to_json() == expected
    assert bare.to_json()["overall"]["current"] is None
    assert json.dumps(bare.to_json()) == json.dumps(expected)


def test_the_unscoreable_runs_left_out_are_the_frames() -> None:
    frame = _frame(8)
    comparisons = Comparisons(frame, ComparisonSettings(seed=0, resamples=200))
    found = drop_tests(comparisons, "night-1", "night-2", METRICS[:1], METRICS[:1], 0.01)
    seen = 0
    for (_, candidate), test in found.items():
        if candidate not in _CANDIDATES:
            continue
        for bundle, left_out in (
            ("night-2", test.comparison.exclusions.unscoreable_current),
            ("night-1", test.comparison.exclusions.unscoreable_baseline),
        ):
            rows = frame[
                (frame["bundle"] == bundle)
                & (frame["candidate"] == candidate)
                & ~frame["scoreable"]
            ]
            expected = tuple(
                (str(case), int(repetition))
                for case, repetition in zip(rows["case"], rows["repetition"], strict=True)
            )
            assert left_out == expected
            assert all(type(case) is str and type(rep) is int for case, rep in left_out)
            seen += len(left_out)
    assert seen


def test_a_pairing_keeps_its_runs_values_only() -> None:
    """A side's runs are its metric's values alone: the nine-column block it was read from is
    not kept alive by them (it would be, for every pairing of every metric, 72 bytes a run),
    and the values are those of that block's first column."""
    from scorecard.aggregate._compare import Side, _SideData

    columns = CaseColumns(_frame(4))
    side = _SideData(columns, Side("night-1", _CANDIDATES[0]))
    rows = columns.rows(Side("night-1", _CANDIDATES[0]))
    assert side.runs
    for case, runs in side.runs.items():
        assert runs.ndim == 1
        assert runs.base is None or runs.base.ndim == 1  # not a view of the 2-D block
        code = columns.case_names.index(case)
        chosen = rows[(columns.case[rows] == code) & columns.scoreable[rows]]
        np.testing.assert_array_equal(runs, columns.values[chosen, 0])


@pytest.mark.parametrize("seed", range(3))
def test_the_pooled_comparison_of_every_row_is_the_one_of_those_rows_in_a_larger_frame(
    seed: int,
) -> None:
    """A frame of the two bundles alone (the gate's) gives its pooled comparison the columns'
    own arrays, uncopied; its tests are those of the same rows read out of a frame with a third
    bundle (whose pooled columns are copies), and the shared arrays are left as they were."""
    frame = _frame(seed)
    larger = _frame(seed, ("night-1", "night-2", "night-3"))  # the same first two nights
    settings = ComparisonSettings(seed=seed, resamples=200)
    alone = Comparisons(frame, settings)
    before = {
        name: value.copy()
        for name, value in _columns(alone.columns("mean_overall")).items()
        if isinstance(value, np.ndarray)
    }
    found = drop_tests(alone, "night-1", "night-2", METRICS, METRICS[:1], 0.01)
    within = drop_tests(
        Comparisons(larger, settings), "night-1", "night-2", METRICS, METRICS[:1], 0.01
    )
    assert any(candidate not in _CANDIDATES for _, candidate in found)  # the pooled one
    assert repr(found) == repr(within)
    after = _columns(alone.columns("mean_overall"))
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
