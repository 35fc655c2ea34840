"""How often the regression gate decides right, on two independent generators.

``--generator simulate`` uses the project's simulator; ``--generator independent`` the second
generator, ``benchmarks/independent_generator.py``, written from the observation schema alone
(11 candidates over 3 providers, case difficulty, shared night and provider-night effects,
background provider outages, uneven schedules), so a rule tuned on one is checked on the other;
``both`` (the default) prints every scenario the independent generator has on both.

Each *pair* on the simulator is a simulated campaign of fifteen nights of the roster (seven
candidates, the sample's schedule: 20 runs each), seeded by the pair number: the last night is
the current bundle, the night before it (one-night baseline) or the three nights before it
(three-night baseline) the baseline, the eleven before those the older history (what the
per-case rule and the night-to-night noise read; every scenario has it). The current night is changed per scenario, for
one candidate (``--candidate``), for every candidate or for a provider:

- ``healthy``: nothing changed (night-to-night drift and the background forbidden-call incident
  only, as in ``scorecard.simulate``);
- ``flaws x1.3`` / ``x1.75`` / ``x3``: that candidate's flaw chances (1 - skill, per aspect) and
  candidate-failure rate multiplied by the factor;
- ``roster regress``: the simulator's planted regression (``scorecard.simulate.roster.regress``);
- ``1 forbidden`` / ``3 forbidden``: that many forbidden-call incidents planted in its runs;
- ``env bad night``: every candidate's quality aspects 0.08 less likely clean (an additive
  shift of the environment); ``env flaws x2``: every candidate's flaw chances doubled (hits
  weak candidates harder);
- ``outage tonight``: the acpx provider's runs 90% infrastructure failures tonight;
  ``outage baseline``: the same on the middle baseline night, tonight healthy;
- ``one case broken``: the candidate fails ``final-response`` (candidate failures) 90% of the
  time: the easiest of the four cases the sample's schedule runs three times a night (a case
  run once a night can never fail the per-case rule, docs/gate.md "Per case"); on the
  independent generator, the case the candidate's schedule repeats most often (2-3 times), the
  easiest of those;
- ``one dimension``: its presentation skill 0.3 lower;
- ``slow drift``: the candidate declines a step a night over the last six nights (three
  before the baseline, the baseline's three... see below), tonight the sixth step: its nightly
  mean overall falls by one night-to-night standard deviation of that mean a night (0.066 on
  the simulator, 0.076 on the independent generator: measured on healthy nights of campaigns
  1000-1005), so the baseline nights are three to five steps down and tonight two steps (two
  standard deviations) below the baseline's mean. The skill change per step is read from a
  calibration of the same campaigns (``DRIFT_STEPS``, ``DRIFT_LOGITS``).

- ``regress +2`` / ``regress +3`` (independent generator only): roster regress's +1 logit on
  every aspect of the changed candidate doubled and tripled, the power curve's later points.

Under each table a ``size`` line per changed scenario gives the changed candidate's mean
overall drop tonight against the baseline (the gate's own comparison, averaged over pairs) and
the minimum detectable drop the gate reported for it: a scenario whose drop is below what its
data can detect cannot be detected often by any level-keeping rule. Then which rules named the
changed candidate ("changed candidate named by rule": a trial counts once per rule) and which
named another ("wrong candidate by rule").

``detected`` is a fail naming the changed candidate (for the environment scenarios: a shift
finding); ``wrong candidate`` a fail naming a candidate that was not changed; ``any named`` a
fail naming any candidate; ``shift finding`` a failing ``shift`` outcome; ``drift finding`` a
failing ``drift`` outcome (any candidate).

The gate runs at the library level (``evaluate_gate`` on in-memory records, default rules, seed
0) and the benchmark prints, per scenario and baseline, the share of pairs that fail (exit 1),
are inconclusive (exit 3) and pass, with 95% Wilson intervals; for the changed scenarios
``detected`` (a fail naming the changed candidate); and ``wrong`` (a required outcome failing a
candidate that was not changed, share of all pairs).

Interval coverage: candidates with fixed skills (no drift, no incidents) on 12 cases x 1, 2, 3
repetitions and on the sample's schedule (``--designs``); the share of 95% intervals of mean
overall (each candidate's current night) that hold its true expected mean overall (Monte Carlo
over ``--truth-runs`` runs per case, 2000: with 200 a candidate's truth was off by up to 0.012,
a fifth of the interval's standard error, which moves coverage by a point), and the share of
paired-difference intervals (current night against a baseline night of the same skills) that
hold the true difference, 0 (``--skip-paired``: mean overall only, without a baseline, fast).
Trials run on ``--workers`` processes.

    python benchmarks/gate_benchmark.py                 # 200 pairs per scenario
    python benchmarks/gate_benchmark.py --quick         # 30 pairs, fewer coverage trials
    python benchmarks/gate_benchmark.py --pairs 400 --coverage-trials 100
    python benchmarks/gate_benchmark.py --pairs 200 --one-night-pairs 50 --resamples 4000
    python benchmarks/gate_benchmark.py --skip-decisions --skip-paired --coverage-trials 200

The pooled comparison and the metrics that are not gated are not computed (``pooled: false``,
``shown: []``): they are shown, never gated, so verdicts do not depend on them, and they would
triple the time. Pairs run on ``--workers`` processes (2).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from independent_generator import TARGET as INDEPENDENT_TARGET
from independent_generator import Campaign
from independent_generator import Change as Change_

from scorecard.aggregate._stats import wilson_interval
from scorecard.contract import BundleInfo, Catalog, load_catalog
from scorecard.engine import score_records
from scorecard.engine._io import RawRecord
from scorecard.gate import GateRules, GateSide, evaluate_gate, gate_side, run_facts
from scorecard.simulate import ROSTER, SimulatedCandidate, Skills
from scorecard.simulate.campaign import _incidents, _schedule
from scorecard.simulate.cases import CASE_TRAITS, JsonObject, Setting
from scorecard.simulate.randomness import derive_seed
from scorecard.simulate.roster import degrade as simulated_degrade
from scorecard.simulate.roster import drift, regress, with_outage, worsen
from scorecard.simulate.runs import simulate_run

ASPECTS = ("outcome", "restraint", "tracing", "continuation", "presentation", "discipline")
Change = Callable[[Skills], Skills]


def degrade(factor: float) -> Change:
    """Flaw chances (1 - skill per aspect) and the candidate-failure rate times ``factor``
    (``scorecard.simulate.roster.degrade``)."""
    return functools.partial(simulated_degrade, factor=factor)


@dataclasses.dataclass(frozen=True)
class Scenario:
    name: str
    change: Change | None = None
    incidents: int = 0
    everyone: Change | None = None
    """Applied to every candidate tonight (an environment-wide bad night)."""
    outage: str | None = None
    """A provider whose infrastructure fails 90% more of its runs tonight."""
    baseline_outage: str | None = None
    """A provider with that outage on the middle baseline night (tonight healthy)."""
    broken_case: bool = False
    """The changed candidate fails one case (``BROKEN_CASE``) 90% of the time tonight."""
    drift: tuple[float, ...] = ()
    """Per step, the changed candidate's ``worsen`` amount on the last len(drift) nights (the
    last, tonight, the largest)."""

    @property
    def changed_target(self) -> bool:
        return self.change is not None or self.incidents > 0 or self.broken_case or bool(self.drift)


#: Repeated three times a night by the sample's schedule, the easiest of those cases.
BROKEN_CASE = "final-response"
HISTORY_NIGHTS = 14
#: ``worsen`` amounts whose nightly mean-overall decline is 1-6 night-to-night standard
#: deviations (0.066) for opencode-glm, interpolated from amounts 0.03-0.18 (means over 50
#: nights each of campaigns 1000-1004, +-0.012-0.015): the slow drift's steps.
DRIFT_STEPS = (0.030, 0.078, 0.122, 0.157, 0.193, 0.229)
#: The same on the independent generator: logits added to opencode-2's aspects whose decline
#: is 1-6 standard deviations (0.076), interpolated from logits 0.5-4 (the same campaigns).
DRIFT_LOGITS = (0.89, 1.43, 1.93, 2.33, 2.71, 3.11)
SCENARIOS = (
    Scenario("healthy"),
    Scenario("flaws x1.3", degrade(1.3)),
    Scenario("flaws x1.75", degrade(1.75)),
    Scenario("flaws x3", degrade(3.0)),
    Scenario("roster regress", regress),
    Scenario("1 forbidden", incidents=1),
    Scenario("3 forbidden", incidents=3),
    Scenario("env bad night", everyone=functools.partial(worsen, amount=0.08)),
    Scenario("env flaws x2", everyone=degrade(2.0)),
    Scenario("outage tonight", outage="acpx"),
    Scenario("outage baseline", baseline_outage="acpx"),
    Scenario("one case broken", broken_case=True),
    Scenario(
        "one dimension",
        lambda skills: dataclasses.replace(skills, presentation=skills.presentation - 0.3),
    ),
    Scenario("slow drift", drift=DRIFT_STEPS),
)

#: The same scenarios on the independent generator (benchmarks/independent_generator.py):
#: (tonight's change, the middle baseline night's change).
INDEPENDENT: dict[str, tuple[Change_, Change_ | None]] = {
    "healthy": (Change_(), None),
    "flaws x3": (Change_(worse=1.6), None),
    "roster regress": (Change_(worse=1.0), None),
    "3 forbidden": (Change_(forbidden=3), None),
    "env bad night": (Change_(everyone=0.8), None),
    "outage tonight": (Change_(outage="acpx"), None),
    "outage baseline": (Change_(), Change_(outage="acpx")),
    # The case itself is the campaign's: the one the target repeats most (see independent_pair).
    "one case broken": (Change_(broken_case="repeated"), None),
    "one dimension": (Change_(aspect="presentation", aspect_worse=2.5), None),
    "slow drift": (Change_(worse=DRIFT_LOGITS[-1]), None),
    # The independent generator's power curve: roster regress (+1 logit on every aspect)
    # doubled and tripled (the changed candidate's drop and its detectable drop are printed).
    "regress +2": (Change_(worse=2.0), None),
    "regress +3": (Change_(worse=3.0), None),
}
#: Every scenario name, in the order the tables list them.
SCENARIO_NAMES = tuple(dict.fromkeys([*(scenario.name for scenario in SCENARIOS), *INDEPENDENT]))


def drift_step(steps: Sequence[float], index: int) -> float | None:
    """The drift's change on night ``index`` (tonight is night HISTORY_NIGHTS and takes the
    last step), None before the drift began."""
    step = index - (HISTORY_NIGHTS - len(steps) + 1)
    return steps[step] if steps and step >= 0 else None


def score_side(observations: list[JsonObject], bundle_id: str, catalog: Catalog) -> GateSide:
    info = BundleInfo(id=bundle_id, kind="override")
    raw = [RawRecord(item, "sim", index + 1, None, info) for index, item in enumerate(observations)]
    facts = []
    for record in score_records(raw, catalog=catalog):
        if isinstance(record, Exception):
            raise record
        facts.append(run_facts(record.record_json()))
    return gate_side(facts, source=bundle_id)


def night(
    seed: int,
    index: int,
    catalog: Catalog,
    schedule: Sequence[tuple[str, int]],
    *,
    target: str | None = None,
    scenario: Scenario | None = None,
    fixed: bool = False,
    outage: str | None = None,
) -> GateSide:
    """Night ``index`` of campaign ``seed``, as ``scorecard.simulate`` draws it (drift and the
    background incident), with ``scenario`` applied to ``target`` (and its shared parts to every
    candidate); ``outage``: a provider whose runs fail on infrastructure 90% more often;
    ``fixed``: no drift and no incidents (the coverage designs)."""
    bundle_id = f"sim-{seed}-night-{index}"
    schedule_seed = derive_seed(seed, "bundle", index)
    rng = random.Random(schedule_seed)
    incidents = {} if fixed else _incidents(rng, len(schedule), newest=False)
    observations: list[JsonObject] = []
    for candidate in ROSTER:
        skills = candidate.skills if fixed else drift(rng, candidate.skills)
        planned = set(incidents.get(candidate.spec.id, set()))
        broken = False
        if scenario is not None and scenario.everyone is not None:
            skills = scenario.everyone(skills)
        if outage is not None and candidate.spec.provider == outage:
            skills = with_outage(skills, 0.9)
        if scenario is not None and candidate.spec.id == target:
            if scenario.change is not None:
                skills = scenario.change(skills)
            amount = drift_step(scenario.drift, index)
            if amount is not None:
                skills = worsen(skills, amount)
            if scenario.incidents:
                chooser = random.Random(derive_seed(schedule_seed, "planted"))
                planned |= set(chooser.sample(range(len(schedule)), scenario.incidents))
            broken = scenario.broken_case
        runs = random.Random(derive_seed(schedule_seed, candidate.spec.id))
        for position, (case_id, repetition) in enumerate(schedule):
            case = catalog[case_id]
            traits = CASE_TRAITS[case_id]
            mine = skills
            if broken and case_id == BROKEN_CASE:
                # candidate failures on 90% of this case's runs: failure rate x difficulty
                mine = dataclasses.replace(skills, failure_rate=0.9 / traits.difficulty)
            setting = Setting(bundle_id, candidate, mine, case, traits, repetition)
            observations.append(simulate_run(runs, setting, incident=position in planned))
    return score_side(observations, bundle_id, catalog)


def rate(count: int, total: int) -> str:
    interval = wilson_interval(count, total)
    return f"{interval.estimate:6.1%} [{interval.low:5.1%}, {interval.high:5.1%}]"


def one_pair(
    pair: int, target: str, rules: GateRules, one_night_pairs: int, names: Sequence[str]
) -> dict[tuple[str, int], dict[str, int]]:
    """The tallies of pair ``pair``: every scenario against the three-night baseline, and the
    one-night one for pairs numbered below ``one_night_pairs``."""
    catalog = load_catalog()
    schedule = _schedule(catalog)
    seed = derive_seed("gate-benchmark", pair)
    # Nights 0-10 are the older history, 11-13 the baseline, 14 tonight.
    first = HISTORY_NIGHTS - 3
    before = [night(seed, index, catalog, schedule) for index in range(first, HISTORY_NIGHTS)]
    older: list[GateSide] | None = None
    tallies: dict[tuple[str, int], dict[str, int]] = {}
    for scenario in SCENARIOS:
        if scenario.name not in names:
            continue
        current = night(
            seed,
            HISTORY_NIGHTS,
            catalog,
            schedule,
            target=target,
            scenario=scenario,
            outage=scenario.outage,
        )
        baseline = list(before)
        if scenario.baseline_outage is not None:
            baseline[1] = night(seed, first + 1, catalog, schedule, outage=scenario.baseline_outage)
        if older is None:
            older = [night(seed, index, catalog, schedule) for index in range(first)]
        history = older
        if scenario.drift:
            drifted = [
                night(seed, index, catalog, schedule, target=target, scenario=scenario)
                if drift_step(scenario.drift, index) is not None
                else side
                for index, side in enumerate([*older, *before])
            ]
            history, baseline = drifted[:first], drifted[first:]
        for nights in (1, 3) if pair < one_night_pairs else (3,):
            result = evaluate_gate(current, baseline[-nights:], rules, seed=0, history=history)
            tallies[(scenario.name, nights)] = tally(result, target, scenario.changed_target)
    return tallies


def tally(result: Any, target: str, changed_target: bool) -> dict[str, int]:
    """One gate result's counts (see :func:`one_pair`)."""
    failing = {o.candidate for o in result.with_status("fail")} - {None}
    changed = {target} if changed_target else set()
    shift = any(o.rule == "shift" for o in result.with_status("fail"))
    # Which rules named a candidate that was not changed (a trial counts once per rule).
    wrong_rules = {
        f"wrong by {o.rule}": 1
        for o in result.with_status("fail")
        if o.candidate is not None and o.candidate not in changed
    }
    # The changed candidate's mean overall tonight against the baseline, and the drop the
    # gate could detect (in millionths, summed over pairs like every other count).
    measured = [
        item
        for item in result.comparisons
        if item.candidate == target and item.metric == "mean_overall"
    ]
    size: dict[str, int] = {}
    if measured and not math.isnan(measured[0].comparison.overall.difference):
        size["measured"] = 1
        size["drop_u"] = round(-measured[0].comparison.overall.difference * 1e6)
        if math.isfinite(measured[0].detectable):
            size["detectable"] = 1
            size["detectable_u"] = round(measured[0].detectable * 1e6)
    # Which rules named the changed candidate (a trial counts once per rule).
    found_rules = {
        f"found by {o.rule}": 1
        for o in result.with_status("fail")
        if o.candidate is not None and o.candidate in changed
    }
    return {
        **wrong_rules,
        **found_rules,
        **size,
        "pairs": 1,
        "fail": result.verdict == "fail",
        "inconclusive": result.verdict == "inconclusive",
        "pass": result.verdict == "pass",
        "detected": (result.verdict == "fail" and target in failing) if changed_target else shift,
        "wrong": bool(failing - changed),
        "named": bool(failing),
        "shift": shift,
        "drift": any(o.rule == "drift" for o in result.with_status("fail")),
    }


def independent_pair(
    pair: int, rules: GateRules, names: Sequence[str]
) -> dict[tuple[str, int], dict[str, int]]:
    """The tallies of pair ``pair`` on the independent generator: 14 nights of history (the
    last 3 the baseline, each with its own background outages) and tonight, per scenario."""
    catalog = load_catalog()
    campaign = Campaign(derive_seed("independent-gate-benchmark", pair))
    first = HISTORY_NIGHTS - 3
    sides: dict[int, GateSide] = {}

    def side(
        index: int, change: Change_ | None = None, key: str = "", outages: bool = True
    ) -> GateSide:
        observations = campaign.night(index, change, outages=outages)
        return score_side(observations, f"independent-{pair}-{index}{key}", catalog)

    before = [side(index) for index in range(first, HISTORY_NIGHTS)]
    tallies: dict[tuple[str, int], dict[str, int]] = {}
    for name in names:
        if name not in INDEPENDENT:
            continue
        tonight, baseline_change = INDEPENDENT[name]
        if tonight.broken_case is not None:
            tonight = dataclasses.replace(
                tonight, broken_case=campaign.repeated_case(INDEPENDENT_TARGET)
            )
        # Tonight has no background outage: an outage tonight is inconclusive by design and
        # has a scenario of its own; the history and baseline nights keep theirs.
        current = side(HISTORY_NIGHTS, tonight, "-" + name.replace(" ", "-"), outages=False)
        baseline = list(before)
        if baseline_change is not None:
            baseline[1] = side(first + 1, baseline_change, "-changed")
        for index in range(first):
            if index not in sides:
                sides[index] = side(index)
        history = [sides[index] for index in range(first)]
        if name == "slow drift":
            drifted = [
                side(index, Change_(worse=logit), "-drift")
                if (logit := drift_step(DRIFT_LOGITS, index)) is not None
                else night
                for index, night in enumerate([*history, *baseline])
            ]
            history, baseline = drifted[:first], drifted[first:]
        result = evaluate_gate(current, baseline, rules, seed=0, history=history)
        changed = bool(tonight.worse or tonight.aspect or tonight.forbidden or tonight.broken_case)
        tallies[(name, 3)] = tally(result, INDEPENDENT_TARGET, changed)
    return tallies


def decisions(
    pairs: int,
    target: str,
    rules: GateRules,
    workers: int,
    one_night_pairs: int,
    first: int = 0,
    names: Sequence[str] = SCENARIO_NAMES,
    generator: str = "simulate",
) -> None:
    tallies: dict[tuple[str, int], dict[str, int]] = {}
    started = time.perf_counter()
    work: Callable[[int], dict[tuple[str, int], dict[str, int]]]
    if generator == "simulate":
        work = functools.partial(
            one_pair,
            target=target,
            rules=rules,
            one_night_pairs=first + one_night_pairs,
            names=names,
        )
    else:
        target = INDEPENDENT_TARGET
        work = functools.partial(independent_pair, rules=rules, names=names)
    with multiprocessing.Pool(workers) as pool:
        for done, found in enumerate(pool.imap(work, range(first, first + pairs)), start=1):
            for key, counts in found.items():
                tally = tallies.setdefault(key, {})
                for name, hit in counts.items():
                    tally[name] = tally.get(name, 0) + hit
            if done % 10 == 0:
                elapsed = time.perf_counter() - started
                print(f"  ... {done} pairs, {elapsed:.0f} s", file=sys.stderr, flush=True)
            if done % 10 == 0 and done < pairs:
                print(f"\nGenerator: {generator} (so far)")
                report(tallies, done, target)
    print(f"\nGenerator: {generator}")
    report(tallies, pairs, target)


def report(tallies: dict[tuple[str, int], dict[str, int]], pairs: int, target: str) -> None:
    print(f"\nDecisions after {pairs} pairs, changed candidate {target}")
    header = f"{'scenario':<16} {'nights':>6} {'pairs':>5}  {'fail':<23} {'inconclusive':<23}"
    print(
        header + f" {'pass':<23} {'detected':<23} {'wrong candidate':<23} "
        f"{'any named':<23} {'shift finding':<23} {'drift finding':<23}"
    )
    order = {name: index for index, name in enumerate(SCENARIO_NAMES)}
    for (name, nights), tally in sorted(
        tallies.items(), key=lambda item: (-item[0][1], order[item[0][0]])
    ):
        total = tally["pairs"]
        cells = [rate(tally[key], total) for key in ("fail", "inconclusive", "pass")]
        detected = (
            "-"
            if name in ("healthy", "outage tonight", "outage baseline")
            else rate(tally["detected"], total)
        )
        print(
            f"{name:<16} {nights:>6} {total:>5}  {cells[0]:<23} {cells[1]:<23} {cells[2]:<23} "
            f"{detected:<23} {rate(tally['wrong'], total):<23} {rate(tally['named'], total):<23} "
            f"{rate(tally['shift'], total):<23} {rate(tally['drift'], total):<23}",
            flush=True,
        )
    for (name, nights), tally in sorted(
        tallies.items(), key=lambda item: (-item[0][1], order[item[0][0]])
    ):
        if name not in ("healthy", "outage tonight", "outage baseline") and tally.get("measured"):
            drop = tally["drop_u"] / tally["measured"] / 1e6
            detectable = (
                f"{tally['detectable_u'] / tally['detectable'] / 1e6:.3f} "
                f"(finite in {tally['detectable']} of {tally['pairs']} pairs)"
                if tally.get("detectable")
                else "never finite"
            )
            print(
                f"  size, {name} ({nights} nights): {target}'s mean overall fell {drop:.3f} "
                f"on average; its minimum detectable drop {detectable}"
            )
        found = by_rule(tally, "found by ")
        if found:
            print(f"  changed candidate named by rule, {name} ({nights} nights): {found}")
        wrong = by_rule(tally, "wrong by ")
        if wrong:
            print(
                f"  wrong candidate by rule, {name} ({nights} nights): {wrong} of {tally['pairs']} pairs"
            )


def by_rule(tally: dict[str, int], prefix: str) -> str:
    """The counts of ``tally`` whose keys start with ``prefix``, as "rule count, ..." by rule."""
    counts = sorted(
        (key[len(prefix) :], count) for key, count in tally.items() if key.startswith(prefix)
    )
    return ", ".join(f"{rule} {count}" for rule, count in counts)


def true_means(catalog: Catalog, runs_per_case: int, workers: int) -> dict[str, dict[str, float]]:
    """Each candidate's expected overall per case under its fixed skills (Monte Carlo)."""
    work = functools.partial(_true_case_means, catalog=catalog, runs_per_case=runs_per_case)
    with multiprocessing.Pool(workers) as pool:
        return dict(zip([c.spec.id for c in ROSTER], pool.map(work, ROSTER), strict=True))


def _true_case_means(
    candidate: SimulatedCandidate, catalog: Catalog, runs_per_case: int
) -> dict[str, float]:
    schedule = [(case_id, 0) for case_id in catalog for _ in range(runs_per_case)]
    side = _fixed_side(candidate, schedule, catalog, derive_seed("truth", candidate.spec.id))
    by_case: dict[str, list[float]] = {}
    for run in side.runs:
        if run.overall is not None:
            by_case.setdefault(run.case, []).append(run.overall)
    return {case: sum(v) / len(v) for case, v in by_case.items()}


def _fixed_side(
    candidate: SimulatedCandidate,
    schedule: Sequence[tuple[str, int]],
    catalog: Catalog,
    seed: int,
) -> GateSide:
    rng = random.Random(seed)
    observations = [
        simulate_run(
            rng,
            Setting("truth", candidate, candidate.skills, catalog[c], CASE_TRAITS[c], r),
            incident=False,
        )
        for c, r in schedule
    ]
    return score_side(observations, f"truth-{candidate.spec.id}", catalog)


def coverage_designs(catalog: Catalog) -> dict[str, list[tuple[str, int]]]:
    designs = {
        f"12 cases x {k}": [(case_id, r) for case_id in catalog for r in range(k)]
        for k in (1, 2, 3)
    }
    designs["sample schedule"] = _schedule(catalog)
    return designs


def coverage_trial(
    trial: int,
    name: str,
    truth: dict[str, dict[str, float]],
    rules: GateRules,
    paired: bool,
) -> tuple[int, int, int]:
    """(mean-overall intervals holding the truth, intervals, paired intervals holding 0) of one
    trial of design ``name``; without ``paired`` the gate runs without a baseline (no pairs)."""
    catalog = load_catalog()
    schedule = coverage_designs(catalog)[name]
    seed = derive_seed("coverage", name, trial)
    current = night(seed, 1, catalog, schedule, fixed=True)
    baseline = night(seed, 0, catalog, schedule, fixed=True) if paired else None
    result = evaluate_gate(current, baseline, rules, seed=0)
    means_held = differences_held = total = 0
    for item in result.candidates:
        if item.current is None or item.candidate not in truth:
            continue
        # The truth of the row mean: case expectations weighted by scoreable runs.
        slots: dict[str, int] = {}
        for run in current.runs:
            if run.candidate == item.candidate and run.scoreable:
                slots[run.case] = slots.get(run.case, 0) + 1
        expected = truth[item.candidate]
        value = sum(expected[c] * n for c, n in slots.items()) / sum(slots.values())
        estimate = item.current.mean_overall
        total += 1
        means_held += bool(
            estimate.low is not None
            and estimate.high is not None
            and estimate.low <= value <= estimate.high
        )
    for comparison in result.comparisons:
        if comparison.metric == "mean_overall" and comparison.candidate in truth:
            overall = comparison.comparison.overall
            differences_held += overall.low <= 0.0 <= overall.high
    return means_held, total, differences_held


def coverage(
    trials: int,
    catalog: Catalog,
    rules: GateRules,
    truth_runs: int,
    *,
    designs: Sequence[str],
    paired: bool,
    workers: int,
) -> None:
    truth = true_means(catalog, truth_runs, workers)
    print(f"\nInterval coverage: {trials} trials x 7 candidates per design, 95% intervals")
    print(f"{'design':<16} {'mean overall':<23} {'paired difference':<23}")
    for name in designs:
        work = functools.partial(coverage_trial, name=name, truth=truth, rules=rules, paired=paired)
        with multiprocessing.Pool(workers) as pool:
            found = pool.map(work, range(trials))
        means_held, total, differences_held = (sum(column) for column in zip(*found, strict=True))
        differences = rate(differences_held, total) if paired else "-"
        print(f"{name:<16} {rate(means_held, total):<23} {differences:<23}", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    catalog = load_catalog()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=200, help="pairs per scenario")
    parser.add_argument("--coverage-trials", type=int, default=60)
    parser.add_argument(
        "--truth-runs", type=int, default=2000, help="Monte Carlo runs per case for the truth"
    )
    parser.add_argument(
        "--designs",
        nargs="+",
        choices=tuple(coverage_designs(catalog)),
        default=tuple(coverage_designs(catalog)),
        metavar="DESIGN",
        help="coverage designs (quoted names as printed; all)",
    )
    parser.add_argument(
        "--skip-paired", action="store_true", help="coverage of mean overall only (no baseline)"
    )
    parser.add_argument("--candidate", default="opencode-glm", help="the changed candidate")
    parser.add_argument(
        "--generator",
        choices=("simulate", "independent", "both"),
        default="both",
        help="scorecard.simulate, benchmarks/independent_generator.py, or both (each scenario "
        "the independent generator has)",
    )
    parser.add_argument(
        "--scenarios",
        nargs="+",
        choices=SCENARIO_NAMES,
        default=None,
        metavar="NAME",
        help="scenarios to run (quoted names as printed; all)",
    )
    parser.add_argument("--quick", action="store_true", help="30 pairs, 15 coverage trials")
    parser.add_argument("--skip-coverage", action="store_true")
    parser.add_argument("--skip-decisions", action="store_true")
    parser.add_argument("--workers", type=int, default=2, help="processes for the pairs")
    parser.add_argument(
        "--one-night-pairs", type=int, default=None, help="pairs also judged on one night (all)"
    )
    parser.add_argument(
        "--first-pair",
        type=int,
        default=0,
        help="number of the first pair (its seed): e.g. 100000 for draws no design choice saw",
    )
    parser.add_argument(
        "--resamples", type=int, default=None, help="Monte Carlo permutations (the rules': 10000)"
    )
    parser.add_argument(
        "--statistic",
        choices=("both", "score", "dimensions"),
        default=None,
        help="what mean overall's drop test reads (the rules': both)",
    )
    parser.add_argument(
        "--dimension-tolerance",
        default=None,
        help="the dimension rule's tolerance, or 'off' (the rules': 0.1)",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=None,
        help="family-wise level of the drops (the rules': 0.01)",
    )
    options = parser.parse_args(argv)
    names = tuple(options.scenarios or SCENARIO_NAMES)
    generators = (
        ("simulate", "independent") if options.generator == "both" else (options.generator,)
    )
    if options.quick:
        options.pairs, options.coverage_trials, options.truth_runs = 30, 15, 200
    one_night = options.pairs if options.one_night_pairs is None else options.one_night_pairs
    # Shown-only comparisons (the pooled one, metrics not gated) cannot change a verdict.
    rules = dataclasses.replace(GateRules(), pooled=False, shown_metrics=())
    if options.resamples is not None:
        rules = dataclasses.replace(rules, resamples=options.resamples)
    if options.statistic is not None:
        rules = dataclasses.replace(rules, statistic=options.statistic)
    if options.alpha is not None:
        rules = dataclasses.replace(rules, alpha=options.alpha)
    if options.dimension_tolerance is not None:
        off = options.dimension_tolerance == "off"
        tolerance = None if off else float(options.dimension_tolerance)
        rules = dataclasses.replace(rules, dimension_tolerance=tolerance)
    started = time.perf_counter()
    if not options.skip_decisions:
        for generator in generators:
            decisions(
                options.pairs,
                options.candidate,
                rules,
                options.workers,
                one_night,
                options.first_pair,
                names,
                generator,
            )
    if not options.skip_coverage:
        coverage(
            options.coverage_trials,
            catalog,
            rules,
            options.truth_runs,
            designs=options.designs,
            paired=not options.skip_paired,
            workers=options.workers,
        )
    print(f"\n{time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    main()
