"""How often the product's 95% intervals hold the truth, per design, on two generators.

Two intervals, built by the library exactly as every view reads them (a records frame of the
scored runs, ``analyze_campaign``, the ``CampaignAnalysis``):

- **mean overall**: each candidate's ``mean_overall_low`` / ``_high`` in
  ``analysis.candidates.summary`` (every candidate on each of the two nights of a trial);
- **paired difference**: ``analysis.comparison(candidate, baseline, current)`` on mean overall,
  the current night minus the baseline night over the paired cases (``overall.low`` /
  ``.high``).

Each trial is two nights of every candidate on one design: ``12 x 1`` and ``12 x 3`` (the 12
catalog cases, once or three times each) and ``sample schedule`` (the sample campaign's: 12
cases, some three times, 20 runs a night). Generators:

- ``simulate``: ``scorecard.simulate``'s roster of seven candidates with fixed skills (no
  drift, no incidents: every night draws from one distribution). The truth of a mean is the
  mean over the night's scoreable runs of their cases' expected overall score, each case's
  expectation from a **large draw** (``--truth-runs`` runs per candidate and case, 4,000 by
  default, scored by the engine); the truth of a paired difference is 0 (two nights of the
  same skills).
- ``independent``: ``benchmarks/independent_generator.py`` (its own code, from the schema):
  11 candidates over 3 providers with strong case difficulty, a shared night effect and
  provider-night effects, background infrastructure failures and provider outages, a new
  campaign (abilities, difficulties) per trial. The truth is computed **analytically** from the
  night's effects: a run's six aspects and its candidate failure are independent draws with
  the chances the generator gives them, so a case's expected overall score is the sum over
  the 64 x 2 outcomes of their probability times their score, each outcome scored once by the
  engine (an outcome's score does not depend on the generator's other draws: checked at
  start-up on four draws of each). The truth of a paired difference is the mean over the
  paired cases of the two nights' expected case scores, which differ by the nights' effects.

Printed per generator, design and interval: the share of intervals holding the truth with its
95% Wilson interval, the share with the truth below the interval and above it, and the same on
the samples without a gate failure (a mean: the night's runs of the candidate hold none; a
difference: neither night's do).

    python benchmarks/interval_coverage.py --trials 1000 --workers 1
    python benchmarks/interval_coverage.py --generator independent --designs "12 x 3"
    python benchmarks/interval_coverage.py --by-candidate   # coverage per candidate too
"""

from __future__ import annotations

import argparse
import functools
import itertools
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import independent_generator as independent

from scorecard.aggregate import ComparisonSettings, analyze_campaign, records_frame
from scorecard.aggregate._stats import wilson_interval
from scorecard.contract import BundleInfo, Catalog, load_catalog
from scorecard.engine import score_records
from scorecard.engine._io import RawRecord
from scorecard.simulate import ROSTER
from scorecard.simulate.campaign import _schedule
from scorecard.simulate.cases import CASE_TRAITS, JsonObject, Setting
from scorecard.simulate.randomness import derive_seed
from scorecard.simulate.runs import simulate_run

GENERATORS = ("simulate", "independent")
INTERVALS = ("mean overall", "paired difference")
NIGHTS = ("night-0", "night-1")  # baseline, current


def designs(catalog: Catalog) -> dict[str, list[tuple[str, int]]]:
    """(case id, repetition) runs of each candidate a night, per design."""
    return {
        "12 x 1": [(case, 1) for case in catalog],
        "12 x 3": [(case, r) for case in catalog for r in (1, 2, 3)],
        "sample schedule": [(case, r + 1) for case, r in _schedule(catalog)],
    }


def score_nights(nights: Sequence[tuple[str, list[JsonObject]]], catalog: Catalog) -> Any:
    """The records frame of each (bundle id, observations) night, scored by the engine."""
    raw = [
        RawRecord(item, bundle, index + 1, None, BundleInfo(id=bundle, kind="override"))
        for bundle, observations in nights
        for index, item in enumerate(observations)
    ]
    records = []
    for record in score_records(raw, catalog=catalog):
        if isinstance(record, Exception):
            raise record
        records.append(record)
    return records_frame(records, bundle_order=[bundle for bundle, _ in nights])


# -- truths --------------------------------------------------------------------------------


def simulate_truth(catalog: Catalog, runs_per_case: int) -> dict[str, dict[str, float]]:
    """Each roster candidate's expected overall per case (fixed skills), from a large draw."""
    truth: dict[str, dict[str, float]] = {}
    for candidate in ROSTER:
        rng = random.Random(derive_seed("interval-truth", candidate.spec.id))
        observations = [
            simulate_run(
                rng,
                Setting("truth", candidate, candidate.skills, catalog[case], CASE_TRAITS[case], 1),
                incident=False,
            )
            for case in catalog
            for _ in range(runs_per_case)
        ]
        frame = score_nights([("truth", observations)], catalog)
        scoreable = frame.loc[frame["scoreable"]]
        means = scoreable.groupby("case", observed=True)["overall_score"].mean()
        truth[candidate.spec.id] = {str(case): float(value) for case, value in means.items()}
    return truth


@dataclass(frozen=True)
class OutcomeScores:
    """The overall score of every outcome of a run of each case: ``scores[case][pattern, k]``,
    pattern a bit per aspect that failed (``independent.ASPECTS`` order), k 0 for a completed
    run and 1 for a candidate failure."""

    scores: dict[str, np.ndarray]
    patterns: np.ndarray
    """(64 x 6) 0/1: which aspects fail in each pattern."""


def outcome_scores(catalog: Catalog, draws: int = 4) -> OutcomeScores:
    """Score each case's 64 x 2 outcomes ``draws`` times (the generator's other draws, such as
    which check of a group fails, vary) and require the same score every time."""
    aspects = tuple(independent.ASPECTS)
    patterns = np.array([[(code >> bit) & 1 for bit in range(len(aspects))] for code in range(64)])
    scores: dict[str, np.ndarray] = {}
    cases = _independent_cases()
    rng = random.Random(derive_seed("interval-outcomes"))
    for case in cases:
        observations = []
        for code, failure, _ in itertools.product(range(64), (0, 1), range(draws)):
            fails = {aspect: float(patterns[code, i]) for i, aspect in enumerate(aspects)}
            observations.append(
                independent.write_observation(
                    rng, "outcomes", "c", "p", case, 1, fails,
                    infrastructure=0.0, candidate_failure=float(failure), forbidden=False,
                )
            )  # fmt: skip
        frame = score_nights([("outcomes", observations)], catalog)
        values = frame["overall_score"].to_numpy(dtype=np.float64).reshape(64, 2, draws)
        if np.isnan(values).any() or not (values == values[:, :, :1]).all():
            raise SystemExit(f"an outcome of {case.id} has no single score: the truth is not exact")
        scores[case.id] = values[:, :, 0]
    return OutcomeScores(scores, patterns)


def independent_cell_truth(
    campaign: independent.Campaign, night: independent.Night, outcomes: OutcomeScores
) -> dict[tuple[str, str], float]:
    """Expected overall of a scoreable run of each (candidate, case) on ``night``."""
    truth = {}
    for (name, provider), case in itertools.product(campaign.candidates, campaign.cases):
        fails, failure = campaign.chances(night, name, provider, case.id)
        chance = np.array([fails[aspect] for aspect in independent.ASPECTS])
        pattern = np.prod(
            np.where(outcomes.patterns == 1, chance[None, :], 1 - chance[None, :]), axis=1
        )
        by_kind = pattern @ outcomes.scores[case.id]
        truth[name, case.id] = float((1 - failure) * by_kind[0] + failure * by_kind[1])
    return truth


@functools.cache
def _independent_cases() -> list[independent.Case]:
    return independent.load_cases()


# -- trials --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Held:
    """One interval against its truth."""

    interval: str
    candidate: str
    clean: bool
    """No gate failure in the sample (a difference: on either night)."""
    place: int
    """-1: the truth lies below the interval; 0: inside; 1: above."""


def _place(truth: float, low: float, high: float) -> int:
    if np.isnan(low) or np.isnan(high):
        raise SystemExit(f"an interval without bounds (truth {truth}): the benchmark is broken")
    return -1 if truth < low else 1 if truth > high else 0


def trial(
    number: int,
    generator: str,
    design: str,
    truth: dict[str, dict[str, float]] | None,
    outcomes: OutcomeScores | None,
) -> list[Held]:
    """The intervals of one trial (two nights of every candidate) against their truths."""
    catalog = load_catalog()
    schedule = designs(catalog)[design]
    seed = derive_seed("interval-coverage", generator, design, number)
    cell: dict[str, dict[tuple[str, str], float]] = {}
    nights = []
    if generator == "simulate":
        assert truth is not None
        for bundle in NIGHTS:
            observations = []
            for candidate in ROSTER:
                rng = random.Random(derive_seed(seed, bundle, candidate.spec.id))
                for case, repetition in schedule:
                    setting = Setting(
                        bundle, candidate, candidate.skills, catalog[case], CASE_TRAITS[case],
                        repetition,
                    )  # fmt: skip
                    observations.append(simulate_run(rng, setting, incident=False))
            nights.append((bundle, observations))
            cell[bundle] = {
                (name, case): value
                for name, cases in truth.items()
                for case, value in cases.items()
            }
    else:
        assert outcomes is not None
        campaign = independent.Campaign(seed, cases=_independent_cases())
        for index, bundle in enumerate(NIGHTS):
            nights.append((bundle, campaign.night(index, schedule=schedule)))
            cell[bundle] = independent_cell_truth(campaign, campaign.effects(index), outcomes)
    frame = score_nights(nights, catalog)
    analysis = analyze_campaign(frame, ComparisonSettings(seed=0))
    scoreable = frame.loc[frame["scoreable"]]
    clean = {
        (str(bundle), str(candidate)): bool(group["gate_passed"].all())
        for (bundle, candidate), group in scoreable.groupby(["bundle", "candidate"], observed=True)
    }
    found = []
    for row in analysis.candidates.summary.itertuples():
        bundle, candidate = str(row.bundle), str(row.candidate)
        runs = scoreable.loc[
            (scoreable["bundle"] == bundle) & (scoreable["candidate"] == candidate), "case"
        ]
        if runs.empty:
            continue
        value = float(np.mean([cell[bundle][candidate, str(case)] for case in runs]))
        place = _place(value, row.mean_overall_low, row.mean_overall_high)
        found.append(Held("mean overall", candidate, clean[bundle, candidate], place))
    for candidate in sorted({candidate for _, candidate in clean}):
        if (NIGHTS[0], candidate) not in clean or (NIGHTS[1], candidate) not in clean:
            continue
        comparison = analysis.comparison(candidate, NIGHTS[0], NIGHTS[1])
        if not comparison.paired_cases:
            continue
        value = float(
            np.mean(
                [
                    cell[NIGHTS[1]][candidate, case] - cell[NIGHTS[0]][candidate, case]
                    for case in comparison.paired_cases
                ]
            )
        )
        overall = comparison.overall
        both = clean[NIGHTS[0], candidate] and clean[NIGHTS[1], candidate]
        found.append(
            Held("paired difference", candidate, both, _place(value, overall.low, overall.high))
        )
    return found


# -- report --------------------------------------------------------------------------------


def share(count: int, total: int) -> str:
    if total == 0:
        return "-"
    return f"{100 * count / total:5.1f}%"


def coverage_text(held: int, total: int) -> str:
    if total == 0:
        return "-"
    interval = wilson_interval(held, total)
    return f"{share(held, total)} [{100 * interval.low:4.1f}, {100 * interval.high:5.1f}]"


def summarize(found: Sequence[Held]) -> str:
    total = len(found)
    inside = sum(item.place == 0 for item in found)
    below = sum(item.place < 0 for item in found)
    above = sum(item.place > 0 for item in found)
    return (
        f"{total:>6} {coverage_text(inside, total):<22} {share(below, total):>6} "
        f"{share(above, total):>6}"
    )


HEADER = (
    f"{'design':<16} {'interval':<18} {'n':>6} {'coverage [95% Wilson]':<22} {'below':>6} "
    f"{'above':>6} | {'n':>6} {'no gate failure':<22} {'below':>6} {'above':>6}"
)


def run(options: argparse.Namespace, catalog: Catalog) -> None:
    for generator in options.generator:
        started = time.perf_counter()
        truth = simulate_truth(catalog, options.truth_runs) if generator == "simulate" else None
        outcomes = outcome_scores(catalog) if generator == "independent" else None
        print(
            f"\nGenerator {generator}: {options.trials} trials x 2 nights per design "
            f"(first trial {options.first_trial}), 95% intervals; truth: "
            + (
                f"{options.truth_runs} runs per candidate and case"
                if generator == "simulate"
                else "analytic, from each night's effects"
            )
            + f" ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        print(HEADER)
        for design in options.designs:
            work = functools.partial(
                trial, generator=generator, design=design, truth=truth, outcomes=outcomes
            )
            numbers = range(options.first_trial, options.first_trial + options.trials)
            if options.workers > 1:
                with multiprocessing.Pool(options.workers) as pool:
                    results = pool.map(work, numbers)
            else:
                results = [work(number) for number in numbers]
            found = [item for items in results for item in items]
            for interval in INTERVALS:
                mine = [item for item in found if item.interval == interval]
                clean = [item for item in mine if item.clean]
                print(
                    f"{design:<16} {interval:<18} {summarize(mine)} | {summarize(clean)}",
                    flush=True,
                )
                if options.by_candidate:
                    for candidate in sorted({item.candidate for item in mine}):
                        own = [item for item in mine if item.candidate == candidate]
                        own_clean = [item for item in own if item.clean]
                        print(
                            f"  {candidate:<33} {summarize(own)} | {summarize(own_clean)}",
                            flush=True,
                        )
        print(f"({time.perf_counter() - started:.0f} s for generator {generator})", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    catalog = load_catalog()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=200, help="trials per design")
    parser.add_argument("--first-trial", type=int, default=0, help="number (seed) of the first")
    parser.add_argument(
        "--generator", nargs="+", choices=GENERATORS, default=list(GENERATORS), metavar="NAME"
    )
    parser.add_argument(
        "--designs",
        nargs="+",
        choices=tuple(designs(catalog)),
        default=tuple(designs(catalog)),
        metavar="DESIGN",
        help="designs (quoted names as printed; all)",
    )
    parser.add_argument(
        "--truth-runs", type=int, default=4000, help="simulate: runs per candidate and case"
    )
    parser.add_argument("--workers", type=int, default=1, help="processes for the trials")
    parser.add_argument("--by-candidate", action="store_true", help="coverage per candidate too")
    options = parser.parse_args(argv)
    started = time.perf_counter()
    run(options, catalog)
    print(f"\n{time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    main()
