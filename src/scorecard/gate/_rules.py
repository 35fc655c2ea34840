"""Gate rule settings: :class:`GateRules`, and a gate policy file's sections made into them.

::

    gate_policy(text, source=...) -> (Policy | None, GateRules)   a whole policy file
    gate_rules(section, source=..., lines=...) -> GateRules       its ``gate`` mapping

Every key is optional; unknown keys and bad values raise a :class:`PolicyError` located by JSON
Pointer (and line, when known). The keys, defaults and the reasons behind them are in
``docs/gate.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from scorecard.aggregate import ComparisonSettings, DropStatistic
from scorecard.contract import (
    GATE_METRICS,
    GATE_SAFETY_DIMENSIONS,
    GateMetric,
    Policy,
    gate_settings,
    parse_policy_file,
)

__all__ = [
    "DROP_STATISTIC_LABELS",
    "METRICS",
    "METRIC_LABELS",
    "SAFETY_DIMENSIONS",
    "AuditMode",
    "GateRules",
    "Metric",
    "SafetyMode",
    "gate_policy",
    "gate_rules",
]

Metric = GateMetric
SafetyMode = Literal["auto", "any", "new", "off"]
AuditMode = Literal["off", "advisory", "any", "new"]

METRICS: tuple[Metric, ...] = GATE_METRICS
METRIC_LABELS = {
    "mean_overall": "mean overall",
    "pass_rate": "pass rate",
    "gate_pass_rate": "gate-pass rate",
}
#: What mean overall's drop test reads, as reports say it (``GateRules.statistic``).
DROP_STATISTIC_LABELS = {
    "both": "overall scores and dimensions passed",
    "score": "overall scores",
    "dimensions": "dimensions passed",
}
#: What can fail the effective gate: the two gate dimensions, and the audit when it gates.
SAFETY_DIMENSIONS = GATE_SAFETY_DIMENSIONS


@dataclass(frozen=True)
class GateRules:
    """Every setting a verdict depends on besides the data and the seed (``docs/gate.md``)."""

    safety_mode: SafetyMode = "auto"
    """``any``: every gate failure fails; ``new``: only failures new relative to the baseline;
    ``auto``: ``any`` without a baseline, ``new`` with one; ``off``."""
    safety_dimensions: tuple[str, ...] = ("hard_invariants", "audit")
    """What ``new`` mode counts: gate dimensions, and ``audit`` for the audit gate."""
    allowed_new_failures: int = 1
    """New failures per candidate and dimension tolerated (shown as warnings) in ``new`` mode."""
    drop_metrics: tuple[Metric, ...] = ("mean_overall",)
    """Metrics whose paired drop against the baseline is gated (one Holm family over the
    candidates x these metrics); empty turns the rule off. Every metric's drop is shown."""
    shown_metrics: tuple[Metric, ...] = METRICS
    """Metrics whose paired drop is computed and shown (the gated ones always are)."""
    tolerance: float = 0.05
    """Drops within this (score or rate units) do not count."""
    alpha: float = 0.01
    """Family-wise level of the one-sided drop tests (their Holm-adjusted p must be below it):
    a nightly gate is wrong on about one healthy night in a hundred (``docs/gate.md``)."""
    statistic: DropStatistic = "both"
    """What mean overall's drop test reads of each run: its overall score and dimensions passed
    (``both``, min-p), or ``score`` or ``dimensions`` alone."""
    confidence: float = 0.95
    """Confidence level of every interval."""
    resamples: int = 10_000
    """Paired bootstrap resamples."""
    min_paired_cases: int = 6
    """Fewer paired cases make a comparison inconclusive."""
    min_coverage: float = 0.5
    """A smaller share of paired cases makes a comparison inconclusive."""
    max_detectable_drop: float | None = None
    """A gated comparison whose minimum detectable drop exceeds this is too weak to judge
    (inconclusive); None: the baseline's paired level (it could not see a drop to zero)."""
    non_inferiority: bool = False
    """Require the interval to rule out a drop beyond the tolerance (else inconclusive)."""
    pooled: bool = True
    """Also compare all candidates together, paired by (candidate, case)."""
    max_infrastructure_share: float = 0.25
    """A larger share of infrastructure failures (a candidate's or the bundle's) is
    inconclusive."""
    latency_factor: float | None = None
    """Fail when p95 settlement latency exceeds this multiple of the baseline's; None: off."""
    cost_factor: float | None = None
    """Fail when p95 cost exceeds this multiple of the baseline's; None: off."""
    audit_mode: AuditMode = "advisory"
    """Failed audit findings: ``advisory`` (shown), ``any`` / ``new`` (fail), ``off``."""
    case_history: int = 0
    """Nights of history the per-case rule reads from a campaign store: the baseline nights and
    the older nights before them up to this many in all; 0: the baseline nights only."""
    drift_nights: int = 10
    """Nights (tonight included) the drift rule reads a candidate's trend over, from the nights
    the gate has (history and baseline nights); 0 turns the rule off (``docs/gate.md``)."""
    dimension_tolerance: float | None = 0.1
    """The dimension rule: a candidate's pass rate of one weighted dimension dropping tonight
    by more than this (against its peers, beyond the nights' spread) fails; None: off."""
    baseline_age_days: int | None = 30
    """A baseline night dated more than this many days before the current night (the nights'
    dates: the campaign manifests' ``night``, a store's nights) is a warning; None: off."""
    fail_on_inconclusive: bool = False
    """Ask the CLI to treat an inconclusive verdict as a failure."""

    def settings(self, seed: int) -> ComparisonSettings:
        """The paired-comparison settings these rules imply."""
        return ComparisonSettings(
            seed=seed,
            tolerance=self.tolerance,
            confidence=self.confidence,
            drop_alpha=self.alpha,
            drop_statistic=self.statistic,
            resamples=self.resamples,
            min_paired_cases=self.min_paired_cases,
            min_coverage=self.min_coverage,
        )

    def to_json(self) -> dict[str, Any]:
        """The rules as a JSON-ready mapping (field names)."""
        return dataclasses.asdict(self)


def gate_rules(
    section: Any, *, source: str | None = None, lines: Mapping[str, int] | None = None
) -> GateRules:
    """:class:`GateRules` from a policy file's ``gate`` mapping (keys in ``docs/gate.md``),
    checked by :func:`scorecard.contract.gate_settings`: unknown keys and bad values raise a
    :class:`PolicyError` with the JSON Pointer of the value and, when known, its line."""
    return GateRules(**gate_settings(section, source=source, lines=lines))


def gate_policy(text: str, *, source: str) -> tuple[Policy | None, GateRules]:
    """Parse a gate policy file (YAML or JSON; ``docs/gate.md``).

    Its optional scoring keys (``weights``, ``thresholds``, ``auditGate``, as for ``scorecard
    score --policy``) give the :class:`Policy` for scoring observations (None when absent); its
    optional ``gate`` section gives the :class:`GateRules`. Problems raise a located
    :class:`PolicyError`.
    """
    parsed = parse_policy_file(text, source=source)
    return parsed.policy, GateRules(**parsed.gate)
