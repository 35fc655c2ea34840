"""Tables with uncertainty: quality, dimensions, reliability, cost and trends per group.

Every function takes a :func:`~scorecard.aggregate.records_frame` frame and the grouping
columns, and returns a DataFrame with one row per group (columns in ``docs/aggregation.md``).
Rates carry Wilson intervals; means carry cluster-bootstrap intervals that resample cases, each
group from its own stream derived from ``seed`` and the group's key.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from scorecard.contract import DIMENSIONS

from ._frames import PASSED_COLUMNS, SCORE_COLUMNS, restore_categories
from ._stats import (
    cluster_bootstrap_means,
    pareto_frontier,
    reference_p95,
    reliability_curves,
    seeded_generator,
    wilson_intervals,
)

__all__ = [
    "DEFAULT_GROUPS",
    "candidate_provider_frame",
    "case_reliability_frame",
    "cost_frame",
    "dimension_frame",
    "reliability_frame",
    "summary_frame",
    "trend_frame",
]

DEFAULT_GROUPS = ("bundle", "candidate")
BOOTSTRAP_RESAMPLES = 2000
_STATISTICS = ("overall", *DIMENSIONS)


class _Arrays:
    """Columns as numpy arrays, extracted once and sliced per group."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.scoreable = frame["scoreable"].to_numpy(dtype=bool)
        self.passed = frame["passed"].to_numpy(dtype=bool, na_value=False) & self.scoreable
        self.gate_passed = frame["gate_passed"].to_numpy(dtype=bool, na_value=False)
        self.gate_passed &= self.scoreable
        self.dimension_passed = frame[list(PASSED_COLUMNS)].to_numpy(dtype=bool, na_value=False)
        self.case = frame["case"].cat.codes.to_numpy().astype(np.int64)
        self.cases = len(frame["case"].cat.categories)
        # Codes, not strings: comparing a million strings per group would dominate the tables.
        self.classification = frame["classification"].cat.codes.to_numpy()
        categories = list(frame["classification"].cat.categories)
        self.codes = {name: categories.index(name) for name in categories}
        self.statistics = np.column_stack(
            [
                frame["overall_score"].to_numpy(dtype=np.float64),
                frame[list(SCORE_COLUMNS)].to_numpy(dtype=np.float64),
            ]
        )


def _groups(
    frame: pd.DataFrame, by: Sequence[str]
) -> Iterator[tuple[tuple[Any, ...], npt.NDArray[np.intp]]]:
    for key, positions in frame.groupby(list(by), observed=True, sort=True).indices.items():
        yield (key if isinstance(key, tuple) else (key,)), np.asarray(positions, dtype=np.intp)


def stream_key(by: Sequence[str], key: Sequence[Any]) -> tuple[str, ...]:
    """The random-stream key of a group: its ``column=value`` pairs sorted, so a group resamples
    the same way whatever the order of the grouping columns."""
    return tuple(sorted(f"{column}={value}" for column, value in zip(by, key, strict=True)))


def _keyed(frame: pd.DataFrame, by: Sequence[str], keys: list[tuple[Any, ...]]) -> pd.DataFrame:
    table = pd.DataFrame.from_records(keys, columns=list(by))
    return restore_categories(table, frame, by)


def _bootstrap(
    arrays: _Arrays,
    key: tuple[str, ...],
    positions: npt.NDArray[np.intp],
    *,
    seed: int,
    resamples: int,
    confidence: float,
) -> tuple[npt.NDArray[np.float64], ...]:
    """Mean of the overall and each dimension score over scoreable rows, resampling cases."""
    rows = positions[arrays.scoreable[positions]]
    cases = arrays.case[rows]
    values = arrays.statistics[rows]
    counts = np.bincount(cases, minlength=arrays.cases).astype(np.float64)
    sums = np.column_stack(
        [
            np.bincount(cases, weights=values[:, j], minlength=arrays.cases)
            for j in range(values.shape[1])
        ]
    )
    present = counts > 0
    rng = seeded_generator(seed, ("cluster", *key))
    return cluster_bootstrap_means(
        sums[present], counts[present], rng=rng, resamples=resamples, confidence=confidence
    )


def _with_wilson(
    table: pd.DataFrame,
    name: str,
    successes: Sequence[int],
    trials: Sequence[int],
    confidence: float,
) -> None:
    rate, low, high = wilson_intervals(successes, trials, confidence)
    table[f"{name}_rate"] = rate
    table[f"{name}_rate_low"] = low
    table[f"{name}_rate_high"] = high


def summary_frame(
    frame: pd.DataFrame,
    by: Sequence[str] = DEFAULT_GROUPS,
    *,
    seed: int,
    confidence: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> pd.DataFrame:
    """Per group: counts, pass and gate-pass rates with Wilson intervals, mean overall with a
    case-cluster bootstrap interval."""
    arrays = _Arrays(frame)
    keys: list[tuple[Any, ...]] = []
    counts: dict[str, list[int]] = {
        name: []
        for name in (
            "executions",
            "scoreable",
            "passed",
            "gate_passed",
            "cases",
            "candidate_failures",
            "infrastructure_failures",
            "skipped",
        )
    }
    means: list[tuple[float, float, float]] = []
    for key, positions in _groups(frame, by):
        keys.append(key)
        scoreable = arrays.scoreable[positions]
        classification = arrays.classification[positions]
        counts["executions"].append(int(positions.size))
        counts["scoreable"].append(int(scoreable.sum()))
        counts["passed"].append(int(arrays.passed[positions].sum()))
        counts["gate_passed"].append(int(arrays.gate_passed[positions].sum()))
        counts["cases"].append(int(np.unique(arrays.case[positions[scoreable]]).size))
        codes = arrays.codes
        counts["candidate_failures"].append(
            int((classification == codes["candidate_failure"]).sum())
        )
        counts["infrastructure_failures"].append(
            int((classification == codes["infrastructure_failure"]).sum())
        )
        counts["skipped"].append(int((classification == codes["skipped"]).sum()))
        estimate, low, high = _bootstrap(
            arrays,
            stream_key(by, key),
            positions,
            seed=seed,
            resamples=resamples,
            confidence=confidence,
        )
        means.append((float(estimate[0]), float(low[0]), float(high[0])))
    table = _keyed(frame, by, keys)
    for name in ("executions", "scoreable", "passed"):
        table[name] = np.asarray(counts[name], dtype=np.int64)
    _with_wilson(table, "pass", counts["passed"], counts["scoreable"], confidence)
    table["gate_passed"] = np.asarray(counts["gate_passed"], dtype=np.int64)
    _with_wilson(table, "gate_pass", counts["gate_passed"], counts["scoreable"], confidence)
    table["cases"] = np.asarray(counts["cases"], dtype=np.int64)
    bounds = np.asarray(means, dtype=np.float64).reshape(-1, 3)
    table["mean_overall"] = bounds[:, 0]
    table["mean_overall_low"] = bounds[:, 1]
    table["mean_overall_high"] = bounds[:, 2]
    for name in ("candidate_failures", "infrastructure_failures", "skipped"):
        table[name] = np.asarray(counts[name], dtype=np.int64)
    return table


def dimension_frame(
    frame: pd.DataFrame,
    by: Sequence[str] = DEFAULT_GROUPS,
    *,
    seed: int,
    confidence: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> pd.DataFrame:
    """Per group and dimension: mean score with a case-cluster bootstrap interval and the share
    of scoreable rows that passed the dimension with a Wilson interval.

    The bootstrap draws are those of :func:`summary_frame` for the same seed, so the overall and
    dimension intervals of a group come from the same resampled cases.
    """
    arrays = _Arrays(frame)
    keys: list[tuple[Any, ...]] = []
    mean_rows: list[npt.NDArray[np.float64]] = []
    passed: list[int] = []
    scoreable: list[int] = []
    for key, positions in _groups(frame, by):
        estimate, low, high = _bootstrap(
            arrays,
            stream_key(by, key),
            positions,
            seed=seed,
            resamples=resamples,
            confidence=confidence,
        )
        rows = positions[arrays.scoreable[positions]]
        for index in range(len(DIMENSIONS)):
            keys.append((*key, DIMENSIONS[index]))
            mean_rows.append(np.array([estimate[index + 1], low[index + 1], high[index + 1]]))
            passed.append(int(arrays.dimension_passed[rows, index].sum()))
            scoreable.append(int(rows.size))
    table = _keyed(frame, by, [key[:-1] for key in keys])
    table.insert(
        len(by),
        "dimension",
        pd.Series(
            [key[-1] for key in keys],
            dtype=pd.CategoricalDtype(list(DIMENSIONS), ordered=True),
        ),
    )
    bounds = np.asarray(mean_rows, dtype=np.float64).reshape(-1, 3)
    table["mean"] = bounds[:, 0]
    table["mean_low"] = bounds[:, 1]
    table["mean_high"] = bounds[:, 2]
    table["scoreable"] = np.asarray(scoreable, dtype=np.int64)
    table["passed"] = np.asarray(passed, dtype=np.int64)
    _with_wilson(table, "pass", passed, scoreable, confidence)
    return table


def case_reliability_frame(frame: pd.DataFrame, by: Sequence[str] = DEFAULT_GROUPS) -> pd.DataFrame:
    """Per group, case and k = 1..n: pass@k and pass^k from n scoreable repetitions, c passed."""
    arrays = _Arrays(frame)
    keys: list[tuple[Any, ...]] = []
    counts: list[tuple[int, int]] = []
    curves: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
    categories = frame["case"].cat.categories
    for key, positions in _groups(frame, by):
        rows = positions[arrays.scoreable[positions]]
        n_by_case = np.bincount(arrays.case[rows], minlength=arrays.cases)
        c_by_case = np.bincount(arrays.case[rows[arrays.passed[rows]]], minlength=arrays.cases)
        for code in np.flatnonzero(n_by_case):
            n, c = int(n_by_case[code]), int(c_by_case[code])
            keys.append((*key, categories[int(code)]))
            counts.append((n, c))
            curves.append(reliability_curves(n, c))
    sizes = np.array([n for n, _ in counts], dtype=np.int64)
    # One row per (group, case) first, then repeated k = 1..n times: no per-row Python objects.
    table = _keyed(frame, [*by, "case"], keys).take(np.repeat(np.arange(len(keys)), sizes))
    table = table.reset_index(drop=True)
    table["repetitions"] = np.repeat(sizes, sizes)
    table["passes"] = np.repeat(np.array([c for _, c in counts], dtype=np.int64), sizes)
    starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    table["k"] = np.arange(int(sizes.sum()), dtype=np.int64) - starts + 1
    empty = np.zeros(0, dtype=np.float64)
    table["pass_at_k"] = np.concatenate([at for at, _ in curves]) if curves else empty
    table["pass_hat_k"] = np.concatenate([hat for _, hat in curves]) if curves else empty
    return table


def reliability_frame(frame: pd.DataFrame, by: Sequence[str] = DEFAULT_GROUPS) -> pd.DataFrame:
    """Per group and k: pass@k and pass^k averaged over one case set for every k.

    The set is the group's cases with the most scoreable repetitions (``K``, so k = 1..K); every
    k is averaged over the same cases (``cases``), so pass@k never falls and pass^k never rises
    with k, and pass^2 cannot exceed pass@1 the way it could if each k averaged the cases that
    happen to reach it. With cases of unequal repetition counts pass@1 here is the pass rate of
    those cases, not of the whole group.
    """
    per_case = case_reliability_frame(frame, by)
    if by:
        most = per_case.groupby(list(by), observed=True)["repetitions"].transform("max")
    else:
        most = pd.Series(per_case["repetitions"].max(), index=per_case.index)
    kept = per_case.loc[(per_case["repetitions"] == most).to_numpy()]
    keys = [*by, "k"]
    table = (
        kept.groupby(keys, observed=True, sort=True)
        .agg(
            cases=("case", "size"),
            pass_at_k=("pass_at_k", "mean"),
            pass_hat_k=("pass_hat_k", "mean"),
        )
        .reset_index()
    )
    table["cases"] = table["cases"].astype(np.int64)
    return table


def cost_frame(frame: pd.DataFrame, by: Sequence[str] = DEFAULT_GROUPS) -> pd.DataFrame:
    """Per group: tokens, cost and latency next to quality, and the quality-vs-cost frontier.

    ``pareto`` marks groups no other group beats on both mean overall (higher) and mean cost per
    execution (lower); it is judged within each bundle when ``bundle`` is a grouping column.
    """
    arrays = _Arrays(frame)
    keys: list[tuple[Any, ...]] = []
    records: list[dict[str, float]] = []
    metrics = {
        name: frame[name].to_numpy(dtype=np.float64)
        for name in ("total_tokens", "cost_usd", "settlement_ms", "first_progress_ms")
    }
    for key, positions in _groups(frame, by):
        keys.append(key)
        scoreable = positions[arrays.scoreable[positions]]
        passes = int(arrays.passed[positions].sum())
        record: dict[str, float] = {
            "executions": float(positions.size),
            "passed": float(passes),
            "mean_overall": float(arrays.statistics[scoreable, 0].mean())
            if scoreable.size
            else np.nan,
        }
        for name in ("total_tokens", "cost_usd"):
            values = metrics[name][positions]
            known = values[~np.isnan(values)]
            record[f"{name}_mean"] = float(known.mean()) if known.size else np.nan
            record[f"{name}_sum"] = float(known.sum()) if known.size else np.nan
        # Runs without a cost are left out of the cost mean; they are left out here too, or
        # their passes would make the known costs look cheaper per pass.
        costed = ~np.isnan(metrics["cost_usd"][positions])
        costed_passes = int(arrays.passed[positions][costed].sum())
        record["cost_per_pass"] = (
            record["cost_usd_sum"] / costed_passes if costed_passes else np.nan
        )
        for name in ("settlement_ms", "first_progress_ms"):
            values = metrics[name][positions]
            known = values[~np.isnan(values)]
            record[f"{name}_median"] = float(np.median(known)) if known.size else np.nan
            record[f"{name}_p95"] = reference_p95(known)
        records.append(record)
    table = _keyed(frame, by, keys)
    body = pd.DataFrame.from_records(
        records,
        columns=[
            "executions",
            "passed",
            "mean_overall",
            "total_tokens_mean",
            "total_tokens_sum",
            "cost_usd_mean",
            "cost_usd_sum",
            "cost_per_pass",
            "settlement_ms_median",
            "settlement_ms_p95",
            "first_progress_ms_median",
            "first_progress_ms_p95",
        ],
    )
    for column in body.columns:
        table[column] = body[column].to_numpy(
            dtype=np.int64 if column in ("executions", "passed") else np.float64
        )
    frontier = np.zeros(len(table), dtype=bool)
    if len(table):
        blocks = (
            table.groupby("bundle", observed=True).indices.values()
            if "bundle" in by
            else [np.arange(len(table))]
        )
        for block in blocks:
            frontier[block] = pareto_frontier(
                table["mean_overall"].to_numpy()[block], table["cost_usd_mean"].to_numpy()[block]
            )
    table["pareto"] = frontier
    return table


def candidate_provider_frame(
    frame: pd.DataFrame,
    *,
    seed: int,
    confidence: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> pd.DataFrame:
    """:func:`summary_frame` by bundle, candidate and provider (pivot it for a grid)."""
    return summary_frame(
        frame,
        ("bundle", "candidate", "provider"),
        seed=seed,
        confidence=confidence,
        resamples=resamples,
    )


def trend_frame(
    frame: pd.DataFrame,
    *,
    seed: int,
    confidence: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> pd.DataFrame:
    """Per candidate, one row per bundle in bundle order: :func:`summary_frame` columns."""
    return summary_frame(
        frame, ("candidate", "bundle"), seed=seed, confidence=confidence, resamples=resamples
    )
