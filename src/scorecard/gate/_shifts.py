"""Shared shifts: when every candidate, or every candidate of one provider, moved together.

::

    shared_shifts(comparisons, providers, rules) -> (shifts, residuals)
        shifts     one :class:`SharedShift` per group tested (the environment: every gated
                   candidate; each provider with at least two of them)
        residuals  per candidate of a detected group: its drop beyond the group's shift
                   (:class:`ResidualDrop`), which is what the drop rule then judges

A group *moved together* (``detected``) when, on mean overall's paired difference,

1. its median difference lies below ``-tolerance`` (more than half its candidates dropped);
2. at least two thirds of its candidates dropped beyond the tolerance (breadth: one candidate's
   collapse does not make a shift);
3. Fisher's combination of the members' one-sided "no drop" p-values, leaving out the
   smallest (so one candidate's collapse cannot carry it), is below alpha divided by the
   number of groups tested (Bonferroni over the environment and the providers).

A detected group is a *finding* (``reported``) only when, with a history deep enough to read
how far the group moves from night to night (:class:`~scorecard.gate._nights.GroupNoise`: at
least ``MIN_CALIBRATION`` past nights), its median drop is beyond that too: one-sided p of the
median over its runs' and the nights' spread below the same level. Fisher's combination treats
the members' runs as independent, but one night's environment moves them all: a shared move
the nights make anyway (``within_nights``) is no finding, yet its members are still judged on
their drops beyond it, so no candidate fails for it either.

The shift's size is the median of the members' differences, its interval the distribution-free
order-statistic interval of the median (the achieved confidence is stated: with few candidates
it cannot reach the nominal level). A candidate of a detected group is then judged on its
*residual*: its difference minus the median of the *other* members' differences (leave one
out, so its own drop does not hide itself), with the standard error of its drop test and of
that median; it fails only when the residual lies beyond the tolerance with a one-sided p below
alpha / m (m the gated family's size: Bonferroni, so the family-wise level holds). The reasons
and the exit status of a shift are in ``docs/gate.md``.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from statistics import NormalDist

from ._input import ALL_CANDIDATES
from ._nights import GroupNoise
from ._results import MetricComparison, ResidualDrop, SharedShift
from ._rules import GateRules

__all__ = ["ResidualDrop", "SharedShift", "median_interval", "shared_shifts"]

_NORMAL = NormalDist()
#: Members of a provider group / of the environment for a shift to be tested at all.
MIN_PROVIDER_MEMBERS = 2
MIN_ENVIRONMENT_MEMBERS = 3
#: Share of a group's candidates that must have dropped beyond the tolerance.
BREADTH = 2 / 3


def median_interval(values: Sequence[float], confidence: float) -> tuple[float, float, float]:
    """(low, high, achieved confidence) of the order-statistic interval of the median:
    [x(k), x(n-k+1)] with the largest k whose coverage 1 - 2 P(Binomial(n, 1/2) < k) is at
    least ``confidence``; with too few values, the widest interval [min, max] and its
    coverage."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return math.nan, math.nan, math.nan
    below = 0.0  # P(Binomial(n, 1/2) < k)
    best = (ordered[0], ordered[-1], 1 - 2 * 0.5**n)
    for k in range(1, n // 2 + 1):
        below += math.comb(n, k - 1) * 0.5**n
        achieved = 1 - 2 * below
        if achieved < confidence:
            break
        best = (ordered[k - 1], ordered[n - k], achieved)
    return best


def _fisher(p_values: Sequence[float]) -> float:
    """Fisher's combined p-value: -2 sum log p is chi-squared with 2k degrees of freedom (its
    survival function in closed form for even degrees of freedom)."""
    statistic = -2 * sum(math.log(max(p, 1e-300)) for p in p_values)
    half = statistic / 2
    term, total = 1.0, 1.0
    for index in range(1, len(p_values)):
        term *= half / index
        total += term
    return min(1.0, math.exp(-half) * total)


def _error(item: MetricComparison, rules: GateRules, family: int) -> float:
    """The standard error of the drop test's statistic, read back from its minimum detectable
    drop ((z(1 - alpha/m) + z(0.8)) x the error)."""
    if not math.isfinite(item.detectable):
        return math.nan
    return item.detectable / (_NORMAL.inv_cdf(1 - rules.alpha / family) + _NORMAL.inv_cdf(0.8))


def shared_shifts(
    comparisons: Sequence[MetricComparison],
    providers: Mapping[str, str],
    rules: GateRules,
    noise: Callable[[Sequence[str]], GroupNoise] | None = None,
) -> tuple[tuple[SharedShift, ...], dict[str, ResidualDrop]]:
    """The shifts of the environment and of each provider on mean overall, and each member of a
    detected group's residual drop (see the module docstring). ``providers`` maps candidates
    to their provider; ``noise`` reads a group's move against its past nights'
    (:meth:`~scorecard.gate._nights.NightReadings.group`; None: not read)."""
    items = {
        item.candidate: item
        for item in comparisons
        if item.metric == "mean_overall"
        and item.gated
        and item.candidate != ALL_CANDIDATES
        and math.isfinite(item.comparison.overall.difference)
    }
    family = max(1, sum(item.gated and item.candidate != ALL_CANDIDATES for item in comparisons))
    groups: list[tuple[str | None, list[str]]] = []
    names = sorted(items)
    if len(names) >= MIN_ENVIRONMENT_MEMBERS:
        groups.append((None, names))
    by_provider: dict[str, list[str]] = {}
    for name in names:
        by_provider.setdefault(providers.get(name, ""), []).append(name)
    for name_of, members in sorted(by_provider.items()):
        if name_of and len(members) >= MIN_PROVIDER_MEMBERS and len(members) < len(names):
            groups.append((name_of, members))
    shifts: list[SharedShift] = []
    level = rules.alpha / max(1, len(groups))
    for provider, members in groups:
        differences = [items[name].comparison.overall.difference for name in members]
        shift = statistics.median(differences)
        low, high, achieved = median_interval(differences, rules.confidence)
        dropped = sum(value < -rules.tolerance for value in differences)
        # Leave the most significant member out: one candidate's collapse is not a shift.
        p_value = _fisher(sorted(items[name].p_drop for name in members)[1:])
        moved = noise(members) if noise is not None else None
        detected = (
            shift < -rules.tolerance
            and dropped >= math.ceil(BREADTH * len(members) - 1e-9)
            and p_value < level
        )
        found = SharedShift(
            "environment" if provider is None else "provider",
            provider,
            tuple(members),
            shift,
            low,
            high,
            achieved,
            dropped,
            p_value,
            level,
            detected,
        )
        if moved is not None and moved.calibrated:
            found = dataclasses.replace(
                found,
                night_sd=moved.night_sd,
                noise_z=moved.z_score,
                noise_p=moved.p_value,
                calibrated_on=moved.calibrated_on,
                within_nights=detected and moved.p_value >= level,
            )
        shifts.append(found)
    environment = next(
        (f for f in shifts if f.provider is None and f.detected and not f.within_nights), None
    )
    shifts = [
        dataclasses.replace(
            found,
            reported=found.detected
            and not found.within_nights
            and (
                environment is None
                or found is environment
                or found.shift < environment.shift - rules.tolerance
            ),
        )
        for found in shifts
    ]
    residuals: dict[str, ResidualDrop] = {}
    # A provider's shift is the nearer explanation; the environment's covers the rest.
    ordered = sorted(shifts, key=lambda found: found.provider is None)
    for found in ordered:
        if not found.detected:
            continue
        for name in found.candidates:
            if name in residuals:
                continue
            others = [items[o].comparison.overall.difference for o in found.candidates if o != name]
            shift = statistics.median(others)
            errors = [_error(items[o], rules, family) for o in found.candidates if o != name]
            own = _error(items[name], rules, family)
            # The median's variance is about pi/2 times the mean's.
            spread = math.pi / 2 * statistics.fmean(e * e for e in errors) / len(errors)
            error = math.sqrt(own * own + spread)
            difference = items[name].comparison.overall.difference
            residual = difference - shift
            p_value = _NORMAL.cdf(residual / error) if error > 0 else math.nan
            cut = rules.alpha / family
            residuals[name] = ResidualDrop(
                name,
                found.name,
                difference,
                shift,
                residual,
                error,
                p_value,
                cut,
                residual < -rules.tolerance and p_value < cut,
            )
    return tuple(shifts), residuals
