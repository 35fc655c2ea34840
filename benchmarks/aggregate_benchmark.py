"""Time the aggregation layer on N synthetic scored records (default 1,000,000).

Usage: ``python benchmarks/aggregate_benchmark.py [--records N] [--bundles B] [--candidates C]
[--seed S] [--dict-records M]``.

The records are generated vectorised (numpy, seeded) directly in the shape
:func:`scorecard.aggregate._frames.records_frame` produces, then every frame, reference aggregate, table
and paired comparison is computed. Each stage prints its wall time and the process's peak
resident memory so far (``resource.getrusage``). ``--dict-records`` additionally times
``records_frame`` on that many record dicts (the path real inputs take). Target on a 2-core
machine: frames + all aggregates under 10 s and 4 GiB for 1,000,000 records.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from scorecard.aggregate._analysis import (
    analyze_campaign,
    compare_across_bundles,
    compare_to_baseline,
)
from scorecard.aggregate._compare import ComparisonSettings, compare_candidates
from scorecard.aggregate._frames import COLUMNS, long_frame, records_frame
from scorecard.aggregate._reference import alerts, report_aggregate
from scorecard.aggregate._tables import (
    candidate_provider_frame,
    cost_frame,
    dimension_frame,
    reliability_frame,
    summary_frame,
    trend_frame,
)
from scorecard.contract._models import CASE_IDS, DIMENSIONS, PROVIDERS
from scorecard.engine._rows import CLASSIFICATIONS
from scorecard.report._compare import bundle_view, trend_view

T = TypeVar("T")
WEIGHTS = np.array([0.0, 0.0, 0.20, 0.15, 0.10, 0.10, 0.20, 0.25])


def peak_mib() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stage(name: str, timings: list[tuple[str, float]], work: Callable[[], T]) -> T:
    """Run ``work``, print and record its wall time and the peak memory so far."""
    start = time.perf_counter()
    result = work()
    elapsed = time.perf_counter() - start
    timings.append((name, elapsed))
    print(f"{name:<44} {elapsed:8.3f} s   peak {peak_mib():8.0f} MiB", flush=True)
    return result


def synthetic_frame(records: int, bundles: int, candidates: int, seed: int) -> pd.DataFrame:
    """``records`` rows shaped like ``records_frame`` output: a full grid, trimmed to size."""
    rng = np.random.default_rng(seed)
    cases = len(CASE_IDS)
    repetitions = max(1, -(-records // (bundles * candidates * cases)))
    grid = np.indices((bundles, candidates, cases, repetitions)).reshape(4, -1)
    if grid.shape[1] > records:  # drop random runs (not whole groups) to hit the exact count
        grid = grid[:, np.sort(rng.choice(grid.shape[1], size=records, replace=False))]
    bundle, candidate, case, repetition = grid
    count = bundle.size
    candidate_ids = [f"cand-{index:02d}" for index in range(candidates)]
    provider = candidate % len(PROVIDERS)
    ability = rng.uniform(0.6, 0.95, size=candidates)[candidate]
    classification = rng.choice(4, size=count, p=[0.90, 0.04, 0.04, 0.02])
    scoreable = classification <= 1
    perfect = rng.random((count, len(DIMENSIONS))) < ability[:, None]
    scores = np.where(perfect, 1.0, np.round(rng.random((count, len(DIMENSIONS))), 2))
    scores[classification == 1, 1] = 0.0
    scores[~scoreable] = np.nan
    dimension_passed = scores >= 1.0
    gate = dimension_passed[:, 0] & dimension_passed[:, 1]
    overall = np.where(gate, (scores * WEIGHTS).sum(axis=1) / WEIGHTS.sum(), 0.0)
    overall[~scoreable] = np.nan
    passed = gate & dimension_passed.all(axis=1)

    def flags(values: np.ndarray[Any, Any]) -> pd.arrays.BooleanArray:
        return pd.arrays.BooleanArray(values.astype(bool), ~scoreable.copy())

    def categorical(codes: np.ndarray[Any, Any], categories: list[str]) -> Any:
        return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(categories))

    data: dict[str, Any] = {
        "bundle": categorical(bundle, [f"bundle-{index:03d}" for index in range(bundles)]),
        "candidate": categorical(candidate, candidate_ids),
        "provider": categorical(provider, sorted(PROVIDERS)),
        "model": categorical(candidate, [f"model-{index:02d}" for index in range(candidates)]),
        "tier": categorical(candidate % 2, ["inexpensive", "strong"]),
        "case": categorical(case, list(CASE_IDS)),
        "repetition": (repetition + 1).astype(np.int64),
        "classification": categorical(classification, list(CLASSIFICATIONS)),
    }
    for index, name in enumerate(DIMENSIONS):
        data[f"score_{name}"] = scores[:, index]
    for index, name in enumerate(DIMENSIONS):
        data[f"passed_{name}"] = flags(dimension_passed[:, index])
    data["overall_score"] = overall
    data["gate_passed"] = flags(gate)
    data["passed"] = flags(passed)
    data["scoreable"] = scoreable
    data["settlement_ms"] = np.round(rng.lognormal(11, 0.5, size=count))
    data["first_progress_ms"] = np.round(rng.lognormal(8.5, 0.4, size=count))
    data["total_tokens"] = np.round(rng.lognormal(10.5, 0.3, size=count))
    data["cost_usd"] = np.round(
        data["total_tokens"] * rng.uniform(2e-6, 2e-5, size=candidates)[candidate], 4
    )
    data["attempts"] = rng.integers(1, 3, size=count).astype(np.int64)
    data["tool_count"] = rng.integers(0, 12, size=count).astype(np.int64)
    return pd.DataFrame({name: data[name] for name in COLUMNS})


def record_dicts(frame: pd.DataFrame, count: int) -> list[dict[str, Any]]:
    """The first ``count`` rows of ``frame`` as ``scorecard.record.v1`` dicts."""
    rows = frame.head(count)
    records = []
    for row in rows.to_dict("records"):
        scoreable = bool(row["scoreable"])

        def nullable(value: Any) -> Any:
            return (
                None if value is pd.NA or (isinstance(value, float) and np.isnan(value)) else value
            )

        records.append(
            {
                "schema": "scorecard.record.v1",
                "bundleId": str(row["bundle"]),
                "caseId": str(row["case"]),
                "candidateId": str(row["candidate"]),
                "provider": str(row["provider"]),
                "model": str(row["model"]),
                "tier": str(row["tier"]),
                "repetition": int(row["repetition"]),
                "classification": str(row["classification"]),
                "gatePassed": nullable(row["gate_passed"]),  # the effective gate (no audit here)
                "metrics": {
                    "attempts": int(row["attempts"]),
                    "toolCount": int(row["tool_count"]),
                    "settlementMs": float(row["settlement_ms"]),
                    "costUsd": float(row["cost_usd"]),
                },
                "scorecard": {
                    "dimensions": {
                        name: {
                            "score": nullable(row[f"score_{name}"]),
                            "passed": nullable(row[f"passed_{name}"]),
                        }
                        for name in DIMENSIONS
                    },
                    "overall": {
                        "score": nullable(row["overall_score"]) if scoreable else None,
                        "gatePassed": nullable(row["gate_passed"]),
                        "passed": nullable(row["passed"]),
                    },
                },
            }
        )
    return records


def main(argv: list[str] | None = None) -> int:
    """Run every stage once and print the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--bundles", type=int, default=20)
    parser.add_argument("--candidates", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dict-records", type=int, default=100_000)
    options = parser.parse_args(argv)
    settings = ComparisonSettings(seed=options.seed)
    timings: list[tuple[str, float]] = []
    print(f"baseline peak {peak_mib():.0f} MiB (interpreter + imports)")
    frame = stage(
        f"generate {options.records:,} records",
        [],
        lambda: synthetic_frame(options.records, options.bundles, options.candidates, options.seed),
    )
    print(
        f"  {len(frame):,} rows, {frame.memory_usage(deep=True).sum() / 2**20:.0f} MiB frame, "
        f"{frame['bundle'].nunique()} bundles x {frame['candidate'].nunique()} candidates"
    )
    seed = options.seed
    groups = ["bundle", "candidate"]
    last = str(frame["bundle"].cat.categories[-1])
    candidates = [str(name) for name in frame["candidate"].cat.categories]
    stage("long_frame (rows x 8 dimensions)", timings, lambda: long_frame(frame))
    stage("report_aggregate (all rows)", timings, lambda: report_aggregate(frame))
    stage("report_aggregate by bundle, candidate", timings, lambda: report_aggregate(frame, groups))
    stage(
        "summary_frame (Wilson + cluster bootstrap)",
        timings,
        lambda: summary_frame(frame, seed=seed),
    )
    stage("dimension_frame", timings, lambda: dimension_frame(frame, seed=seed))
    stage("reliability_frame (pass@k, pass^k)", timings, lambda: reliability_frame(frame))
    stage("cost_frame + Pareto frontier", timings, lambda: cost_frame(frame))
    stage("candidate_provider_frame", timings, lambda: candidate_provider_frame(frame, seed=seed))
    stage("trend_frame", timings, lambda: trend_frame(frame, seed=seed))
    stage(
        "compare_candidates (one pair)",
        timings,
        lambda: compare_candidates(frame, candidates[1], candidates[0], settings, bundle=last),
    )
    stage(
        "compare_to_baseline (all candidates, Holm)",
        timings,
        lambda: compare_to_baseline(frame, candidates[0], candidates[1:], settings, bundle=last),
    )
    stage(
        "compare_across_bundles (one candidate)",
        timings,
        lambda: compare_across_bundles(frame, candidates[0], settings),
    )
    stage(
        "alerts over the bundle history",
        timings,
        lambda: alerts([group for _, group in frame.groupby("bundle", observed=True)]),
    )
    stage(
        "bundle_view (compare command, fresh analysis)",
        timings,
        lambda: bundle_view(analyze_campaign(frame, settings), bundle=last),
    )
    stage(
        "trend_view (compare --across-bundles, fresh analysis)",
        timings,
        lambda: trend_view(analyze_campaign(frame, settings), candidates[0]),
    )
    total = sum(elapsed for _, elapsed in timings)
    print(f"{'frames + all aggregates':<44} {total:8.3f} s   peak {peak_mib():8.0f} MiB")
    if options.dict_records:
        dicts = record_dicts(frame, options.dict_records)
        stage(f"records_frame from {len(dicts):,} record dicts", [], lambda: records_frame(dicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
