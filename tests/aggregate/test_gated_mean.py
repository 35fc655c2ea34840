"""The mean-overall interval: gate-pass rate x quality of the gate-passing runs, fixed cases."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from scorecard.aggregate._stats import Interval, gated_mean_interval, seeded_generator


def interval_of(cases: list[list[float]], *, seed: int = 0, resamples: int = 4000) -> Interval:
    """The interval of runs given per case as overall scores (0 for a gate failure)."""
    runs = np.array([len(scores) for scores in cases], dtype=np.float64)
    passes = np.array([sum(score > 0 for score in scores) for scores in cases], dtype=np.float64)
    sums = np.array([sum(scores) for scores in cases])
    squares = np.array([sum(score**2 for score in scores) for scores in cases])
    rng = seeded_generator(seed, ("test",))
    return gated_mean_interval(runs, passes, sums, squares, rng=rng, resamples=resamples)


def test_twelve_passing_runs_still_allow_gate_failures() -> None:
    """12/12 gate passes: the interval reaches well below the passing runs' mean, as a rate of
    12/12 does not prove a rate of 1 (the Jeffreys 95% lower bound of 12/12 is about 0.82)."""
    interval = interval_of([[0.9]] * 12)
    assert interval.estimate == pytest.approx(0.9)
    assert interval.high == pytest.approx(0.9, abs=1e-3)
    assert interval.low < 0.9 * 0.85


def test_a_sample_without_a_passing_run_still_allows_passes() -> None:
    """12 gate failures: the estimate is 0 and the interval reaches above it (m is taken as 1)."""
    interval = interval_of([[0.0]] * 12)
    assert (interval.estimate, interval.low) == (0.0, 0.0)
    assert 0.01 < interval.high < 0.2


def test_one_case_still_has_a_spread_of_quality() -> None:
    """One case of 20 passing runs of varying quality: the quality of the passing runs is
    uncertain too, so the interval reaches above the estimate (a case bootstrap of one case
    has no spread and could not)."""
    scores = list(np.linspace(0.6, 1.0, 20))
    interval = interval_of([scores])
    assert interval.low < interval.estimate < interval.high
    assert interval.high - interval.estimate > 0.02


def test_differences_between_cases_are_no_error_for_fixed_cases() -> None:
    """Two cases of three passing runs each, one always scoring 0.5, the other 1.0: the quality
    spread within each case is 0, so only the gate-pass rate is uncertain and the interval
    does not reach above the estimate (a case bootstrap would reach 1.0)."""
    interval = interval_of([[0.5] * 3, [1.0] * 3])
    assert interval.estimate == pytest.approx(0.75)
    assert interval.high == pytest.approx(0.75)
    assert interval.low < 0.7


def test_the_interval_is_deterministic_for_a_seed() -> None:
    """The same seed and runs give the same bounds; another seed gives other bounds."""
    cases = [[0.8, 0.0, 0.9], [0.7, 0.75, 0.6]]
    assert interval_of(cases, seed=1) == interval_of(cases, seed=1)
    assert interval_of(cases, seed=1) != interval_of(cases, seed=2)


def test_no_scoreable_run_gives_nan() -> None:
    """No run: estimate and bounds are NaN."""
    interval = interval_of([])
    assert np.isnan([interval.estimate, interval.low, interval.high]).all()


def simulated_coverage(repetitions: int, trials: int) -> float:
    """Share of 95% intervals holding the fixed-design truth over ``trials`` seeded samples of
    12 fixed cases x ``repetitions`` runs: gate-pass chance 0.8 to 0.95 and mean quality 0.55 to
    0.95 by case (strongly different cases), quality uniform +-0.1 around it within a case."""
    chances = np.linspace(0.8, 0.95, 12)
    qualities = np.linspace(0.55, 0.95, 12)
    truth = float(np.mean(chances * qualities))  # every case has the same number of runs
    rng = np.random.default_rng(11)
    held = 0
    for trial in range(trials):
        shape = (12, repetitions)
        passed = rng.random(shape) < chances[:, None]
        scores: npt.NDArray[np.float64] = passed * (
            qualities[:, None] + rng.uniform(-0.1, 0.1, shape)
        )
        interval = gated_mean_interval(
            np.full(12, float(repetitions)),
            passed.sum(axis=1).astype(np.float64),
            scores.sum(axis=1),
            (scores**2).sum(axis=1),
            rng=seeded_generator(trial, ("coverage",)),
            resamples=1000,
        )
        held += bool(interval.low <= truth <= interval.high)
    return held / trials


@pytest.mark.parametrize("repetitions", [2, 3])
def test_the_interval_covers_the_fixed_design_mean(repetitions: int) -> None:
    """Over 1,000 seeded samples of very different fixed cases with repeated runs the 95%
    interval holds the truth 93-97% of the time (a case bootstrap of the quality, which counts
    the cases' differences, held it 98.4% and 98.8% of the time at 2 and 3 runs a case)."""
    assert 0.93 <= simulated_coverage(repetitions, trials=1000) <= 0.97


def test_one_run_a_case_is_conservative_about_case_differences() -> None:
    """With one run a case the cases' differences cannot be told from the runs' spread, so
    the interval counts them and holds the truth of very different cases more often than 95%."""
    assert simulated_coverage(1, trials=1000) >= 0.95
