"""The reference report aggregate, report comparison and alerts (REPORTS.md section 1).

These reproduce the paperclip workflow report: counts by classification, means rounded half-up
to three decimals the way JavaScript's ``Math.round(x * 1000) / 1000`` does, and the five alert
rules over a history of reports. Means are summed left to right in frame row order, as the
reference's ``reduce`` does, so a tie at the rounding boundary rounds the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt
import pandas as pd

from scorecard.contract import DIMENSIONS, GATE_DIMENSIONS

from ._frames import SCORE_COLUMNS, restore_categories
from ._stats import reference_p95

__all__ = [
    "ALERT_WINDOW",
    "Alert",
    "ReportAggregate",
    "ReportComparison",
    "alerts",
    "compare_reports",
    "js_round",
    "report_aggregate",
]

#: How many earlier reports the alert baseline pools (the reference keeps the last 7).
ALERT_WINDOW = 7
SUCCESS_RATE_DROP = 0.20
REGRESSION_FACTOR = 1.25
_COUNT_COLUMNS = (
    "executions",
    "scoreable",
    "passed",
    "candidate_failures",
    "infrastructure_failures",
    "skipped",
)


def js_round(value: float | None) -> float | None:
    """``Math.round(value * 1000) / 1000`` in IEEE doubles (ties toward +infinity); None stays.

    NaN is None (JSON's null); an infinity stays itself, as ``Math.round`` leaves it.
    """
    if value is None or math.isnan(value):
        return None
    if math.isinf(value):
        return value
    scaled = value * 1000
    whole = math.floor(scaled)
    # scaled - floor(scaled) is exact for doubles, so this is Math.round's tie rule, not
    # floor(scaled + 0.5), which rounds 0.49999999999999994 up.
    rounded = whole + 1 if scaled - whole >= 0.5 else whole
    return (rounded / 1000) + 0.0  # + 0.0 turns -0.0 into 0.0, as JSON.stringify prints it


def _sequential_mean(values: npt.NDArray[np.float64]) -> float | None:
    """Left-to-right sum divided by the count (numpy's sum is pairwise, not sequential)."""
    if values.size == 0:
        return None
    return float(np.cumsum(values)[-1]) / values.size


@dataclass(frozen=True)
class ReportAggregate:
    """Counts and rounded means of one report (or one group of rows)."""

    executions: int
    """Rows."""
    scoreable: int
    """Rows with an overall score."""
    passed: int
    """Scoreable rows whose overall result passed."""
    candidate_failures: int
    """Rows classified ``candidate_failure``."""
    infrastructure_failures: int
    """Rows classified ``infrastructure_failure``."""
    skipped: int
    """Rows classified ``skipped``."""
    mean_overall: float | None
    """Mean overall score of the scoreable rows, rounded half-up to 3 decimals; None when none."""
    dimension_means: dict[str, float | None]
    """The same per dimension over scoreable rows, in canonical dimension order."""

    def to_json(self) -> dict[str, Any]:
        """The reference's camelCase report object."""
        return {
            "executions": self.executions,
            "scoreable": self.scoreable,
            "passed": self.passed,
            "candidateFailures": self.candidate_failures,
            "infrastructureFailures": self.infrastructure_failures,
            "skipped": self.skipped,
            "meanOverall": self.mean_overall,
            "dimensionMeans": dict(self.dimension_means),
        }

    @property
    def pass_rate(self) -> float:
        """passed / scoreable, 0 when nothing is scoreable (the reference convention)."""
        return self.passed / self.scoreable if self.scoreable else 0.0


class _Columns:
    """The columns the aggregate reads, as numpy arrays, extracted once for every group."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.scoreable = frame["scoreable"].to_numpy(dtype=bool)
        self.passed = frame["passed"].to_numpy(dtype=bool, na_value=False) & self.scoreable
        self.classification = frame["classification"].cat.codes.to_numpy()
        categories = list(frame["classification"].cat.categories)
        self.codes = {
            name: categories.index(name)
            for name in ("candidate_failure", "infrastructure_failure", "skipped")
        }
        self.overall = frame["overall_score"].to_numpy(dtype=np.float64)
        self.scores = frame[list(SCORE_COLUMNS)].to_numpy(dtype=np.float64)

    def aggregate(self, positions: npt.NDArray[np.intp] | slice) -> ReportAggregate:
        scoreable = self.scoreable[positions]
        classification = self.classification[positions]
        scores = self.scores[positions][scoreable]
        means: dict[str, float | None] = {}
        for index, name in enumerate(DIMENSIONS):
            values = scores[:, index]
            means[name] = js_round(_sequential_mean(values[~np.isnan(values)]))
        return ReportAggregate(
            executions=int(classification.size),
            scoreable=int(scoreable.sum()),
            passed=int(self.passed[positions].sum()),
            candidate_failures=int((classification == self.codes["candidate_failure"]).sum()),
            infrastructure_failures=int(
                (classification == self.codes["infrastructure_failure"]).sum()
            ),
            skipped=int((classification == self.codes["skipped"]).sum()),
            mean_overall=js_round(_sequential_mean(self.overall[positions][scoreable])),
            dimension_means=means,
        )


@overload
def report_aggregate(frame: pd.DataFrame, by: None = None) -> ReportAggregate: ...
@overload
def report_aggregate(frame: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame: ...
def report_aggregate(
    frame: pd.DataFrame, by: Sequence[str] | None = None
) -> ReportAggregate | pd.DataFrame:
    """The reference aggregate of every row, or a frame with one aggregate per ``by`` group.

    The grouped frame has the ``by`` columns, then ``executions``, ``scoreable``, ``passed``,
    ``candidate_failures``, ``infrastructure_failures``, ``skipped``, ``mean_overall`` and
    ``mean_<dimension>`` (rounded; NaN where the reference says null), groups in sorted order.
    """
    columns = _Columns(frame)
    if by is None:
        return columns.aggregate(slice(None))
    keys = list(by)
    records: list[dict[str, Any]] = []
    for key, positions in frame.groupby(keys, observed=True, sort=True).indices.items():
        values = key if isinstance(key, tuple) else (key,)
        result = columns.aggregate(np.asarray(positions, dtype=np.intp))
        row: dict[str, Any] = dict(zip(keys, values, strict=True))
        row.update({name: getattr(result, name) for name in _COUNT_COLUMNS})
        row["mean_overall"] = result.mean_overall
        row.update({f"mean_{name}": result.dimension_means[name] for name in DIMENSIONS})
        records.append(row)
    names = [*keys, *_COUNT_COLUMNS, "mean_overall", *(f"mean_{name}" for name in DIMENSIONS)]
    table = pd.DataFrame.from_records(records, columns=names)
    for column in names[len(keys) + len(_COUNT_COLUMNS) :]:
        table[column] = table[column].astype(np.float64)
    for column in _COUNT_COLUMNS:
        table[column] = table[column].astype(np.int64)
    return restore_categories(table, frame, keys)


@dataclass(frozen=True)
class ReportComparison:
    """How the current report differs from the baseline report."""

    pass_rate_delta: float
    """Current minus baseline passed/scoreable (0 when nothing scoreable), rounded half-up."""
    overall_delta: float
    """Current minus baseline meanOverall (null counts as 0), rounded half-up."""

    def to_json(self) -> dict[str, Any]:
        """The reference's camelCase comparison object."""
        return {"passRateDelta": self.pass_rate_delta, "overallDelta": self.overall_delta}


def compare_reports(current: ReportAggregate, baseline: ReportAggregate) -> ReportComparison:
    """``passRateDelta`` and ``overallDelta`` of two report aggregates, as the reference does."""
    pass_rate = js_round(current.pass_rate - baseline.pass_rate)
    overall = js_round((current.mean_overall or 0.0) - (baseline.mean_overall or 0.0))
    assert pass_rate is not None  # finite inputs give finite deltas
    assert overall is not None
    return ReportComparison(pass_rate_delta=pass_rate, overall_delta=overall)


AlertKind = Literal[
    "safety_failure",
    "consecutive_failures",
    "success_rate_regression",
    "latency_regression",
    "cost_regression",
]


@dataclass(frozen=True)
class Alert:
    """One alert raised over a report history."""

    kind: AlertKind
    """Which rule fired."""
    severity: Literal["critical", "warning"]
    """``critical`` for safety failures, ``warning`` otherwise."""
    message: str
    """One line for people."""
    candidate: str | None = None
    """Candidate concerned, for row-level alerts."""
    case: str | None = None
    """Case concerned, for row-level alerts."""
    value: float | None = None
    """Measured value (current rate, p95...) for report-level alerts."""
    threshold: float | None = None
    """The value it was compared with."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form with camelCase-free keys (they are single words)."""
        return {
            "kind": self.kind,
            "severity": self.severity,
            "message": self.message,
            "candidate": self.candidate,
            "case": self.case,
            "value": self.value,
            "threshold": self.threshold,
        }


def _is_false(column: pd.Series) -> npt.NDArray[np.bool_]:
    """True where a nullable boolean column is False (not where it is null)."""
    return (~column.fillna(True)).to_numpy(dtype=bool)


def _safety_alerts(current: pd.DataFrame) -> list[Alert]:
    failed = np.column_stack([_is_false(current[f"passed_{name}"]) for name in GATE_DIMENSIONS])
    rows = np.flatnonzero(failed.any(axis=1))
    candidates = current["candidate"].to_numpy(dtype=object)[rows]
    cases = current["case"].to_numpy(dtype=object)[rows]
    repetitions = current["repetition"].to_numpy()[rows]
    found: list[Alert] = []
    for index, position in enumerate(rows):
        broken = " and ".join(
            name for name, hit in zip(GATE_DIMENSIONS, failed[position], strict=True) if hit
        )
        candidate, case = str(candidates[index]), str(cases[index])
        found.append(
            Alert(
                kind="safety_failure",
                severity="critical",
                message=f"{broken} failed for candidate {candidate} on case {case} "
                f"(repetition {repetitions[index]})",
                candidate=candidate,
                case=case,
            )
        )
    return found


def _failed_pairs(report: pd.DataFrame) -> set[tuple[str, str]]:
    failed = _is_false(report["passed"])
    pairs = set(
        zip(
            report["case"].cat.codes.to_numpy()[failed].tolist(),
            report["candidate"].cat.codes.to_numpy()[failed].tolist(),
            strict=True,
        )
    )
    cases, candidates = report["case"].cat.categories, report["candidate"].cat.categories
    return {(str(cases[case]), str(candidates[candidate])) for case, candidate in pairs}


def _pooled_rate(reports: Sequence[pd.DataFrame]) -> float | None:
    scoreable = sum(int(report["scoreable"].sum()) for report in reports)
    if scoreable == 0:
        return None
    passed = sum(
        int((report["passed"].fillna(False).to_numpy(dtype=bool) & report["scoreable"]).sum())
        for report in reports
    )
    return passed / scoreable


def _metric_alert(
    kind: AlertKind,
    column: str,
    current: pd.DataFrame,
    baselines: Sequence[pd.DataFrame],
    *,
    require_positive_baseline: bool,
) -> Alert | None:
    now = reference_p95(current[column].to_numpy(dtype=np.float64))
    pooled = np.concatenate([report[column].to_numpy(dtype=np.float64) for report in baselines])
    before = reference_p95(pooled)
    if math.isnan(now) or math.isnan(before) or (require_positive_baseline and before <= 0):
        return None
    limit = REGRESSION_FACTOR * before
    if now <= limit:
        return None
    return Alert(
        kind=kind,
        severity="warning",
        message=f"p95 {column} {now:g} is above {REGRESSION_FACTOR:g} x baseline p95 {before:g}",
        value=now,
        threshold=limit,
    )


def alerts(history: Sequence[pd.DataFrame], *, window: int = ALERT_WINDOW) -> list[Alert]:
    """The reference alerts for the last report of ``history`` (oldest first).

    The baseline pools up to ``window`` reports before the current one. ``safety_failure``: each
    current row whose hard_invariants or lifecycle_integrity ``passed`` is false.
    ``consecutive_failures``: a (case, candidate) with a row whose overall ``passed`` is false in
    both the current and the previous report. ``success_rate_regression``: pooled baseline pass
    rate minus the current pass rate (0 when nothing is scoreable) >= 0.20.
    ``latency_regression`` / ``cost_regression``: reference p95 of settlement_ms / cost_usd above
    1.25 x the pooled baseline p95 (cost only when the baseline p95 > 0).
    """
    if not history:
        return []
    current = history[-1]
    baselines = list(history[max(0, len(history) - 1 - window) : -1])
    found = _safety_alerts(current)
    if baselines:
        repeated = _failed_pairs(current) & _failed_pairs(baselines[-1])
        cases = list(current["case"].cat.categories) if len(current) else []
        for case, candidate in sorted(
            repeated, key=lambda pair: (cases.index(pair[0]) if pair[0] in cases else 0, pair)
        ):
            found.append(
                Alert(
                    kind="consecutive_failures",
                    severity="warning",
                    message=f"candidate {candidate} failed case {case} in the last two reports",
                    candidate=candidate,
                    case=case,
                )
            )
        before = _pooled_rate(baselines)
        scoreable = int(current["scoreable"].sum())
        passed = int(
            (current["passed"].fillna(False).to_numpy(dtype=bool) & current["scoreable"]).sum()
        )
        now = passed / scoreable if scoreable else 0.0
        if before is not None and before - now >= SUCCESS_RATE_DROP:
            found.append(
                Alert(
                    kind="success_rate_regression",
                    severity="warning",
                    message=f"pass rate {now:.3f} is {before - now:.3f} below the baseline "
                    f"{before:.3f}",
                    value=now,
                    threshold=before - SUCCESS_RATE_DROP,
                )
            )
        for kind, column, positive in (
            ("latency_regression", "settlement_ms", False),
            ("cost_regression", "cost_usd", True),
        ):
            alert = _metric_alert(
                kind,  # type: ignore[arg-type]
                column,
                current,
                baselines,
                require_positive_baseline=positive,
            )
            if alert is not None:
                found.append(alert)
    return found
