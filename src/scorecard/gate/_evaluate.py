"""Regression verdicts for CI: rules over a current bundle (and a baseline), as data.

::

    evaluate_gate(current, baseline, rules, seed=...) -> GateResult
        safety          scoreable runs whose effective gate failed (with a baseline: new ones)
        drop            one-sided paired drop of mean overall (and the metrics configured)
                        per candidate beyond a tolerance (Holm over candidates x gated
                        metrics); the other metrics and the pooled comparison are shown
        shift           the environment or one provider's candidates dropping together -> one
                        finding; their drops judged beyond the shift
        nights          each drop judged against its peers tonight and the night-to-night
                        noise the past nights show (a drop within it is a warning)
        case            a candidate x case reliable in the history failing tonight
        dimension       a candidate's pass rate of one weighted dimension falling (against its
                        peers, beyond the nights' spread)
        drift           a candidate's nightly level declining over the last nights (a trend
                        test with nights as the units)
        baseline        a baseline night dated too long before tonight -> a warning
        coverage        candidates or cases that cannot be paired -> inconclusive / warning
        infrastructure  tonight's outage of a provider (or a candidate) -> its candidates
                        inconclusive; a baseline night's outage counted and shown
        latency, cost   p95 regressions (off unless a factor is set)
        audit           failed case-assertion findings (advisory unless configured)

A gate failure is a result, never an exception, and nothing here chooses an exit code: the
verdict is ``fail`` when a required rule fails, else ``inconclusive`` when one is inconclusive,
else ``pass``. No pandas is imported here: frames come from and go to :mod:`scorecard.aggregate._frames`
functions. Rules, defaults and the reasons behind them are in ``docs/gate.md``.

The gate is split by responsibility; this module combines the rules into a verdict and
re-exports the public names of the others, so ``scorecard.gate._evaluate`` stays the one import:

- :mod:`scorecard.gate._rules`: :class:`GateRules` and policy-file parsing;
- :mod:`scorecard.gate._input`: scored records -> :class:`RunFacts` / :class:`GateSide`, frames;
- :mod:`scorecard.gate._checks`: one function per rule, returning its outcomes;
- :mod:`scorecard.gate._results`: :class:`GateResult` and the data it holds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from scorecard.aggregate import (
    CampaignAnalysis,
    alerts,
    analyze_campaign,
    reference_p95,
    select_rows,
)

from ._cases import CaseFinding, case_findings
from ._checks import (
    beyond_shift,
    compare_metrics,
    judge_audit,
    judge_baseline_age,
    judge_cases,
    judge_coverage,
    judge_dimensions,
    judge_drift,
    judge_drop,
    judge_infrastructure,
    judge_percentile,
    judge_safety,
    judge_shifts,
    within_noise,
)
from ._dimensions import dimension_drops
from ._drift import DriftFinding, drift_findings
from ._input import (
    ALL_CANDIDATES,
    AuditFinding,
    GateSide,
    RunFacts,
    combined_frame,
    gate_side,
    labelled_sides,
    metric_frame,
    none_if_nan,
    pool_sides,
    run_facts,
)
from ._nights import night_noise
from ._results import (
    RULE_ORDER,
    CandidateSummary,
    DimensionDrop,
    Estimate,
    GateCheck,
    GateFailure,
    GateResult,
    GroupSummary,
    MetricComparison,
    NightNoise,
    ResidualDrop,
    RuleOutcome,
    SharedShift,
)
from ._results import STATUS_ORDER as STATUS_ORDER
from ._results import GateVerdict as GateVerdict
from ._results import Status as Status
from ._rules import METRIC_LABELS as METRIC_LABELS
from ._rules import METRICS, GateRules, gate_policy, gate_rules
from ._rules import SAFETY_DIMENSIONS as SAFETY_DIMENSIONS
from ._rules import AuditMode as AuditMode
from ._rules import Metric as Metric
from ._rules import SafetyMode as SafetyMode
from ._shifts import shared_shifts

__all__ = [
    "ALL_CANDIDATES",
    "METRICS",
    "AuditFinding",
    "CandidateSummary",
    "CaseFinding",
    "Estimate",
    "GateCheck",
    "GateFailure",
    "GateResult",
    "GateRules",
    "GateSide",
    "GroupSummary",
    "MetricComparison",
    "NightNoise",
    "ResidualDrop",
    "RuleOutcome",
    "RunFacts",
    "SharedShift",
    "combined_frame",
    "evaluate_gate",
    "gate_policy",
    "gate_rules",
    "gate_side",
    "pool_sides",
    "run_facts",
]


def _estimate(row: Mapping[Any, Any], name: str) -> Estimate:
    value, low, high = (
        none_if_nan(float(row[key])) for key in (name, f"{name}_low", f"{name}_high")
    )
    return Estimate(value, low, high)


def _p95(values: np.ndarray) -> float | None:
    known = values[~np.isnan(values)]
    return none_if_nan(reference_p95(known)) if known.size else None


def _group(row: Mapping[Any, Any], side: GateSide, candidate: str | None) -> GroupSummary:
    table = side.table
    mine = table.of_candidate(candidate)
    return GroupSummary(
        executions=int(row["executions"]),
        scoreable=int(row["scoreable"]),
        passed=int(row["passed"]),
        gate_failures=int((table.gate_failed & mine).sum()),
        candidate_failures=int(row["candidate_failures"]),
        infrastructure_failures=int(row["infrastructure_failures"]),
        skipped=int(row["skipped"]),
        pass_rate=_estimate(row, "pass_rate"),
        gate_pass_rate=_estimate(row, "gate_pass_rate"),
        mean_overall=_estimate(row, "mean_overall"),
        settlement_p95=_p95(table.settlement_ms[mine]),
        cost_p95=_p95(table.cost_usd[mine]),
    )


def _summaries(
    analysis: CampaignAnalysis, sides: Sequence[tuple[str, str, GateSide]]
) -> tuple[CandidateSummary, ...]:
    by_candidate = analysis.candidates.summary.to_dict(orient="records")
    by_bundle = analysis.bundles_summary.to_dict(orient="records")
    found: dict[tuple[str, str], GroupSummary] = {}
    for role, label, side in sides:
        for row in by_candidate:
            if str(row["bundle"]) == label:
                candidate = str(row["candidate"])
                found[(role, candidate)] = _group(row, side, candidate)
        for row in by_bundle:
            if str(row["bundle"]) == label:
                found[(role, ALL_CANDIDATES)] = _group(row, side, None)
    names = sorted({candidate for _, candidate in found} - {ALL_CANDIDATES})
    return tuple(
        CandidateSummary(name, found.get(("current", name)), found.get(("baseline", name)))
        for name in [*names, ALL_CANDIDATES]
    )


def _providers(*sides: GateSide) -> dict[str, str]:
    """Each candidate's provider, as its runs say (the first seen)."""
    found: dict[str, str] = {}
    for side in sides:
        table = side.table
        for candidate, provider in zip(table.candidate, table.provider, strict=True):
            found.setdefault(candidate, provider)
    return found


def _outcome_key(outcome: RuleOutcome) -> tuple[Any, ...]:
    return (
        not outcome.required,
        STATUS_ORDER[outcome.status],
        RULE_ORDER.index(outcome.rule),
        outcome.candidate is None,
        outcome.candidate or "",
        METRICS.index(outcome.subject) if outcome.subject in METRICS else -1,
        outcome.subject,
    )


def evaluate_gate(
    current: GateSide,
    baseline: GateSide | Sequence[GateSide] | None,
    rules: GateRules | None = None,
    *,
    seed: int = 0,
    history: Sequence[GateSide] = (),
    quarantined: Collection[tuple[str, str]] = (),
    dates: Mapping[str, str] | None = None,
) -> GateResult:
    """Judge ``current`` (against ``baseline`` when given) with ``rules``; see the module docstring.

    ``baseline`` is one side or several nights (pooled per candidate and case by
    :func:`~scorecard.gate._input.pool_sides`; an empty sequence means no baseline).
    ``history``: older nights (oldest first) that, with the baseline nights, form each
    candidate x case's history for the per-case rule (``case``); ``quarantined``: (candidate,
    case) pairs shown there and never failing; ``dates``: bundle id -> the ISO date of its
    night (a campaign manifest's ``night``, a store's), what the ``baseline`` rule reads to warn
    of a baseline night older than ``rules.baseline_age_days``.
    """
    rules = rules or GateRules()
    nights: list[GateSide] = []
    if isinstance(baseline, GateSide):
        nights = [baseline]
    elif baseline is not None:
        nights = list(baseline)
        baseline = pool_sides(nights) if nights else None
    mode: Literal["any", "new", "off"] = "any" if baseline is None else "new"
    if rules.safety_mode == "off" or rules.safety_mode == "any":
        mode = rules.safety_mode
    labelled = labelled_sides(current, baseline)
    roles = [
        ("baseline" if index < len(labelled) - 1 else "current", label, side)
        for index, (label, side) in enumerate(labelled)
    ]
    # Every interval, p-value and verdict the gate shows is read from this one analysis.
    frame = metric_frame(labelled)
    analysis = analyze_campaign(frame, rules.settings(seed))
    outcomes, failures = judge_safety(current, baseline, mode, rules)
    notes: list[str] = []
    comparisons: list[MetricComparison] = []
    shifts: tuple[SharedShift, ...] = ()
    residuals: dict[str, ResidualDrop] = {}
    cases: tuple[CaseFinding, ...] = ()
    noise: dict[str, NightNoise] = {}
    drifts: tuple[DriftFinding, ...] = ()
    dimensions: tuple[DimensionDrop, ...] = ()
    if baseline is not None:
        outcomes += judge_coverage(current, baseline)
        comparisons = compare_metrics(analysis, current, baseline, rules)
        providers = _providers(current, baseline)
        family = sum(item.gated and item.candidate != ALL_CANDIDATES for item in comparisons)
        noise, _, readings = night_noise(
            current, [*history, *nights], len(nights), providers, rules, family
        )
        shifts, residuals = shared_shifts(comparisons, providers, rules, readings.group)
        outcomes += [
            within_noise(
                beyond_shift(judge_drop(item, rules), residuals.get(item.candidate)),
                noise.get(item.candidate),
            )
            if item.metric == "mean_overall" and item.gated
            else judge_drop(item, rules)
            for item in comparisons
        ]
        outcomes += judge_shifts(shifts, rules)
        cases = case_findings(current, [*history, *nights], rules, quarantined=quarantined)
        # A shared shift tonight makes every case of its candidates likelier to fail.
        shifted = {name for found in shifts if found.detected for name in found.candidates}
        cases = tuple(
            dataclasses.replace(found, fails=False, within_shift=True)
            if found.fails and found.candidate in shifted
            else found
            for found in cases
        )
        outcomes += judge_cases(cases)
        # Tonight's provider shifts: their members' dimensions are read against their provider.
        within = {
            name: found.candidates
            for found in shifts
            if found.reported and found.provider is not None
            for name in found.candidates
        }
        dimensions = dimension_drops(current, [*history, *nights], len(nights), rules, peers=within)
        outcomes += judge_dimensions(dimensions)
        drifts = drift_findings(current, [*history, *nights], rules)
        outcomes += judge_drift(drifts)
        outcomes += judge_baseline_age(
            current.bundle, [night.bundle for night in nights], dates or {}, rules.baseline_age_days
        )
        if rules.latency_factor is not None:
            outcomes += judge_percentile("latency", rules.latency_factor, current, baseline)
        if rules.cost_factor is not None:
            outcomes += judge_percentile("cost", rules.cost_factor, current, baseline)
    else:
        notes.append(
            "No baseline: only the safety, infrastructure and audit rules apply (the drop, "
            "coverage, latency and cost rules compare against a baseline)."
        )
    outcomes += judge_infrastructure(current, nights, rules)
    outcomes += judge_audit(current, baseline, rules.audit_mode)
    if not current.table.scoreable.any():
        outcomes.append(
            RuleOutcome(
                "coverage",
                "inconclusive",
                None,
                "",
                "no scoreable run in the current bundle",
                "The current bundle has no scoreable run, so nothing can be judged.",
            )
        )
    # A passing drop says little: one line per gated metric is kept.
    outcomes = [
        outcome for outcome in outcomes if not (outcome.rule == "drop" and outcome.status == "pass")
    ]
    for metric in rules.drop_metrics if baseline is not None else ():
        if not any(
            o.rule in ("drop", "coverage") and o.subject == metric and o.required for o in outcomes
        ):
            text = f"{METRIC_LABELS[metric]}: no drop beyond {rules.tolerance:g} shown"
            outcomes.append(RuleOutcome("drop", "pass", None, metric, text, text + "."))
    summaries = _summaries(analysis, roles)
    frames = [select_rows(frame, bundle=label) for label, _ in labelled]
    statuses = {outcome.status for outcome in outcomes if outcome.required}
    verdict: GateVerdict = (
        "fail" if "fail" in statuses else "inconclusive" if "inconclusive" in statuses else "pass"
    )
    return GateResult(
        verdict=verdict,
        current_bundle=labelled[-1][0],
        baseline_bundle=labelled[0][0] if baseline is not None else None,
        rules=rules,
        seed=seed,
        safety_mode=mode,
        outcomes=tuple(sorted(outcomes, key=_outcome_key)),
        candidates=summaries,
        failures=failures,
        comparisons=tuple(comparisons),
        alerts=tuple(alerts(frames)),
        runs=current.runs,
        notes=tuple(notes),
        analysis=analysis,
        baseline_nights=baseline.bundles if baseline is not None else (),
        shifts=shifts,
        residuals=tuple(residuals[name] for name in sorted(residuals)),
        case_findings=cases,
        night_noise=tuple(noise[name] for name in sorted(noise)),
        dimension_drops=dimensions,
        drift=drifts,
    )
