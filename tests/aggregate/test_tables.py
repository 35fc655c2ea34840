"""Tables per group: counts with Wilson intervals, bootstrap means, reliability, cost, trends."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from scorecard.aggregate._frames import records_frame
from scorecard.aggregate._tables import (
    candidate_provider_frame,
    case_reliability_frame,
    cost_frame,
    dimension_frame,
    reliability_frame,
    summary_frame,
    trend_frame,
)
from scorecard.contract._models import CASE_IDS
from tests.aggregate.test_frames import make_record


def _passing(
    candidate: str, case: str, repetition: int, passed: bool, **extra: Any
) -> dict[str, Any]:
    return make_record(
        candidate, case, repetition, overall=1.0 if passed else 0.5, passed=passed, **extra
    )


def test_summary_counts_and_wilson_intervals() -> None:
    """7 of 12 scoreable runs passed (plus one skipped): Wilson as scipy computes it."""
    records = [_passing("a", CASE_IDS[index], 1, index < 7) for index in range(12)] + [
        make_record("a", "final-response", 2, classification="skipped", scores=None)
    ]
    row = summary_frame(records_frame(records), ["candidate"], seed=0).iloc[0]
    expected = binomtest(7, 12).proportion_ci(confidence_level=0.95, method="wilson")
    assert (row["executions"], row["scoreable"], row["passed"], row["skipped"]) == (13, 12, 7, 1)
    assert row["pass_rate"] == 7 / 12
    assert row["pass_rate_low"] == pytest.approx(expected.low, rel=1e-12)
    assert row["pass_rate_high"] == pytest.approx(expected.high, rel=1e-12)
    assert row["cases"] == 12


def test_gate_pass_rate_counts_gate_passes_over_scoreable_runs() -> None:
    """Three scoreable runs, one with a failed gate: gate pass rate 2/3."""
    records = [
        make_record("a", "final-response"),
        make_record("a", "rich-activity", overall=0.0, passed=False, gate_passed=False),
        make_record("a", "verification-policy", overall=0.5, passed=False),
    ]
    row = summary_frame(records_frame(records), ["candidate"], seed=0).iloc[0]
    assert (row["gate_passed"], row["gate_pass_rate"]) == (2, 2 / 3)


def test_mean_overall_pools_rows_and_its_interval_resamples_cases() -> None:
    """Mean over rows; one case only: the case bootstrap has nothing to vary."""
    records = [
        make_record("a", "final-response", 1, overall=0.25, passed=False),
        make_record("a", "final-response", 2, overall=0.75, passed=False),
        make_record("a", "final-response", 3, overall=1.0),
    ]
    row = summary_frame(records_frame(records), ["candidate"], seed=0).iloc[0]
    assert row["mean_overall"] == pytest.approx(2 / 3)
    assert row["mean_overall_low"] == pytest.approx(2 / 3)
    assert row["mean_overall_high"] == pytest.approx(2 / 3)


def test_a_groups_interval_does_not_depend_on_other_groups() -> None:
    """Each group resamples from its own seeded stream: adding a candidate changes nothing."""
    records_a = [_passing("a", case, 1, index % 3 == 0) for index, case in enumerate(CASE_IDS)]
    records_b = [_passing("b", case, 1, index % 2 == 0) for index, case in enumerate(CASE_IDS)]
    alone = summary_frame(records_frame(records_a), ["candidate"], seed=4)
    together = summary_frame(records_frame(records_a + records_b), ["candidate"], seed=4)
    pd.testing.assert_frame_equal(
        alone.drop(columns="candidate"), together.iloc[[0]].drop(columns="candidate")
    )


def test_dimension_frame_has_eight_rows_per_group_in_canonical_order() -> None:
    """Per group, the eight dimensions with their mean and pass rate over scoreable rows."""
    scores = [1.0, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0]
    records = [
        make_record("a", "final-response", scores=scores, overall=0.9, passed=False),
        make_record("a", "rich-activity"),
        make_record("b", "final-response"),
    ]
    table = dimension_frame(records_frame(records), ["candidate"], seed=0)
    assert len(table) == 16
    semantic = table[(table["candidate"] == "a") & (table["dimension"] == "semantic_outcome")]
    assert semantic["mean"].tolist() == [0.75]
    assert semantic["passed"].tolist() == [1]
    assert semantic["pass_rate"].tolist() == [0.5]
    assert table["dimension"].astype(str).tolist()[:3] == [
        "hard_invariants",
        "lifecycle_integrity",
        "semantic_outcome",
    ]


def _reliability_records() -> list[dict[str, Any]]:
    # final-response: 3 scoreable runs, 1 passed; rich-activity: 2 runs, both passed; an
    # unscoreable run is not a repetition.
    return [
        _passing("a", "final-response", 1, True),
        _passing("a", "final-response", 2, False),
        _passing("a", "final-response", 3, False),
        make_record("a", "final-response", 4, classification="infrastructure_failure", scores=None),
        _passing("a", "rich-activity", 1, True),
        _passing("a", "rich-activity", 2, True),
    ]


def _pass_at(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def _pass_hat(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


def test_case_reliability_follows_the_binomial_formulas() -> None:
    """Per case, k = 1..n: pass@k and pass^k equal the math.comb formulas."""
    table = case_reliability_frame(records_frame(_reliability_records()), ["candidate"])
    rows = list(
        table[["case", "repetitions", "passes", "k", "pass_at_k", "pass_hat_k"]]
        .astype({"case": str})
        .itertuples(index=False, name=None)
    )
    expected = [
        (case, n, c, k, float(_pass_at(n, c, k)), float(_pass_hat(n, c, k)))
        for case, n, c in (("final-response", 3, 1), ("rich-activity", 2, 2))
        for k in range(1, n + 1)
    ]
    assert [row[:4] for row in rows] == [row[:4] for row in expected]
    for got, want in zip(rows, expected, strict=True):
        assert got[4:] == pytest.approx(want[4:], abs=1e-12)


def test_reliability_averages_every_k_over_the_same_cases() -> None:
    """K = 3 (final-response's runs): k = 1..3 over that case alone, by the binomial formulas."""
    table = reliability_frame(records_frame(_reliability_records()), ["candidate"])
    assert table["k"].tolist() == [1, 2, 3]
    assert table["cases"].tolist() == [1, 1, 1]
    assert table["pass_at_k"].tolist() == pytest.approx(
        [float(_pass_at(3, 1, k)) for k in (1, 2, 3)]
    )
    assert table["pass_hat_k"].tolist() == pytest.approx(
        [float(_pass_hat(3, 1, k)) for k in (1, 2, 3)]
    )


def test_reliability_of_equal_repetitions_uses_every_case() -> None:
    """Two cases of two runs each (1 and 2 passes): k = 1, 2 averaged over both."""
    records = [
        *_reliability_records()[4:],
        _passing("a", "final-response", 1, True),
        _passing("a", "final-response", 2, False),
    ]
    table = reliability_frame(records_frame(records), ["candidate"])
    assert table["cases"].tolist() == [2, 2]
    expected_at = [float((_pass_at(2, 1, k) + _pass_at(2, 2, k)) / 2) for k in (1, 2)]
    expected_hat = [float((_pass_hat(2, 1, k) + _pass_hat(2, 2, k)) / 2) for k in (1, 2)]
    assert table["pass_at_k"].tolist() == pytest.approx(expected_at)
    assert table["pass_hat_k"].tolist() == pytest.approx(expected_hat)


@pytest.mark.parametrize("seed", range(20))
def test_reliability_curves_are_monotone(seed: int) -> None:
    """For any mix of cases and repetition counts, pass@k rises, pass^k falls, pass^k <= pass@k."""
    rng = random.Random(seed)
    records = []
    for case in CASE_IDS[: rng.randint(1, 6)]:
        for repetition in range(1, rng.randint(1, 4) + 1):
            records.append(_passing("a", case, repetition, rng.random() < 0.6))
    table = reliability_frame(records_frame(records), ["candidate"])
    at, hat = table["pass_at_k"].to_numpy(), table["pass_hat_k"].to_numpy()
    assert (np.diff(at) >= -1e-12).all()
    assert (np.diff(hat) <= 1e-12).all()
    assert (hat <= at + 1e-12).all()
    assert len(set(table["cases"])) == 1


def test_cost_per_pass_leaves_out_runs_without_a_cost() -> None:
    """Two passes, one costing 0.3 and one with no cost: 0.3 per pass, as the cost mean reads it."""
    costed = {"attempts": 1, "toolCount": 1, "costUsd": 0.3, "settlementMs": 100}
    uncosted = {"attempts": 1, "toolCount": 1, "settlementMs": 100}
    records = [
        _passing("a", "final-response", 1, True, metrics=costed),
        _passing("a", "final-response", 2, True, metrics=uncosted),
    ]
    row = cost_frame(records_frame(records), ["candidate"]).iloc[0]
    assert row["cost_usd_mean"] == pytest.approx(0.3)
    assert row["cost_per_pass"] == pytest.approx(0.3)


def test_cost_frame_summarises_cost_and_latency_next_to_quality() -> None:
    """Costs 0.1 and 0.3 with one pass: mean 0.2, per pass 0.4; settlement median and p95."""
    records = [
        _passing(
            "a",
            "final-response",
            1,
            True,
            metrics={
                "attempts": 1,
                "toolCount": 1,
                "costUsd": 0.1,
                "settlementMs": 100,
                "totalTokens": 1000,
            },
        ),
        _passing(
            "a",
            "final-response",
            2,
            False,
            metrics={
                "attempts": 1,
                "toolCount": 1,
                "costUsd": 0.3,
                "settlementMs": 300,
                "totalTokens": 3000,
            },
        ),
    ]
    row = cost_frame(records_frame(records), ["candidate"]).iloc[0]
    assert row["cost_usd_mean"] == pytest.approx(0.2)
    assert row["cost_usd_sum"] == pytest.approx(0.4)
    assert row["cost_per_pass"] == pytest.approx(0.4)
    assert (row["settlement_ms_median"], row["settlement_ms_p95"]) == (200.0, 300.0)
    assert row["total_tokens_mean"] == 2000.0
    assert row["mean_overall"] == 0.75
    assert math.isnan(row["first_progress_ms_p95"])


def test_the_pareto_frontier_marks_candidates_nobody_beats_on_quality_and_cost() -> None:
    """a (0.9, $1.0) and b (0.8, $0.5) are on the frontier; c (0.7, $0.6) is beaten by b."""
    records = [
        make_record(
            name,
            "final-response",
            overall=quality,
            passed=False,
            metrics={"attempts": 1, "toolCount": 1, "costUsd": cost},
        )
        for name, quality, cost in (("a", 0.9, 1.0), ("b", 0.8, 0.5), ("c", 0.7, 0.6))
    ]
    table = cost_frame(records_frame(records), ["candidate"])
    assert table["pareto"].tolist() == [True, True, False]


def test_the_frontier_is_judged_within_each_bundle() -> None:
    """Grouped by bundle and candidate, a candidate is compared only with its bundle's peers."""
    metrics = {"attempts": 1, "toolCount": 1, "costUsd": 1.0}
    records = [
        make_record("a", bundle="b1", overall=0.9, passed=False, metrics=metrics),
        make_record("b", bundle="b1", overall=0.5, passed=False, metrics=metrics),
        make_record("b", bundle="b2", overall=0.5, passed=False, metrics=metrics),
    ]
    assert cost_frame(records_frame(records))["pareto"].tolist() == [True, False, True]


def test_trend_frame_lists_bundles_in_bundle_order_per_candidate() -> None:
    """Per candidate, one row per bundle, in the frame's bundle order."""
    records = [
        _passing(candidate, "final-response", 1, passed, bundle=bundle)
        for candidate in ("x", "y")
        for bundle, passed in (("nightly-2", False), ("nightly-10", True))
    ]
    frame = records_frame(records, bundle_order=["nightly-2", "nightly-10"])
    table = trend_frame(frame, seed=0)
    assert list(table[["candidate", "bundle"]].astype(str).itertuples(index=False, name=None)) == [
        ("x", "nightly-2"),
        ("x", "nightly-10"),
        ("y", "nightly-2"),
        ("y", "nightly-10"),
    ]
    assert table["pass_rate"].tolist() == [0.0, 1.0, 0.0, 1.0]


def test_candidate_provider_frame_has_a_row_per_pair_seen() -> None:
    """Candidate x provider: one row per combination that has records."""
    records = [
        make_record("a", provider="codex"),
        make_record("a", "rich-activity", provider="acpx"),
        make_record("b", provider="codex"),
    ]
    table = candidate_provider_frame(records_frame(records), seed=0)
    assert list(
        table[["candidate", "provider"]].astype(str).itertuples(index=False, name=None)
    ) == [("a", "acpx"), ("a", "codex"), ("b", "codex")]
    assert table["executions"].tolist() == [1, 1, 1]
