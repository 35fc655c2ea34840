"""Night-to-night noise: how far a candidate's healthy nights already move, read from the history.

::

    night_noise(current, past, depth, providers, rules, family) -> NightNoise
        per candidate  tonight's drop, alone or against its peers (the other candidates of its
                   provider, else every other candidate) as the history chose, as z on two
                   statistics over the runs' and the nights' spread together; a one-sided p
        calibration    per statistic: which reading, the nights' spread, and how many past
                   residuals it was read from
        readings       the nights' drops, for :meth:`NightReadings.group`: a group's
                   (the environment's, a provider's) median drop against the medians its past
                   nights show, what the shift rule reads before calling a shift

The drop rule's permutation test asks whether tonight's runs and the baseline's could be the
same runs relabelled. Runs of one night are not independent draws, though: a night shares its
environment (runner, judge, machine), a provider's night its endpoint, and a candidate drifts.
On data with such effects (the independent generator of ``benchmarks/gate_benchmark.py``) the
permutation test alone failed 7.5% of healthy nights. Two things here take the structure in:

1. **The reading: alone or against peers.** A candidate's drop can be read as it is, or as a
   *residual*: its drop minus the median drop of its peers tonight (leave one out). Peers are
   the other candidates of its provider when there are at least two, else every other
   candidate: a shared or a provider's night moves them all and cancels, but the median adds
   its own variance (pi/2 times the peers' mean variance over their number), which costs power
   where nights do not move together. So the history chooses, per statistic: every past night
   is read both ways against the nights before it (up to as many as the baseline has), and the
   peers are used only when their past residuals strayed less (median of r^2) than the drops
   alone did. With too little history (fewer than :data:`MIN_CALIBRATION` past readings) the
   drop is read alone. (A shared move is also the shift rule's finding, ``scorecard.gate._shifts``.)
2. **The nights' spread.** Were nights no more than their runs, a past reading r would be
   normal with the variance v its runs give; the nights add a variance tau^2 of their own (a
   candidate's night, its drift): tau^2 = max(0, median(r^2) / 0.4549 - median(v)), 0.4549 the
   median of chi-squared with one degree of freedom. Medians, so that a past regression does not
   widen it; pooled over candidates and past nights, from the chosen reading. Tonight's z is
   r / sqrt(v + tau^2).

Both statistics of the drop rule are read: each run's overall score and its number of
dimensions passed. The one-sided p-value is twice the smaller of their normal tail
probabilities (Bonferroni over the two), compared with alpha / m (m the gated family's size).
A gated mean-overall drop fails only when this test agrees: its reading on overall scores (the
drop or the residual) lies below ``-tolerance`` and its p-value below alpha / m. With fewer than
:data:`MIN_CALIBRATION` past readings tau is 0 and the reports say so.

Each drop and its variance are the drop rule's statistic in closed form: the precision-weighted
mean of the case differences (weight a b / (a + b) for a case of a runs tonight and b in the
reference) and its variance from the runs' pooled spread within each case, at least a floor for
sides without a failure (Jeffreys: (f + 1/2) / (n + 1) failing of n).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from scorecard.aggregate import column_codes, flag_array
from scorecard.contract import DIMENSIONS

from ._input import GateSide
from ._results import NightNoise
from ._rules import GateRules

__all__ = [
    "CHI2_MEDIAN",
    "MIN_CALIBRATION",
    "GroupNoise",
    "NightCalibration",
    "NightReadings",
    "PairedCases",
    "cell_totals",
    "jeffreys_floor",
    "night_cells",
    "night_noise",
    "night_variance",
    "positions",
]

_NORMAL = NormalDist()
CHI2_MEDIAN = 0.454936423119572
"""The median of chi-squared with one degree of freedom (of z^2 for a standard normal z)."""
MIN_CALIBRATION = 10
"""Past residuals (candidate x night) needed before the nights' spread is read from them."""
STATISTICS = ("score", "dimensions")
_PASSED = tuple(f"passed_{name}" for name in DIMENSIONS)


@dataclass(frozen=True)
class NightCalibration:
    """How much nights move beyond their runs' spread, per statistic."""

    night_sd: tuple[float, float]
    """tau of the overall score's and of the dimensions passed's drop (0: none read)."""
    comparisons: int
    """Past (candidate, night) residuals it was read from."""
    nights: int
    """Past nights compared with the nights before them."""
    against_peers: tuple[bool, bool]
    """Per statistic, whether drops are read against the peers' median (the past residuals
    strayed less so than the drops alone did)."""


@dataclass(frozen=True)
class GroupNoise:
    """A group's shared move tonight read against the moves of its past nights: the median of
    its members' drops (overall scores, closed form), with the variance the median's runs give
    (pi/2 times the members' mean variance over their number) and the nights' own, tau^2 =
    max(0, median(r^2) / 0.4549 - median(v)) over the past nights' medians (0 with fewer than
    :data:`MIN_CALIBRATION` past nights)."""

    shift: float
    """Tonight's median drop of the members (NaN with fewer than two)."""
    z_score: float
    """shift / sqrt(its variance from the runs + tau^2)."""
    night_sd: float
    """tau: how far the group's median moves from night to night beyond its runs' spread."""
    p_value: float
    """One-sided normal p of z (small for a drop)."""
    calibrated_on: int
    """Past nights whose median drop tau was read from."""

    @property
    def calibrated(self) -> bool:
        """Whether enough past nights were read for tau (else it is 0 and the shift rule does
        not read this)."""
        return self.calibrated_on >= MIN_CALIBRATION


class NightReadings:
    """The drops of each candidate (per statistic: drop and variance) on every past night
    against the nights before it, and tonight's, by candidate name."""

    def __init__(
        self, names: Sequence[str], past: Sequence[np.ndarray], tonight: np.ndarray
    ) -> None:
        self.position = {name: index for index, name in enumerate(names)}
        self.past = list(past)
        self.tonight = tonight

    def _median(self, drops: np.ndarray, members: Sequence[int]) -> tuple[float, float]:
        values = [
            (float(drops[0, 0, m]), float(drops[0, 1, m]))
            for m in members
            if math.isfinite(drops[0, 0, m])
        ]
        if len(values) < 2:
            return math.nan, math.nan
        median = statistics.median(value for value, _ in values)
        spread = math.pi / 2 * statistics.fmean(variance for _, variance in values)
        return median, spread / len(values)

    def group(self, members: Sequence[str]) -> GroupNoise:
        """The group of ``members``' median drop tonight against its past nights' medians."""
        index = [self.position[name] for name in members if name in self.position]
        found = [self._median(drops, index) for drops in self.past]
        known = [(r, v) for r, v in found if math.isfinite(r) and math.isfinite(v)]
        added = night_variance(known)
        shift, variance = self._median(self.tonight, index)
        total = variance + added
        z = shift / math.sqrt(total) if math.isfinite(total) and total > 0 else math.nan
        p_value = _NORMAL.cdf(z) if math.isfinite(z) else math.nan
        return GroupNoise(shift, z, math.sqrt(added), p_value, len(known))


def positions(frame: Any, name: str, known: dict[Any, int]) -> np.ndarray:
    """Each run's value of column ``name`` (candidate or case) as its position in ``known``
    (name -> position, shared by every night read; a new name is appended, in the order the
    runs first show it): one lookup per distinct value, not per run."""
    codes, values = column_codes(frame, name)
    present, first = np.unique(codes, return_index=True)
    lookup = np.zeros(len(values), dtype=np.int64)
    for code in present[np.argsort(first, kind="stable")]:
        lookup[code] = known.setdefault(values[code], len(known))
    placed: np.ndarray = lookup[codes]
    return placed


def night_cells(
    side: GateSide, candidates: dict[str, int], cases: dict[str, int], read: Sequence[str]
) -> tuple[Any, dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """One night's runs placed in (candidate, case) cells: its frame, the ``read`` flag columns
    as booleans (True only where passed), which runs are scoreable, and each run's row and
    column (:func:`positions`)."""
    frame = side.table.frame()
    flags = {name: flag_array(frame, name) for name in read}
    scoreable = np.asarray(side.table.scoreable, dtype=bool)
    rows = positions(frame, "candidate", candidates)
    columns = positions(frame, "case", cases)
    return frame, flags, scoreable, rows, columns


def cell_totals(
    rows: np.ndarray, columns: np.ndarray, shape: tuple[int, int], values: Any = None
) -> np.ndarray:
    """Per (candidate, case) cell of ``shape``, the runs (``values`` None) or the sum of
    ``values`` over its runs."""
    flat = rows * shape[1] + columns
    return np.bincount(flat, values, minlength=shape[0] * shape[1]).reshape(shape)


class _Night:
    """One night's runs as sums per (candidate, case): count, and per statistic sum and sum of
    squares, over scoreable runs."""

    def __init__(self, side: GateSide, candidates: dict[str, int], cases: dict[str, int]) -> None:
        frame, flags, scoreable, rows, columns = night_cells(side, candidates, cases, _PASSED)
        overall = frame["overall_score"].to_numpy(dtype=np.float64, na_value=np.nan)
        dimensions = np.zeros(len(overall))
        for name in _PASSED:
            dimensions += flags[name]
        keep = scoreable & ~np.isnan(overall)
        self.rows, self.columns = rows[keep], columns[keep]
        self.values = (overall[keep], dimensions[keep])

    def sums(self, shape: tuple[int, int]) -> np.ndarray:
        """(7, candidates, cases): count; sum and sum of squares of each statistic; runs that
        scored 0 and runs that did not pass every dimension (what the floor counts)."""
        out = np.zeros((7, *shape))
        out[0] = cell_totals(self.rows, self.columns, shape)
        for index, values in enumerate(self.values):
            out[1 + 2 * index] = cell_totals(self.rows, self.columns, shape, values)
            out[2 + 2 * index] = cell_totals(self.rows, self.columns, shape, values * values)
        low = (self.values[0] == 0, self.values[1] < len(_PASSED))
        for index, flags in enumerate(low):
            out[5 + index] = cell_totals(self.rows, self.columns, shape, flags.astype(float))
        return out


class PairedCases:
    """Tonight's and a reference's runs of each candidate (rows) paired by case (columns): a
    case with a runs tonight and b in the reference weighs a b / (a + b), the inverse of its
    difference's variance; cases without runs on both sides weigh 0."""

    def __init__(self, tonight: np.ndarray, reference: np.ndarray) -> None:
        self.paired = (tonight > 0) & (reference > 0)
        self.a = np.where(self.paired, tonight, 1.0)
        self.b = np.where(self.paired, reference, 1.0)
        self.weight = np.where(self.paired, self.a * self.b / (self.a + self.b), 0.0)
        self.total = self.weight.sum(axis=1)

    def drop(
        self, mine: np.ndarray, theirs: np.ndarray, squares: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate, from a statistic's per-case sums tonight (``mine``) and in the
        reference (``theirs``) and both sides' sum of squares: the precision-weighted mean of
        the case differences (NaN without a paired case) and its variance from the spread
        within each case, both sides as one sample (what "no change" makes them)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            difference = mine / self.a - theirs / self.b
            n = self.a + self.b
            spread = np.where(n > 1, (squares - (mine + theirs) ** 2 / n) / np.maximum(n - 1, 1), 0)
            spread = np.maximum(spread, 0.0)
            variance = (self.weight**2 * spread * (1 / self.a + 1 / self.b)).sum(
                axis=1
            ) / self.total**2
            return (self.weight * difference).sum(axis=1) / self.total, variance

    def counted(self, values: np.ndarray) -> np.ndarray:
        """``values`` (per candidate and case) summed over each candidate's paired cases."""
        total: np.ndarray = np.where(self.paired, values, 0).sum(axis=1)
        return total


def jeffreys_floor(
    count: np.ndarray, failing: np.ndarray, value: np.ndarray | float = 1.0
) -> np.ndarray:
    """The variance a side of ``count`` runs has from its ``failing`` ones alone, at least at
    the Jeffreys rate r = (f + 1/2) / (n + 1): v^2 r (1 - r) / n, v what a failure costs (0
    where there is no run)."""
    rate = (failing + 0.5) / (count + 1)
    term = value**2 * rate * (1 - rate) / np.maximum(count, 1)
    return np.where(count > 0, term, 0.0)


def _drops(tonight: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """(2 statistics, 2: drop and its variance, candidates): the precision-weighted mean of the
    case differences of each candidate and its variance (NaN without a paired case)."""
    pairs = PairedCases(tonight[0], reference[0])
    found = np.full((2, 2, tonight.shape[1]), np.nan)
    for index in range(2):
        drop, variance = pairs.drop(
            tonight[1 + 2 * index],
            reference[1 + 2 * index],
            tonight[2 + 2 * index] + reference[2 + 2 * index],
        )
        found[index, 0] = drop
        found[index, 1] = np.maximum(variance, _floor(tonight, reference, index, pairs))
    return found


def _floor(
    tonight: np.ndarray, reference: np.ndarray, index: int, pairs: PairedCases
) -> np.ndarray:
    """The variance the two sides would have from their failures alone (:func:`jeffreys_floor`
    over each side's paired runs, summed). For overall scores a failure scores 0 and v is the
    mean of the others (the drop rule's gate floor, ``docs/aggregation.md``); for dimensions
    passed a failure misses at least one and v is 1."""
    floor = np.zeros(tonight.shape[1])
    for side in (tonight, reference):
        count = pairs.counted(side[0])
        failing = pairs.counted(side[5 + index])
        value: np.ndarray | float = 1.0
        if index == 0:
            others = count - failing
            value = np.where(others > 0, pairs.counted(side[1]) / np.maximum(others, 1), 1.0)
        floor = floor + jeffreys_floor(count, failing, value)
    return floor


def _peers(names: Sequence[str], providers: Mapping[str, str]) -> dict[str, list[int]]:
    """Each candidate's peers (indices into ``names``): its provider's others when there are at
    least two, else every other candidate."""
    found: dict[str, list[int]] = {}
    for index, name in enumerate(names):
        provider = providers.get(name, "")
        same = [
            other
            for other, peer in enumerate(names)
            if other != index and provider and providers.get(peer, "") == provider
        ]
        found[name] = same if len(same) >= 2 else [o for o in range(len(names)) if o != index]
    return found


def _residuals(
    drops: np.ndarray, names: Sequence[str], peers: Mapping[str, list[int]]
) -> dict[str, tuple[tuple[float, float], tuple[float, float]]]:
    """Per candidate with a drop and at least two peers with one: for each statistic, its
    residual against the median of its peers' drops and that residual's variance from the runs
    (its own drop's, plus the median's: pi/2 times the peers' mean variance over their number)."""
    found: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {}
    for index, name in enumerate(names):
        if not math.isfinite(drops[0, 0, index]):
            continue
        others = [o for o in peers[name] if math.isfinite(drops[0, 0, o])]
        if len(others) < 2:
            continue
        pairs: list[tuple[float, float]] = []
        for statistic in range(2):
            shift = statistics.median(drops[statistic, 0, o] for o in others)
            spread = math.pi / 2 * statistics.fmean(drops[statistic, 1, o] for o in others)
            residual = float(drops[statistic, 0, index] - shift)
            pairs.append((residual, float(drops[statistic, 1, index]) + spread / len(others)))
        found[name] = (pairs[0], pairs[1])
    return found


def night_variance(found: Sequence[tuple[float, float]]) -> float:
    """tau^2 from past (residual, variance) pairs: max(0, median(r^2) / CHI2_MEDIAN -
    median(v)); 0 with fewer than :data:`MIN_CALIBRATION` of them."""
    known = [(r, v) for r, v in found if math.isfinite(r) and math.isfinite(v)]
    if len(known) < MIN_CALIBRATION:
        return 0.0
    squares = statistics.median(r * r for r, _ in known)
    return max(0.0, squares / CHI2_MEDIAN - statistics.median(v for _, v in known))


def _own(drops: np.ndarray, names: Sequence[str]) -> dict[str, tuple[tuple[float, float], ...]]:
    """Per candidate with a drop: for each statistic, its drop and that drop's variance (the
    reading without peers)."""
    return {
        name: tuple((float(drops[s, 0, i]), float(drops[s, 1, i])) for s in range(2))
        for i, name in enumerate(names)
        if math.isfinite(drops[0, 0, i])
    }


def _spread(found: Sequence[tuple[float, float]]) -> float:
    """median(r^2): how far a reading's past residuals strayed (inf with too few of them)."""
    known = [r * r for r, v in found if math.isfinite(r) and math.isfinite(v)]
    return statistics.median(known) if len(known) >= MIN_CALIBRATION else math.inf


def night_noise(
    current: GateSide,
    past: Sequence[GateSide],
    depth: int,
    providers: Mapping[str, str],
    rules: GateRules,
    family: int,
) -> tuple[dict[str, NightNoise], NightCalibration, NightReadings]:
    """Each candidate's drop tonight against the last ``depth`` of the ``past`` nights (oldest
    first), alone or relative to its peers as the past nights chose, and calibrated on them
    (module docstring)."""
    candidates: dict[str, int] = {}
    cases: dict[str, int] = {}
    nights = [_Night(side, candidates, cases) for side in [*past, current]]
    shape = (len(candidates), max(1, len(cases)))
    sums = [night.sums(shape) for night in nights]
    names = sorted(candidates, key=candidates.__getitem__)
    peers = _peers(names, providers)
    # Past (residual, variance) pairs per reading (0: alone, 1: against peers) and statistic.
    found: list[list[list[tuple[float, float]]]] = [[[], []], [[], []]]
    past_drops = []
    for index in range(1, len(past)):
        drops = _drops(sums[index], np.sum(sums[max(0, index - depth) : index], axis=0))
        past_drops.append(drops)
        for reading, pairs_found in enumerate(
            (_own(drops, names).values(), _residuals(drops, names, peers).values())
        ):
            for both in pairs_found:
                for statistic in range(2):
                    found[reading][statistic].append(both[statistic])
    # Per statistic: against the peers only where that strayed less in the past than alone.
    chosen = (
        _spread(found[1][0]) < _spread(found[0][0]),
        _spread(found[1][1]) < _spread(found[0][1]),
    )
    extra = (
        night_variance(found[int(chosen[0])][0]),
        night_variance(found[int(chosen[1])][1]),
    )
    calibration = NightCalibration(
        (math.sqrt(extra[0]), math.sqrt(extra[1])),
        len(found[int(chosen[0])][0]),
        max(0, len(past) - 1),
        chosen,
    )
    drops = _drops(sums[-1], np.sum(sums[max(0, len(past) - depth) : len(past)], axis=0))
    own, relative = _own(drops, names), _residuals(drops, names, peers)
    level = rules.alpha / max(1, family)
    result: dict[str, NightNoise] = {}
    for name, alone in own.items():
        against = relative.get(name)
        readings = (chosen[0] and against is not None, chosen[1] and against is not None)
        pairs = [against[s] if readings[s] and against else alone[s] for s in range(2)]
        z = [
            residual / math.sqrt(variance + added) if variance + added > 0 else math.nan
            for (residual, variance), added in zip(pairs, extra, strict=True)
        ]
        tails = [_NORMAL.cdf(value) for value in z if math.isfinite(value)]
        p_value = min(1.0, len(STATISTICS) * min(tails)) if tails else math.nan
        provider = providers.get(name, "")
        same = bool(provider) and all(providers.get(names[o], "") == provider for o in peers[name])
        residual = pairs[0][0]
        result[name] = NightNoise(
            candidate=name,
            peers=f"provider {provider}" if same else "environment",
            against_peers=readings,
            residual=residual,
            z_score=z[0],
            z_dimensions=z[1],
            night_sd_score=calibration.night_sd[0],
            night_sd_dimensions=calibration.night_sd[1],
            p_value=p_value,
            level=level,
            calibrated_on=calibration.comparisons,
            beyond=residual < -rules.tolerance and p_value < level,
        )
    return result, calibration, NightReadings(names, past_drops, drops)
