"""Slow drift: a candidate's nightly level falling night after night, read with nights as units.

::

    drift_findings(current, nights, rules) -> tuple[DriftFinding, ...]

A decline spread over several nights hides from the drop rule: each night is a little worse
than the baseline nights before it, which are themselves a little worse than theirs. So the
last ``rules.drift_nights`` nights (the history, oldest first, then tonight) are read as a
series per candidate and tested for a trend:

1. **A night's level.** The candidate's mean overall over its scoreable runs, case-adjusted
   (each case's night mean less that case's mean over the window, averaged over the cases
   run that night, plus the mean of the cases' window means), so a night that skipped a hard
   case is not taken for a better night. A night with fewer than half the candidate's median
   scoreable runs (an outage) is left out, as is a night without any.
2. **Against its peers.** With at least :data:`MIN_PEERS` other candidates having a level that
   night, the candidate's level less the median of theirs: a night that moves every candidate
   (the environment, the shift rule's finding) cancels; a drift of the candidate alone does
   not.
3. **The trend.** Least squares of the levels on the night's position in the window; the
   slope's t = b / se(b) has n - 2 degrees of freedom when nights are independent normal draws
   around a line, so the night-to-night variance is the null's own (the nights are the units,
   not the runs). One-sided p = P(T <= t); the slope's interval is b +- t(df) se(b).

A candidate is tested when it has a level on tonight and on at least :data:`MIN_NIGHTS` nights
in all. Its drift **fails** the gate when the fitted decline over the window (slope x the
nights it spans) lies below ``-tolerance`` and p < alpha / K, K the candidates tested
(Bonferroni: the family-wise level is alpha); a significant slope within the tolerance is a
warning. The reasons are in ``docs/gate.md`` ("Slow drift").
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._input import GateSide
from ._rules import GateRules

__all__ = ["MIN_NIGHTS", "MIN_PEERS", "DriftFinding", "drift_findings", "student_t_cdf"]

#: Fewest nights with a level (tonight included) for a candidate's trend to be tested.
MIN_NIGHTS = 6
#: Fewest other candidates with a level on a night for it to be read against its peers.
MIN_PEERS = 3


@dataclass(frozen=True)
class DriftFinding:
    """One candidate's trend over the last nights."""

    candidate: str
    """The candidate."""
    nights: int
    """Nights with a level in the window (tonight included)."""
    span: int
    """Nights the window spans, first to last night with a level (positions apart)."""
    against_peers: bool
    """Whether the levels were read against the peers' median."""
    levels: tuple[float, ...]
    """The levels read, oldest first (less the peers' median when against peers)."""
    slope: float
    """Least-squares slope per night."""
    slope_low: float
    """Lower end of its interval (``rules.confidence``)."""
    slope_high: float
    """Upper end."""
    decline: float
    """The fitted change over the window: slope x span (negative: a decline)."""
    t: float
    """slope / its standard error."""
    p_value: float
    """One-sided p of "no decline" (Student t, nights - 2 degrees of freedom)."""
    level: float
    """alpha / K, K the candidates tested."""
    fails: bool
    """Whether it fails the gate (decline beyond the tolerance, p below the level)."""

    @property
    def text(self) -> str:
        """``slope -0.031 per night [-0.045, -0.017] over 10 nights (decline -0.279, ...)``."""
        reading = "against its peers" if self.against_peers else "alone"
        return (
            f"slope {self.slope:+.3f} per night [{self.slope_low:+.3f}, {self.slope_high:+.3f}] "
            f"over {self.nights} nights, read {reading} (fitted change {self.decline:+.3f}; "
            f"t {self.t:.2f}, one-sided p={self.p_value:.2g}, level {self.level:.2g})"
        )


def student_t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with a positive integer ``df``, in closed form (the finite
    series of Abramowitz and Stegun 26.7.3 and 26.7.4)."""
    if df < 1:
        raise ValueError("df must be a positive integer")
    theta = math.atan(t / math.sqrt(df))
    cosine, sine = math.cos(theta), math.sin(theta)
    if df % 2:  # odd: 2/pi (theta + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ...))
        term, total = 1.0, 1.0 if df > 1 else 0.0
        for index in range(1, (df - 1) // 2):
            term *= cosine * cosine * (2 * index) / (2 * index + 1)
            total += term
        inside = 2 / math.pi * (theta + (sine * cosine * total if df > 1 else 0.0))
    else:  # even: sin (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ...)
        term, total = 1.0, 1.0
        for index in range(1, df // 2):
            term *= cosine * cosine * (2 * index - 1) / (2 * index)
            total += term
        inside = sine * total
    return min(1.0, max(0.0, 0.5 + inside / 2))


def _t_quantile(probability: float, df: int) -> float:
    """The t with P(T <= t) = probability (bisection on :func:`student_t_cdf`)."""
    low, high = -1e3, 1e3
    for _ in range(200):
        middle = (low + high) / 2
        if student_t_cdf(middle, df) < probability:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _levels(side: GateSide) -> dict[str, tuple[dict[str, float], int]]:
    """Per candidate: (mean overall per case, scoreable runs) of one night."""
    table = side.table
    overall = table.frame()["overall_score"].to_numpy(dtype=np.float64, na_value=np.nan)
    sums: dict[str, dict[str, list[float]]] = {}
    for index in range(len(table)):
        if not table.scoreable[index] or math.isnan(overall[index]):
            continue
        cases = sums.setdefault(table.candidate[index], {})
        cases.setdefault(table.case[index], []).append(float(overall[index]))
    return {
        candidate: (
            {case: statistics.fmean(scores) for case, scores in cases.items()},
            sum(map(len, cases.values())),
        )
        for candidate, cases in sums.items()
    }


def _night_levels(
    window: Sequence[dict[str, tuple[dict[str, float], int]]],
) -> dict[str, dict[int, float]]:
    """Per candidate: its case-adjusted level on each night of the window it has one on."""
    found: dict[str, dict[int, float]] = {}
    for candidate in {name for night in window for name in night}:
        mine = {index: night[candidate] for index, night in enumerate(window) if candidate in night}
        typical = statistics.median(runs for _, runs in mine.values())
        mine = {index: value for index, value in mine.items() if value[1] >= typical / 2}
        by_case: dict[str, list[float]] = {}
        for means, _ in mine.values():
            for case, value in means.items():
                by_case.setdefault(case, []).append(value)
        centre = {case: statistics.fmean(values) for case, values in by_case.items()}
        grand = statistics.fmean(centre.values())
        found[candidate] = {
            index: grand + statistics.fmean(value - centre[case] for case, value in means.items())
            for index, (means, _) in mine.items()
        }
    return found


def drift_findings(
    current: GateSide, nights: Sequence[GateSide], rules: GateRules
) -> tuple[DriftFinding, ...]:
    """Each candidate's trend over the last ``rules.drift_nights`` nights (``nights`` oldest
    first, then ``current``), sorted by candidate; see the module docstring. Empty when the
    rule is off or no candidate has enough nights."""
    if rules.drift_nights <= 0:
        return ()
    window = [_levels(side) for side in [*nights, current][-rules.drift_nights :]]
    last = len(window) - 1
    levels = _night_levels(window)
    tested: list[tuple[str, bool, list[int], list[float]]] = []
    for candidate in sorted(levels):
        mine = levels[candidate]
        if last not in mine or len(mine) < MIN_NIGHTS:
            continue
        peers = {
            index: [
                other[index]
                for name, other in levels.items()
                if name != candidate and index in other
            ]
            for index in mine
        }
        against = all(len(values) >= MIN_PEERS for values in peers.values())
        positions = sorted(mine)
        values = [
            mine[index] - (statistics.median(peers[index]) if against else 0.0)
            for index in positions
        ]
        tested.append((candidate, against, positions, values))
    level = rules.alpha / max(1, len(tested))
    found = []
    for candidate, against, positions, values in tested:
        x = np.asarray(positions, dtype=np.float64)
        y = np.asarray(values, dtype=np.float64)
        n = len(x)
        centred = x - x.mean()
        slope = float(centred @ (y - y.mean()) / (centred @ centred))
        residuals = y - y.mean() - slope * centred
        error = math.sqrt(float(residuals @ residuals) / (n - 2) / float(centred @ centred))
        if error > 0:
            t = slope / error
            p_value = student_t_cdf(t, n - 2)
        else:
            t = -math.inf if slope < 0 else math.inf if slope > 0 else 0.0
            p_value = 0.0 if slope < 0 else 1.0
        reach = _t_quantile(0.5 + rules.confidence / 2, n - 2) * error
        span = positions[-1] - positions[0]
        decline = slope * span
        found.append(
            DriftFinding(
                candidate,
                n,
                span,
                against,
                tuple(values),
                slope,
                slope - reach,
                slope + reach,
                decline,
                t,
                p_value,
                level,
                decline < -rules.tolerance and p_value < level,
            )
        )
    return tuple(found)
