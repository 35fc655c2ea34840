"""One dimension falling: a candidate's pass rate of one weighted dimension dropping tonight.

::

    dimension_drops(current, nights, depth, rules, peers=...) -> tuple[DimensionDrop, ...]

A regression of one skill (a candidate that stopped presenting its results, say) moves mean
overall by that dimension's weight only, within the drop rule's tolerance and noise; the
dimension's own pass rate moves a lot. So each candidate's pass rate of each weighted dimension
(the six that are not gate dimensions) is read on its own:

1. **The drop.** Tonight against the last ``depth`` nights (the baseline, pooled), paired by
   case: the precision-weighted mean of the case differences of the dimension's pass rate (a
   case with a runs tonight and b before weighs a b / (a + b)), with its variance from the
   runs' spread within each case and at least the floor of Jeffreys' rate of each side (the
   night-noise reading of ``scorecard.gate._nights`` on a dimension's 1/0 instead of a score).
2. **Against its peers.** The drop less the median drop of the same dimension of its peers (leave
   one out: every other candidate; a provider's others when its provider's shift was found
   tonight), so a night that makes one dimension harder for everyone cancels; the median adds
   pi/2 x the peers' mean variance over their number.
3. **Against the nights' own spread.** Every past night is read the same way against the
   nights before it; per dimension, the nights' own variance is tau^2 = max(0, median(r^2) /
   0.4549 - median(v)) over those past residuals (``_nights``' estimator; 0 with fewer than
   10), and tonight's z = r / sqrt(v + tau^2), one-sided p = Phi(z).

A drop **fails** the gate when its residual is below ``-rules.dimension_tolerance`` (None: the
rule is off) and p is below alpha / (K x D), K the candidates and D the dimensions read
(Bonferroni: the family-wise level is alpha); a significant drop within the tolerance is a
warning. The reasons and the measured rates are in ``docs/gate.md`` ("One dimension").
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np

from scorecard.contract import DIMENSIONS, GATE_DIMENSIONS

from ._input import GateSide
from ._nights import (
    PairedCases,
    cell_totals,
    jeffreys_floor,
    night_cells,
    night_variance,
)
from ._results import DimensionDrop
from ._rules import GateRules

__all__ = ["WEIGHTED_DIMENSIONS", "DimensionDrop", "dimension_drops"]

#: The dimensions read: every dimension that is not a gate dimension (the gate dimensions are
#: the safety rule's and, through the zeroed overall score, the drop rule's).
WEIGHTED_DIMENSIONS = tuple(name for name in DIMENSIONS if name not in GATE_DIMENSIONS)
_COLUMNS = tuple(f"passed_{name}" for name in WEIGHTED_DIMENSIONS)
_NORMAL = NormalDist()
#: Fewest peers with a drop for a candidate's drop to be read against them.
MIN_PEERS = 3


class _Sums:
    """One night's scoreable runs per (candidate, case): the count, and per weighted dimension
    the runs that passed it, shape (1 + D, candidates, cases)."""

    def __init__(self, side: GateSide, candidates: dict[str, int], cases: dict[str, int]) -> None:
        _, flags, scoreable, rows, columns = night_cells(side, candidates, cases, _COLUMNS)
        self.rows, self.columns = rows[scoreable], columns[scoreable]
        self.passed = [flags[name][scoreable] for name in _COLUMNS]

    def sums(self, shape: tuple[int, int]) -> np.ndarray:
        out = np.zeros((1 + len(self.passed), *shape))
        out[0] = cell_totals(self.rows, self.columns, shape)
        for index, flags in enumerate(self.passed):
            out[1 + index] = cell_totals(self.rows, self.columns, shape, flags.astype(float))
        return out


def _drops(tonight: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """(D, 4: drop, variance, tonight's rate, the reference's rate, candidates): each
    dimension's precision-weighted paired drop of the pass rate (NaN without a paired case),
    read as the night-noise reading reads a statistic (:class:`~scorecard.gate._nights.
    PairedCases`; a 1/0 flag is its own square), at least Jeffreys' floor of each side.

    The variance is read from the case's runs on both sides together. Reading it from the
    nights before alone (a case's pass rate over the whole history, binomial) saw more, but on
    the independent generator's healthy nights it failed another candidate's dimension in 4 of
    40 trials: runs of a night vary more than a binomial draw at the history's rate."""
    pairs = PairedCases(tonight[0], reference[0])
    cases = pairs.paired.sum(axis=1)
    found = np.full((tonight.shape[0] - 1, 4, tonight.shape[1]), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        for index in range(tonight.shape[0] - 1):
            mine, theirs = tonight[1 + index], reference[1 + index]
            drop, variance = pairs.drop(mine, theirs, mine + theirs)
            floor = sum(
                jeffreys_floor(pairs.counted(count), pairs.counted(count - passed))
                for count, passed in ((tonight[0], mine), (reference[0], theirs))
            )
            found[index, 0] = drop
            found[index, 1] = np.maximum(variance, floor)
            found[index, 2] = pairs.counted(mine / pairs.a) / cases
            found[index, 3] = pairs.counted(theirs / pairs.b) / cases
    return found


def _residual(
    drops: np.ndarray, dimension: int, index: int, peers: Sequence[int]
) -> tuple[float, float, float]:
    """(residual, its variance from the runs, the peers' median drop or NaN) of candidate
    ``index`` on ``dimension``; read alone with fewer than :data:`MIN_PEERS` peers."""
    drop, variance = float(drops[dimension, 0, index]), float(drops[dimension, 1, index])
    others = [o for o in peers if math.isfinite(drops[dimension, 0, o])]
    if len(others) < MIN_PEERS:
        return drop, variance, math.nan
    shift = statistics.median(float(drops[dimension, 0, o]) for o in others)
    spread = math.pi / 2 * statistics.fmean(float(drops[dimension, 1, o]) for o in others)
    return drop - shift, variance + spread / len(others), shift


def dimension_drops(
    current: GateSide,
    nights: Sequence[GateSide],
    depth: int,
    rules: GateRules,
    *,
    peers: Mapping[str, Sequence[str]] | None = None,
) -> tuple[DimensionDrop, ...]:
    """Each candidate's drop of each weighted dimension's pass rate tonight against the last
    ``depth`` of ``nights`` (oldest first; the older ones calibrate the nights' spread), read
    against its peers (``peers``: a candidate's own, by name; default every other candidate).
    See the module docstring."""
    if not nights or depth < 1 or rules.dimension_tolerance is None:
        return ()
    candidates: dict[str, int] = {}
    cases: dict[str, int] = {}
    readers = [_Sums(side, candidates, cases) for side in [*nights, current]]
    shape = (len(candidates), len(cases))
    sums = [reader.sums(shape) for reader in readers]
    names = list(candidates)
    everyone = {name: [o for o in range(len(names)) if o != i] for i, name in enumerate(names)}
    tonight_peers = dict(everyone)
    for name, chosen in (peers or {}).items():
        if name in candidates:
            tonight_peers[name] = [candidates[o] for o in chosen if o in candidates and o != name]
    dimensions = len(WEIGHTED_DIMENSIONS)
    past: list[list[tuple[float, float]]] = [[] for _ in range(dimensions)]
    for index in range(1, len(nights)):
        drops = _drops(sums[index], np.sum(sums[max(0, index - depth) : index], axis=0))
        for position in range(len(names)):
            for dimension in range(dimensions):
                if math.isfinite(drops[dimension, 0, position]):
                    r, v, _ = _residual(drops, dimension, position, everyone[names[position]])
                    past[dimension].append((r, v))
    added = [night_variance(found) for found in past]
    calibrated = [sum(math.isfinite(r) and math.isfinite(v) for r, v in found) for found in past]
    drops = _drops(sums[-1], np.sum(sums[len(nights) - depth : len(nights)], axis=0))
    present = set(current.candidates)
    tested = [
        position
        for position, name in enumerate(names)
        if name in present and math.isfinite(drops[0, 0, position])
    ]
    level = rules.alpha / max(1, len(tested) * dimensions)
    tolerance = rules.dimension_tolerance
    found = []
    for position in tested:
        for dimension in range(dimensions):
            if not math.isfinite(drops[dimension, 0, position]):
                continue
            residual, variance, shift = _residual(
                drops, dimension, position, tonight_peers[names[position]]
            )
            error = math.sqrt(variance + added[dimension])
            z = residual / error if error > 0 else (-math.inf if residual < 0 else math.inf)
            p_value = _NORMAL.cdf(z) if math.isfinite(z) else (0.0 if z < 0 else 1.0)
            found.append(
                DimensionDrop(
                    candidate=names[position],
                    dimension=WEIGHTED_DIMENSIONS[dimension],
                    current_rate=float(drops[dimension, 2, position]),
                    baseline_rate=float(drops[dimension, 3, position]),
                    drop=float(drops[dimension, 0, position]),
                    peers_drop=shift,
                    residual=residual,
                    error=error,
                    night_sd=math.sqrt(added[dimension]),
                    calibrated_on=calibrated[dimension],
                    z=z,
                    p_value=p_value,
                    level=level,
                    fails=residual < -tolerance and p_value < level,
                )
            )
    return tuple(sorted(found, key=lambda item: (item.candidate, item.dimension)))
