"""Statistics checked against independent computations: published tables, scipy, brute force."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binomtest

from scorecard.aggregate._stats import (
    _smallest_keys_sums,
    cluster_bootstrap_means,
    holm_adjust,
    mcnemar_exact,
    paired_bootstrap_means,
    pareto_frontier,
    reliability_curves,
    seeded_generator,
    sign_flip_interval,
    sign_flip_test,
    stratified_permutation_test,
    student_t_quantile,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_matches_newcombe(
    successes: int, trials: int, low: float, high: float
) -> None:
    """The 95% Wilson interval agrees with Newcombe's published four-decimal values."""
    interval = wilson_interval(successes, trials)
    assert (round(interval.low, 4), round(interval.high, 4)) == (low, high)
    assert interval.estimate == successes / trials


def test_wilson_interval_of_all_successes_reaches_one() -> None:
    """x = n: the upper bound is exactly 1 and the lower bound below it."""
    interval = wilson_interval(12, 12)
    assert interval.high == 1.0
    assert interval.low == pytest.approx(0.7575, abs=1e-4)  # n / (n + z**2) = 12 / 15.8415


def test_wilson_interval_of_no_trials_is_undefined() -> None:
    """n = 0: estimate and bounds are NaN."""
    interval = wilson_interval(0, 0)
    assert all(math.isnan(value) for value in (interval.estimate, interval.low, interval.high))


def test_wilson_interval_widens_with_confidence() -> None:
    """A 99% interval contains the 95% one."""
    narrow, wide = wilson_interval(7, 20, 0.95), wilson_interval(7, 20, 0.99)
    assert wide.low < narrow.low < narrow.high < wide.high


@pytest.mark.parametrize(
    ("current_only", "baseline_only"),
    [(0, 0), (1, 0), (5, 0), (3, 7), (7, 3), (10, 10), (2, 9), (0, 16), (40, 25)],
)
def test_mcnemar_exact_matches_scipy_binomtest(current_only: int, baseline_only: int) -> None:
    """The exact McNemar p-value is scipy's two-sided binomial test on the discordant pairs."""
    n = current_only + baseline_only
    expected = 1.0 if n == 0 else binomtest(current_only, n, 0.5).pvalue
    assert mcnemar_exact(current_only, baseline_only) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("current_only", "baseline_only"), [(480, 560), (1500, 1380), (50, 2000)])
def test_mcnemar_exact_for_many_pairs_matches_scipy(current_only: int, baseline_only: int) -> None:
    """Above 1000 discordant pairs (log-space summation) the p-value still matches scipy."""
    expected = binomtest(current_only, current_only + baseline_only, 0.5).pvalue
    assert mcnemar_exact(current_only, baseline_only) == pytest.approx(expected, rel=1e-9)


def test_mcnemar_of_sixteen_to_nothing() -> None:
    """16 discordant pairs all one way: p = 2 / 2**16."""
    assert mcnemar_exact(16, 0) == 2 / 2**16


def _brute_force_sign_flip(differences: list[float]) -> float:
    observed = abs(sum(differences))
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(differences)):
        flipped = abs(sum(sign * value for sign, value in zip(signs, differences, strict=True)))
        hits += flipped >= observed - 1e-9
    return hits / (1 << len(differences))


@pytest.mark.parametrize(
    "differences",
    [
        [0.4] * 8,
        [0.4, -0.1, 0.2, 0.3, 0.0, 0.25],
        [0.125, -0.5, 0.25, 0.25, -0.125, 0.375, 0.5, 0.0625, -0.25, 0.1875],
        [1.0, -1.0],
        [0.3],
        [],
    ],
)
def test_exact_sign_flip_equals_brute_force(differences: list[float]) -> None:
    """Up to 16 units every sign vector is enumerated; the p-value equals a brute-force count."""
    p_values, method = sign_flip_test(np.array(differences), seed=0)
    assert method == "exact"
    assert p_values[0] == _brute_force_sign_flip(differences)


def test_sign_flip_of_eight_equal_gains() -> None:
    """Eight cases, each +0.4: only the all-plus and all-minus vectors are as extreme: 2/256."""
    p_values, _ = sign_flip_test(np.full(8, 0.4), seed=0)
    assert p_values[0] == 2 / 256


def test_sign_flip_above_sixteen_units_is_seeded_monte_carlo() -> None:
    """17 units: Monte Carlo, reproducible for a seed, close to the exact brute-force value."""
    differences = [0.05 * ((index % 5) - 1.2) for index in range(17)]
    first, method = sign_flip_test(np.array(differences), seed=3, resamples=40_000)
    again, _ = sign_flip_test(np.array(differences), seed=3, resamples=40_000)
    assert method == "monte_carlo"
    assert first[0] == again[0]
    assert first[0] == pytest.approx(_brute_force_sign_flip(differences), abs=0.01)


def test_sign_flip_tests_each_column() -> None:
    """Columns are separate statistics with separate p-values."""
    differences = np.array([[0.4, 0.1], [0.4, -0.1], [0.4, 0.1], [0.4, -0.1]])
    p_values, _ = sign_flip_test(differences, seed=0)
    assert p_values.tolist() == [2 / 16, 1.0]


def test_sign_flip_of_a_column_with_no_data_is_nan_not_zero() -> None:
    """A missing difference leaves its column untested; the other column keeps its exact p."""
    differences = [[math.nan, 0.1], [0.2, 0.1], [0.1, 0.2], [-0.1, 0.1], [0.3, 0.3], [0.2, 0.1]]
    p_values, method = sign_flip_test(differences, seed=0)
    assert math.isnan(p_values[0])
    assert p_values[1] == 2 / 2**6  # all six gains: only the all-plus and all-minus signs tie
    assert method == "exact"


def test_holm_adjustment_by_hand() -> None:
    """p = (0.01, 0.04, 0.03, 0.005): 4 x 0.005, 3 x 0.01, then max(2 x 0.03, 1 x 0.04)."""
    adjusted = holm_adjust([0.01, 0.04, 0.03, 0.005])
    assert adjusted.tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_and_leaves_nan_outside_the_family() -> None:
    """Adjusted p-values never exceed 1; NaN entries stay NaN and do not count in m."""
    adjusted = holm_adjust([0.6, math.nan, 0.2])
    assert adjusted[0] == 0.6
    assert math.isnan(adjusted[1])
    assert adjusted[2] == 0.4


@pytest.mark.parametrize(("n", "c"), [(1, 0), (1, 1), (5, 2), (5, 5), (5, 0), (10, 7), (30, 11)])
def test_reliability_curves_match_binomial_coefficients(n: int, c: int) -> None:
    """pass@k = 1 - C(n-c,k)/C(n,k) and pass^k = C(c,k)/C(n,k), computed with math.comb."""
    at_k, hat_k = reliability_curves(n, c)
    for k in range(1, n + 1):
        expected_at = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        expected_hat = Fraction(math.comb(c, k), math.comb(n, k))
        assert at_k[k - 1] == pytest.approx(float(expected_at), abs=1e-12)
        assert hat_k[k - 1] == pytest.approx(float(expected_hat), abs=1e-12)


def test_reliability_at_k_one_is_the_pass_rate() -> None:
    """For k = 1 both pass@1 and pass^1 are c / n."""
    at_k, hat_k = reliability_curves(4, 3)
    assert (at_k[0], hat_k[0]) == (0.75, 0.75)


def test_pareto_frontier_by_hand() -> None:
    """(0.9, $1.0) and (0.8, $0.5) are on the frontier; (0.7, $0.6) is beaten; NaN cost is off."""
    frontier = pareto_frontier([0.9, 0.8, 0.7, 0.95], [1.0, 0.5, 0.6, math.nan])
    assert frontier.tolist() == [True, True, False, False]


def test_equal_points_are_both_on_the_frontier() -> None:
    """Two identical candidates do not dominate each other."""
    assert pareto_frontier([0.5, 0.5], [1.0, 1.0]).tolist() == [True, True]


def test_cluster_bootstrap_pools_rows() -> None:
    """The estimate is the pooled row mean, not the mean of case means."""
    estimate, low, high = cluster_bootstrap_means(
        [[3.0], [0.0]], [3, 1], rng=seeded_generator(0), resamples=500
    )
    assert estimate[0] == 0.75
    assert low[0] <= estimate[0] <= high[0]


def test_cluster_bootstrap_of_one_case_has_no_spread() -> None:
    """One case: every resample is that case, so the interval is the point."""
    estimate, low, high = cluster_bootstrap_means([[2.4]], [3], rng=seeded_generator(1))
    assert (low[0], high[0]) == pytest.approx((0.8, 0.8))
    assert estimate[0] == pytest.approx(0.8)


def test_bootstrap_is_reproducible_for_a_seed_and_key() -> None:
    """The same seed and key give identical intervals; another key gives another stream."""
    differences = np.array([0.1, -0.2, 0.3, 0.05, 0.0, 0.4])

    def interval(seed: int, key: tuple[str, ...]) -> tuple[float, float]:
        _, low, high = paired_bootstrap_means(
            differences, rng=seeded_generator(seed, key), resamples=2000
        )
        return float(low[0]), float(high[0])

    assert interval(5, ("a",)) == interval(5, ("a",))
    assert interval(5, ("a",)) != interval(5, ("b",))


def test_paired_bootstrap_of_no_units_is_undefined() -> None:
    """No paired units: NaN estimate and bounds."""
    estimate, low, high = paired_bootstrap_means(np.zeros((0, 2)), rng=seeded_generator(0))
    assert np.isnan(np.concatenate([estimate, low, high])).all()


def test_negative_seeds_are_refused() -> None:
    """Seeds are non-negative integers."""
    with pytest.raises(ValueError, match="seed"):
        seeded_generator(-1)


# --- the gate's statistics: one-sided tests, inverted intervals, t quantiles, gated means ------


@pytest.mark.parametrize(
    "differences",
    [
        [0.4, -0.1, 0.2, 0.3, 0.0, 0.25],
        [-0.125, -0.5, 0.25, -0.25, -0.125, 0.375, -0.5, 0.0625, -0.25, 0.1875],
        [-0.3] * 7,
    ],
)
def test_one_sided_sign_flip_equals_a_brute_force_count_of_lower_sums(
    differences: list[float],
) -> None:
    """``less``: the share of the 2**n sign vectors whose sum is at most the observed one."""
    observed = sum(differences)
    vectors = list(itertools.product((-1, 1), repeat=len(differences)))
    hits = sum(
        sum(s * d for s, d in zip(signs, differences, strict=True)) <= observed + 1e-12
        for signs in vectors
    )
    p_values, _ = sign_flip_test(np.array(differences), seed=0, alternative="less")
    assert p_values[0] == hits / len(vectors)


def test_one_sided_sign_flip_of_a_column_with_no_data_is_nan() -> None:
    values = np.array([[np.nan, -0.2], [0.1, -0.1], [0.2, -0.3], [0.3, -0.1]])
    p_values, _ = sign_flip_test(values, seed=0, alternative="less")
    assert math.isnan(p_values[0])
    assert p_values[1] == 1 / 16


@pytest.mark.parametrize("df", [1, 2, 3, 5, 11, 40])
@pytest.mark.parametrize("probability", [0.8, 0.95, 0.975, 0.99, 0.05 / 7])
def test_student_t_quantile_matches_scipy(df: int, probability: float) -> None:
    from scipy.stats import t

    tolerance = 1e-9 if df <= 2 else 0.03 if df == 3 else 3e-3 if df == 5 else 1e-4
    assert student_t_quantile(probability, df) == pytest.approx(
        t.ppf(probability, df), abs=tolerance
    )


def mid_p_sign_flip(differences: list[float], shift: float) -> float:
    """The two-sided mid-p sign-flip p-value of ``differences - shift``, by enumerating every
    sign vector: sums farther from 0 than the observed one count 1, equally far (within
    1e-9) count 1/2."""
    values = np.array(differences) - shift
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(values))))
    far = np.abs(signs @ values)
    observed = abs(values.sum())
    weight = (far > observed + 1e-9).sum() + 0.5 * (np.abs(far - observed) <= 1e-9).sum()
    return float(weight / len(signs))


@pytest.mark.parametrize(
    "differences",
    [
        [-0.8, 0.05, 0.1, 0.02, -0.03, 0.07, 0.0, 0.04, -0.02, 0.06, 0.01, 0.03],
        # half the cases scored the same on both nights (a common tie in nightly data)
        [0.0, -0.017, 0.0, 0.0, -0.052, 0.0, -0.062, -0.13, -0.092, 0.0, 0.0, 0.005],
        [0.0, 0.467, 0.96, -0.07, 0.254, 1.0, 0.189, 0.0],
    ],
)
def test_the_interval_is_the_hull_of_the_shifts_the_mid_p_test_accepts(
    differences: list[float],
) -> None:
    """Every shift the mid-p test accepts at 5% lies in the interval (the shifts making a
    difference 0 among them), and just outside each bound the test rejects."""
    low, high = sign_flip_interval(np.array(differences), seed=0)
    grid = [-1 + k / 200 for k in range(401)]
    accepted = [
        shift for shift in [*grid, *differences] if mid_p_sign_flip(differences, shift) > 0.05
    ]
    assert low[0] <= min(accepted)
    assert max(accepted) <= high[0]
    assert mid_p_sign_flip(differences, low[0] - 1e-6) <= 0.05
    assert mid_p_sign_flip(differences, high[0] + 1e-6) <= 0.05


def test_too_few_units_give_the_whole_range() -> None:
    """Four units: the smallest two-sided p is 2/16 > 5%, so no shift is ever rejected."""
    low, high = sign_flip_interval(np.array([0.1, 0.2, 0.3, 0.4]), seed=0)
    assert (low[0], high[0]) == (-1.0, 1.0)


def test_the_inverted_interval_covers_a_symmetric_heavy_tailed_mean() -> None:
    """12 differences of two runs of the same quality (gate failures give rare +-0.85 jumps):
    the 95% interval holds the true mean 0 in 93-98% of 600 seeded samples."""
    rng = np.random.default_rng(7)
    held = 0
    trials = 600
    for _ in range(trials):
        runs = np.where(rng.random((2, 12)) < 0.1, 0.0, rng.uniform(0.7, 1.0, (2, 12)))
        low, high = sign_flip_interval(runs[0] - runs[1], seed=0)
        held += bool(low[0] <= 0.0 <= high[0])
    assert 0.93 <= held / trials <= 0.98


def test_the_stratified_permutation_test_equals_a_brute_force_count() -> None:
    """Three cases (1 current + 1 baseline run, 3 + 3, 1 + 2): every assignment of side labels within
    each case, equally likely under "no change"; the Monte Carlo p-value is within 0.01 of the
    exact share of assignments whose statistic (case differences weighted by a b / (a + b)) is
    at most the observed one. Unweighted case differences would give 0.075 here, not 0.092."""
    strata = [
        (np.array([0.0]), np.array([1.0])),
        (np.array([0.6, 0.7, 0.5]), np.array([0.9, 0.8, 0.4])),
        (np.array([0.3]), np.array([0.35, 0.9])),
    ]

    def statistic(parts: list[tuple[np.ndarray, np.ndarray]]) -> float:
        return float(
            sum(
                len(mine) * len(theirs) / (len(mine) + len(theirs)) * (mine.mean() - theirs.mean())
                for mine, theirs in parts
            )
        )

    observed = statistic(strata)
    options = []
    for mine, theirs in strata:
        values = np.concatenate([mine, theirs])
        options.append(
            [
                (values[list(chosen)], np.delete(values, list(chosen)))
                for chosen in itertools.combinations(range(values.size), mine.size)
            ]
        )
    assignments = list(itertools.product(*options))
    exact = sum(statistic(list(parts)) <= observed + 1e-12 for parts in assignments)
    p_value = stratified_permutation_test(strata, seed=0, resamples=40_000)
    assert p_value == pytest.approx(exact / len(assignments), abs=0.01)


@pytest.mark.parametrize(("a", "b", "width"), [(2, 3, 1), (5, 5, 2), (20, 19, 2), (29, 40, 3)])
def test_a_draws_current_side_is_the_runs_with_the_smallest_keys(
    a: int, b: int, width: int
) -> None:
    """Each draw's sum is that of the ``a`` runs its keys rank first, as sorting every row
    says (up to the sums' rounding); ties at a cutoff still pick exactly ``a`` runs."""
    rng = np.random.default_rng(a * 100 + b)
    keys = rng.random((500, a + b))
    values = np.round(rng.random((a + b, width)), 2)
    expected = np.array([values[np.argsort(row)[:a]].sum(axis=0) for row in keys])
    assert np.allclose(_smallest_keys_sums(keys, a, values), expected, rtol=0, atol=1e-12)
    tied = np.round(keys, 1)  # ten distinct keys at most: many rows tie at their cutoff
    sums = _smallest_keys_sums(tied, a, np.ones((a + b, 1)))
    assert sums.shape == (500, 1)
    assert np.all(sums == a)


def test_one_run_a_side_permutes_as_the_exact_sign_flip_test() -> None:
    strata = [(np.array([x]), np.array([y])) for x, y in [(0.1, 0.5), (0.3, 0.9), (0.8, 0.7)]]
    p_value = stratified_permutation_test(strata, seed=0)
    expected, _ = sign_flip_test(np.array([-0.4, -0.6, 0.1]), seed=0, alternative="less")
    assert p_value == expected[0]


def _brute_force_min_p(strata: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """The exact min-p combination over every within-case assignment (equally likely)."""
    options = []
    for mine, theirs in strata:
        values = np.vstack([mine, theirs])
        options.append(
            [
                (values[list(chosen)], np.delete(values, list(chosen), axis=0))
                for chosen in itertools.combinations(range(len(values)), len(mine))
            ]
        )
    statistics = np.array(
        [
            sum(
                len(m) * len(t) / (len(m) + len(t)) * (m.mean(axis=0) - t.mean(axis=0))
                for m, t in parts
            )
            for parts in itertools.product(*options)
        ]
    )
    observed = sum(
        len(m) * len(t) / (len(m) + len(t)) * (m.mean(axis=0) - t.mean(axis=0)) for m, t in strata
    )
    # each assignment's own p per statistic, then the share whose smaller one is at most ours
    own = (statistics[None, :, :] <= statistics[:, None, :] + 1e-12).mean(axis=1)
    mine = (statistics <= observed + 1e-12).mean(axis=0)
    return float((own.min(axis=1) <= mine.min() + 1e-12).mean())


def test_two_statistics_combine_as_the_exact_min_p_of_a_brute_force_count() -> None:
    """Runs carrying two values (a score and a count): the Monte Carlo p-value is within 0.01
    of the exact min-p over every assignment, at least the smaller marginal p-value and at most
    twice it (Bonferroni)."""
    strata = [
        (np.array([[0.2, 5.0], [0.0, 6.0]]), np.array([[0.9, 8.0], [0.8, 7.0], [0.85, 8.0]])),
        (np.array([[0.5, 8.0]]), np.array([[0.9, 7.0], [0.7, 8.0]])),
        (np.array([[0.6, 7.0]]), np.array([[0.6, 8.0]])),
    ]
    exact = _brute_force_min_p(strata)
    combined = stratified_permutation_test(strata, seed=0, resamples=40_000)
    marginals = [
        stratified_permutation_test(
            [(mine[:, k], theirs[:, k]) for mine, theirs in strata], seed=0, resamples=40_000
        )
        for k in (0, 1)
    ]
    assert combined == pytest.approx(exact, abs=0.01)
    assert min(marginals) - 0.005 <= combined <= 2 * min(marginals) + 0.005


def test_two_statistics_with_one_run_a_side_enumerate_the_sign_flips() -> None:
    """One run a side: the min-p over every one of the 2**n sign vectors, exactly."""
    strata = [
        (np.array([[a, b]]), np.array([[c, d]]))
        for a, b, c, d in [(0.1, 6, 0.5, 8), (0.3, 7, 0.9, 7), (0.8, 8, 0.7, 6), (0.2, 5, 0.6, 8)]
    ]
    p_value = stratified_permutation_test(strata, seed=0)
    assert p_value == _brute_force_min_p(strata)
    assert p_value * 16 == round(p_value * 16)


def test_a_large_case_is_tested_from_its_exact_moments() -> None:
    """A case of 600 runs a side (normal draws of the permuted sum, not shuffles): a shift of
    0.03 in values of spread 0.3 gives the p-value the permutation's normal approximation
    gives, z = shift / (sd x sqrt(2 / 600))."""
    rng = np.random.default_rng(3)
    mine = rng.normal(0.47, 0.3, 600)
    theirs = rng.normal(0.5, 0.3, 600)
    p_value = stratified_permutation_test([(mine, theirs)], seed=0, resamples=20_000)
    both = np.concatenate([mine, theirs])
    z = (mine.mean() - theirs.mean()) / (both.std() * math.sqrt(1 / 600 + 1 / 600))
    expected = 0.5 * math.erfc(-z / math.sqrt(2))
    assert p_value == pytest.approx(expected, abs=0.01)
    assert 0.0 < p_value < 0.5


def interval_draw_by_draw(
    values: np.ndarray, *, seed: int, key: tuple[object, ...], resamples: int
) -> tuple[np.ndarray, np.ndarray]:
    """The sign-flip interval as first written: every draw counted at every shift, one end
    after the other, then each unit's shift asked in turn (the reference the kept distinct
    draws must equal bit for bit)."""
    n, width = values.shape
    missing = np.isnan(values).any(axis=0)
    if n <= 16:
        codes = np.arange(2**n)[:, None] >> np.arange(n)
        signs = ((codes & 1) * 2 - 1).astype(np.float64)
        extra = 0.0
    else:
        rng = seeded_generator(seed, ("sign-flip", *key))
        signs = (rng.integers(0, 2, size=(resamples, n), dtype=np.int8) * 2 - 1).astype(np.float64)
        extra = 1.0
    clean = np.where(missing[None, :], 0.0, values)
    flipped = signs @ clean
    totals = signs.sum(axis=1)
    scale = 1.0 + np.abs(clean).sum(axis=0)

    def accepted(delta: np.ndarray) -> np.ndarray:
        observed = np.abs(clean.sum(axis=0) - n * delta)
        sums = np.abs(flipped - totals[:, None] * delta[None, :])
        tolerance = 1e-12 * scale
        beyond = (sums > observed + tolerance).sum(axis=0)
        ties = (np.abs(sums - observed) <= tolerance).sum(axis=0)
        accepts: np.ndarray = (extra / 2 + beyond + ties / 2) / (extra + signs.shape[0]) > 0.05
        return accepts

    low, high = np.full(width, np.nan), np.full(width, np.nan)
    for side, bound in ((low, -1.0), (high, 1.0)):
        outer, inner = np.full(width, bound), clean.mean(axis=0)
        edge = accepted(outer)
        for _ in range(26):
            middle = (outer + inner) / 2
            keep = accepted(middle)
            inner, outer = np.where(keep, middle, inner), np.where(keep, outer, middle)
        side[:] = np.where(edge, bound, inner)
    for unit in range(n):
        shift = clean[unit]
        outside = (shift < low) | (shift > high)
        if outside.any():
            keep = outside & accepted(shift) & (shift >= -1.0) & (shift <= 1.0)
            low = np.where(keep, np.minimum(low, shift), low)
            high = np.where(keep, np.maximum(high, shift), high)
    low[missing] = np.nan
    high[missing] = np.nan
    return low, high


@pytest.mark.parametrize("units", [1, 3, 6, 11, 12, 16, 17, 40, 78])
@pytest.mark.parametrize("kind", ["steps", "continuous", "ties and gaps"])
def test_the_interval_equals_every_draw_counted_at_every_shift(units: int, kind: str) -> None:
    """Counting each distinct (flipped sum, sign total) once, both ends at once and each
    distinct unit shift once gives the bits of counting every draw at every shift."""
    rng = np.random.default_rng(units * 7 + len(kind))
    if kind == "steps":  # dimension means: a few values, many draws share their sums
        values = rng.choice([0.0, 0.5, -0.5, 1.0, -1.0, 1 / 3, -2 / 3], size=(units, 5))
    elif kind == "continuous":
        values = np.clip(rng.normal(0.05, 0.2, size=(units, 5)), -1, 1)
    else:
        values = rng.choice([0.0, 0.0, 0.85, -0.85, 0.1], size=(units, 5))
        values[:, 1] = 0.0
        values[0, 2] = np.nan
        values[:, 3] = 0.25
    key = ("test", units, kind)
    found = sign_flip_interval(values, seed=3, key=key, resamples=2000)
    expected = interval_draw_by_draw(values, seed=3, key=key, resamples=2000)
    assert [end.tobytes() for end in expected] == [end.tobytes() for end in found]
