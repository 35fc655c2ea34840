"""The campaign store at scale (issue 29's "Done when"): a history of N nights of M runs ingested
night by night, then the questions asked of it.

    python benchmarks/store_benchmark.py                          # 200 nights x 50,000 runs
    python benchmarks/store_benchmark.py --nights 20 --runs 50000 # a moderate history
    python benchmarks/store_benchmark.py --nights 3 --runs 300    # while iterating

How the nights are made (generating is slower than scoring): a pool of ``--pool`` x M distinct
observations is generated once by the seeded simulator (:mod:`scorecard.simulate`, the
campaigns of successive seeds, every night of each: failures, findings, forbidden calls and
infrastructure failures as the samples have them); night k is a sample of M of them drawn
without replacement, in an order drawn too, by ``random.Random(k)``, under its own campaign
manifest (id ``night-<date>``, ``night`` the date). So no night repeats a line, each night's
mix of outcomes per candidate and case differs, and writing a night costs a shuffle.

Measured, each in a fresh process timed from outside with its peak resident memory (the
largest process of its tree), on ``--workers`` workers:

- one night's ingest against ``scorecard score NIGHT --out night.parquet`` of the same night,
  in the same rounds (``--repeat``; the ingest into an empty scratch store, so every round
  scores), for the nights ``--timed`` says (default: the first and the last);
- every night's ingest into the store (in this process: its wall time per night);
- over the whole store, each in a fresh process (opening the store included, imports not):
  pass rate and mean overall per candidate x night; one candidate x case over every night
  (``Store.history``, and the ``history`` command's ``api.history`` with ``--candidate`` and
  ``--case-id``); one run's detail (``Store.run``); the gate of the newest night against the
  seven before, as ``gate --store`` makes it (``api.judge``: its sides, pooled, the verdict);
- the store's size against the raw JSON Lines.

Ratios are measured in one run; the machine's cores are shared, so the load average is printed
before and after. ``frame identical to score --out`` checks the runs file of a timed night
against the Parquet ``score`` wrote.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from score_benchmark import run_measured

from scorecard.contract import MANIFEST_NAME, manifest_json
from scorecard.simulate import iter_bundles, observation_line

FIRST_NIGHT = date(2026, 1, 1)


def make_pool(size: int) -> tuple[list[bytes], object]:
    """``size`` distinct observation lines from campaigns of successive seeds, and a manifest."""
    pool: list[bytes] = []
    manifest = None
    seed = 1
    while len(pool) < size:
        for bundle in iter_bundles(seed=seed, bundles=4):
            manifest = manifest or bundle.manifest
            pool.extend(observation_line(item).encode("utf-8") for item in bundle.observations)
        seed += 1
    return pool[:size], manifest


def write_night(folder: Path, index: int, pool: list[bytes], runs: int, manifest: object) -> int:
    """Night ``index``: ``runs`` lines of the pool drawn by ``random.Random(index)``; its bytes."""
    night = FIRST_NIGHT + timedelta(days=index)
    folder.mkdir(parents=True)
    stated = manifest.model_copy(  # type: ignore[attr-defined]
        update={"id": f"night-{night.isoformat()}", "night": night.isoformat()}
    )
    text = manifest_json(stated).encode("utf-8")
    (folder / MANIFEST_NAME).write_bytes(text)
    lines = random.Random(index).sample(pool, runs)
    data = b"".join(lines)
    (folder / "observations.jsonl").write_bytes(data)
    return len(data) + len(text)


def environment(scratch: Path) -> dict[str, str]:
    """Compiled bytecode, as an installed program has it (see score_benchmark.run_score)."""
    found = dict(os.environ)
    found.pop("PYTHONDONTWRITEBYTECODE", None)
    found["PYTHONPYCACHEPREFIX"] = str(scratch / "bytecode")
    return found


def measured(command: list[str], scratch: Path) -> tuple[float, float, float, str]:
    """(wall seconds, peak MiB of the largest process, CPU seconds, its stdout) of ``command``."""
    status, seconds, peak, cpu, printed = run_measured(command, environment(scratch))
    if status != 0:
        raise SystemExit(f"{command[:4]} exited {status}")
    return seconds, peak, cpu, printed


_INGEST = """
import sys
from scorecard.store import open_store
report = open_store(sys.argv[1], create=True).ingest([sys.argv[2]], workers=int(sys.argv[3]))
assert report.ok, report
"""

_ASK = """
import json, sys, time
from scorecard.store import open_store
root, question, bundle, candidate, case, repeat = sys.argv[1:7]
import duckdb, pandas, pyarrow, scorecard.aggregate  # imports are not what is timed
from scorecard import api
times = []
for _ in range(int(repeat)):
    start = time.perf_counter()
    store = open_store(root)
    if question == "per candidate x night":
        table = store.query(
            "SELECT bundle, candidate, avg(passed::INTEGER) AS pass_rate, "
            "avg(overall_score) AS mean_overall, count(*) AS runs FROM runs GROUP BY ALL"
        )
        answer = table.num_rows
    elif question == "candidate x case history":
        answer = store.history(candidate=candidate, case=case).num_rows
    elif question == "history command, one candidate x case":
        found = api.history(store=store, candidates=[candidate], case_ids=[case])
        answer = len(found.nights)
    elif question == "one run's detail":
        detail = store.run(bundle, candidate, case, 1)
        answer = len(detail.observation) + len(detail.scorecard)
    else:
        raise SystemExit(question)
    times.append(time.perf_counter() - start)
print(json.dumps({"times": times, "answer": answer}))
"""

_GATE = """
import json, sys, time
from scorecard import api
import pandas, pyarrow, scorecard.gate, scorecard.report  # imports are not timed
root, current, *baselines = sys.argv[1:]
start = time.perf_counter()
judged = api.judge(current, baselines, store=root)
print(json.dumps({"seconds": time.perf_counter() - start, "verdict": judged.result.verdict}))
"""


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nights", type=int, default=200)
    parser.add_argument("--runs", type=int, default=50_000, help="runs per night")
    parser.add_argument("--pool", type=float, default=2.0, help="distinct lines per run of a night")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of each timed comparison")
    parser.add_argument(
        "--timed", type=int, nargs="*", help="nights (0-based) whose ingest is timed"
    )
    parser.add_argument(
        "--scratch", type=Path, help="work here (kept) instead of a temporary folder"
    )
    arguments = parser.parse_args()
    nights, runs = arguments.nights, arguments.runs
    timed = set(arguments.timed if arguments.timed is not None else {0, nights - 1})
    workers = str(arguments.workers)
    with tempfile.TemporaryDirectory(prefix="scorecard-store-bench-") as name:
        scratch = arguments.scratch or Path(name)
        scratch.mkdir(parents=True, exist_ok=True)
        print(
            f"{nights} nights x {runs:,} runs, --workers {workers}; load average "
            f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
            flush=True,
        )
        start = time.perf_counter()
        pool, manifest = make_pool(max(runs, round(arguments.pool * runs)))
        print(
            f"pool: {len(pool):,} distinct observations generated in "
            f"{time.perf_counter() - start:.1f} s",
            flush=True,
        )
        from scorecard.aggregate import records_frame
        from scorecard.store import open_store

        store = open_store(scratch / "store", create=True)
        measured([sys.executable, "-m", "scorecard", "--version"], scratch)  # compiles bytecode
        raw = 0
        ingest_seconds: list[float] = []
        comparisons: list[tuple[int, float, float, float, float, float, float]] = []
        identical = True
        peak = 0.0
        for index in range(nights):
            night = scratch / "nights" / f"{index:04d}"
            raw += write_night(night, index, pool, runs, manifest)
            if index in timed:
                parquet = scratch / "night.parquet"
                best = [float("inf")] * 4
                cpus = [0.0, 0.0]
                for _ in range(arguments.repeat):
                    parquet.unlink(missing_ok=True)
                    score = measured(
                        [
                            sys.executable,
                            "-m",
                            "scorecard",
                            "score",
                            str(night),
                            "--out",
                            str(parquet),
                            "--workers",
                            workers,
                        ],
                        scratch,
                    )
                    shutil.rmtree(scratch / "empty", ignore_errors=True)
                    ingest = measured(
                        [
                            sys.executable,
                            "-c",
                            _INGEST,
                            str(scratch / "empty"),
                            str(night),
                            workers,
                        ],
                        scratch,
                    )
                    if score[0] < best[0]:
                        best[0], best[1], cpus[0] = score[0], score[1], score[2]
                    if ingest[0] < best[2]:
                        best[2], best[3], cpus[1] = ingest[0], ingest[1], ingest[2]
                peak = max(peak, best[1], best[3])
                comparisons.append((index, best[0], best[2], best[1], best[3], *cpus))
                empty = open_store(scratch / "empty")
                identical &= records_frame(empty.runs_files()).equals(records_frame(parquet))
            start = time.perf_counter()
            report = store.ingest([night], workers=arguments.workers)
            ingest_seconds.append(time.perf_counter() - start)
            assert report.ok, report
            shutil.rmtree(night)
            if (index + 1) % 10 == 0:
                print(f"  {index + 1} nights ingested", flush=True)
        shutil.rmtree(scratch / "empty", ignore_errors=True)
        print(
            f"\nfirst ingest of each night, in this process: mean "
            f"{sum(ingest_seconds) / nights:.2f} s, first {ingest_seconds[0]:.2f} s, last "
            f"{ingest_seconds[-1]:.2f} s, slowest {max(ingest_seconds):.2f} s"
        )
        print(
            f"\n{'night':>5} {'score s':>8} {'ingest s':>9} {'ratio':>6} {'score MiB':>10} "
            f"{'ingest MiB':>11} {'score CPU s':>12} {'ingest CPU s':>13}"
        )
        for index, score_s, ingest_s, score_mib, ingest_mib, score_cpu, ingest_cpu in comparisons:
            print(
                f"{index:5d} {score_s:8.2f} {ingest_s:9.2f} {ingest_s / score_s:6.2f} "
                f"{score_mib:10.0f} {ingest_mib:11.0f} {score_cpu:12.2f} {ingest_cpu:13.2f}"
            )
        bundles = store.bundles()
        middle = bundles[len(bundles) // 2].id
        candidate, case = "opencode-glm", "restart-recovery"
        print(
            f"\n{'question (fresh process, open_store included)':52} {'first s':>8} "
            f"{'best s':>7} {'peak MiB':>9} {'rows':>6}"
        )
        questions = (
            "per candidate x night",
            "candidate x case history",
            "history command, one candidate x case",
            "one run's detail",
        )
        for question in questions:
            _, mib, _, printed = measured(
                [
                    sys.executable,
                    "-c",
                    _ASK,
                    str(store.path),
                    question,
                    middle,
                    candidate,
                    case,
                    str(arguments.repeat),
                ],
                scratch,
            )
            result = json.loads(printed)
            peak = max(peak, mib)
            print(
                f"{question + f' ({runs * nights:,} runs)':52} {result['times'][0]:8.3f} "
                f"{min(result['times']):7.3f} {mib:9.0f} {result['answer']:6}"
            )
        ids = [entry.id for entry in bundles]
        _, mib, _, printed = measured(
            [sys.executable, "-c", _GATE, str(store.path), ids[-1], *ids[-8:-1]], scratch
        )
        gate = json.loads(printed)
        peak = max(peak, mib)
        print(
            f"{'gate: newest night vs the 7 before (sides, verdict)':52} "
            f"{gate['seconds']:8.3f} {'':7} {mib:9.0f} {gate['verdict']:>6}"
        )
        size = folder_bytes(store.path)
        runs_size = folder_bytes(store.path / "runs")
        detail_size = folder_bytes(store.path / "detail")
        print(
            f"\nstore {size / 2**20:,.1f} MiB (runs {runs_size / 2**20:,.1f}, detail "
            f"{detail_size / 2**20:,.1f}) for {raw / 2**20:,.1f} MiB of JSON Lines: "
            f"{100 * size / raw:.1f}%"
        )
        print(f"peak memory of any measured process: {peak:,.0f} MiB")
        print(f"frame identical to score --out: {identical}")
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
