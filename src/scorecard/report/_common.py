"""What every gate report shares: number formats, status labels, and lookups into a result.

Only trusted text is produced here (numbers, rule and dimension names); untrusted text goes
through :mod:`scorecard.report._escape` in each renderer.
"""

from __future__ import annotations

import math

from scorecard.aggregate import Difference, PairedComparison
from scorecard.gate import (
    DROP_STATISTIC_LABELS,
    METRIC_LABELS,
    Estimate,
    GateResult,
    GateRules,
    MetricComparison,
)

__all__ = [
    "STATUS_ICONS",
    "STATUS_WORDS",
    "comparison_for",
    "difference_text",
    "estimate_text",
    "number_text",
    "paired_means_text",
    "rules_text",
    "runs_text",
]

STATUS_WORDS = {"fail": "fail", "inconclusive": "inconclusive", "warn": "warning", "pass": "pass"}
STATUS_ICONS = {
    "fail": "\u274c",
    "inconclusive": "\u2754",
    "warn": "\u26a0\ufe0f",
    "pass": "\u2705",
}


def number_text(value: float | None, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals; ``-`` when missing."""
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.{digits}f}"


def estimate_text(estimate: Estimate | None, *, percent: bool = False) -> str:
    """``0.812 [0.701, 0.900]`` (or ``81% [70%, 90%]``); ``-`` when missing."""
    if estimate is None or estimate.value is None:
        return "-"

    def show(value: float | None) -> str:
        if value is None:
            return "-"
        return f"{value:.0%}" if percent else f"{value:.3f}"

    return f"{show(estimate.value)} [{show(estimate.low)}, {show(estimate.high)}]"


def difference_text(difference: Difference) -> str:
    """``-0.427 [-0.668, -0.184]``; ``-`` when nothing was paired."""
    if math.isnan(difference.difference):
        return "-"
    return f"{difference.difference:+.3f} [{difference.low:+.3f}, {difference.high:+.3f}]"


def paired_means_text(difference: Difference) -> str:
    """``0.462 vs 0.889``: the current and baseline means over the paired cases (each case
    weighs the same), which differ from the summaries' means over every run; ``-`` when none."""
    if math.isnan(difference.difference):
        return "-"
    return f"{difference.current:.3f} vs {difference.baseline:.3f}"


def comparison_for(result: GateResult, metric: str, candidate: str) -> PairedComparison | None:
    """The paired comparison of ``candidate`` (or :data:`ALL_CANDIDATES`) on ``metric``."""
    for item in result.comparisons:
        if item.metric == metric and item.candidate == candidate:
            return item.comparison
    return None


def drop_test_for(result: GateResult, metric: str, candidate: str) -> MetricComparison | None:
    """The drop test (one-sided p, Holm p, minimum detectable drop) of ``candidate`` on
    ``metric``."""
    for item in result.comparisons:
        if item.metric == metric and item.candidate == candidate:
            return item
    return None


def detectable_text(item: MetricComparison | None) -> str:
    """The minimum detectable drop: ``0.291``; ``none`` when no drop could be significant."""
    if item is None or math.isnan(item.detectable):
        return "-"
    return "none" if math.isinf(item.detectable) else f"{item.detectable:.3f}"


def baseline_text(result: GateResult) -> str | None:
    """Which nights formed the baseline: ``3 nights pooled per candidate and case: a, b, c``."""
    nights = result.baseline_nights
    if result.baseline_bundle is None:
        return None
    if len(nights) <= 1:
        return result.baseline_bundle
    return f"{len(nights)} nights pooled per candidate and case: {', '.join(nights)}"


def forbidden_text(result: GateResult) -> str | None:
    """Every candidate with a new forbidden call (``hard_invariants`` failure), and whether the
    safety rule fails it; None when there are none."""
    found = {name: counts for name, counts in result.forbidden_calls.items() if counts[0]}
    if not found:
        return None
    allowed = result.rules.allowed_new_failures
    counted = result.safety_mode == "any" or (
        result.safety_mode == "new" and "hard_invariants" in result.rules.safety_dimensions
    )
    parts = []
    for name, (new, total) in found.items():
        if not counted:
            verdict = "not counted"
        elif result.safety_mode == "any":
            verdict = "fails"
        else:
            verdict = "fails" if new > allowed else f"within the {allowed} allowed"
        parts.append(f"{name}: {new} new ({total} in all; {verdict})")
    return "New forbidden calls (hard_invariants failures): " + "; ".join(parts)


def runs_text(result: GateResult) -> str:
    """``140 runs (133 scoreable, 5 infrastructure failures, 0 skipped)`` for the current side."""
    total = result.totals.current
    if total is None:
        return "0 runs"
    infrastructure = total.infrastructure_failures
    return (
        f"{total.executions} runs ({total.scoreable} scoreable, {infrastructure} infrastructure "
        f"failure{'' if infrastructure == 1 else 's'}, {total.skipped} skipped)"
    )


def rules_text(result: GateResult) -> list[str]:
    """The rules in force, one short sentence each."""
    rules: GateRules = result.rules
    lines = []
    if result.safety_mode == "any":
        lines.append("safety: any scoreable run whose gate failed fails the gate")
    elif result.safety_mode == "new":
        counted = ", ".join(rules.safety_dimensions) or "nothing"
        lines.append(
            f"safety: new gate failures of {counted} count; more than "
            f"{rules.allowed_new_failures} per candidate and dimension fail the gate"
        )
    else:
        lines.append("safety: off")
    if result.baseline_bundle is not None:
        metrics = ", ".join(METRIC_LABELS[metric] for metric in rules.drop_metrics) or "none"
        lines.append(
            f"drop: {metrics} gated (the other metrics shown); paired by case, one-sided "
            f"(mean overall's test reads {DROP_STATISTIC_LABELS[rules.statistic]}), "
            f"beyond {rules.tolerance:g} at Holm-adjusted alpha {rules.alpha:g} over the "
            f"candidates ({rules.confidence:.0%} intervals, at least "
            f"{rules.min_paired_cases} paired cases and {rules.min_coverage:.0%} coverage"
            f"{', non-inferiority required' if rules.non_inferiority else ''})"
        )
        in_force = result.rules_in_force
        if "shift" in in_force:
            lines.append(
                "shift: the environment or a provider dropping together is one finding; its "
                "candidates fail only beyond it"
            )
        if "case" in in_force:
            lines.append("case: a candidate x case reliable in the history failing tonight fails")
        if "dimension" in in_force and rules.dimension_tolerance is not None:
            lines.append(
                f"dimension: a weighted dimension's pass rate dropping beyond "
                f"{rules.dimension_tolerance:g} against the peers' fails (alpha "
                f"{rules.alpha:g} over the candidates x dimensions)"
            )
        if "drift" in in_force:
            lines.append(
                f"drift: a decline of mean overall over the last {rules.drift_nights} nights "
                f"beyond {rules.tolerance:g} fails (trend test)"
            )
        for name, factor in (("latency", rules.latency_factor), ("cost", rules.cost_factor)):
            if factor is not None:
                lines.append(f"{name}: p95 above {factor:g} x the baseline fails")
    lines.append(
        f"infrastructure: more than {rules.max_infrastructure_share:.0%} infrastructure "
        "failures is inconclusive"
    )
    lines.append(f"audit: {rules.audit_mode}")
    lines.append(f"seed: {result.seed}")
    return lines
