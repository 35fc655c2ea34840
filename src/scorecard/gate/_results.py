"""Gate results: the verdict, rule outcomes and everything the reports show, as plain data.

:class:`GateResult` is what :func:`scorecard.gate.evaluate_gate` returns; the renderers in
:mod:`scorecard.report._dispatch` read nothing else. A failing gate is a result, never an exception.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from scorecard.aggregate import Alert, CampaignAnalysis, Exclusions, PairedComparison
from scorecard.contract import Receipt

from ._cases import CaseFinding
from ._drift import DriftFinding
from ._input import ALL_CANDIDATES, RunFacts
from ._rules import GateRules, Metric
from ._table import RunTable

__all__ = [
    "RULE_ORDER",
    "STATUS_ORDER",
    "CandidateSummary",
    "DimensionDrop",
    "Estimate",
    "GateCheck",
    "GateFailure",
    "GateResult",
    "GateVerdict",
    "GroupSummary",
    "MetricComparison",
    "NightNoise",
    "ResidualDrop",
    "RuleOutcome",
    "SharedShift",
    "Status",
]

Status = Literal["fail", "inconclusive", "warn", "pass"]
GateVerdict = Literal["pass", "fail", "inconclusive"]
STATUS_ORDER: dict[str, int] = {"fail": 0, "inconclusive": 1, "warn": 2, "pass": 3}
#: The rules, in the order reports list them.
RULE_ORDER = (
    "safety",
    "drop",
    "shift",
    "case",
    "dimension",
    "drift",
    "baseline",
    "coverage",
    "infrastructure",
    "latency",
    "cost",
    "audit",
)


@dataclass(frozen=True)
class DimensionDrop:
    """One candidate's pass rate of one dimension tonight against the baseline nights."""

    candidate: str
    """The candidate."""
    dimension: str
    """The weighted dimension."""
    current_rate: float
    """Its pass rate tonight over the paired cases (case means, each case weighing the same)."""
    baseline_rate: float
    """The same over the baseline nights."""
    drop: float
    """The precision-weighted mean of the case differences (tonight - baseline)."""
    peers_drop: float
    """The median drop of its peers (NaN when read alone)."""
    residual: float
    """drop - peers_drop (the drop itself when read alone)."""
    error: float
    """sqrt(the runs' variance of the residual + the nights' tau^2)."""
    night_sd: float
    """tau: the dimension's night-to-night spread beyond its runs', from past nights."""
    calibrated_on: int
    """Past (candidate, night) residuals tau was read from."""
    z: float
    """residual / error."""
    p_value: float
    """One-sided p of "no drop"."""
    level: float
    """alpha / (candidates x dimensions read)."""
    fails: bool
    """residual below -tolerance and p below the level."""

    @property
    def text(self) -> str:
        """The deciding numbers in one phrase."""
        against = (
            f", {self.residual:+.3f} against its peers' median drop of {self.peers_drop:+.3f}"
            if math.isfinite(self.peers_drop)
            else ""
        )
        return (
            f"{self.dimension} passed in {self.current_rate:.0%} of the paired cases' runs "
            f"tonight against {self.baseline_rate:.0%} before: drop {self.drop:+.3f}{against}; "
            f"standard error {self.error:.3f} (nights adding {self.night_sd:.3f}, read from "
            f"{self.calibrated_on} past residuals), z {self.z:.2f}, one-sided p={self.p_value:.2g},"
            f" level {self.level:.2g}"
        )


@dataclass(frozen=True)
class RuleOutcome:
    """What one rule says about one candidate (or the bundle as a whole)."""

    rule: str
    """``safety``, ``drop``, ``coverage``, ``infrastructure``, ``latency``, ``cost``, ``audit``."""
    status: Status
    """``fail``, ``inconclusive``, ``warn`` (shown, no effect) or ``pass``."""
    candidate: str | None
    """The candidate judged; None for the bundle as a whole."""
    subject: str
    """The metric or gate dimension judged (empty when the rule has none)."""
    summary: str
    """A short phrase for the verdict line."""
    detail: str
    """One sentence with the deciding numbers."""
    required: bool = True
    """False for advisory rules, which never change the verdict."""
    dimensions: tuple[str, ...] = ()
    """Dimensions named by the outcome (dropped or failing)."""


@dataclass(frozen=True)
class Estimate:
    """A value with its confidence interval (None when there is no data)."""

    value: float | None
    """Point estimate."""
    low: float | None
    """Lower bound."""
    high: float | None
    """Upper bound."""


@dataclass(frozen=True)
class GroupSummary:
    """Counts and rates of one candidate (or every candidate) in one bundle."""

    executions: int
    """Runs."""
    scoreable: int
    """Runs with an overall score."""
    passed: int
    """Scoreable runs that passed."""
    gate_failures: int
    """Scoreable runs whose effective gate failed."""
    candidate_failures: int
    """Runs classified ``candidate_failure``."""
    infrastructure_failures: int
    """Runs classified ``infrastructure_failure``."""
    skipped: int
    """Runs classified ``skipped``."""
    pass_rate: Estimate
    """Pass rate with its Wilson interval."""
    gate_pass_rate: Estimate
    """Effective gate-pass rate with its Wilson interval."""
    mean_overall: Estimate
    """Mean overall with its case-cluster bootstrap interval."""
    settlement_p95: float | None
    """Reference p95 of settlement latency (ms)."""
    cost_p95: float | None
    """Reference p95 of cost (USD)."""


@dataclass(frozen=True)
class CandidateSummary:
    """A candidate (or :data:`ALL_CANDIDATES`) on both sides."""

    candidate: str
    """Candidate id."""
    current: GroupSummary | None
    """In the current bundle (None when it did not run there)."""
    baseline: GroupSummary | None
    """In the baseline bundle (None without a baseline or when it did not run there)."""


@dataclass(frozen=True)
class MetricComparison:
    """A paired comparison behind a ``drop`` outcome."""

    metric: Metric
    """What was compared."""
    candidate: str
    """Candidate id, or :data:`ALL_CANDIDATES` for the pooled comparison."""
    comparison: PairedComparison
    """The comparison (two-sided numbers, Holm-adjusted across the candidates of the metric)."""
    gated: bool = True
    """Whether the drop of this metric can fail the gate (else it is shown only)."""
    p_drop: float = math.nan
    """One-sided sign-flip p-value of "no drop"."""
    p_drop_adjusted: float = math.nan
    """Holm-adjusted over the gated family (candidates x gated metrics); raw when not gated."""
    detectable: float = math.nan
    """Minimum detectable drop at this sample size (80% power at the family's strictest level)."""


@dataclass(frozen=True)
class SharedShift:
    """The candidates of one group (every candidate, or one provider's) moving together."""

    scope: str
    """``environment`` or ``provider``."""
    provider: str | None
    """The provider (None for the environment)."""
    candidates: tuple[str, ...]
    """The group's gated candidates, sorted."""
    shift: float
    """Median of the members' paired differences of mean overall (current - baseline)."""
    low: float
    """Lower end of the median's order-statistic interval."""
    high: float
    """Upper end of that interval."""
    confidence: float
    """Its achieved confidence (at least the rules' when the group is large enough)."""
    dropped: int
    """Members whose difference lies below -tolerance."""
    p_value: float
    """Fisher's combination of the members' one-sided "no drop" p-values but the smallest."""
    level: float
    """The level ``p_value`` was compared with (alpha / groups tested)."""
    detected: bool
    """Whether the group moved together (``scorecard.gate._shifts``)."""
    reported: bool = False
    """Whether it is a finding of its own: a detected environment shift beyond the nights'
    moves; a detected provider shift beyond them when the environment's is no finding or the
    provider moved further than it by more than the tolerance."""
    night_sd: float = math.nan
    """How far the group's median drop moves from night to night beyond its runs' spread,
    read from the history (NaN: too little history, not read)."""
    noise_z: float = math.nan
    """Tonight's median drop (closed form) over its runs' and the nights' spread."""
    noise_p: float = math.nan
    """Its one-sided p; with the nights' spread read, a detected shift is a finding only when
    this is below ``level`` too."""
    calibrated_on: int = 0
    """Past nights the nights' spread was read from."""
    within_nights: bool = False
    """Detected, but no larger than the group's own night-to-night moves (``noise_p`` not
    below ``level``): no finding; its members are still judged beyond it."""

    @property
    def name(self) -> str:
        """``environment`` or ``provider codex``."""
        return "environment" if self.provider is None else f"provider {self.provider}"


@dataclass(frozen=True)
class ResidualDrop:
    """A candidate's drop beyond the shift of its group."""

    candidate: str
    """The candidate."""
    group: str
    """The shift it was judged against (:attr:`SharedShift.name`)."""
    difference: float
    """Its own paired difference of mean overall."""
    shift: float
    """The median difference of the group's other members."""
    residual: float
    """``difference - shift``."""
    error: float
    """Standard error of the residual (NaN when the drop test had none)."""
    p_value: float
    """One-sided p-value of "no drop beyond the shift" (normal)."""
    level: float
    """alpha / m, what ``p_value`` is compared with."""
    beyond: bool
    """Whether it dropped beyond the shift: residual below -tolerance and p below level."""


@dataclass(frozen=True)
class NightNoise:
    """A candidate's drop tonight relative to its peers, judged against how far healthy nights
    move (``scorecard.gate._nights``)."""

    candidate: str
    """The candidate."""
    peers: str
    """Whom it was compared with: ``provider NAME`` (its provider's others) or ``environment``."""
    against_peers: tuple[bool, bool]
    """Whether its overall scores and its dimensions passed were each read against its peers'
    median (where the past nights strayed less so) or alone."""
    residual: float
    """Its drop of mean overall (closed form, case means), less its peers' median where
    ``against_peers[0]``."""
    z_score: float
    """The residual (or drop) of overall scores over its standard error (the runs' and the
    nights')."""
    z_dimensions: float
    """The same for the number of dimensions passed."""
    night_sd_score: float
    """The spread nights add to a residual of overall scores beyond their runs' (0: none read)."""
    night_sd_dimensions: float
    """The same for dimensions passed."""
    p_value: float
    """One-sided: twice the smaller normal tail of the two z values."""
    level: float
    """alpha / m, what ``p_value`` is compared with."""
    calibrated_on: int
    """Past (candidate, night) residuals the nights' spread was read from (fewer than ten:
    none read, the spread is 0)."""
    beyond: bool
    """Whether it dropped beyond the noise: residual below -tolerance and p below level."""


@dataclass(frozen=True)
class GateFailure:
    """A current scoreable run whose effective gate failed."""

    run: RunFacts
    """The run."""
    dimensions: tuple[str, ...]
    """Failing gate dimensions (``audit`` for the audit gate)."""
    new: tuple[str, ...] | None
    """Those not failed by the candidate's baseline runs of the case; None without a
    baseline."""
    counted: bool
    """Whether the safety rule counted it against the verdict."""


@dataclass(frozen=True)
class GateCheck:
    """One gate check: one rule applied to one candidate (or to the bundle as a whole).

    A check fails exactly when one of its required outcomes fails, so the checks fail exactly
    when the verdict does; an inconclusive check is not a failure.
    """

    rule: str
    """The rule (see :class:`RuleOutcome`)."""
    candidate: str | None
    """The candidate checked; None for the bundle as a whole (pooled comparison, totals)."""
    status: Status
    """The worst status of its outcomes; ``pass`` when the rule said nothing about it."""
    required: bool
    """False when the rule is advisory (its status never changes the verdict)."""
    outcomes: tuple[RuleOutcome, ...]
    """The rule's outcomes for this candidate, in result order."""

    @property
    def failed(self) -> bool:
        """Whether this check fails the gate."""
        return self.required and self.status == "fail"


@dataclass(frozen=True)
class GateResult:
    """A complete verdict with everything the reports show."""

    verdict: GateVerdict
    """``pass``, ``fail`` or ``inconclusive``."""
    current_bundle: str
    """Current bundle id."""
    baseline_bundle: str | None
    """Baseline bundle id (None without a baseline)."""
    rules: GateRules
    """The rules applied."""
    seed: int
    """Seed of every resampling."""
    safety_mode: Literal["any", "new", "off"]
    """The safety mode in force (``auto`` resolved)."""
    outcomes: tuple[RuleOutcome, ...]
    """Rule outcomes: required before advisory, worst first, then by rule and candidate."""
    candidates: tuple[CandidateSummary, ...]
    """Per candidate (sorted), then :data:`ALL_CANDIDATES`."""
    failures: tuple[GateFailure, ...]
    """Current gate failures, in run order."""
    comparisons: tuple[MetricComparison, ...]
    """Paired comparisons by metric, candidates sorted, pooled last."""
    alerts: tuple[Alert, ...]
    """The reference alerts of the current bundle (against the baseline when there is one)."""
    runs: Sequence[RunFacts]
    """Current runs: candidate, case (catalog order), repetition (a tuple, or a table that
    makes each run as it is read)."""
    notes: tuple[str, ...] = ()
    """Facts worth stating that are not outcomes (e.g. rules that need a baseline)."""
    analysis: CampaignAnalysis | None = None
    """The analysis every number above was read from (bundles labelled as above); plots of the
    reports draw from it. None only for results built by hand."""
    baseline_nights: tuple[str, ...] = ()
    """The bundles that formed the baseline, in the order given (one for a single baseline)."""
    shifts: tuple[SharedShift, ...] = ()
    """The shared-shift tests of mean overall: the environment and each provider with two or
    more gated candidates (``scorecard.gate._shifts``); empty without a baseline."""
    residuals: tuple[ResidualDrop, ...] = ()
    """Each candidate of a detected shift judged on its drop beyond it, sorted."""
    night_noise: tuple[NightNoise, ...] = ()
    """Each gated candidate's drop relative to its peers against the night-to-night noise of
    the past nights (``scorecard.gate._nights``), sorted; empty without a baseline."""
    case_findings: tuple[CaseFinding, ...] = ()
    """Candidate x case pairs failing tonight against their history (newly failing, flaky,
    quarantined; ``scorecard.gate._cases``), sorted."""
    dimension_drops: tuple[DimensionDrop, ...] = ()
    """Each candidate x weighted dimension's pass-rate drop read tonight
    (``scorecard.gate._dimensions``), sorted; empty without a baseline or with the rule off."""
    drift: tuple[DriftFinding, ...] = ()
    """Each candidate's trend over the last nights (``scorecard.gate._drift``), sorted; empty
    without a baseline or with too few nights."""
    receipt: Receipt | None = None
    """What the verdict was computed from (``docs/receipts.md``), its payload digest that of
    the verdict's JSON without it; None for results built by hand or not yet receipted."""

    @property
    def runs_with_findings(self) -> Sequence[RunFacts]:
        """The current runs with failed audit findings, in run order (made from a table's
        columns without making the runs that have none)."""
        if isinstance(self.runs, RunTable):
            return self.runs.runs_at(self.runs.finding_runs())
        return tuple(run for run in self.runs if run.findings)

    @property
    def forbidden_calls(self) -> dict[str, tuple[int, int]]:
        """Per candidate with any: (new, all) current runs that failed ``hard_invariants`` (a
        forbidden call). *New* as the safety rule counts it (no baseline run of the candidate
        and case failed it); without a baseline every one is new."""
        found: dict[str, tuple[int, int]] = {}
        for failure in self.failures:
            if "hard_invariants" not in failure.dimensions:
                continue
            new = failure.new is None or "hard_invariants" in failure.new
            before = found.get(failure.run.candidate, (0, 0))
            found[failure.run.candidate] = (before[0] + new, before[1] + 1)
        return dict(sorted(found.items()))

    @property
    def forbidden_calls_text(self) -> str:
        """``new forbidden calls: a 3, b 1`` (empty when there are none)."""
        shown = [(name, new) for name, (new, _) in self.forbidden_calls.items() if new]
        if not shown:
            return ""
        return "new forbidden calls: " + ", ".join(f"{name} {count}" for name, count in shown)

    @property
    def required(self) -> tuple[RuleOutcome, ...]:
        """Outcomes of required rules."""
        return tuple(outcome for outcome in self.outcomes if outcome.required)

    @property
    def advisory(self) -> tuple[RuleOutcome, ...]:
        """Outcomes of advisory rules (never change the verdict)."""
        return tuple(outcome for outcome in self.outcomes if not outcome.required)

    @property
    def totals(self) -> CandidateSummary:
        """Counts and rates of every candidate together, on both sides."""
        return next(item for item in self.candidates if item.candidate == ALL_CANDIDATES)

    @property
    def exclusions(self) -> dict[str, Exclusions]:
        """What the paired comparisons left out, per candidate (and :data:`ALL_CANDIDATES`),
        from the first compared metric; empty without a baseline."""
        first = self.comparisons[0].metric if self.comparisons else None
        return {
            item.candidate: item.comparison.exclusions
            for item in self.comparisons
            if item.metric == first
        }

    @property
    def rules_in_force(self) -> tuple[str, ...]:
        """The rules this result applied, in :data:`RULE_ORDER`."""
        rules = self.rules
        applied = {outcome.rule for outcome in self.outcomes} | {"infrastructure"}
        if self.safety_mode != "off":
            applied.add("safety")
        if self.baseline_bundle is not None:
            applied.update(("coverage", "case"))
            if self.dimension_drops:
                applied.add("dimension")
            if self.drift:  # the drift rule applies when it tested a candidate (6+ nights)
                applied.add("drift")
            if rules.drop_metrics:
                applied.update(("drop", "shift"))
            if rules.latency_factor is not None:
                applied.add("latency")
            if rules.cost_factor is not None:
                applied.add("cost")
        if rules.audit_mode != "off":
            applied.add("audit")
        return tuple(rule for rule in RULE_ORDER if rule in applied)

    def _required(self, rule: str) -> bool:
        """Whether ``rule`` can change the verdict (the audit rule only in ``any`` / ``new``)."""
        return rule != "audit" or self.rules.audit_mode in ("any", "new")

    @property
    def checks(self) -> tuple[GateCheck, ...]:
        """One check per candidate (sorted, either side) and rule in force, then the bundle's."""
        names = [item.candidate for item in self.candidates if item.candidate != ALL_CANDIDATES]
        found = []
        for candidate in [*names, None]:
            for rule in self.rules_in_force:
                mine = tuple(
                    outcome
                    for outcome in self.outcomes
                    if outcome.rule == rule and outcome.candidate == candidate
                )
                status: Status = min(
                    (outcome.status for outcome in mine),
                    key=STATUS_ORDER.__getitem__,
                    default="pass",
                )
                found.append(GateCheck(rule, candidate, status, self._required(rule), mine))
        return tuple(found)

    def with_status(self, *statuses: Status) -> tuple[RuleOutcome, ...]:
        """Required outcomes with one of ``statuses``."""
        return tuple(outcome for outcome in self.required if outcome.status in statuses)
