"""A large campaign end to end: ``gate`` and ``compare`` on two bundles of 500,000 observations
each, and their 1,000,000 scored records from Parquet to the aggregation frame.

    python benchmarks/campaign_benchmark.py                 # two bundles of 500,000 observations
    python benchmarks/campaign_benchmark.py --scale 0.02    # 10,000 each, while iterating

Two bundle folders (``baseline``, ``current``: a manifest and one ``observations.jsonl`` each)
are filled from the seeded generator (:mod:`scorecard.simulate`): the first and last nights of
campaigns of successive seeds make a pool of distinct observations per side, written over and
over to the size asked for (a repeated observation is the next run of its case, as a rerun
would be). Then each row is a fresh process, timed with its peak resident memory (the largest
process of its tree: a worker or the main one):

- ``scorecard gate current --baseline baseline`` (the verdict line only), again with
  ``--json FILE``, and with ``--junit-runs FILE`` (a test case per run: every run's detail);
- ``scorecard compare baseline current --across-bundles CANDIDATE --format json``;
- ``scorecard score baseline current --out both.parquet``, then ``compare`` of that Parquet
  (``--across-bundles``, and the campaign view, whose gate statuses judge every run);
- ``records_frame(both.parquet)`` (Parquet to the frame through Arrow): once in a fresh
  process (what a command pays, imports not counted), then ``--repeat`` times in this one, each
  call's wall and CPU seconds printed (CPU does not grow with the machine's load, wall does);
  with ``--check`` the frame through Python rows too (what it was before), which must be equal.

With ``--stack K`` the scored records are then written K times over (each copy's repetitions
after the earlier copies': further runs of the same cases) to a Parquet file of K times the
records and to one file per bundle, and ``compare`` (``--across-bundles`` and the campaign view)
and ``gate CURRENT.parquet --baseline BASELINE.parquet`` run on those: the commands at K times
the size without scoring K times the observations (``--scale 0.1 --stack 10``: 1,000,000
records).

The machine's cores are shared; quote ratios within one run, and the load average printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from score_benchmark import run_measured

from scorecard.aggregate._frames import records_frame
from scorecard.contract._bundles import MANIFEST_NAME, manifest_json
from scorecard.contract._catalog import load_catalog
from scorecard.engine._rows import LoadedRecords
from scorecard.engine.parquet import read_parquet_rows
from scorecard.simulate import REGRESSED_CANDIDATE, iter_bundles, observation_line

FULL = 500_000
POOL = 20_000
"""Distinct observations per side at most (generating is slower than scoring)."""


def build_bundles(root: Path, per_bundle: int) -> tuple[Path, Path, int]:
    """``baseline`` and ``current`` folders of ``per_bundle`` observations; their total bytes."""
    catalog = load_catalog()
    pools: tuple[list[str], list[str]] = ([], [])
    manifests: list[str] = []
    seed = 1
    while len(pools[1]) < min(per_bundle, POOL):
        bundles = list(iter_bundles(seed=seed, bundles=2, catalog=catalog))
        if not manifests:
            manifests = [manifest_json(bundle.manifest) for bundle in bundles]
        for pool, bundle in zip(pools, bundles, strict=True):
            pool.extend(observation_line(observation) for observation in bundle.observations)
        seed += 1
    size = 0
    folders = []
    for name, pool, manifest in zip(("baseline", "current"), pools, manifests, strict=True):
        folder = root / name
        folder.mkdir()
        (folder / MANIFEST_NAME).write_text(manifest, encoding="utf-8")
        with (folder / "observations.jsonl").open("w", encoding="utf-8") as stream:
            for index in range(per_bundle):
                line = pool[index % len(pool)]
                stream.write(line)
                size += len(line.encode("utf-8"))
        folders.append(folder)
    return folders[0], folders[1], size


def measured(command: list[str], scratch: Path) -> tuple[int, float, float]:
    """(exit status, wall seconds, peak MiB of the largest process) of ``command``."""
    environment = dict(os.environ)
    # Compiled bytecode, as an installed program has it (see score_benchmark.run_score).
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment["PYTHONPYCACHEPREFIX"] = str(scratch / "bytecode")
    status, seconds, peak, _, _ = run_measured(command, environment)
    return status, seconds, peak


_FRAME = """
import sys, time
from scorecard.aggregate._frames import records_frame
import scorecard.engine.parquet
wall, cpu = time.perf_counter(), time.process_time()
records_frame(sys.argv[1])
print(time.perf_counter() - wall, time.process_time() - cpu)
"""


def timed_frame(parquet: Path, repeat: int) -> list[tuple[float, float]]:
    """(wall, CPU seconds) of ``records_frame(parquet)``: first in a fresh process, then
    ``repeat`` calls in this one."""
    done = subprocess.run(
        [sys.executable, "-c", _FRAME, str(parquet)], capture_output=True, text=True, check=True
    )
    wall, cpu = done.stdout.split()
    times = [(float(wall), float(cpu))]
    for _ in range(repeat):
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        records_frame(parquet)
        times.append((time.perf_counter() - wall_start, time.process_time() - cpu_start))
    return times


def stack_parquet(parquet: Path, copies: int, scratch: Path) -> tuple[Path, list[Path]]:
    """``parquet``'s records ``copies`` times over: one file, and one file per bundle (first
    seen first). Copy k's repetitions follow the earlier copies' (k x the largest one)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from scorecard.engine.parquet import ROW_GROUP

    table = pq.read_table(parquet)
    most = pc.max(table["repetition"]).as_py()
    bundles = list(dict.fromkeys(table["bundle"].to_pylist()))
    stacked = scratch / "stacked.parquet"
    sides = [scratch / f"side-{index}.parquet" for index in range(len(bundles))]
    writers = [pq.ParquetWriter(path, table.schema) for path in [stacked, *sides]]
    place = table.schema.get_field_index("repetition")
    for copy in range(copies):
        repetition = pc.add(table["repetition"], pa.scalar(copy * most, pa.int64()))
        shifted = table.set_column(place, table.schema.field(place), repetition)
        writers[0].write_table(shifted, row_group_size=ROW_GROUP)
        for writer, bundle in zip(writers[1:], bundles, strict=True):
            part = shifted.filter(pc.equal(shifted["bundle"], bundle))
            writer.write_table(part, row_group_size=ROW_GROUP)
    for writer in writers:
        writer.close()
    return stacked, sides


def scorecard(*arguments: str) -> list[str]:
    """The ``scorecard`` command line with ``arguments``, output to /dev/null."""
    return [sys.executable, "-m", "scorecard", *arguments]


def _payload(text: str) -> str:
    """A compare JSON document up to its receipt (its last member, docs/receipts.md)."""
    return text.partition(',\n  "receipt": {')[0]


def main() -> int:
    """Build the bundles, run every row, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scale", type=float, default=1.0, help="fraction of 500,000 observations per bundle"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--check",
        action="store_true",
        help="also build the frame through Python rows and check it equals the Arrow one",
    )
    parser.add_argument("--skip-gate", action="store_true", help="leave out the gate row")
    parser.add_argument(
        "--repeat", type=int, default=5, help="records_frame calls timed in this process"
    )
    parser.add_argument(
        "--stack",
        type=int,
        default=0,
        help="also run compare and gate on the scored records written this many times over",
    )
    arguments = parser.parse_args()
    per_bundle = max(1, round(FULL * arguments.scale))
    workers = str(arguments.workers)
    with tempfile.TemporaryDirectory(prefix="scorecard-campaign-bench-") as name:
        scratch = Path(name)
        start = time.perf_counter()
        baseline, current, size = build_bundles(scratch, per_bundle)
        print(
            f"bundles: 2 x {per_bundle:,} observations, {size / 2**20:,.0f} MiB, written in "
            f"{time.perf_counter() - start:.1f} s; load average {os.getloadavg()[0]:.1f} on "
            f"{os.cpu_count()} cores; --workers {workers}"
        )
        measured(scorecard("--version"), scratch)  # untimed: compiles the bytecode
        parquet = scratch / "both.parquet"
        rows: list[tuple[str, list[str]]] = []
        if not arguments.skip_gate:
            gate = ["gate", str(current), "--baseline", str(baseline), "--workers", workers]
            rows.append(("scorecard gate (observations)", gate))
            rows.append(
                ("scorecard gate --json (observations)", [*gate, "--json", str(scratch / "g")])
            )
            rows.append(
                (
                    "scorecard gate --junit-runs (obs.)",
                    [*gate, "--junit-runs", str(scratch / "runs.xml")],
                )
            )
        rows += [
            (
                "scorecard compare (observations)",
                [
                    "compare",
                    str(baseline),
                    str(current),
                    "--across-bundles",
                    REGRESSED_CANDIDATE,
                    "--format",
                    "json",
                    "--workers",
                    workers,
                    "--out",
                    str(scratch / "c1"),
                ],
            ),
            (
                "scorecard score --out X.parquet",
                ["score", str(baseline), str(current), "--out", str(parquet), "--workers", workers],
            ),
            (
                "scorecard compare (Parquet)",
                [
                    "compare",
                    str(parquet),
                    "--across-bundles",
                    REGRESSED_CANDIDATE,
                    "--format",
                    "json",
                    "--out",
                    str(scratch / "c2"),
                ],
            ),
            (
                "scorecard compare (Parquet, campaign)",
                ["compare", str(parquet), "--format", "json", "--out", str(scratch / "c3")],
            ),
        ]
        print(f"\n{'row':40} {'exit':>4} {'seconds':>9} {'obs/s':>10} {'peak MiB':>9}")
        for label, command in rows:
            status, seconds, peak = measured(scorecard(*command), scratch)
            rate = 2 * per_bundle / seconds
            print(f"{label:40} {status:4} {seconds:9.2f} {rate:10,.0f} {peak:9.0f}", flush=True)
        # Up to the receipt, which names the inputs read (observations, or the Parquet).
        same = _payload((scratch / "c1").read_text()) == _payload((scratch / "c2").read_text())
        print(f"\ncompare outputs identical (observations, Parquet): {same}")
        if arguments.stack > 1:
            start = time.perf_counter()
            stacked, sides = stack_parquet(parquet, arguments.stack, scratch)
            records = 2 * per_bundle * arguments.stack
            print(
                f"\nstacked: {records:,} records ({arguments.stack} x), written in "
                f"{time.perf_counter() - start:.1f} s; load average {os.getloadavg()[0]:.1f}"
            )
            stacked_rows = [
                (
                    "compare stacked --across-bundles",
                    [
                        "compare",
                        str(stacked),
                        "--across-bundles",
                        REGRESSED_CANDIDATE,
                        *("--format", "json", "--out", str(scratch / "s1")),
                    ],
                ),
                (
                    "compare stacked (campaign)",
                    ["compare", str(stacked), "--format", "json", "--out", str(scratch / "s2")],
                ),
                (
                    "gate stacked (Parquet sides)",
                    [
                        "gate",
                        str(sides[1]),
                        "--baseline",
                        str(sides[0]),
                        "--json",
                        str(scratch / "s3"),
                    ],
                ),
            ]
            print(f"{'row':40} {'exit':>4} {'seconds':>9} {'records/s':>10} {'peak MiB':>9}")
            for label, command in stacked_rows:
                status, seconds, peak = measured(scorecard(*command), scratch)
                rate = records / seconds
                print(f"{label:40} {status:4} {seconds:9.2f} {rate:10,.0f} {peak:9.0f}", flush=True)
        load = os.getloadavg()[0]
        times = timed_frame(parquet, arguments.repeat)
        shown = ", ".join(f"{wall:.2f}/{cpu:.2f}" for wall, cpu in times)
        print(
            f"records_frame(Parquet) through Arrow, {2 * per_bundle:,} records, wall/CPU s: "
            f"{shown} (fresh process first; load average {load:.1f})"
        )
        identical = same
        if arguments.check:
            import pandas as pd

            frame = records_frame(parquet)
            start = time.perf_counter()
            expected = records_frame(LoadedRecords(rows=read_parquet_rows(parquet)))
            seconds = time.perf_counter() - start
            pd.testing.assert_frame_equal(frame, expected)
            print(f"records_frame through Python rows (before): {seconds:.2f} s; frames equal")
        gate_json = scratch / "g"
        if gate_json.exists():
            verdict = json.loads(gate_json.read_text()).get("verdict")
            print(f"gate verdict: {verdict}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
