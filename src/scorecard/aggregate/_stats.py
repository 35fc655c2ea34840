"""Statistics behind honest comparisons: intervals, exact tests, resampling, reliability.

Everything here is pure numpy on plain arrays (no frames), so each function can be checked
against an independent computation. Randomness only comes from a ``numpy.random.Generator``
derived from an explicit seed (:func:`seeded_generator`); the same seed and inputs give the same
numbers. Definitions and their rationale are in ``docs/aggregation.md``.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Literal

import numpy as np
import numpy.typing as npt

from ._kept import array_key, kept_by_inputs

__all__ = [
    "EXACT_SIGN_FLIP_LIMIT",
    "FloatArray",
    "Interval",
    "cluster_bootstrap_means",
    "gated_mean_interval",
    "holm_adjust",
    "mcnemar_exact",
    "paired_bootstrap_means",
    "pareto_frontier",
    "percentile_interval",
    "reference_p95",
    "reliability_curves",
    "seeded_generator",
    "sign_flip_interval",
    "sign_flip_test",
    "sign_flip_tests",
    "stratified_permutation_test",
    "student_t_quantile",
    "wilson_interval",
    "wilson_intervals",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Up to this many paired units the sign-flip test enumerates all 2**n sign vectors.
EXACT_SIGN_FLIP_LIMIT = 16
#: Above this many discordant pairs the McNemar tail is summed in log space, not as fractions.
_EXACT_BINOMIAL_LIMIT = 1000


@dataclass(frozen=True)
class Interval:
    """A point estimate with the bounds of its confidence interval."""

    estimate: float
    """The point estimate (NaN when there is no data)."""
    low: float
    """Lower bound (NaN when there is no data)."""
    high: float
    """Upper bound (NaN when there is no data)."""


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError("confidence must be strictly between 0 and 1")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def seeded_generator(seed: int, key: Sequence[object] = ()) -> np.random.Generator:
    """A generator for ``seed`` and a group ``key``: the same pair always gives the same stream.

    Deriving the stream from the group's own key (not its position) keeps a group's interval
    unchanged when other groups are added or removed.
    """
    if seed < 0:
        raise ValueError("seed must be a non-negative integer")
    digest = hashlib.sha256("\x1f".join(str(part) for part in key).encode("utf-8")).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


def wilson_intervals(
    successes: npt.ArrayLike, trials: npt.ArrayLike, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Rates with their Wilson score intervals, element-wise; NaN where ``trials`` is 0."""
    z = _z(confidence)
    x = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = x / n
        z2n = z * z / n
        centre = (rate + z2n / 2) / (1 + z2n)
        half = z / (1 + z2n) * np.sqrt(rate * (1 - rate) / n + z2n / (4 * n))
    empty = n <= 0
    rate = np.where(empty, np.nan, rate)
    low = np.where(empty, np.nan, np.clip(centre - half, 0.0, 1.0))
    high = np.where(empty, np.nan, np.clip(centre + half, 0.0, 1.0))
    # The closed form gives 0 and 1 exactly in exact arithmetic; keep rounding from hiding them.
    low = np.where(x == 0, 0.0, low)
    high = np.where(x == n, 1.0, high)
    low = np.where(empty, np.nan, low)
    high = np.where(empty, np.nan, high)
    return rate, low, high


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> Interval:
    """The rate ``successes / trials`` with its Wilson score interval (NaN when no trials)."""
    if successes < 0 or trials < 0 or successes > trials:
        raise ValueError("need 0 <= successes <= trials")
    rate, low, high = wilson_intervals([successes], [trials], confidence)
    return Interval(float(rate[0]), float(low[0]), float(high[0]))


def mcnemar_exact(current_only: int, baseline_only: int) -> float:
    """Two-sided exact McNemar p-value: binomial(b + c, 1/2) tail at min(b, c), doubled, <= 1."""
    if current_only < 0 or baseline_only < 0:
        raise ValueError("discordant counts must be non-negative")
    n = current_only + baseline_only
    k = min(current_only, baseline_only)
    if n == 0 or 2 * k >= n:
        return 1.0
    if n <= _EXACT_BINOMIAL_LIMIT:
        term, total = 1, 1  # C(n, 0); each next coefficient from the last, in exact integers
        for index in range(k):
            term = term * (n - index) // (index + 1)
            total += term
        return float(min(Fraction(1), Fraction(2 * total, 2**n)))
    # log C(n, i) - n log 2 built up term by term; the tail is summed relative to its largest term.
    i = np.arange(1, k + 1, dtype=np.float64)
    log_terms = np.concatenate(([0.0], np.cumsum(np.log((n - i + 1) / i)))) - n * math.log(2)
    top = float(log_terms.max())
    log_tail = top + math.log(float(np.exp(log_terms - top).sum()))
    return min(1.0, 2 * math.exp(log_tail))


@functools.lru_cache(maxsize=EXACT_SIGN_FLIP_LIMIT + 1)
def _sign_matrix(n: int) -> FloatArray:
    """Every sign vector of length n as rows of +/-1 (cached: built once per n, read-only)."""
    codes = np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)
    matrix = ((codes & 1) * 2 - 1).astype(np.float64)
    matrix.setflags(write=False)
    return matrix


def sign_flip_test(
    differences: npt.ArrayLike,
    *,
    seed: int,
    key: Sequence[object] = (),
    resamples: int = 10_000,
    alternative: Literal["two-sided", "less"] = "two-sided",
) -> tuple[FloatArray, Literal["exact", "monte_carlo"]]:
    """Sign-flip p-values for the mean of each column of paired ``differences``.

    ``differences`` is (units x statistics). Up to :data:`EXACT_SIGN_FLIP_LIMIT` units every
    one of the 2**n sign vectors is enumerated; above it ``resamples`` seeded random sign vectors
    give ``(1 + hits) / (1 + resamples)``. Sums within a tiny tolerance of the observed one count
    as ties (floating-point sums of the same values in another order may differ in the last bit).
    ``two-sided`` counts sign vectors whose sum is at least as far from 0 as the observed one;
    ``less`` (a one-sided test of a drop) those whose sum is at most the observed one.
    A column with a missing difference (NaN) has no test: its p-value is NaN, never 0.
    """
    two_sided, less, method = sign_flip_tests(differences, seed=seed, key=key, resamples=resamples)
    return (less if alternative == "less" else two_sided), method


def _stream(key: Sequence[object]) -> str:
    # What names a seeded stream (seeded_generator reads the parts as text).
    return "\x1f".join(str(part) for part in key)


def _tests_key(
    differences: npt.ArrayLike,
    *,
    seed: int,
    key: Sequence[object] = (),
    resamples: int = 10_000,
) -> tuple[object, ...]:
    return (array_key(differences), seed, _stream(key), resamples)


@kept_by_inputs(_tests_key)
def sign_flip_tests(
    differences: npt.ArrayLike,
    *,
    seed: int,
    key: Sequence[object] = (),
    resamples: int = 10_000,
) -> tuple[FloatArray, FloatArray, Literal["exact", "monte_carlo"]]:
    """Both :func:`sign_flip_test` p-values (two-sided, then ``less``) from the same sign
    vectors: one enumeration (or one seeded stream) for both."""
    values = np.asarray(differences, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    missing = np.isnan(values).any(axis=0)
    if missing.any():
        two_sided, less, method = sign_flip_tests(
            values[:, ~missing], seed=seed, key=key, resamples=resamples
        )
        results = []
        for found in (two_sided, less):
            full = np.full(values.shape[1], np.nan)
            full[~missing] = found
            results.append(full)
        return results[0], results[1], method
    n = values.shape[0]
    tolerance = 1e-12 * (1.0 + np.abs(values).sum(axis=0))
    observed = values.sum(axis=0)

    def extreme(sums: FloatArray) -> tuple[IntArray, IntArray]:
        far = (np.abs(sums) >= np.abs(observed) - tolerance).sum(axis=0)
        low = (sums <= observed + tolerance).sum(axis=0)
        return far, low

    if n <= EXACT_SIGN_FLIP_LIMIT:
        far, low = extreme(_sign_matrix(n) @ values)
        return far / float(2**n), low / float(2**n), "exact"
    rng = seeded_generator(seed, ("sign-flip", *key))
    hits_far = np.zeros(values.shape[1], dtype=np.int64)
    hits_low = np.zeros(values.shape[1], dtype=np.int64)
    chunk = max(1, 2_000_000 // max(n, 1))
    remaining = resamples
    while remaining > 0:
        size = min(chunk, remaining)
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1
        far, low = extreme(signs.astype(np.float64) @ values)
        hits_far += far
        hits_low += low
        remaining -= size
    total = 1.0 + resamples
    far_p = ((1.0 + hits_far) / total).astype(np.float64)
    low_p = ((1.0 + hits_low) / total).astype(np.float64)
    return far_p, low_p, "monte_carlo"


#: A stratum with at least this many runs a side has its permuted sums drawn from their exact
#: mean and covariance (a normal draw) instead of by shuffling its runs: a bundle of 500,000
#: runs would need 10,000 shuffles of every case's tens of thousands of runs. A nightly bundle
#: (one to three runs a case and night) never comes near it.
_NORMAL_SIDE = 30


def _smaller_or_equal(
    ordered: list[FloatArray], points: FloatArray, tolerance: FloatArray
) -> IntArray:
    """Per column, how many draws (``ordered``: each column's draws sorted) lie at or below
    each of ``points`` (rows)."""
    counts = np.empty(points.shape, dtype=np.int64)
    for column, draws in enumerate(ordered):
        counts[:, column] = np.searchsorted(
            draws, points[:, column] + tolerance[column], side="right"
        )
    return counts


def _lower_p_value(
    observed: FloatArray, draws: FloatArray, tolerance: FloatArray, *, exact: bool
) -> float:
    """The one-sided p-value of ``observed`` (one value per statistic) among ``draws``
    (resamples x statistics) of its null distribution: the share at or below it, and with
    several statistics the share of draws whose smallest per-statistic p-value is at most the
    observed one's (the min-p combination, calibrated on the same draws). ``exact``: the draws
    are the whole distribution (the observed arrangement among them); else Monte Carlo draws,
    counted as ``(1 + hits) / (1 + draws)``."""
    extra = 0 if exact else 1
    total = draws.shape[0] + extra
    ordered = [np.sort(draws[:, column]) for column in range(draws.shape[1])]  # sorted once
    observed_hits = _smaller_or_equal(ordered, observed[None, :], tolerance)[0]
    observed_p: FloatArray = (extra + observed_hits) / total
    if draws.shape[1] == 1:
        return float(observed_p[0])
    draw_p = (extra + _smaller_or_equal(ordered, draws, tolerance)) / total
    smallest = draw_p.min(axis=1)
    hits = int((smallest <= observed_p.min() * (1 + 1e-12)).sum())
    return float((extra + hits) / total)


def _smallest_keys_sums(keys: FloatArray, a: int, values: FloatArray) -> FloatArray:
    """Per row of ``keys`` (draws x runs, uniform), the sum of the ``values`` rows (runs x
    statistics) of the ``a`` runs with the smallest keys: a draw's current side. A mask of them
    times ``values`` is one matrix product, three times faster than gathering every run; where
    two keys tie at a row's cutoff (equal doubles: rarer than once in 10**10 strata) the runs are
    picked by index so that each draw still has exactly ``a``."""
    cutoff = np.partition(keys, a - 1, axis=1)[:, a - 1 : a]
    current = keys <= cutoff
    if np.count_nonzero(current) == current.shape[0] * a:
        return current.astype(np.float64) @ values
    order = np.argpartition(keys, a - 1, axis=1)[:, :a]
    sums: FloatArray = values[order].sum(axis=1)
    return sums


def _permutation_key(
    strata: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]],
    *,
    seed: int,
    key: Sequence[object] = (),
    resamples: int = 10_000,
) -> tuple[object, ...]:
    sides = tuple((array_key(mine), array_key(theirs)) for mine, theirs in strata)
    return (sides, seed, _stream(key), resamples)


@kept_by_inputs(_permutation_key)
def stratified_permutation_test(
    strata: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]],
    *,
    seed: int,
    key: Sequence[object] = (),
    resamples: int = 10_000,
) -> float:
    """One-sided p-value of "no drop" from runs permuted within strata (cases).

    Each stratum is (current runs, baseline runs) of one case, ``a`` and ``b`` of them, as
    vectors (one statistic) or (runs x statistics) arrays. A statistic is the precision-weighted
    mean over strata of current mean - baseline mean, each stratum weighted by ``a b / (a + b)``
    (the inverse of its difference's variance when runs are equally noisy): a case run three
    times a night against three pooled nights counts three times a case run once, as its
    difference is three times as precise. Under "no change" the runs of a case are
    exchangeable between the sides, so the side labels are permuted within each case:
    ``resamples`` seeded permutations give ``(1 + hits) / (1 + resamples)`` with hits the
    permutations whose statistic is at most the observed one. When every case has one run per
    side the weights are equal and this is the sign-flip test of the case differences, exact
    up to :data:`EXACT_SIGN_FLIP_LIMIT` cases. With several statistics the p-value is the
    min-p combination (:func:`_lower_p_value`): a drop in any of them counts, and the test
    still holds its level, as every statistic is read off the same permutations. A stratum of
    at least :data:`_NORMAL_SIDE` runs a side contributes a normal draw with its permuted
    sum's exact mean and covariance (the permutation central limit theorem) instead of
    shuffled runs.
    """
    pairs = []
    for mine, theirs in strata:
        current = np.asarray(mine, dtype=np.float64)
        baseline = np.asarray(theirs, dtype=np.float64)
        if current.ndim == 1:
            current, baseline = current[:, None], baseline.reshape(-1, 1)
        if current.shape[0] and baseline.shape[0]:
            pairs.append((current, baseline))
    if not pairs:
        return 1.0
    width = pairs[0][0].shape[1]
    if all(mine.shape[0] == 1 and theirs.shape[0] == 1 for mine, theirs in pairs):
        differences = np.vstack([mine[0] - theirs[0] for mine, theirs in pairs])
        return _sign_flip_drop(differences, seed=seed, key=key, resamples=resamples)
    rng = seeded_generator(seed, ("permutation", *key))
    observed = np.zeros(width)
    statistic = np.zeros((resamples, width))
    scale = np.zeros(width)
    for mine, theirs in pairs:
        values = np.vstack([mine, theirs])
        a, b = mine.shape[0], theirs.shape[0]
        weight = a * b / (a + b)
        observed += weight * (mine.mean(axis=0) - theirs.mean(axis=0))
        scale += weight * np.abs(values).sum(axis=0)
        if min(a, b) >= _NORMAL_SIDE:
            spread = np.atleast_2d(np.cov(values, rowvar=False, bias=True))
            chosen = rng.multivariate_normal(
                a * values.mean(axis=0),
                spread * (a * b / (a + b - 1)),
                size=resamples,
                method="eigh",
                check_valid="ignore",
            )
        elif a == 1:  # one current run: which of the case's runs it is
            # Each draw adds one of a + b rows, worked out once (the same operations, so
            # the same bits, as on every draw).
            each = weight * (values * (1 / a + 1 / b) - values.sum(axis=0) / b)
            statistic += each[rng.integers(0, a + b, size=resamples)]
            continue
        else:
            chosen = _smallest_keys_sums(rng.random((resamples, a + b)), a, values)
        # current mean - baseline mean of the draw: chosen / a - (total - chosen) / b, that is
        # weight * (chosen * (1 / a + 1 / b) - total / b), worked in place (a fresh array)
        np.multiply(chosen, 1 / a + 1 / b, out=chosen)
        np.subtract(chosen, values.sum(axis=0) / b, out=chosen)
        np.multiply(chosen, weight, out=chosen)
        statistic += chosen
    return _lower_p_value(observed, statistic, 1e-12 * (1.0 + scale), exact=False)


def _sign_flip_drop(
    differences: FloatArray, *, seed: int, key: Sequence[object], resamples: int
) -> float:
    """One-sided ("less") sign-flip p-value of (units x statistics) case differences, min-p
    over the statistics: every sign vector up to :data:`EXACT_SIGN_FLIP_LIMIT` units, else
    ``resamples`` seeded sign vectors from the stream :func:`sign_flip_tests` names."""
    if differences.shape[1] == 1:
        p_values, _ = sign_flip_test(differences, seed=seed, key=key, alternative="less")
        return float(p_values[0])
    n = differences.shape[0]
    tolerance = 1e-12 * (1.0 + np.abs(differences).sum(axis=0))
    if n <= EXACT_SIGN_FLIP_LIMIT:
        draws = _sign_matrix(n) @ differences
        return _lower_p_value(differences.sum(axis=0), draws, tolerance, exact=True)
    rng = seeded_generator(seed, ("sign-flip", *key))
    signs = rng.integers(0, 2, size=(resamples, n), dtype=np.int8) * 2 - 1
    draws = signs.astype(np.float64) @ differences
    return _lower_p_value(differences.sum(axis=0), draws, tolerance, exact=False)


class _DistinctDraws:
    """The sign-flip draws of :func:`sign_flip_interval`, each column's kept once per distinct
    (flipped sum, sign total) with how often it occurs: the interval asks the same counts for
    some sixty shifts, and a few hundred distinct pairs stand for thousands of draws.

    Exactly the counts of every draw: a draw's shifted sum ``|sum - total x delta|`` is a
    function of the pair alone, and the pair (-sum, -total) gives the same bits (rounding to
    nearest is symmetric, ``fl(-x) == -fl(x)``), so pairs are kept with a total >= 0. Each
    column's pairs are a row, padded with pairs of weight 0."""

    def __init__(self, flipped: FloatArray, totals: FloatArray) -> None:
        negate = (totals < 0)[:, None] | ((totals == 0)[:, None] & (flipped < 0))
        pairs = np.empty(flipped.shape, dtype=np.complex128)
        pairs.real = np.where(negate, -flipped, flipped)
        pairs.imag = np.where(negate, -totals[:, None], totals[:, None])
        found = [
            np.unique(pairs[:, column], return_counts=True) for column in range(flipped.shape[1])
        ]
        longest = max(counts.size for _, counts in found)
        self.sums = np.zeros((len(found), longest))
        self.totals = np.zeros((len(found), longest))
        self.weights = np.zeros((len(found), longest))
        for column, (distinct, counts) in enumerate(found):
            self.sums[column, : counts.size] = distinct.real
            self.totals[column, : counts.size] = distinct.imag
            self.weights[column, : counts.size] = counts
        self._asked: tuple[IntArray, FloatArray, FloatArray, FloatArray] | None = None

    def _rows(self, columns: IntArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        # The bisection asks the same columns (the same array) 27 times: gathered once.
        if self._asked is None or self._asked[0] is not columns:
            gathered = self.sums[columns], self.totals[columns], self.weights[columns]
            self._asked = (columns, *gathered)
        return self._asked[1], self._asked[2], self._asked[3]

    def count(
        self, columns: IntArray, delta: FloatArray, observed: FloatArray, tolerance: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Per question (the column ``columns`` names, a shift ``delta``, the observed shifted
        sum and the tolerance), the draws whose shifted sum is beyond the observed one by more
        than the tolerance, and those within it (ties). The shifted sums are the same
        operations as ever, worked in place; the counts are sums of whole numbers of draws,
        exact in any order."""
        sums, totals, weights = self._rows(columns)
        shifted = totals * delta[:, None]
        np.subtract(sums, shifted, out=shifted)
        np.abs(shifted, out=shifted)
        beyond = shifted > (observed + tolerance)[:, None]
        np.subtract(shifted, observed[:, None], out=shifted)
        np.abs(shifted, out=shifted)
        ties = shifted <= tolerance[:, None]
        return np.einsum("ij,ij->i", weights, beyond), np.einsum("ij,ij->i", weights, ties)


#: The most questions :func:`sign_flip_interval` asks of its draws at once after the bisection.
_ASKED_AT_ONCE = 32


def _interval_key(
    differences: npt.ArrayLike,
    *,
    seed: int,
    key: Sequence[object] = (),
    resamples: int = 10_000,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> tuple[object, ...]:
    return (array_key(differences), seed, _stream(key), resamples, confidence, tuple(bounds))


@kept_by_inputs(_interval_key)
def sign_flip_interval(
    differences: npt.ArrayLike,
    *,
    seed: int,
    key: Sequence[object] = (),
    resamples: int = 10_000,
    confidence: float = 0.95,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> tuple[FloatArray, FloatArray]:
    """The interval of each column's mean difference that inverts the two-sided sign-flip test:
    every shift delta for which the test of ``differences - delta`` is not rejected at
    1 - ``confidence`` (found by bisection on each side of the mean, within ``bounds``).

    Exact when the differences are symmetric about their mean (as paired differences of two
    sides of the same quality are), whatever their shape: a bootstrap or t interval is too wide
    for the heavy tails a gate failure gives and too narrow when a sample holds none. With too
    few units for any p-value below the level the interval is ``bounds``. The sign vectors are
    those of :func:`sign_flip_test` (the same enumeration or seeded stream).
    """
    _z(confidence)
    values = np.asarray(differences, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n, width = values.shape
    if n == 0:
        return np.full(width, np.nan), np.full(width, np.nan)
    missing: npt.NDArray[np.bool_] = np.asarray(np.isnan(values).any(axis=0))
    if n <= EXACT_SIGN_FLIP_LIMIT:
        signs = _sign_matrix(n)
        extra = 0.0
    else:
        rng = seeded_generator(seed, ("sign-flip", *key))
        signs = (rng.integers(0, 2, size=(resamples, n), dtype=np.int8) * 2 - 1).astype(np.float64)
        extra = 1.0
    alpha = 1 - confidence
    clean = np.where(missing[None, :], 0.0, values)
    draws = _DistinctDraws(signs @ clean, signs.sum(axis=1))
    sums = clean.sum(axis=0)
    tolerance = 1e-12 * (1.0 + np.abs(clean).sum(axis=0))

    def accepted(columns: IntArray, delta: FloatArray) -> npt.NDArray[np.bool_]:
        """Whether the test of each column ``columns`` names accepts its shift ``delta``."""
        observed = np.abs(sums[columns] - n * delta)
        beyond, ties = draws.count(columns, delta, observed, tolerance[columns])
        # mid-p: a tie counts half (the observed sign vector among them, or the draws' +1)
        p_values = (extra / 2 + beyond + ties / 2) / (extra + signs.shape[0])
        return p_values > alpha  # type: ignore[no-any-return]

    # Both ends at once: the first half of each vector the lower end's, the second the upper's.
    both = np.concatenate([np.arange(width), np.arange(width)])
    bound = np.repeat(np.asarray(bounds, dtype=np.float64), width)
    outer = bound.copy()
    inner = np.concatenate([clean.mean(axis=0), clean.mean(axis=0)])
    edge = accepted(both, outer)
    for _ in range(26):  # the bound to within 2 / 2**26 of the range
        middle = (outer + inner) / 2
        keep = accepted(both, middle)
        inner = np.where(keep, middle, inner)
        outer = np.where(keep, outer, middle)
    ends = np.where(edge, bound, inner)
    low, high = ends[:width], ends[width:]
    # A shift equal to a difference makes it 0, and a 0 cannot be flipped: the test counts
    # the tie as extreme and accepts there although it rejects on either side (common: two
    # runs of a case often score the same, and the truth is then often exactly such a
    # shift). The interval is the hull of every accepted shift, so it reaches those too.
    # A column's test reads only its own shift, so each distinct value of a column outside
    # the interval is asked once, all at once (its first unit's: 0.0 and -0.0 are one value).
    columns, shifts = [], []
    for column in range(width):
        _, first = np.unique(clean[:, column], return_index=True)
        shift = clean[first, column]
        outside = ((shift < low[column]) | (shift > high[column])) & (shift >= bounds[0])
        shift = shift[outside & (shift <= bounds[1])]
        columns.append(np.full(shift.size, column))
        shifts.append(shift)
    asked, shift = np.concatenate(columns), np.concatenate(shifts)
    # Asked a few dozen at a time: each question gathers its column's distinct draws (up to
    # ``resamples`` of them), and a column of many distinct values asks hundreds.
    keep = np.concatenate(
        [
            accepted(asked[start : start + _ASKED_AT_ONCE], shift[start : start + _ASKED_AT_ONCE])
            for start in range(0, asked.size, _ASKED_AT_ONCE)
        ]
        or [np.zeros(0, dtype=bool)]
    )
    np.minimum.at(low, asked[keep], shift[keep])
    np.maximum.at(high, asked[keep], shift[keep])
    low[missing] = np.nan
    high[missing] = np.nan
    return low, high


def _resample_counts(rng: np.random.Generator, units: int, resamples: int) -> IntArray:
    """How often each unit is drawn in each of ``resamples`` draws of ``units`` with replacement."""
    drawn = rng.integers(0, units, size=(resamples, units))
    offsets = (np.arange(resamples, dtype=np.int64) * units)[:, None]
    counts = np.bincount((drawn + offsets).ravel(), minlength=resamples * units)
    return counts.reshape(resamples, units).astype(np.int64)


def percentile_interval(
    replicates: FloatArray, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Percentile bounds of bootstrap ``replicates`` (resamples x statistics), linear rule."""
    _z(confidence)
    tail = (1 - confidence) / 2 * 100
    bounds = np.percentile(replicates, [tail, 100 - tail], axis=0)
    return bounds[0], bounds[1]


def cluster_bootstrap_means(
    sums: npt.ArrayLike,
    counts: npt.ArrayLike,
    *,
    rng: np.random.Generator,
    resamples: int = 2000,
    confidence: float = 0.95,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Means of pooled rows with cluster-bootstrap percentile intervals.

    ``sums`` is (clusters x statistics): each cluster's (case's) sum of each statistic over its
    rows; ``counts`` the rows per cluster. Each replicate draws as many clusters as there are,
    with replacement, and pools their rows. Returns (estimate, low, high) per statistic.
    """
    cluster_sums = np.asarray(sums, dtype=np.float64)
    if cluster_sums.ndim == 1:
        cluster_sums = cluster_sums[:, None]
    cluster_counts = np.asarray(counts, dtype=np.float64)
    statistics = cluster_sums.shape[1]
    if cluster_sums.shape[0] == 0 or cluster_counts.sum() <= 0:
        empty = np.full(statistics, np.nan)
        return empty, empty.copy(), empty.copy()
    estimate = cluster_sums.sum(axis=0) / cluster_counts.sum()
    weights = _resample_counts(rng, cluster_sums.shape[0], resamples).astype(np.float64)
    replicates = (weights @ cluster_sums) / (weights @ cluster_counts)[:, None]
    low, high = percentile_interval(replicates, confidence)
    return estimate, low, high


def paired_bootstrap_means(
    differences: npt.ArrayLike,
    *,
    rng: np.random.Generator,
    resamples: int = 10_000,
    confidence: float = 0.95,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Mean paired difference per column with a percentile interval from resampling units."""
    values = np.asarray(differences, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n = values.shape[0]
    if n == 0:
        empty = np.full(values.shape[1], np.nan)
        return empty, empty.copy(), empty.copy()
    weights = _resample_counts(rng, n, resamples).astype(np.float64)
    replicates = (weights @ values) / n
    low, high = percentile_interval(replicates, confidence)
    return values.mean(axis=0), low, high


def gated_mean_interval(
    runs: npt.ArrayLike,
    gate_passes: npt.ArrayLike,
    passing_sums: npt.ArrayLike,
    passing_squares: npt.ArrayLike,
    *,
    rng: np.random.Generator,
    resamples: int = 2000,
    confidence: float = 0.95,
) -> Interval:
    """Mean overall (gate-failed runs score 0) with an interval that sees unseen gate failures.

    Per case: ``runs`` scoreable runs, ``gate_passes`` of them with a passing gate, and the sum
    (``passing_sums``) and sum of squares (``passing_squares``) of their overall scores. The
    mean is g x m, g the gate-pass rate and m the mean score of gate-passing runs; its target
    is the mean over these runs of their cases' expected scores (the cases are fixed). Each
    replicate multiplies a draw of g from Beta(G + 1/2, N - G + 1) (Jeffreys' half a pass and a
    whole failure: unlike a bootstrap it sees failures the sample happened not to hold, and
    reaches far enough below a sample without any) by a normal draw of m around m_hat with variance v / G: v the spread
    of passing scores around their own case's mean, pooled over the cases with two passing
    runs or more (for fixed cases, their differences in difficulty are no error). Without such
    a case v is the spread around the pooled mean (with one run a case the two cannot be told
    apart). The interval is the percentile interval of the products, clipped to [0, 1]. Without
    a gate-passing run m is unknown and taken as 1 (the upper bound); with one, m has no known
    spread. Rationale and measured coverage: ``docs/aggregation.md`` section 3.
    """
    n = np.asarray(runs, dtype=np.float64)
    g = np.asarray(gate_passes, dtype=np.float64)
    s = np.asarray(passing_sums, dtype=np.float64)
    q = np.asarray(passing_squares, dtype=np.float64)
    total, passing = float(n.sum()), float(g.sum())
    if total <= 0:
        return Interval(math.nan, math.nan, math.nan)
    estimate = float(s.sum()) / total
    # Jeffreys' half for the passes, a whole one for the failures: a sample that happened to
    # hold none (or few) reaches the rates that often give none (docs/aggregation.md section 3).
    rates = rng.beta(passing + 0.5, total - passing + 1.0, size=resamples)
    quality = _passing_quality_draws(g, s, q, rng=rng, resamples=resamples)
    products = np.clip(rates * quality, 0.0, 1.0)
    low, high = percentile_interval(products[:, None], confidence)
    # The interval holds its estimate (a 12/12 rate's posterior never reaches 1 exactly).
    return Interval(estimate, min(float(low[0]), estimate), max(float(high[0]), estimate))


def _passing_quality_draws(
    passes: FloatArray,
    sums: FloatArray,
    squares: FloatArray,
    *,
    rng: np.random.Generator,
    resamples: int,
) -> FloatArray:
    """Draws of the mean score of gate-passing runs: m_hat + z * sqrt(v / G) (see the caller)."""
    passing = float(passes.sum())
    if passing <= 0:
        return np.ones(resamples)
    mean = float(sums.sum()) / passing
    replicated = passes >= 2
    if replicated.any():
        within = squares[replicated] - sums[replicated] ** 2 / passes[replicated]
        spread, df = float(within.sum()), float((passes[replicated] - 1).sum())
    else:
        spread, df = float(squares.sum()) - passing * mean**2, passing - 1
    if df <= 0:
        return np.full(resamples, mean)
    scale = math.sqrt(max(spread, 0.0) / df / passing)
    return mean + scale * rng.standard_normal(resamples)


def student_t_quantile(probability: float, df: float) -> float:
    """The ``probability`` quantile of Student's t with ``df`` degrees of freedom.

    Exact for 1 and 2 degrees of freedom; above, the Cornish-Fisher expansion around the normal
    quantile to the 1/df**4 term (Abramowitz and Stegun 26.7.5; at the 97.5% quantile the error
    is below 0.004 at 3 degrees of freedom and below 1e-5 from 11, tested against scipy).
    """
    if not 0 < probability < 1 or df <= 0:
        raise ValueError("need 0 < probability < 1 and df > 0")
    if df == 1:
        return math.tan(math.pi * (probability - 0.5))
    if df == 2:
        return (2 * probability - 1) / math.sqrt(2 * probability * (1 - probability))
    z = NormalDist().inv_cdf(probability)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def holm_adjust(p_values: npt.ArrayLike) -> FloatArray:
    """Holm step-down adjusted p-values in the input order; NaN entries stay NaN, outside the family."""
    values = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(values.shape, np.nan)
    present = np.flatnonzero(~np.isnan(values))
    m = present.size
    if m == 0:
        return adjusted
    order = present[np.argsort(values[present], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * values[order])
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def reliability_curves(repetitions: int, passes: int) -> tuple[FloatArray, FloatArray]:
    """pass@k = 1 - C(n-c, k)/C(n, k) and pass^k = C(c, k)/C(n, k) for k = 1..n.

    Both ratios are products of k factors ((n-c-i)/(n-i) and (c-i)/(n-i)), so all k come from
    one cumulative product without huge binomial coefficients.
    """
    n, c = repetitions, passes
    if n < 0 or not 0 <= c <= n:
        raise ValueError("need 0 <= passes <= repetitions")
    i = np.arange(n, dtype=np.float64)
    none_pass = np.cumprod(np.clip((n - c - i) / (n - i), 0.0, None), dtype=np.float64)
    all_pass = np.cumprod(np.clip((c - i) / (n - i), 0.0, None), dtype=np.float64)
    return 1.0 - none_pass, all_pass


def reference_p95(values: npt.ArrayLike) -> float:
    """The reference p95: sorted values at index ceil(0.95 n) - 1; NaN for no values."""
    array = np.asarray(values, dtype=np.float64)
    array = array[~np.isnan(array)]
    if array.size == 0:
        return math.nan
    index = math.ceil(0.95 * array.size) - 1
    return float(np.partition(array, index)[index])


def pareto_frontier(quality: npt.ArrayLike, cost: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """True for points no other point beats (quality >= and cost <=, one strictly); NaN is off."""
    q = np.asarray(quality, dtype=np.float64)
    c = np.asarray(cost, dtype=np.float64)
    known = ~(np.isnan(q) | np.isnan(c))
    better_or_equal = (q[None, :] >= q[:, None]) & (c[None, :] <= c[:, None])
    strictly = (q[None, :] > q[:, None]) | (c[None, :] < c[:, None])
    dominated = (better_or_equal & strictly & known[None, :]).any(axis=1)
    return known & ~dominated
