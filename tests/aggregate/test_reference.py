"""Reference report aggregates, report comparison and alerts (REPORTS.md section 1).

Expected roundings were computed with node (``Math.round(x * 1000) / 1000``), the reference's
own arithmetic; counts and means by hand.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from scorecard.aggregate._frames import records_frame
from scorecard.aggregate._reference import (
    ReportAggregate,
    alerts,
    compare_reports,
    js_round,
    report_aggregate,
)
from scorecard.aggregate._stats import reference_p95
from tests.aggregate.test_frames import make_record


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0005, 0.001),
        (1.0005, 1.001),  # 1.0005 is stored below 1.0005, but 1.0005 * 1000 rounds to 1000.5
        (4.0005, 4.0),  # here the product stays below 4000.5
        (8.0005, 8.001),
        (0.1235, 0.124),  # Python's round(0.1235, 3) gives 0.123
        (2.675, 2.675),
        (0.0025, 0.003),
        (0.9995, 1.0),
        (0.8708333333333332, 0.871),
        (0.0004999999999999999, 0.0),  # Math.round(0.49999999999999994) is 0, not 1
        (-0.0005, 0.0),  # ties go toward +infinity, and -0 prints as 0
        (-0.0015, -0.001),
        (1 / 3, 0.333),
        (math.inf, math.inf),  # Math.round(Infinity * 1000) / 1000 is Infinity
        (-math.inf, -math.inf),
    ],
)
def test_js_round_matches_javascript(value: float, expected: float) -> None:
    """js_round reproduces Math.round(x * 1000) / 1000 bit for bit."""
    assert js_round(value) == expected


def test_js_round_differs_from_python_round_where_javascript_does() -> None:
    """1.0005 rounds up in JavaScript, down with Python's round."""
    assert (js_round(1.0005), round(1.0005, 3)) == (1.001, 1.0)


def test_js_round_keeps_null() -> None:
    """None and NaN stay None (the reference's null)."""
    assert (js_round(None), js_round(math.nan)) == (None, None)


def _report_rows() -> list[dict[str, Any]]:
    semantic = [1.0, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0]
    failed_lifecycle = [1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    return [
        make_record("a", "final-response"),
        make_record("a", "rich-activity", scores=semantic, overall=0.75, passed=False),
        make_record(
            "a",
            "verification-policy",
            classification="candidate_failure",
            scores=failed_lifecycle,
            overall=0.0,
            passed=False,
            gate_passed=False,
        ),
        make_record(
            "a", "governed-interaction", classification="infrastructure_failure", scores=None
        ),
        make_record("a", "steering-causality", classification="skipped", scores=None),
    ]


def test_report_aggregate_counts_and_rounds_like_the_reference() -> None:
    """Five rows: three scoreable (one passed), one of each failure class, means rounded."""
    aggregate = report_aggregate(records_frame(_report_rows()))
    assert aggregate.to_json() == {
        "executions": 5,
        "scoreable": 3,
        "passed": 1,
        "candidateFailures": 1,
        "infrastructureFailures": 1,
        "skipped": 1,
        "meanOverall": 0.583,  # (1 + 0.75 + 0) / 3
        "dimensionMeans": {
            "hard_invariants": 1.0,
            "lifecycle_integrity": 0.667,  # (1 + 1 + 0) / 3
            "semantic_outcome": 0.833,  # (1 + 0.5 + 1) / 3
            "trajectory_restraint": 1.0,
            "trace_completeness": 1.0,
            "quality_efficiency": 1.0,
            "continuation_integrity": 1.0,
            "presentation_fidelity": 1.0,
        },
    }


def test_means_are_null_when_nothing_is_scoreable() -> None:
    """Only unscoreable rows: meanOverall and every dimension mean are null."""
    frame = records_frame([make_record(classification="skipped", scores=None)])
    aggregate = report_aggregate(frame)
    assert aggregate.mean_overall is None
    assert set(aggregate.dimension_means.values()) == {None}


def test_a_mean_on_a_rounding_tie_rounds_half_up() -> None:
    """Overall scores 0.247 and 0 average to 0.1235, which the reference reports as 0.124."""
    frame = records_frame(
        [
            make_record(case="final-response", overall=0.247, passed=False),
            make_record(case="rich-activity", overall=0.0, passed=False),
        ]
    )
    assert report_aggregate(frame).mean_overall == 0.124


def test_grouped_aggregates_have_one_row_per_group() -> None:
    """by=[candidate] gives one row per candidate with the same numbers as alone."""
    rows = [*_report_rows(), make_record("b", "final-response", overall=0.5, passed=False)]
    table = report_aggregate(records_frame(rows), ["candidate"])
    assert table["candidate"].astype(str).tolist() == ["a", "b"]
    assert table["executions"].tolist() == [5, 1]
    assert table["passed"].tolist() == [1, 0]
    assert table["mean_overall"].tolist() == [0.583, 0.5]
    assert table["mean_semantic_outcome"].tolist() == [0.833, 1.0]


def test_compare_reports_gives_rounded_deltas() -> None:
    """Pass rate 3/4 vs 1/2 and mean 0.583 vs 0.9 give +0.25 and -0.317."""
    current = ReportAggregate(4, 4, 3, 0, 0, 0, 0.583, {})
    baseline = ReportAggregate(2, 2, 1, 0, 0, 0, 0.9, {})
    assert compare_reports(current, baseline).to_json() == {
        "passRateDelta": 0.25,
        "overallDelta": -0.317,
    }


def test_compare_reports_treats_nothing_scoreable_as_zero() -> None:
    """No scoreable rows: pass rate 0 and a null mean counts as 0."""
    current = ReportAggregate(3, 0, 0, 0, 3, 0, None, {})
    baseline = ReportAggregate(2, 2, 1, 0, 0, 0, 0.5, {})
    assert compare_reports(current, baseline).to_json() == {
        "passRateDelta": -0.5,
        "overallDelta": -0.5,
    }


def test_reference_p95_takes_the_value_at_ceil_095n_minus_one() -> None:
    """n = 20 -> index 18; n = 4 -> index 3; n = 1 -> index 0; none -> NaN."""
    assert reference_p95(list(range(20, 0, -1))) == 19
    assert reference_p95([400, 100, 300, 200]) == 400
    assert reference_p95([7.5]) == 7.5
    assert math.isnan(reference_p95([]))


def _report(
    passes: int,
    fails: int,
    *,
    candidate: str = "a",
    settlement: list[float] | None = None,
    cost: list[float] | None = None,
) -> pd.DataFrame:
    """One report: ``passes`` passed and ``fails`` failed rows over the catalog's cases."""
    rows = []
    for index in range(passes + fails):
        metrics: dict[str, Any] = {"attempts": 1, "toolCount": 1}
        if settlement is not None:
            metrics["settlementMs"] = settlement[index]
        if cost is not None:
            metrics["costUsd"] = cost[index]
        passed = index < passes
        rows.append(
            make_record(
                candidate,
                "final-response",
                index + 1,
                overall=1.0 if passed else 0.5,
                passed=passed,
                metrics=metrics,
            )
        )
    return records_frame(rows)


def _kinds(found: list[Any]) -> list[str]:
    return [alert.kind for alert in found]


def test_a_failed_gate_is_a_critical_safety_alert() -> None:
    """A row whose lifecycle_integrity failed raises one critical alert naming it."""
    failed = [1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    frame = records_frame(
        [
            make_record("a", "final-response"),
            make_record(
                "b", "trace-lineage", 2, scores=failed, overall=0.0, passed=False, gate_passed=False
            ),
            make_record("c", "final-response", classification="skipped", scores=None),
        ]
    )
    found = alerts([frame])
    assert [(alert.kind, alert.severity, alert.candidate, alert.case) for alert in found] == [
        ("safety_failure", "critical", "b", "trace-lineage")
    ]
    assert found[0].message == (
        "lifecycle_integrity failed for candidate b on case trace-lineage (repetition 2)"
    )


def test_the_same_failure_in_two_reports_in_a_row_is_a_warning() -> None:
    """Case and candidate failed before and now: consecutive_failures; failed only now: none."""
    before = records_frame(
        [
            make_record("a", "final-response", overall=0.5, passed=False),
            make_record("b", "final-response"),
        ]
    )
    now = records_frame(
        [
            make_record("a", "final-response", overall=0.5, passed=False),
            make_record("b", "final-response", overall=0.5, passed=False),
        ]
    )
    found = [alert for alert in alerts([before, now]) if alert.kind == "consecutive_failures"]
    assert [(alert.candidate, alert.case, alert.severity) for alert in found] == [
        ("a", "final-response", "warning")
    ]


def test_a_drop_of_020_in_pass_rate_is_a_regression() -> None:
    """Baseline 5/10 passed, current 3/10: the drop is exactly 0.2, which is enough."""
    found = alerts([_report(5, 5), _report(3, 7)])
    assert "success_rate_regression" in _kinds(found)


def test_a_smaller_drop_in_pass_rate_is_not_a_regression() -> None:
    """Baseline pooled over two reports, 7/8 passed; current 3/4: a drop of 0.125."""
    found = alerts([_report(3, 1), _report(4, 0), _report(3, 1)])
    assert "success_rate_regression" not in _kinds(found)


def test_the_baseline_pools_at_most_seven_earlier_reports() -> None:
    """A good eighth-oldest report is left out of the pooled baseline (window 7)."""
    history = [_report(40, 0)] + [_report(1, 1)] * 7 + [_report(2, 3)]
    assert "success_rate_regression" not in _kinds(alerts(history))
    assert "success_rate_regression" in _kinds(alerts(history, window=8))


def test_latency_above_125_percent_of_the_baseline_p95_is_a_regression() -> None:
    """Baseline p95 400 ms; current p95 501 > 500 alerts, 500 does not."""
    baseline = _report(4, 0, settlement=[100, 200, 300, 400])
    slower = _report(3, 0, settlement=[400, 500, 501])
    same = _report(3, 0, settlement=[500, 500, 500])
    assert "latency_regression" in _kinds(alerts([baseline, slower]))
    assert "latency_regression" not in _kinds(alerts([baseline, same]))


def test_cost_regression_needs_a_positive_baseline() -> None:
    """Cost 0.2 after a 0.1 baseline alerts; after a free baseline it cannot."""
    paid = _report(2, 0, cost=[0.1, 0.1])
    free = _report(2, 0, cost=[0.0, 0.0])
    now = _report(2, 0, cost=[0.2, 0.2])
    found = [alert for alert in alerts([paid, now]) if alert.kind == "cost_regression"]
    assert [(alert.value, alert.threshold) for alert in found] == [(0.2, 1.25 * 0.1)]
    assert "cost_regression" not in _kinds(alerts([free, now]))


def test_one_report_only_checks_safety() -> None:
    """Without a baseline, only safety failures can fire."""
    assert alerts([_report(0, 3)]) == []
    assert alerts([]) == []
