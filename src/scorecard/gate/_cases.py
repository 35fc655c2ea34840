"""Per case: a candidate x case that passed reliably in the history and fails tonight.

::

    case_findings(current, nights, rules, quarantined=...) -> tuple[CaseFinding, ...]

A run *fails* here when its effective gate failed (``gatePassed`` false: a gate dimension, a
candidate failure, or the audit when it gates), the outcome that zeroes its overall score; a
run whose gate passed but whose quality fell short of a threshold is the drop rule's. The
history is the nights before tonight, oldest first (the older ``history`` nights, then the
baseline nights). A candidate x case pair is *reliable* when its history holds at least
:data:`MIN_HISTORY_RUNS` scoreable runs and at least :data:`RELIABLE_SHARE` of them passed the
gate: decided from the history alone, before tonight is looked at, so the pairs tested are
fixed in advance. A reliable pair whose tonight's runs mostly fail is *newly failing*: its
one-sided Boschloo exact p-value (the unconditional test ordered by Fisher's p: the tables
whose Fisher p is at most the observed one, their chance under a common failure rate
maximised over that rate; never above Fisher's p) is compared with alpha / K, K chosen by
Tarone's rule for discrete tests: the smallest K such that at most K reliable pairs could reach
alpha / K at all (their smallest attainable p, every tonight's run failing after a clean
history, at most alpha / K). A pair that cannot reach it (a case run once a night) spends none
of the level, and the family-wise level is still alpha. A break that persists is judged against the pair's
history before it: the *streak*, the history nights just before tonight on which the pair
mostly failed, is set aside, the pair is reliable or not on the nights before the streak, and a
reliable pair failing again tonight is *still failing* (its finding names the streak's nights
and runs), tested as a newly failing one (tonight against the nights before the streak), so a
break does not turn "flaky" by filling the history with its own failures. A pair that was not
reliable but passed and failed in its history and fails tonight is *flaky*: shown with its flip rate (the share of
consecutive history nights whose pass/fail changed, Wilson interval) and never failing. A pair
in ``quarantined`` is shown and never fails. ``docs/gate.md`` says how deep a history must be
for a break to be callable.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from ._input import GateSide
from ._rules import GateRules

__all__ = [
    "MIN_HISTORY_RUNS",
    "RELIABLE_SHARE",
    "CaseFinding",
    "boschloo_tail",
    "case_findings",
    "fisher_tail",
    "tarone_count",
]

#: Fewest scoreable history runs for a pair to be judged reliable.
MIN_HISTORY_RUNS = 3
#: Share of its history runs whose gate a reliable pair passed.
RELIABLE_SHARE = 0.9


@dataclass(frozen=True)
class CaseFinding:
    """One candidate x case that fails tonight against its history."""

    candidate: str
    """The candidate."""
    case: str
    """The case."""
    kind: str
    """``newly_failing``, ``still_failing`` (newly failing on an earlier night, the streak, and
    again tonight), ``flaky`` or ``quarantined``."""
    history_passed: int
    """History runs whose effective gate passed."""
    history_runs: int
    """Scoreable history runs."""
    history_nights: int
    """History nights with a scoreable run of the pair."""
    nights_passed: int
    """Of those, nights on which every run of the pair passed the gate."""
    tonight_passed: int
    """Tonight's runs whose effective gate passed."""
    tonight_runs: int
    """Tonight's scoreable runs."""
    flip_rate: float
    """Share of consecutive history nights whose pass/fail differed (NaN with under two)."""
    flip_low: float
    """Lower end of its 95% Wilson interval."""
    flip_high: float
    """Upper end."""
    p_value: float
    """One-sided Boschloo exact p of "tonight fails no more often than the history"."""
    level: float
    """alpha / K (Tarone), what ``p_value`` is compared with (NaN for flaky and quarantined
    pairs)."""
    fails: bool
    """Whether it fails the gate (newly failing, p below level, not quarantined, not within a
    shared shift)."""
    within_shift: bool = False
    """Newly failing with p below the level, but its candidate is in a group (the environment,
    its provider) whose shared shift was detected tonight: a warning."""
    streak_nights: int = 0
    """Still failing: the history nights just before tonight on which the pair mostly failed
    (the history counts above are of the nights before them); 0 otherwise."""
    streak_passed: int = 0
    """Of the streak's scoreable runs, those whose effective gate passed."""
    streak_runs: int = 0
    """The streak's scoreable runs."""

    @property
    def history_text(self) -> str:
        """``21/21 runs passed the gate on 21 nights (21 all passed), 0/3 tonight``; still
        failing: ``..., then failing 2 nights (0/6), 0/3 tonight``."""
        streak = (
            f"then failing {self.streak_nights} night{'' if self.streak_nights == 1 else 's'} "
            f"({self.streak_passed}/{self.streak_runs}), "
            if self.streak_nights
            else ""
        )
        return (
            f"{self.history_passed}/{self.history_runs} runs passed the gate on "
            f"{self.history_nights} night{'' if self.history_nights == 1 else 's'} "
            f"({self.nights_passed} all passed), {streak}"
            f"{self.tonight_passed}/{self.tonight_runs} tonight"
        )


def fisher_tail(failed_now: int, runs_now: int, failed_before: int, runs_before: int) -> float:
    """P(X >= failed_now), X hypergeometric: ``runs_now`` drawn from the runs_now + runs_before
    runs of which failed_now + failed_before failed."""
    total = runs_now + runs_before
    failures = failed_now + failed_before
    denominator = math.comb(total, runs_now)
    tail = sum(
        math.comb(failures, x) * math.comb(total - failures, runs_now - x)
        for x in range(failed_now, min(runs_now, failures) + 1)
    )
    return tail / denominator


#: The most tables (tonight's failures x the history's) Boschloo's p is worked out over; a
#: pair with more runs gets Fisher's p instead. The region takes a Fisher p per table, so the
#: work grows as runs tonight x runs in the history x both: a campaign of hundreds of runs per
#: candidate x case a night would take hours. Boschloo's gain is on small tables (a few runs a
#: night: docs/gate.md "Per case"); on large ones the two tests agree closely, and Fisher's p,
#: never below Boschloo's, keeps the level.
BOSCHLOO_TABLES = 4096


def boschloo_tail(failed_now: int, runs_now: int, failed_before: int, runs_before: int) -> float:
    """Boschloo's exact unconditional p of "tonight fails no more often than the history":
    the tables (a tonight's failures, b the history's) whose Fisher p (:func:`fisher_tail`) is
    at most the observed one, their chance at the common failure rate pi maximised over pi
    (both counts binomial, nothing conditioned on). Never above Fisher's p; with a clean
    history and every run failing tonight it is max pi^n (1 - pi)^h, at pi = n / (n + h)."""
    observed = fisher_tail(failed_now, runs_now, failed_before, runs_before)
    if (runs_now + 1) * (runs_before + 1) > BOSCHLOO_TABLES:
        return observed  # Fisher's p: valid, and on tables this large as strong
    total = runs_now + runs_before
    # weight[k]: sum of C(n, a) C(h, b) over the tables of the region with a + b = k.
    weight = np.zeros(total + 1)
    for a in range(runs_now + 1):
        for b in range(runs_before + 1):
            if fisher_tail(a, runs_now, b, runs_before) <= observed * (1 + 1e-9):
                weight[a + b] += math.comb(runs_now, a) * math.comb(runs_before, b)
    counts = np.arange(total + 1)[weight > 0]
    logs = np.log(weight[weight > 0])

    def chance(rates: np.ndarray) -> np.ndarray:
        rates = rates[:, None]
        terms = logs + counts * np.log(rates) + (total - counts) * np.log1p(-rates)
        summed: np.ndarray = np.exp(terms).sum(axis=1)
        return summed

    grid = np.linspace(0.0005, 0.9995, 2000)
    values = chance(grid)
    best = int(np.argmax(values))
    low, high = grid[max(0, best - 1)], grid[min(len(grid) - 1, best + 1)]
    for _ in range(40):  # golden-section search around the best grid point
        left, right = high - 0.618 * (high - low), low + 0.618 * (high - low)
        pair = chance(np.array([left, right]))
        if pair[0] < pair[1]:
            low = left
        else:
            high = right
    refined = float(chance(np.array([(low + high) / 2]))[0])
    return min(observed, max(float(values[best]), refined))


def _most_extreme(runs_now: int, runs_before: int) -> float:
    """:func:`boschloo_tail` of every run failing tonight after a clean history, in closed
    form (that table alone has so small a Fisher p): a pair's smallest attainable p, what
    Tarone's rule counts (and, on tables past :data:`BOSCHLOO_TABLES`, below Fisher's
    1 / C(n + h, n), so such a pair is counted as able to reach a level it may not: K is only
    larger, the level only stricter)."""
    total = runs_now + runs_before
    return (runs_now / total) ** runs_now * (runs_before / total) ** runs_before


def tarone_count(smallest: Sequence[float], alpha: float) -> int:
    """Tarone's K: the smallest K >= 1 such that at most K of the tests whose smallest
    attainable p-values are ``smallest`` could reach alpha / K (Bonferroni at alpha / K over
    those K then holds the family-wise level at alpha; the others cannot reject)."""
    count = 1
    while sum(value <= alpha / count for value in smallest) > count:
        count += 1
    return count


def _wilson(count: int, total: int, z: float = 1.959963984540054) -> tuple[float, float, float]:
    if total == 0:
        return math.nan, math.nan, math.nan
    share = count / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total))
    half /= 1 + z * z / total
    return share, max(0.0, centre - half), min(1.0, centre + half)


def _tallies(side: GateSide) -> dict[tuple[str, str], tuple[int, int]]:
    """(gate-failed, scoreable) runs per (candidate, case) of one side."""
    table = side.table
    found: dict[tuple[str, str], tuple[int, int]] = {}
    for index in range(len(table)):
        if not table.scoreable[index]:
            continue
        key = (table.candidate[index], table.case[index])
        failed, runs = found.get(key, (0, 0))
        found[key] = (failed + bool(table.gate_failed[index]), runs + 1)
    return found


def case_findings(
    current: GateSide,
    nights: Sequence[GateSide],
    rules: GateRules,
    *,
    quarantined: Collection[tuple[str, str]] = (),
) -> tuple[CaseFinding, ...]:
    """The candidate x case pairs failing tonight against the history ``nights`` (oldest
    first), sorted by candidate and case; see the module docstring."""
    history = [_tallies(night) for night in nights]
    tonight = _tallies(current)
    pairs = {
        key: _PairHistory([night[key] for night in history if key in night]) for key in tonight
    }
    reliable = {key for key, pair in pairs.items() if pair.reliable}
    smallest = [_most_extreme(tonight[key][1], pairs[key].judged[1]) for key in reliable]
    level = rules.alpha / tarone_count(smallest, rules.alpha)
    found = []
    for key in sorted(tonight):
        failed_now, runs_now = tonight[key]
        pair = pairs[key]
        failed, runs = pair.whole
        if failed_now == 0 or 2 * failed_now <= runs_now or runs == 0:
            continue
        flips = sum(a != b for a, b in itertools.pairwise(pair.clean))
        flip, low, high = _wilson(flips, len(pair.clean) - 1)
        if key in quarantined:
            kind, cut = "quarantined", math.nan
        elif key in reliable:
            kind, cut = "still_failing" if pair.streak else "newly_failing", level
        elif 0 < failed < runs:
            kind, cut = "flaky", math.nan
        else:
            continue  # failed on every history night: not new
        # A still failing pair is told and tested against the nights before its streak.
        told = pair if kind == "still_failing" else _PairHistory(pair.nights, streaks=False)
        failed, runs = told.judged
        p_value = boschloo_tail(failed_now, runs_now, failed, runs)
        streak_failed, streak_runs = told.streak_counts
        found.append(
            CaseFinding(
                key[0],
                key[1],
                kind,
                runs - failed,
                runs,
                len(told.before),
                sum(f == 0 for f, _ in told.before),
                runs_now - failed_now,
                runs_now,
                flip,
                low,
                high,
                p_value,
                cut,
                kind in _JUDGED and p_value < cut,
                streak_nights=len(told.streak),
                streak_passed=streak_runs - streak_failed,
                streak_runs=streak_runs,
            )
        )
    return tuple(found)


#: The kinds whose p is compared with the level (the others never fail the gate).
_JUDGED = ("newly_failing", "still_failing")


class _PairHistory:
    """A candidate x case pair's history: its (gate-failed, scoreable) runs per night, oldest
    first, split into the nights before its streak and the streak (``streaks``: the nights at
    the end on which it mostly failed; else no streak)."""

    def __init__(self, nights: Sequence[tuple[int, int]], *, streaks: bool = True) -> None:
        self.nights = list(nights)
        length = 0
        if streaks:
            for failed, runs in reversed(self.nights):
                if 2 * failed <= runs:
                    break
                length += 1
        self.before = self.nights[: len(self.nights) - length]
        self.streak = self.nights[len(self.nights) - length :]
        self.clean = [failed == 0 for failed, _ in self.nights]

    @staticmethod
    def _sum(nights: Sequence[tuple[int, int]]) -> tuple[int, int]:
        return sum(f for f, _ in nights), sum(n for _, n in nights)

    @property
    def whole(self) -> tuple[int, int]:
        return self._sum(self.nights)

    @property
    def judged(self) -> tuple[int, int]:
        """The (failed, runs) reliability and the test read: the nights before the streak."""
        return self._sum(self.before)

    @property
    def streak_counts(self) -> tuple[int, int]:
        return self._sum(self.streak)

    @property
    def reliable(self) -> bool:
        failed, runs = self.judged
        return runs >= MIN_HISTORY_RUNS and (runs - failed) >= RELIABLE_SHARE * runs
