"""Paired comparisons: two candidates in one bundle, or one candidate in two bundles.

The pairing unit is the **case**: each side's scoreable repetitions of a case are averaged, and
only cases scoreable on both sides are compared (``docs/aggregation.md`` explains why). On the
paired case differences: an exact sign-flip test (seeded Monte Carlo above 16 cases), a paired
bootstrap interval, per-dimension deltas with Holm-adjusted p-values, and a three-valued verdict.
McNemar's exact test on ``passed`` pairs repetitions of paired cases by repetition number. Every
exclusion is counted, so an infrastructure failure never silently flatters a side.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from scorecard.contract import DIMENSIONS, InputError

from ._frames import PASSED_COLUMNS, SCORE_COLUMNS, observed_categories
from ._stats import (
    EXACT_SIGN_FLIP_LIMIT,
    holm_adjust,
    mcnemar_exact,
    sign_flip_interval,
    sign_flip_tests,
    stratified_permutation_test,
    student_t_quantile,
)

__all__ = [
    "METRICS",
    "CaseColumns",
    "ComparisonSettings",
    "Difference",
    "DropStatistic",
    "Exclusions",
    "McNemar",
    "Metric",
    "PairedComparison",
    "Side",
    "Verdict",
    "adjust_family",
    "bound_text",
    "compare_bundles",
    "compare_candidates",
    "compare_columns",
    "compare_paired",
    "drop_power",
    "metric_values",
    "overall_p_value",
    "overall_p_values",
    "paired_t_interval",
    "with_adjusted_p",
]

Verdict = Literal["better", "worse", "inconclusive"]
DropStatistic = Literal["both", "score", "dimensions"]


@dataclass(frozen=True)
class ComparisonSettings:
    """Everything a paired comparison's numbers depend on besides the data."""

    seed: int
    """Seed of the bootstrap (and of Monte Carlo sign flips above 16 cases)."""
    tolerance: float = 0.0
    """Differences of mean overall within +/- tolerance do not count as better or worse."""
    confidence: float = 0.95
    """Confidence level of the bootstrap intervals."""
    alpha: float = 0.05
    """Significance level the (Holm-adjusted) sign-flip p-value must beat for a verdict."""
    resamples: int = 10_000
    """Bootstrap resamples (and Monte Carlo sign vectors)."""
    min_paired_cases: int = 6
    """Fewer paired cases give ``inconclusive`` (with 5 the exact test cannot reach p < 0.05)."""
    min_coverage: float = 0.5
    """A smaller share of paired cases among the cases either side ran gives ``inconclusive``."""
    drop_alpha: float = 0.01
    """Family-wise level of the gate's one-sided drop tests (``docs/gate.md``): the level a
    drop's Holm-adjusted p must beat, and the one its minimum detectable drop is computed at."""
    drop_statistic: DropStatistic = "both"
    """What mean overall's one-sided drop test reads of each run (``docs/gate.md``): ``both``,
    its overall score and its number of dimensions passed (the min-p combination: a drop seen
    in either counts); ``score`` or ``dimensions`` alone. A drop of the overall score is
    dimensions failing, and their count sees it with far fewer runs than the score, which a
    gate failure zeroes. The pass-rate and gate-pass-rate tests read their own 1/0."""


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a candidate's rows in one bundle."""

    bundle: str
    """Bundle id."""
    candidate: str
    """Candidate id."""

    @property
    def label(self) -> str:
        """``candidate@bundle``."""
        return f"{self.candidate}@{self.bundle}"


@dataclass(frozen=True)
class Exclusions:
    """What was left out of the comparison, and why."""

    unscoreable_current: tuple[tuple[str, int], ...]
    """(case, repetition) rows of the current side without an overall score."""
    unscoreable_baseline: tuple[tuple[str, int], ...]
    """The same on the baseline side."""
    cases_only_current: tuple[str, ...]
    """Cases with rows on the current side only (missing on the baseline side)."""
    cases_only_baseline: tuple[str, ...]
    """Cases with rows on the baseline side only."""
    cases_unscoreable_current: tuple[str, ...]
    """Cases the current side ran without a single scoreable repetition."""
    cases_unscoreable_baseline: tuple[str, ...]
    """Cases the baseline side ran without a single scoreable repetition."""
    unpaired_repetitions: int
    """Scoreable repetitions of paired cases whose repetition number is not scoreable on the
    other side (left out of McNemar's test only)."""


@dataclass(frozen=True)
class McNemar:
    """McNemar's exact test on ``passed``, pairing repetitions of paired cases by number."""

    pairs: int
    """(case, repetition) pairs scoreable on both sides."""
    both_passed: int
    """Pairs both sides passed."""
    current_only: int
    """Pairs only the current side passed."""
    baseline_only: int
    """Pairs only the baseline side passed."""
    both_failed: int
    """Pairs neither side passed."""
    p_value: float
    """Two-sided exact p-value (binomial on the discordant pairs); 1 without discordant pairs."""


@dataclass(frozen=True)
class Difference:
    """Current minus baseline for one statistic, over paired cases (each case weighs the same)."""

    statistic: str
    """``overall`` or a dimension name."""
    current: float
    """Mean over paired cases of the current side's case means."""
    baseline: float
    """The same for the baseline side."""
    difference: float
    """Mean paired case difference (current - baseline)."""
    low: float
    """Lower bound of the difference's interval (the inverted sign-flip test)."""
    high: float
    """Upper bound of the difference's interval."""
    p_value: float
    """Two-sided sign-flip p-value of a zero mean difference."""
    p_adjusted: float
    """Holm-adjusted p-value within its family (dimensions of a comparison; for ``overall``, the
    comparisons of a family, or the p-value itself when compared alone)."""
    p_drop: float = math.nan
    """One-sided p-value of "no drop" (small when the current side is lower): runs permuted
    within cases (the sign-flip test of the case differences with one run a side), reading
    what :attr:`ComparisonSettings.drop_statistic` says for mean overall."""
    standard_error: float = math.nan
    """Standard error of the paired case differences' mean (with the gate-failure floor,
    ``docs/aggregation.md`` section 4); the minimum detectable drop reads the drop test's own
    (:func:`drop_power`)."""


@dataclass(frozen=True)
class PairedComparison:
    """A complete paired comparison with its verdict."""

    current: Side
    """The side being judged."""
    baseline: Side
    """The side it is judged against."""
    cases: int
    """Cases with rows on either side."""
    paired_cases: tuple[str, ...]
    """Cases scoreable on both sides, in catalog order: the pairing units."""
    overall: Difference
    """Mean overall score difference."""
    dimensions: tuple[Difference, ...]
    """Per-dimension differences, canonical order, Holm-adjusted among themselves."""
    mcnemar: McNemar
    """Exact McNemar test on ``passed``."""
    exclusions: Exclusions
    """What was left out."""
    method: Literal["exact", "monte_carlo"]
    """How the sign-flip p-values were computed."""
    verdict: Verdict
    """``better``, ``worse`` or ``inconclusive`` (current relative to baseline)."""
    reason: str
    """Why, in one sentence."""
    settings: ComparisonSettings
    """The settings used."""

    @property
    def coverage(self) -> float:
        """Paired cases / cases with rows on either side (0 when there are none)."""
        return len(self.paired_cases) / self.cases if self.cases else 0.0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (NaN as None), keys as the field names."""
        data = _json_data(self)
        data["coverage"] = self.coverage
        return data  # type: ignore[no-any-return]


_ATOMS = frozenset({str, int, bool, type(None)})


def _json_data(value: Any) -> Any:
    """``_jsonable(dataclasses.asdict(value))`` in one pass, without copying every leaf:
    dataclasses as dicts of their fields, lists and tuples as lists, NaN as None (a comparison
    lists every unscoreable run it left out)."""
    if type(value) in _ATOMS:
        return value
    if isinstance(value, float):
        return None if value != value else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: _json_data(getattr(value, field.name))
            for field in dataclasses.fields(value)
        }
    if isinstance(value, list | tuple):
        return [_json_data(item) for item in value]
    if isinstance(value, dict):
        return {copy.deepcopy(key): _json_data(item) for key, item in value.items()}
    return copy.deepcopy(value)


Metric = Literal["mean_overall", "pass_rate", "gate_pass_rate"]
#: What a paired comparison can compare: the overall score, or a run's pass or effective-gate
#: flag as 1/0 (with each dimension's pass flag as the dimension's value).
METRICS: tuple[Metric, ...] = ("mean_overall", "pass_rate", "gate_pass_rate")


def _flag_values(column: pd.Series, scoreable: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """A nullable boolean column as 1/0 on scoreable rows, NaN elsewhere."""
    values = column.to_numpy(dtype=np.float64, na_value=0.0)
    return np.where(scoreable, values, np.nan)


def metric_values(frame: pd.DataFrame, metric: Metric) -> npt.NDArray[np.float64]:
    """(rows x 9): the value of ``metric`` then the eight dimension values, per row."""
    if metric == "mean_overall":
        return np.column_stack(
            [
                frame["overall_score"].to_numpy(dtype=np.float64),
                frame[list(SCORE_COLUMNS)].to_numpy(dtype=np.float64),
            ]
        )
    scoreable = frame["scoreable"].to_numpy(dtype=bool)
    flag = "passed" if metric == "pass_rate" else "gate_passed"
    return np.column_stack(
        [
            _flag_values(frame[flag], scoreable),
            *(_flag_values(frame[name], scoreable) for name in PASSED_COLUMNS),
        ]
    )


class CaseColumns:
    """The columns a comparison reads (``metric`` as the overall value), as numpy arrays
    extracted once per frame and shared by every comparison of it."""

    def __init__(self, frame: pd.DataFrame, metric: Metric = "mean_overall") -> None:
        self.bundles = [str(name) for name in frame["bundle"].cat.categories]
        self.candidates = [str(name) for name in frame["candidate"].cat.categories]
        self.case_names = [str(name) for name in frame["case"].cat.categories]
        self.bundle = frame["bundle"].cat.codes.to_numpy()
        self.candidate = frame["candidate"].cat.codes.to_numpy()
        self.case = frame["case"].cat.codes.to_numpy()
        self.repetition = frame["repetition"].to_numpy(dtype=np.int64)
        self.scoreable = frame["scoreable"].to_numpy(dtype=bool)
        self.passed = frame["passed"].to_numpy(dtype=bool, na_value=False)
        passes = frame[list(PASSED_COLUMNS)].to_numpy(dtype=np.float64, na_value=0.0)
        self.dimension_passes = np.where(self.scoreable, passes.sum(axis=1), np.nan)
        self._index: dict[tuple[int, int], npt.NDArray[np.intp]] | None = None
        self._set_metric(frame, metric)

    def _set_metric(self, frame: pd.DataFrame, metric: Metric) -> None:
        """The columns that depend on the metric, and no pairing yet."""
        self.metric: Metric = metric
        # A run's value of the metric is 0 unless it "succeeds": the gate passed (mean overall,
        # gate-pass rate) or the run passed (pass rate).
        flag = "passed" if metric == "pass_rate" else "gate_passed"
        self.success = frame[flag].to_numpy(dtype=bool, na_value=False) & self.scoreable
        self.values = metric_values(frame, metric)
        self.pairings: dict[tuple[Side, Side, Metric], _Pairing] = {}

    def with_metric(self, frame: pd.DataFrame, metric: Metric) -> CaseColumns:
        """``CaseColumns(frame, metric)`` of the frame these columns were read from: the
        columns that do not depend on the metric (and the row groups) are these, shared."""
        other = copy.copy(self)
        other._index = self._groups()
        other._set_metric(frame, metric)
        return other

    def _groups(self) -> dict[tuple[int, int], npt.NDArray[np.intp]]:
        """Row positions per (bundle code, candidate code), built once: a family reads many
        sides, and scanning a million rows for each would dominate its cost."""
        if self._index is None:
            width = max(len(self.candidates), 1)
            combined = self.bundle.astype(np.int64) * width + self.candidate.astype(np.int64)
            order = np.argsort(combined, kind="stable")
            codes, starts = np.unique(combined[order], return_index=True)
            bounds = [*starts[1:], order.size]
            self._index = {
                (int(code) // width, int(code) % width): order[start:end]
                for code, start, end in zip(codes, starts, bounds, strict=True)
            }
        return self._index

    @classmethod
    def pooled(
        cls, base: CaseColumns, bundles: Sequence[str], candidates: Sequence[str], label: str
    ) -> CaseColumns:
        """``candidates``' rows in ``bundles`` as one candidate ``label`` whose cases are the
        (candidate, case) pairs, named ``candidate/case`` and sorted by name: the pooled
        comparison's columns, taken from ``base`` without another frame."""
        groups = base._groups()
        parts = [
            groups.get(
                (base.bundles.index(bundle), base.candidates.index(name)), np.zeros(0, np.intp)
            )
            for bundle in bundles
            for name in candidates
        ]
        rows = np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.intp)
        units = base.candidate[rows].astype(np.int64) * len(base.case_names) + base.case[rows]
        present, inverse = np.unique(units, return_inverse=True)
        names = [
            f"{base.candidates[int(unit) // len(base.case_names)]}/"
            f"{base.case_names[int(unit) % len(base.case_names)]}"
            for unit in present
        ]
        rank = np.empty(len(names), dtype=np.int64)
        rank[np.argsort(names, kind="stable")] = np.arange(len(names))
        pooled = cls.__new__(cls)
        pooled.bundles = base.bundles
        pooled.candidates = [label]
        pooled.case_names = sorted(names)
        # Every row (the gate's frame holds the two bundles alone): the base's arrays as they
        # are, never written to, instead of copies (the values are 72 bytes a run).
        every = rows.size == base.bundle.size

        def taken(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
            return values if every else values[rows]

        pooled.bundle = taken(base.bundle)
        pooled.candidate = np.zeros(rows.size, dtype=base.candidate.dtype)
        pooled.case = rank[inverse]
        pooled.repetition = taken(base.repetition)
        pooled.scoreable = taken(base.scoreable)
        pooled.passed = taken(base.passed)
        pooled.metric = base.metric
        pooled.success = taken(base.success)
        pooled.values = taken(base.values)
        pooled.dimension_passes = taken(base.dimension_passes)
        pooled._index = None
        pooled.pairings = {}
        return pooled

    def rows(self, side: Side) -> npt.NDArray[np.intp]:
        """Positions of the side's rows; none raises a clear InputError."""
        found = np.zeros(0, dtype=np.intp)
        if side.bundle in self.bundles and side.candidate in self.candidates:
            key = (self.bundles.index(side.bundle), self.candidates.index(side.candidate))
            found = self._groups().get(key, found)
        if found.size == 0:
            raise InputError(
                f"no records for candidate {side.candidate!r} in bundle {side.bundle!r}",
                rule="unknown_selection",
            )
        return found


class _SideData:
    """Case-level view of one side: case means over scoreable repetitions and what was dropped."""

    def __init__(self, columns: CaseColumns, side: Side) -> None:
        rows = columns.rows(side)
        codes = columns.case[rows]
        scoreable = columns.scoreable[rows]
        repetitions = columns.repetition[rows]
        names = columns.case_names
        self.cases = [names[code] for code in np.unique(codes)]
        known = np.empty(len(names), dtype=object)  # the names by code, for numpy to pick
        known[:] = names
        self.unscoreable = tuple(
            zip(
                known[codes[~scoreable]].tolist(),
                repetitions[~scoreable].tolist(),
                strict=True,
            )
        )
        # Scoreable rows grouped by case (a stable sort keeps run order within a case), so each
        # case is one slice: a pooled side has a hundred cases and tens of thousands of rows.
        kept = np.flatnonzero(scoreable)
        order = kept[np.argsort(codes[kept], kind="stable")]
        present, starts, counts = np.unique(codes[order], return_index=True, return_counts=True)
        values = columns.values[rows[order]]
        # What the runs are kept as: the metric's column alone. Slices of ``values`` would keep
        # its nine columns alive for as long as the pairing (72 bytes a run, for every pairing
        # of every metric: a third of a large gate's memory).
        firsts = values[:, 0].copy()
        passed = columns.passed[rows[order]]
        success = columns.success[rows[order]]
        dimension_passes = columns.dimension_passes[rows[order]]
        self.runs: dict[str, npt.NDArray[np.float64]] = {}
        """Per case, each scoreable run's value of the metric."""
        self.dimension_passes: dict[str, npt.NDArray[np.float64]] = {}
        """Per case, each scoreable run's number of dimensions passed."""
        self.success_runs: dict[str, int] = {}
        self.success_sum: dict[str, float] = {}
        kept_repetitions = repetitions[order]
        self.means: dict[str, npt.NDArray[np.float64]] = {}
        self.repetitions: dict[str, npt.NDArray[np.int64]] = {}
        self.passed: dict[str, npt.NDArray[np.bool_]] = {}
        for code, start, count in zip(present, starts, counts, strict=True):
            case = names[code]
            chosen = slice(start, start + count)
            self.means[case] = values[chosen].mean(axis=0)
            self.repetitions[case] = kept_repetitions[chosen]
            self.passed[case] = passed[chosen]
            self.runs[case] = firsts[chosen]
            self.dimension_passes[case] = dimension_passes[chosen]
            self.success_runs[case] = int(success[chosen].sum())
            self.success_sum[case] = float(firsts[chosen][success[chosen]].sum())


def _mcnemar(current: _SideData, baseline: _SideData, paired: Sequence[str]) -> tuple[McNemar, int]:
    counts = np.zeros((2, 2), dtype=np.int64)  # [current passed][baseline passed]
    unpaired = 0
    for case in paired:
        mine, theirs = current.repetitions[case], baseline.repetitions[case]
        _, at_mine, at_theirs = np.intersect1d(mine, theirs, return_indices=True)
        unpaired += mine.size + theirs.size - 2 * at_mine.size
        np.add.at(
            counts,
            (
                current.passed[case][at_mine].astype(np.intp),
                baseline.passed[case][at_theirs].astype(np.intp),
            ),
            1,
        )
    result = McNemar(
        pairs=int(counts.sum()),
        both_passed=int(counts[1, 1]),
        current_only=int(counts[1, 0]),
        baseline_only=int(counts[0, 1]),
        both_failed=int(counts[0, 0]),
        p_value=mcnemar_exact(int(counts[1, 0]), int(counts[0, 1])),
    )
    return result, unpaired


def _verdict(
    overall: Difference, paired: int, cases: int, settings: ComparisonSettings
) -> tuple[Verdict, str]:
    tolerance = settings.tolerance
    coverage = paired / cases if cases else 0.0
    if paired < settings.min_paired_cases or coverage < settings.min_coverage:
        return "inconclusive", (
            f"paired coverage too small: {paired} of {cases} cases paired (need at least "
            f"{settings.min_paired_cases} and {settings.min_coverage:.0%})"
        )
    low, high, p = overall.low, overall.high, overall.p_adjusted
    if low == high == overall.difference == 0:
        return "inconclusive", (
            f"the two sides are identical on the {paired} paired cases (every difference is 0)"
        )
    interval = f"interval [{low:+.3f}, {high:+.3f}]"
    significant = p < settings.alpha
    above, below = bound_text(tolerance, "+"), bound_text(tolerance, "-")
    if low > tolerance and significant:
        return (
            "better",
            f"{interval} lies above {above} and p = {p:.4g} < {settings.alpha:g}",
        )
    if high < -tolerance and significant:
        return "worse", f"{interval} lies below {below} and p = {p:.4g} < {settings.alpha:g}"
    if low > tolerance or high < -tolerance:
        return "inconclusive", (
            f"{interval} clears the tolerance but the Holm-adjusted sign-flip p = {p:.4g} is "
            f"not below "
            f"{settings.alpha:g}"
        )
    if tolerance > 0 and -tolerance <= low and high <= tolerance:
        return (
            "inconclusive",
            f"{interval} lies within +/-{tolerance:g}: no difference that matters",
        )
    return (
        "inconclusive",
        f"{interval} straddles {'+/-' + format(tolerance, 'g') if tolerance else '0'}",
    )


def bound_text(tolerance: float, sign: str) -> str:
    """A tolerance as a bound in a sentence: ``-0.05`` / ``+0.05``, and ``0`` (never ``-0``)
    when the tolerance is 0."""
    return f"{sign}{tolerance:g}" if tolerance > 0 else "0"


def _gate_floor(side: _SideData, paired: Sequence[str]) -> float:
    """Variance of a side's paired-case average from its success rate alone (docs/aggregation.md
    section 4): Jeffreys rate p~ = (S + 1/2) / (N + 1) over the paired cases' runs, so a sample
    without a single failed run still has the variance failures at that rate would give."""
    if not paired:
        return 0.0
    runs = np.array([side.repetitions[case].size for case in paired], dtype=np.float64)
    successes = sum(side.success_runs[case] for case in paired)
    total = float(runs.sum())
    rate = (successes + 0.5) / (total + 1.0)
    value = sum(side.success_sum[case] for case in paired) / successes if successes else 1.0
    return float(value**2 * rate * (1 - rate) * (1.0 / runs).sum() / len(paired) ** 2)


def paired_t_interval(
    differences: npt.NDArray[np.float64], floor: float, confidence: float
) -> tuple[npt.NDArray[np.float64], ...]:
    """Mean, low, high and standard error per column of the paired ``differences``: Student t
    with n - 1 degrees of freedom; the first column's variance is at least ``floor``."""
    n, width = differences.shape
    if n == 0:
        empty = np.full(width, np.nan)
        return empty, empty.copy(), empty.copy(), empty.copy()
    estimate = differences.mean(axis=0)
    if n == 1:
        return estimate, estimate.copy(), estimate.copy(), np.full(width, np.nan)
    error = differences.std(axis=0, ddof=1) / math.sqrt(n)
    error[0] = max(float(error[0]), math.sqrt(floor))
    quantile = student_t_quantile(0.5 + confidence / 2, n - 1)
    low = np.maximum(estimate - quantile * error, -1.0)
    high = np.minimum(estimate + quantile * error, 1.0)
    return estimate, low, high, error


def compare_paired(
    frame: pd.DataFrame, current: Side, baseline: Side, settings: ComparisonSettings
) -> PairedComparison:
    """Compare two sides of ``frame`` case by case (see the module docstring)."""
    return compare_columns(CaseColumns(frame), current, baseline, settings)


class _Pairing:
    """Both sides' case means over the paired cases, and the name of their random streams."""

    def __init__(self, columns: CaseColumns, current: Side, baseline: Side, metric: Metric) -> None:
        self.mine, self.theirs = _SideData(columns, current), _SideData(columns, baseline)
        order = {case: index for index, case in enumerate(columns.case_names)}
        self.union = sorted(set(self.mine.cases) | set(self.theirs.cases), key=order.__getitem__)
        self.paired = tuple(
            case for case in self.union if case in self.mine.means and case in self.theirs.means
        )
        statistics = len(DIMENSIONS) + 1
        self.current_means = np.array([self.mine.means[case] for case in self.paired])
        self.current_means = self.current_means.reshape(-1, statistics)
        self.baseline_means = np.array([self.theirs.means[case] for case in self.paired])
        self.baseline_means = self.baseline_means.reshape(-1, statistics)
        self.differences = self.current_means - self.baseline_means
        self.metric = metric
        self._drop: dict[DropStatistic, float] = {}
        self._power: tuple[float, float] | None = None
        # The stream is named by what is compared (sides and metric), never by its place in a view.
        self.key: tuple[str, ...] = ("paired", current.label, baseline.label)
        if metric != "mean_overall":
            self.key = (*self.key, metric)


def _pairing(columns: CaseColumns, current: Side, baseline: Side, metric: Metric) -> _Pairing:
    """The pairing of two sides, kept on the columns: a family reads it for its raw p-values
    and again for the member's full comparison."""
    key = (current, baseline, metric)
    if key not in columns.pairings:
        columns.pairings[key] = _Pairing(columns, current, baseline, metric)
    return columns.pairings[key]


def _drop_values(
    side: _SideData, case: str, metric: Metric, statistic: DropStatistic
) -> npt.NDArray[np.float64]:
    """A case's runs as the drop test reads them: (runs,) or (runs x 2) for ``both``."""
    if metric != "mean_overall" or statistic == "score":
        return side.runs[case]
    if statistic == "dimensions":
        return side.dimension_passes[case]
    return np.column_stack([side.runs[case], side.dimension_passes[case]])


def _drop_p_value(pairing: _Pairing, settings: ComparisonSettings) -> float:
    """The one-sided "no drop" p-value: runs permuted within the paired cases, reading what
    ``settings.drop_statistic`` says for mean overall and the metric's own 1/0 otherwise."""
    statistic = settings.drop_statistic
    if statistic not in pairing._drop:
        pairing._drop[statistic] = stratified_permutation_test(
            [
                (
                    _drop_values(pairing.mine, case, pairing.metric, statistic),
                    _drop_values(pairing.theirs, case, pairing.metric, statistic),
                )
                for case in pairing.paired
            ],
            seed=settings.seed,
            key=pairing.key,
            resamples=settings.resamples,
        )
    return pairing._drop[statistic]


def drop_power(
    columns: CaseColumns,
    current: Side,
    baseline: Side,
    settings: ComparisonSettings,
    metric: Metric,
) -> tuple[float, float]:
    """(standard error, smallest attainable p) of the drop test's own statistic on the metric's
    values: the precision-weighted mean of case differences under "no change", its variance
    read from the runs' spread within each case (exact for the permutation), at least the
    gate-failure floor (a side without a failed run still has the variance failures at its
    Jeffreys rate would give); and the p-value of the most extreme arrangement, the level the
    test cannot go below (2**-n for n cases of one run a side, else the product of the cases'
    arrangement counts, and never below ``1 / (1 + resamples)`` for Monte Carlo)."""
    pairing = _pairing(columns, current, baseline, metric)
    if pairing._power is None:
        weights, variance, log_arrangements = 0.0, 0.0, 0.0
        for case in pairing.paired:
            mine, theirs = pairing.mine.runs[case], pairing.theirs.runs[case]
            a, b = mine.size, theirs.size
            weight = a * b / (a + b)
            spread = float(np.concatenate([mine, theirs]).var(ddof=1))
            weights += weight
            variance += weight * weight * spread * (1 / a + 1 / b)
            log_arrangements += math.lgamma(a + b + 1) - math.lgamma(a + 1) - math.lgamma(b + 1)
        if not pairing.paired:
            pairing._power = (math.nan, 1.0)
        else:
            floor = _gate_floor(pairing.mine, pairing.paired)
            floor += _gate_floor(pairing.theirs, pairing.paired)
            error = math.sqrt(max(variance / weights**2, floor))
            smallest = math.exp(-log_arrangements)
            single = all(pairing.mine.runs[case].size == 1 for case in pairing.paired) and all(
                pairing.theirs.runs[case].size == 1 for case in pairing.paired
            )
            if not (single and len(pairing.paired) <= EXACT_SIGN_FLIP_LIMIT):
                smallest = max(smallest, 1 / (1 + settings.resamples))
            pairing._power = (error, smallest)
    return pairing._power


def overall_p_value(
    columns: CaseColumns,
    current: Side,
    baseline: Side,
    settings: ComparisonSettings,
    *,
    metric: Metric = "mean_overall",
) -> float:
    """The overall sign-flip p-value :func:`compare_columns` gives, without the bootstrap: what
    a family needs of its other members."""
    return overall_p_values(columns, current, baseline, settings, metric=metric)[0]


def overall_p_values(
    columns: CaseColumns,
    current: Side,
    baseline: Side,
    settings: ComparisonSettings,
    *,
    metric: Metric = "mean_overall",
) -> tuple[float, float]:
    """The overall two-sided and one-sided ("no drop") sign-flip p-values, without the interval."""
    pairing = _pairing(columns, current, baseline, metric)
    two_sided, _, _ = sign_flip_tests(
        pairing.differences[:, :1],
        seed=settings.seed,
        key=pairing.key,
        resamples=settings.resamples,
    )
    return float(two_sided[0]), _drop_p_value(pairing, settings)


def compare_columns(
    columns: CaseColumns,
    current: Side,
    baseline: Side,
    settings: ComparisonSettings,
    *,
    metric: Metric = "mean_overall",
) -> PairedComparison:
    """One paired comparison on columns already extracted (see :func:`compare_paired`)."""
    pairing = _pairing(columns, current, baseline, metric)
    mine, theirs, union, paired = pairing.mine, pairing.theirs, pairing.union, pairing.paired
    current_means, baseline_means = pairing.current_means, pairing.baseline_means
    differences, key = pairing.differences, pairing.key
    statistics = len(DIMENSIONS) + 1
    p_values, _, method = sign_flip_tests(
        differences, seed=settings.seed, key=key, resamples=settings.resamples
    )
    floor = _gate_floor(mine, paired) + _gate_floor(theirs, paired)
    estimate, _, _, error = paired_t_interval(differences, floor, settings.confidence)
    low, high = sign_flip_interval(
        differences,
        seed=settings.seed,
        key=key,
        resamples=settings.resamples,
        confidence=settings.confidence,
    )
    with np.errstate(invalid="ignore"):
        side_means = (
            (current_means.mean(axis=0), baseline_means.mean(axis=0))
            if paired
            else (
                np.full(statistics, np.nan),
                np.full(statistics, np.nan),
            )
        )
    adjusted = np.concatenate(([p_values[0]], holm_adjust(p_values[1:])))
    results = [
        Difference(
            statistic=name,
            current=float(side_means[0][index]),
            baseline=float(side_means[1][index]),
            difference=float(estimate[index]),
            low=float(low[index]),
            high=float(high[index]),
            p_value=float(p_values[index]),
            p_adjusted=float(adjusted[index]),
            p_drop=_drop_p_value(pairing, settings) if index == 0 else math.nan,
            standard_error=float(error[index]),
        )
        for index, name in enumerate(("overall", *DIMENSIONS))
    ]
    mcnemar, unpaired = _mcnemar(mine, theirs, paired)
    exclusions = Exclusions(
        unscoreable_current=mine.unscoreable,
        unscoreable_baseline=theirs.unscoreable,
        cases_only_current=tuple(case for case in union if case not in theirs.cases),
        cases_only_baseline=tuple(case for case in union if case not in mine.cases),
        cases_unscoreable_current=tuple(case for case in mine.cases if case not in mine.means),
        cases_unscoreable_baseline=tuple(case for case in theirs.cases if case not in theirs.means),
        unpaired_repetitions=unpaired,
    )
    verdict, reason = _verdict(results[0], len(paired), len(union), settings)
    return PairedComparison(
        current=current,
        baseline=baseline,
        cases=len(union),
        paired_cases=paired,
        overall=results[0],
        dimensions=tuple(results[1:]),
        mcnemar=mcnemar,
        exclusions=exclusions,
        method=method,
        verdict=verdict,
        reason=reason,
        settings=settings,
    )


def with_adjusted_p(comparison: PairedComparison, p_adjusted: float) -> PairedComparison:
    """``comparison`` with its family's adjusted overall p-value and the verdict that gives."""
    overall = dataclasses.replace(comparison.overall, p_adjusted=float(p_adjusted))
    verdict, reason = _verdict(
        overall, len(comparison.paired_cases), comparison.cases, comparison.settings
    )
    return dataclasses.replace(comparison, overall=overall, verdict=verdict, reason=reason)


def adjust_family(comparisons: Sequence[PairedComparison]) -> list[PairedComparison]:
    """Holm-adjust the overall p-values across a family of comparisons and redo the verdicts."""
    adjusted = holm_adjust([comparison.overall.p_value for comparison in comparisons])
    return [
        with_adjusted_p(comparison, float(p_value))
        for comparison, p_value in zip(comparisons, adjusted, strict=True)
    ]


def _only_bundle(frame: pd.DataFrame, candidates: Sequence[str]) -> str:
    rows = frame.loc[frame["candidate"].isin(candidates).to_numpy()]
    bundles = observed_categories(rows["bundle"])
    if len(bundles) != 1:
        found = ", ".join(bundles) or "none"
        raise InputError(
            f"the candidates' records span {len(bundles)} bundles ({found}); choose one",
            rule="ambiguous_bundle",
        )
    return bundles[0]


def compare_candidates(
    frame: pd.DataFrame,
    current: str,
    baseline: str,
    settings: ComparisonSettings,
    *,
    bundle: str | None = None,
) -> PairedComparison:
    """Candidate ``current`` against candidate ``baseline`` in ``bundle`` (the only one if None)."""
    chosen = bundle if bundle is not None else _only_bundle(frame, [current, baseline])
    return compare_paired(frame, Side(chosen, current), Side(chosen, baseline), settings)


def compare_bundles(
    frame: pd.DataFrame,
    candidate: str,
    current: str,
    baseline: str,
    settings: ComparisonSettings,
) -> PairedComparison:
    """Candidate ``candidate`` in bundle ``current`` against itself in bundle ``baseline``."""
    return compare_paired(frame, Side(current, candidate), Side(baseline, candidate), settings)
