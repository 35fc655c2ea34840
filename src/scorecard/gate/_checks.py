"""Gate rules applied: one function per rule, each returning its :class:`RuleOutcome` list.

::

    judge_safety          scoreable runs whose effective gate failed (with a baseline: new ones)
    compare_metrics       the analysis's paired comparisons per metric, candidate and pooled
    judge_drop            one comparison read against the tolerance -> drop / coverage outcome
    beyond_shift          a failing drop re-read against its group's shared shift
    judge_shifts          shared shifts of the environment or a provider -> shift outcomes
    judge_cases           newly failing / flaky / quarantined candidate x case pairs
    judge_baseline_age    baseline nights dated too long before the current night
    judge_coverage        candidates on one side only; no candidate on both sides
    judge_infrastructure  too large a share of infrastructure failures, per provider and night
    judge_percentile      latency / cost p95 regressions
    judge_audit           failed case-assertion findings

Combining the outcomes into a verdict is :func:`scorecard.gate.evaluate_gate`'s job; the rules
and the reasons behind them are in ``docs/gate.md``.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

from scorecard.aggregate import CampaignAnalysis, PairedComparison, reference_p95
from scorecard.contract import DIMENSIONS, GATE_DIMENSIONS

from ._cases import CaseFinding
from ._drift import DriftFinding
from ._input import ALL_CANDIDATES, GateSide, labelled_sides
from ._nights import MIN_CALIBRATION
from ._results import (
    DimensionDrop,
    GateFailure,
    MetricComparison,
    NightNoise,
    ResidualDrop,
    RuleOutcome,
    SharedShift,
    Status,
)
from ._rules import (
    DROP_STATISTIC_LABELS,
    METRIC_LABELS,
    METRICS,
    SAFETY_DIMENSIONS,
    AuditMode,
    GateRules,
    Metric,
)

__all__ = [
    "beyond_shift",
    "compare_metrics",
    "judge_audit",
    "judge_baseline_age",
    "judge_cases",
    "judge_coverage",
    "judge_dimensions",
    "judge_drift",
    "judge_drop",
    "judge_infrastructure",
    "judge_percentile",
    "judge_safety",
    "judge_shifts",
    "within_noise",
]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


def judge_safety(
    current: GateSide, baseline: GateSide | None, mode: str, rules: GateRules
) -> tuple[list[RuleOutcome], tuple[GateFailure, ...]]:
    """The safety rule in ``mode`` (``auto`` resolved), and every current gate failure.

    A failure of dimension D on a candidate's case is *new* beyond what its baseline runs of
    that case explain: with f of its b scoreable baseline runs failing D, the first
    ceil(f x c / b) failures among its c current runs are the baseline's rate and the rest are
    new (a case the baseline never failed: every failure; a case it failed once in three
    nights, run once a night: none; run three times a night with two failures: one new).
    """
    explained: dict[tuple[str, str, str], int] = {}
    table = current.table
    if baseline is not None:
        before = baseline.table
        failed_before = np.flatnonzero(before.gate_failed).tolist()
        # Failed runs counted per candidate, case and failing gates, then per gate.
        baseline_failures: Counter[tuple[str, str, str]] = Counter()
        for (candidate, case, failing), count in Counter(
            zip(
                [before.candidate[index] for index in failed_before],
                [before.case[index] for index in failed_before],
                before.failing_at(failed_before),
                strict=True,
            )
        ).items():
            for name in failing:
                baseline_failures[(candidate, case, name)] += count
        baseline_runs = before.scoreable_runs()
        current_runs = table.scoreable_runs()
        for (candidate, case, name), count in baseline_failures.items():
            runs = baseline_runs[(candidate, case)]
            # ceil(count x current / baseline) in integers
            explained[(candidate, case, name)] = -(-count * current_runs[(candidate, case)] // runs)
    seen: Counter[tuple[str, str, str]] = Counter()
    positions = np.flatnonzero(table.gate_failed).tolist()
    failed = [
        (index, failing)
        for index, failing in zip(positions, table.failing_at(positions), strict=True)
        if failing
    ]
    failures = []
    for run, (_, failing) in zip(
        table.runs_at([index for index, _ in failed]), failed, strict=True
    ):
        new = None
        if baseline is not None:
            keys = [(run.candidate, run.case, name) for name in failing]
            seen.update(keys)
            new = tuple(key[2] for key in keys if seen[key] > explained.get(key, 0))
        counted = mode == "any" or (
            mode == "new" and any(name in rules.safety_dimensions for name in new or ())
        )
        failures.append(GateFailure(run, failing, new, counted))
    outcomes: list[RuleOutcome] = []
    scoreable = int(table.scoreable.sum())
    if mode == "off":
        return outcomes, tuple(failures)
    by_candidate: dict[str, list[GateFailure]] = {}
    for failure in failures:
        by_candidate.setdefault(failure.run.candidate, []).append(failure)
    for candidate, found in sorted(by_candidate.items()):
        if mode == "any":
            counts = Counter(name for failure in found for name in failure.dimensions)
            names = tuple(name for name in (*SAFETY_DIMENSIONS, "gate") if counts[name])
            breakdown = ", ".join(f"{name} {counts[name]}" for name in names)
            outcomes.append(
                RuleOutcome(
                    "safety",
                    "fail",
                    candidate,
                    "+".join(names),
                    f"{_plural(len(found), 'hard-gate failure')} ({breakdown})",
                    f"{_plural(len(found), 'scoreable run')} of {candidate} failed the gate "
                    f"({breakdown}); the safety rule allows none.",
                    dimensions=names,
                )
            )
            continue
        for name in rules.safety_dimensions:
            count = sum(name in (failure.new or ()) for failure in found)
            if not count:
                continue
            status: Status = "fail" if count > rules.allowed_new_failures else "warn"
            outcomes.append(
                RuleOutcome(
                    "safety",
                    status,
                    candidate,
                    name,
                    f"{_plural(count, 'new hard-gate failure')} ({name})",
                    f"{_plural(count, 'run')} of {candidate} failed {name} on cases where none "
                    f"of its baseline runs did (allowed: {rules.allowed_new_failures} per "
                    "candidate and dimension).",
                    dimensions=(name,),
                )
            )
    if not any(outcome.status == "fail" for outcome in outcomes):
        if mode == "any":
            text = f"no hard-gate failures in {_plural(scoreable, 'scoreable run')}"
        else:
            listed = ", ".join(rules.safety_dimensions) or "no dimension"
            text = (
                f"no candidate has more than {rules.allowed_new_failures} new failure(s) of "
                f"{listed} ({len(failures)} gate failure(s) in all, "
                f"{sum(bool(failure.new) for failure in failures)} on new cases)"
            )
        outcomes.append(RuleOutcome("safety", "pass", None, "", text, _sentence(text)))
    return outcomes, tuple(failures)


def _fmt(metric: Metric, value: float) -> str:
    return f"{value:.3f}" if metric == "mean_overall" else f"{value:.0%}"


def _dropped_dimensions(
    comparison: PairedComparison, metric: Metric, tolerance: float
) -> tuple[str, ...]:
    names = GATE_DIMENSIONS if metric == "gate_pass_rate" else DIMENSIONS
    dropped = [
        difference
        for difference in comparison.dimensions
        if difference.statistic in names and difference.high < -tolerance
    ]
    dropped.sort(key=lambda difference: difference.difference)
    return tuple(difference.statistic for difference in dropped)


def _bound(tolerance: float) -> str:
    return f"-{tolerance:g}" if tolerance > 0 else "0"


def _detectable(value: float) -> str:
    return "none (too few paired cases)" if math.isinf(value) else f"{value:.3f}"


def judge_drop(item: MetricComparison, rules: GateRules) -> RuleOutcome:
    """The ``drop`` (or, too few pairs, ``coverage``) outcome of one paired comparison.

    A gated comparison (a candidate's, of a metric listed in ``drop.metrics``) fails when its
    one-sided "no drop" p-value, Holm-adjusted over the candidates x the gated metrics, is below
    alpha and the paired difference is below -tolerance; it is inconclusive when too few cases
    are paired or its minimum detectable drop exceeds ``maxDetectableDrop``. Any other
    comparison (the pooled one, metrics not gated) is shown as an advisory outcome.
    """
    comparison, metric = item.comparison, item.metric
    candidate = None if item.candidate == ALL_CANDIDATES else item.candidate
    overall, tolerance = comparison.overall, rules.tolerance
    label = METRIC_LABELS[metric]
    paired, cases = len(comparison.paired_cases), comparison.cases
    unit = "candidate-cases" if candidate is None else "cases"
    gated = item.gated and candidate is not None
    if paired < rules.min_paired_cases or comparison.coverage < rules.min_coverage:
        return RuleOutcome(
            "coverage",
            "inconclusive" if gated else "warn",
            candidate,
            metric,
            f"{label}: only {paired} of {cases} {unit} paired",
            f"{label} cannot be compared: {paired} of {cases} {unit} are scoreable on both sides "
            f"(need {rules.min_paired_cases} and {rules.min_coverage:.0%}).",
            required=gated,
        )
    dimensions = _dropped_dimensions(comparison, metric, tolerance)
    # The paired means average case means over the paired units only; they are not the
    # summary's means over every run, so the text says which means they are.
    holm = f", Holm p={item.p_drop_adjusted:.2g}" if gated else ""
    reads = f" on {DROP_STATISTIC_LABELS[rules.statistic]}" if metric == "mean_overall" else ""
    numbers = (
        f"{label} {_fmt(metric, overall.current)} vs {_fmt(metric, overall.baseline)} over "
        f"the {paired} paired {unit} (case means; one-sided p={item.p_drop:.2g}{reads}{holm})"
    )
    named = ""
    if dimensions:
        more = len(dimensions) - 3
        named = f"; dropped: {', '.join(dimensions[:3])}" + (f" +{more} more" if more > 0 else "")
    interval = f"difference {overall.difference:+.3f} [{overall.low:+.3f}, {overall.high:+.3f}]"
    below = overall.difference < -tolerance
    # Too weak: the comparison could not see a drop of this size (default: a fall to zero).
    limit = rules.max_detectable_drop
    if limit is None:
        limit = overall.baseline
    status: Status
    if not gated:
        shown = below and item.p_drop < rules.alpha
        status = "warn" if shown else "pass"
        why = (
            f"{interval}: a drop beyond {tolerance:g} (one-sided p < {rules.alpha:g}), shown and "
            "not gated"
            if shown
            else f"{interval}: no drop beyond {tolerance:g} shown"
        )
    elif below and item.p_drop_adjusted < rules.alpha:
        status = "fail"
        why = (
            f"{interval} lies below {_bound(tolerance)} and the Holm-adjusted one-sided p is "
            f"below {rules.alpha:g}"
        )
    elif item.detectable > limit:
        status = "inconclusive"
        why = (
            f"{interval}: too weak to judge, the minimum detectable drop at {paired} paired "
            f"{unit} is {_detectable(item.detectable)} (> {limit:.3g})"
        )
    elif rules.non_inferiority and overall.low < -tolerance:
        status, why = "inconclusive", f"{interval} does not rule out a drop beyond {tolerance:g}"
    else:
        status, why = "pass", f"{interval}: no drop beyond {tolerance:g} shown"
    summary = numbers + named if status != "pass" else f"{label}: {interval}"
    if status == "inconclusive" and item.detectable > limit:
        summary = f"{label}: minimum detectable drop {_detectable(item.detectable)}"
    return RuleOutcome(
        "drop",
        status,
        candidate,
        metric,
        summary,
        f"{numbers}: {why}" + (f"; dropped: {', '.join(dimensions)}." if dimensions else "."),
        required=gated,
        dimensions=dimensions if status != "pass" else (),
    )


def judge_shifts(shifts: Sequence[SharedShift], rules: GateRules) -> list[RuleOutcome]:
    """The ``shift`` rule: a detected shared shift of mean overall fails the gate as one
    finding (the environment's, or a provider's), naming no candidate; one within the group's
    night-to-night moves is a pass that says so; without one, a pass."""
    outcomes = []
    for found in shifts:
        if found.within_nights:
            outcomes.append(_within_nights(found))
        if not found.reported:
            continue
        interval = (
            f"{found.shift:+.3f} [{found.low:+.3f}, {found.high:+.3f}] "
            f"({found.confidence:.1%} order-statistic interval of the median)"
        )
        members = len(found.candidates)
        summary = (
            f"{found.name}: shared drop of mean overall, median {found.shift:+.3f} "
            f"[{found.low:+.3f}, {found.high:+.3f}], {found.dropped} of {members} candidates "
            "moved together"
        )
        detail = (
            f"The {found.name}'s {members} candidates ({', '.join(found.candidates)}) moved "
            f"together: median paired difference of mean overall {interval}, "
            f"{found.dropped} of {members} below -{rules.tolerance:g}, Fisher's combined one-sided "
            f"p={found.p_value:.2g} (< {found.level:.2g})"
            + (
                f"; beyond the {found.name}'s night-to-night moves: z {found.noise_z:.2f}, the "
                f"nights adding a spread of {found.night_sd:.3f} beyond their runs', read from "
                f"{found.calibrated_on} past nights, one-sided p={found.noise_p:.2g}"
                if found.calibrated_on
                else ""
            )
            + f". A shared shift is one finding, not {members} regressions: each candidate fails "
            "only for a drop beyond it."
        )
        outcomes.append(
            RuleOutcome(
                "shift",
                "fail",
                None,
                found.name,
                summary,
                detail,
                dimensions=(),
            )
        )
    if shifts and not outcomes:
        text = "no shared shift of mean overall (environment or provider)"
        outcomes.append(RuleOutcome("shift", "pass", None, "", text, _sentence(text)))
    return outcomes


def _within_nights(found: SharedShift) -> RuleOutcome:
    """A group that moved together tonight, but no further than its nights move anyway."""
    members = len(found.candidates)
    summary = (
        f"{found.name}: moved together, median {found.shift:+.3f}, within its night-to-night "
        f"moves (p={found.noise_p:.2g})"
    )
    detail = (
        f"The {found.name}'s {members} candidates ({', '.join(found.candidates)}) moved "
        f"together (median paired difference of mean overall {found.shift:+.3f}, "
        f"{found.dropped} of {members} down, Fisher's combined p={found.p_value:.2g}), but its "
        f"nights move that far anyway: z {found.noise_z:.2f} with the nights adding a spread of "
        f"{found.night_sd:.3f} beyond their runs', read from {found.calibrated_on} past nights, "
        f"one-sided p={found.noise_p:.2g} (not below {found.level:.2g}). No finding; each "
        "candidate is judged on its drop beyond the shared move."
    )
    return RuleOutcome("shift", "pass", None, found.name, summary, detail, dimensions=())


def judge_cases(findings: Sequence[CaseFinding]) -> list[RuleOutcome]:
    """The ``case`` rule: a candidate x case that passed reliably in its history and fails
    tonight fails the gate when its Boschloo p is below alpha / K (Tarone); with weaker
    evidence, or within a shared shift detected tonight, it is a warning; flaky and
    quarantined pairs are advisory outcomes (``scorecard.gate._cases``)."""
    outcomes = []
    for found in findings:
        history = found.history_text
        if found.kind in ("newly_failing", "still_failing"):
            evidence = f"one-sided Boschloo exact p={found.p_value:.2g}, level {found.level:.2g}"
            still = found.kind == "still_failing"
            summary = f"{'still' if still else 'newly'} failing on {found.case}: {history}"
            since = (
                f"before failing it on the last {found.streak_nights} night"
                f"{'' if found.streak_nights == 1 else 's'} and fails it again tonight (tested "
                "against the nights before)"
                if still
                else "in its history and fails it tonight"
            )
            detail = (
                f"{found.candidate} passed {found.case} reliably {since}: {history} ({evidence}; "
                + (
                    "within tonight's shared shift, which makes every case likelier to fail: "
                    "shown, not failing)."
                    if found.within_shift
                    else "fails the gate)."
                    if found.fails
                    else "too little evidence for this history's depth to fail the gate)."
                )
            )
        elif found.kind == "flaky":
            flips = (
                f"flip rate {found.flip_rate:.0%} [{found.flip_low:.0%}, {found.flip_high:.0%}]"
                if math.isfinite(found.flip_rate)
                else "flip rate unknown (one night)"
            )
            summary = f"flaky on {found.case}, failing tonight: {history}; {flips}"
            detail = (
                f"{found.candidate} is flaky on {found.case} ({history}; {flips} between "
                "consecutive nights): shown, never failing the gate."
            )
        else:
            summary = f"quarantined on {found.case}, failing tonight: {history}"
            detail = (
                f"{found.candidate} on {found.case} is quarantined ({history}): shown, never "
                "failing the gate until its label expires."
            )
        outcomes.append(
            RuleOutcome(
                "case",
                "fail" if found.fails else "warn",
                found.candidate,
                found.case,
                summary,
                detail,
                # Flaky and quarantined pairs are shown apart, never in the verdict line.
                required=found.kind in ("newly_failing", "still_failing"),
            )
        )
    return outcomes


def judge_drift(findings: Sequence[DriftFinding]) -> list[RuleOutcome]:
    """The ``drift`` rule: a candidate whose nightly level declines over the last nights beyond
    the tolerance with a one-sided trend p below alpha / K fails; a significant slope within
    the tolerance is a warning (``scorecard.gate._drift``)."""
    return [
        _significant(
            "drift",
            found.candidate,
            "mean_overall",
            found.fails,
            f"mean overall declining over {found.nights} nights ({found.decline:+.3f})",
            f"mean overall: a trend within the tolerance ({found.decline:+.3f})",
            f"{found.candidate}'s nightly mean overall declines night after night: {found.text}",
        )
        for found in findings
        if found.p_value < found.level
    ]


def judge_dimensions(drops: Sequence[DimensionDrop]) -> list[RuleOutcome]:
    """The ``dimension`` rule: a candidate's pass rate of one weighted dimension dropping
    beyond the tolerance against its peers, with a one-sided p below alpha / (K x D), fails;
    a significant drop within the tolerance is a warning (``scorecard.gate._dimensions``)."""
    return [
        _significant(
            "dimension",
            found.candidate,
            found.dimension,
            found.fails,
            f"{found.dimension}: pass rate dropped ({found.residual:+.3f})",
            f"{found.dimension}: a drop within the tolerance ({found.residual:+.3f})",
            f"{found.candidate}'s {found.dimension} dimension fell on its own: {found.text}",
            dimensions=(found.dimension,),
        )
        for found in drops
        if found.p_value < found.level
    ]


def _significant(
    rule: str,
    candidate: str,
    subject: str,
    fails: bool,
    failing: str,
    within: str,
    reading: str,
    dimensions: tuple[str, ...] = (),
) -> RuleOutcome:
    """A significant finding's outcome: a failure (``failing`` its summary) beyond the rule's
    tolerance, else a warning (``within``); the detail is ``reading`` and what it does."""
    verdict = "fails the gate" if fails else "within the tolerance, shown only"
    return RuleOutcome(
        rule,
        "fail" if fails else "warn",
        candidate,
        subject,
        failing if fails else within,
        f"{reading}; {verdict}.",
        dimensions=dimensions,
    )


def beyond_shift(outcome: RuleOutcome, residual: ResidualDrop | None) -> RuleOutcome:
    """A gated mean-overall drop outcome judged against its group's shared shift: a failing
    drop that the shift explains becomes a warning; one beyond it stays a failure and says so."""
    if residual is None or outcome.status != "fail":
        return outcome
    numbers = (
        f"{residual.difference:+.3f} against the {residual.group}'s shift of "
        f"{residual.shift:+.3f} (the other members' median): residual {residual.residual:+.3f}"
        f" (standard error {residual.error:.3f}, one-sided p={residual.p_value:.2g}, "
        f"level {residual.level:.2g})"
    )
    return _beyond_or_warn(
        outcome,
        residual.beyond,
        (f"beyond the {residual.group}'s shift", f"Beyond the shared shift: {numbers}."),
        (
            f"mean overall: within the {residual.group}'s shared shift",
            f"Explained by the shared shift: {numbers}.",
        ),
    )


def _beyond_or_warn(
    outcome: RuleOutcome, beyond: bool, failing: tuple[str, str], warning: tuple[str, str]
) -> RuleOutcome:
    """A failing drop read a second time: still failing, its summary and detail extended by
    ``failing`` (summary suffix, detail sentence), or a warning that says ``warning``
    (summary, detail sentence)."""
    if beyond:
        return dataclasses.replace(
            outcome,
            summary=f"{outcome.summary}; {failing[0]}",
            detail=f"{outcome.detail} {failing[1]}",
        )
    return dataclasses.replace(
        outcome,
        status="warn",
        summary=warning[0],
        detail=f"{outcome.detail} {warning[1]}",
        dimensions=(),
    )


def within_noise(outcome: RuleOutcome, noise: NightNoise | None) -> RuleOutcome:
    """A gated mean-overall drop outcome judged against the night-to-night noise: a failing
    drop that does not stand out (alone or from its peers) by more than past nights moved
    becomes a warning; one that does stays a failure and says so (``scorecard.gate._nights``)."""
    if noise is None or outcome.status != "fail":
        return outcome
    spread = (
        f"nights add a spread of {noise.night_sd_score:.3f} on overall scores and "
        f"{noise.night_sd_dimensions:.2f} on dimensions passed beyond their runs', read from "
        f"{noise.calibrated_on} past residuals"
        if noise.calibrated_on >= MIN_CALIBRATION
        else "too little history to read the night-to-night noise "
        f"({noise.calibrated_on} past residuals): none assumed"
    )
    peers = f"against its peers ({noise.peers}: their median)"
    readings = [peers if against else "alone" for against in noise.against_peers]
    numbers = (
        f"{'residual' if noise.against_peers[0] else 'drop'} {noise.residual:+.3f}; "
        f"z {noise.z_score:+.2f} on overall scores ({readings[0]}) and "
        f"{noise.z_dimensions:+.2f} on dimensions passed ({readings[1]}); {spread}; "
        f"one-sided p={noise.p_value:.2g}, level {noise.level:.2g}"
    )
    return _beyond_or_warn(
        outcome,
        noise.beyond,
        ("beyond night-to-night noise", f"Beyond the night-to-night noise: {numbers}."),
        (
            "mean overall: within night-to-night noise",
            f"Within the night-to-night noise: {numbers}.",
        ),
    )


def compare_metrics(
    analysis: CampaignAnalysis, current: GateSide, baseline: GateSide, rules: GateRules
) -> list[MetricComparison]:
    """The analysis's drop tests of every metric between the two sides: each shared candidate,
    then the pooled one (unless ``pooled`` is off; shown only). The gated family is the
    candidates x ``drop.metrics`` (``CampaignAnalysis.drops``)."""
    (baseline_label, _), (current_label, _) = labelled_sides(current, baseline)
    found: list[MetricComparison] = []
    metrics = [m for m in METRICS if m in rules.drop_metrics or m in rules.shown_metrics]
    tests = analysis.drops(baseline_label, current_label, metrics, rules.drop_metrics)
    for (metric, label), test in tests.items():
        if label == ALL_CANDIDATES and not rules.pooled:
            continue
        found.append(
            MetricComparison(
                metric,
                label,
                test.comparison,
                gated=test.gated,
                p_drop=test.p_drop,
                p_drop_adjusted=test.p_drop_adjusted,
                detectable=test.detectable,
            )
        )
    return found


def judge_coverage(current: GateSide, baseline: GateSide) -> list[RuleOutcome]:
    """Candidates on one side only (warnings); none on both sides (inconclusive)."""
    outcomes = []
    mine, theirs = set(current.candidates), set(baseline.candidates)
    for candidate in sorted(mine - theirs):
        outcomes.append(
            RuleOutcome(
                "coverage",
                "warn",
                candidate,
                "",
                "new candidate, not compared",
                f"{candidate} has no runs in the baseline bundle: it is not compared (its gate "
                "failures all count as new).",
            )
        )
    for candidate in sorted(theirs - mine):
        outcomes.append(
            RuleOutcome(
                "coverage",
                "warn",
                candidate,
                "",
                "missing from the current bundle",
                f"{candidate} ran in the baseline bundle but not in the current one.",
            )
        )
    if not mine & theirs:
        outcomes.append(
            RuleOutcome(
                "coverage",
                "inconclusive",
                None,
                "",
                "no candidate ran in both bundles",
                "No candidate ran in both bundles, so nothing can be paired.",
            )
        )
    return outcomes


def _infrastructure_counts(side: GateSide, key: str) -> tuple[Counter[str], Counter[str]]:
    """(infrastructure failures, runs) per ``provider`` or ``candidate`` of one side."""
    table = side.table
    names = table.provider if key == "provider" else table.candidate
    runs: Counter[str] = Counter(names)
    failed: Counter[str] = Counter(
        name
        for name, kind in zip(names, table.classification, strict=True)
        if kind == "infrastructure_failure"
    )
    return failed, runs


def judge_baseline_age(
    current: str, nights: Sequence[str], dates: Mapping[str, str], limit: int | None
) -> list[RuleOutcome]:
    """The ``baseline`` rule: a warning per baseline night dated more than ``limit`` days
    before the current night (``dates``: bundle id -> ISO date of its night; a night without
    one, or a current night without one, is not judged; None: off)."""
    import datetime

    if limit is None or current not in dates:
        return []
    tonight = datetime.date.fromisoformat(dates[current])
    outcomes = []
    for night in nights:
        if night not in dates:
            continue
        age = (tonight - datetime.date.fromisoformat(dates[night])).days
        if age <= limit:
            continue
        summary = (
            f"baseline night {night} ({dates[night]}) is {age} days before the current night "
            f"({dates[current]}), more than {limit}"
        )
        detail = (
            f"{summary}: what it says of the candidates may be out of date. Judge against "
            "recent nights (--baseline, or a store's last:N or approved nights), or raise "
            "gate.baseline.maxAgeDays in the policy."
        )
        outcomes.append(RuleOutcome("baseline", "warn", None, night, summary, detail))
    return outcomes


def judge_infrastructure(
    current: GateSide, nights: Sequence[GateSide], rules: GateRules
) -> list[RuleOutcome]:
    """Infrastructure failures judged per provider and night (``docs/gate.md``).

    Tonight: a provider with more than ``maxShare`` of its runs failed by the infrastructure
    (an outage) makes each of its candidates inconclusive, and so does such a share of one
    candidate's own runs; the other providers' candidates are judged as usual. A baseline
    night's outage is counted and shown (a warning naming the night and provider): its
    infrastructure failures are unscoreable and left out of every comparison, its good runs
    are kept, and it never makes a gate inconclusive.
    """
    outcomes = []
    limit = rules.max_infrastructure_share
    failed, runs = _infrastructure_counts(current, "provider")
    out = {name for name in runs if failed[name] / runs[name] > limit}
    table = current.table
    provider_of = dict(zip(table.candidate, table.provider, strict=True))
    mine, sizes = _infrastructure_counts(current, "candidate")
    for candidate in sorted(sizes):
        provider = provider_of[candidate]
        if provider in out:
            count, size, who = failed[provider], runs[provider], f"provider {provider}"
        elif mine[candidate] / sizes[candidate] > limit:
            count, size, who = mine[candidate], sizes[candidate], candidate
        else:
            continue
        outcomes.append(
            RuleOutcome(
                "infrastructure",
                "inconclusive",
                candidate,
                "current",
                f"{count} of {size} current runs of {who} were infrastructure failures",
                f"{count} of {size} runs of {who} in the current bundle were infrastructure "
                f"failures ({count / size:.0%} > {limit:.0%}): too few of {candidate}'s runs "
                "are its own to judge; the other providers' candidates are judged as usual.",
            )
        )
    shown = []
    for night in nights:
        failed_before, runs_before = _infrastructure_counts(night, "provider")
        total = sum(failed_before.values())
        shown.append(f"{night.bundle} {total} of {len(night.table)}")
        for provider in sorted(runs_before):
            count, size = failed_before[provider], runs_before[provider]
            if count / size <= limit:
                continue
            outcomes.append(
                RuleOutcome(
                    "infrastructure",
                    "warn",
                    None,
                    f"baseline {night.bundle}",
                    f"baseline night {night.bundle}: provider {provider} outage, {count} of "
                    f"{size} runs excluded",
                    f"On baseline night {night.bundle}, {count} of {size} runs of provider "
                    f"{provider} were infrastructure failures ({count / size:.0%} > "
                    f"{limit:.0%}): they are left out of every comparison and the night's "
                    "other runs are kept, so it does not make the gate inconclusive.",
                )
            )
    if not any(outcome.status == "inconclusive" for outcome in outcomes):
        tonight = sum(kind == "infrastructure_failure" for kind in table.classification)
        counts_text = ", ".join([f"current {tonight} of {len(table)}", *shown])
        text = f"no provider or candidate above {limit:.0%} infrastructure failures tonight"
        text += f" ({counts_text})"
        outcomes.append(RuleOutcome("infrastructure", "pass", None, "", text, _sentence(text)))
    return outcomes


def judge_percentile(
    rule: Literal["latency", "cost"],
    factor: float,
    current: GateSide,
    baseline: GateSide,
) -> list[RuleOutcome]:
    """The latency or cost rule: p95 above ``factor`` x the baseline's, per candidate and
    pooled."""

    def p95(side: GateSide, candidate: str | None) -> float:
        table = side.table
        values = table.settlement_ms if rule == "latency" else table.cost_usd
        return reference_p95(values[table.of_candidate(candidate)])

    unit, name = ("ms", "p95 settlement latency") if rule == "latency" else ("USD", "p95 cost")
    outcomes = []
    for candidate in [*sorted(set(current.candidates) & set(baseline.candidates)), None]:
        now, before = p95(current, candidate), p95(baseline, candidate)
        if math.isnan(now) or math.isnan(before) or before <= 0 or now <= factor * before:
            continue
        outcomes.append(
            RuleOutcome(
                rule,
                "fail",
                candidate,
                rule,
                f"{name} {now:g} {unit} vs {before:g} {unit} (x{now / before:.2f})",
                f"{name} of {candidate or 'the bundle'} is {now:g} {unit}, above {factor:g} x "
                f"the baseline's {before:g} {unit}.",
            )
        )
    if not outcomes:
        text = f"{name} within {factor:g} x the baseline"
        outcomes.append(RuleOutcome(rule, "pass", None, rule, text, _sentence(text)))
    return outcomes


def judge_audit(current: GateSide, baseline: GateSide | None, mode: AuditMode) -> list[RuleOutcome]:
    """Failed audit findings in ``mode`` (``new`` without a baseline judges as ``any``)."""
    if mode == "off":
        return []
    if mode == "new" and baseline is None:
        mode = "any"
    known: set[tuple[str, str, str]] = set()
    if baseline is not None:
        before = baseline.table
        known = {
            (before.candidate[index], before.case[index], finding.code)
            for index in before.finding_runs()
            for finding in before.findings(index)
        }
    table = current.table
    with_findings = table.finding_runs()
    outcomes = []
    for candidate in current.candidates:
        runs = [
            table.findings(index)
            for index in with_findings
            if table.candidate[index] == candidate
            and (
                mode != "new"
                or any(
                    (candidate, table.case[index], finding.code) not in known
                    for finding in table.findings(index)
                )
            )
        ]
        if not runs:
            continue
        codes = sorted({finding.code for findings in runs for finding in findings})
        adjective = "new " if mode == "new" else ""
        outcomes.append(
            RuleOutcome(
                "audit",
                "warn" if mode == "advisory" else "fail",
                candidate,
                "audit",
                f"{_plural(len(runs), 'run')} with {adjective}failed audit findings",
                f"{_plural(len(runs), 'run')} of {candidate} had {adjective}failed audit findings "
                f"({', '.join(codes[:6])}{', ...' if len(codes) > 6 else ''}).",
                required=mode != "advisory",
                dimensions=("audit",),
            )
        )
    if not outcomes:
        text = "no failed audit findings" if mode != "new" else "no new failed audit findings"
        outcomes.append(
            RuleOutcome(
                "audit",
                "pass",
                None,
                "audit",
                text,
                _sentence(text),
                required=mode != "advisory",
            )
        )
    return outcomes
