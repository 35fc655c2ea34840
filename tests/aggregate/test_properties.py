"""Invariants of the aggregation layer, checked on generated inputs (hypothesis, derandomised)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from scorecard.aggregate._compare import ComparisonSettings, compare_candidates
from scorecard.aggregate._frames import records_frame
from scorecard.aggregate._stats import (
    holm_adjust,
    mcnemar_exact,
    reliability_curves,
    sign_flip_test,
    wilson_intervals,
)
from scorecard.aggregate._tables import dimension_frame, summary_frame
from scorecard.contract._models import CASE_IDS
from tests.aggregate.test_frames import make_record

PROPERTY = settings(derandomize=True, deadline=None, max_examples=40)
TOLERANCE = 1e-12
OUTCOMES = ("pass", "fail", "gate", "candidate_failure", "infrastructure_failure", "skipped")


@st.composite
def record_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Up to 30 records over 2 bundles, 3 candidates and 6 cases, each run once."""
    keys = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["b1", "b2"]),
                st.sampled_from(["a", "b", "c"]),
                st.sampled_from(CASE_IDS[:6]),
                st.integers(1, 3),
            ),
            min_size=1,
            max_size=30,
            unique=True,
        )
    )
    records = []
    for bundle, candidate, case, repetition in keys:
        outcome = draw(st.sampled_from(OUTCOMES))
        if outcome in ("infrastructure_failure", "skipped"):
            records.append(
                make_record(
                    candidate, case, repetition, bundle=bundle, classification=outcome, scores=None
                )
            )
            continue
        scores = draw(
            st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=8, max_size=8)
        )
        gate = outcome not in ("gate", "candidate_failure")
        records.append(
            make_record(
                candidate,
                case,
                repetition,
                bundle=bundle,
                classification="candidate_failure"
                if outcome == "candidate_failure"
                else "completed",
                scores=scores,
                overall=draw(st.sampled_from([0.0, 0.3, 0.55, 0.8, 1.0])) if gate else 0.0,
                passed=outcome == "pass",
                gate_passed=gate,
            )
        )
    return records


@PROPERTY
@given(st.data())
def test_frames_and_tables_do_not_depend_on_record_order(data: st.DataObject) -> None:
    """Any permutation of the records gives the same frame and the same summary table."""
    records = data.draw(record_lists())
    shuffled = data.draw(st.permutations(records))
    frame, again = records_frame(records), records_frame(shuffled)
    pd.testing.assert_frame_equal(again, frame)
    pd.testing.assert_frame_equal(summary_frame(again, seed=3), summary_frame(frame, seed=3))


@PROPERTY
@given(record_lists(), st.integers(0, 2**32))
def test_bootstrap_intervals_are_reproducible_for_a_seed(
    records: list[dict[str, Any]], seed: int
) -> None:
    """The same seed gives identical tables, bounds included."""
    frame = records_frame(records)
    pd.testing.assert_frame_equal(
        dimension_frame(frame, seed=seed, resamples=300),
        dimension_frame(frame, seed=seed, resamples=300),
    )


@PROPERTY
@given(record_lists())
def test_intervals_contain_their_point_estimates(records: list[dict[str, Any]]) -> None:
    """Every rate lies in its Wilson interval and every mean in its bootstrap interval."""
    frame = records_frame(records)
    summary = summary_frame(frame, seed=1, resamples=300)
    for name in ("pass_rate", "gate_pass_rate", "mean_overall"):
        known = summary.dropna(subset=[name])
        assert (known[f"{name}_low"] <= known[name] + TOLERANCE).all()
        assert (known[name] <= known[f"{name}_high"] + TOLERANCE).all()
    dimensions = dimension_frame(frame, seed=1, resamples=300).dropna(subset=["mean"])
    assert (dimensions["mean_low"] <= dimensions["mean"] + TOLERANCE).all()
    assert (dimensions["mean"] <= dimensions["mean_high"] + TOLERANCE).all()


@PROPERTY
@given(
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=6, max_size=12),
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=6, max_size=12),
)
def test_paired_differences_lie_in_their_intervals(
    current: list[float], baseline: list[float]
) -> None:
    """The paired mean difference lies in its bootstrap interval and p is in (0, 1]."""
    records = [
        make_record(name, case, overall=value, passed=value == 1.0)
        for name, values in (("x", current), ("y", baseline))
        for case, value in zip(CASE_IDS, values, strict=False)
    ]
    result = compare_candidates(
        records_frame(records), "x", "y", ComparisonSettings(seed=2, resamples=500)
    )
    overall = result.overall
    assert overall.low - TOLERANCE <= overall.difference <= overall.high + TOLERANCE
    assert 0 < overall.p_value <= 1
    assert overall.p_adjusted == overall.p_value  # a family of one comparison


@PROPERTY
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_hat_k_never_exceeds_pass_at_k(counts: tuple[int, int]) -> None:
    """pass^k <= pass@k; pass@k grows and pass^k shrinks with k."""
    n, c = counts
    at_k, hat_k = reliability_curves(n, c)
    assert (hat_k <= at_k + TOLERANCE).all()
    assert (np.diff(at_k) >= -TOLERANCE).all()
    assert (np.diff(hat_k) <= TOLERANCE).all()


@PROPERTY
@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_intervals_agree_with_scipy(counts: tuple[int, int]) -> None:
    """The Wilson interval equals scipy's and contains the observed rate."""
    successes, trials = counts
    rate, low, high = wilson_intervals([successes], [trials])
    expected = binomtest(successes, trials).proportion_ci(method="wilson")
    assert abs(low[0] - expected.low) < 1e-12
    assert abs(high[0] - expected.high) < 1e-12
    assert low[0] <= rate[0] <= high[0]


@PROPERTY
@given(st.integers(0, 80), st.integers(0, 80))
def test_mcnemar_agrees_with_scipy(current_only: int, baseline_only: int) -> None:
    """Exact McNemar equals scipy's two-sided binomial test on the discordant pairs."""
    n = current_only + baseline_only
    expected = 1.0 if n == 0 else binomtest(current_only, n).pvalue
    assert abs(mcnemar_exact(current_only, baseline_only) - expected) <= 1e-12 * max(
        expected, 1e-300
    )


@PROPERTY
@given(st.lists(st.integers(-8, 8), max_size=10))
def test_exact_sign_flip_equals_enumeration(eighths: list[int]) -> None:
    """For up to 10 units the p-value equals a brute-force count over every sign vector."""
    differences = [value / 8 for value in eighths]
    observed = abs(sum(differences))
    hits = sum(
        abs(sum(sign * value for sign, value in zip(signs, differences, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(differences))
    )
    p_values, _ = sign_flip_test(np.array(differences), seed=0)
    assert p_values[0] == hits / 2 ** len(differences)


@PROPERTY
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_adjusted_p_values_are_bounded_and_keep_the_order(p_values: list[float]) -> None:
    """p <= Holm(p) <= 1, and a smaller raw p never gets a larger adjusted p."""
    adjusted = holm_adjust(p_values)
    raw = np.array(p_values)
    assert (raw <= adjusted + TOLERANCE).all()
    assert (adjusted <= 1).all()
    order = np.argsort(raw, kind="stable")
    assert (np.diff(adjusted[order]) >= -TOLERANCE).all()
