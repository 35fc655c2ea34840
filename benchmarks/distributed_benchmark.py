"""``scorecard score-dask --scheduler local`` against ``scorecard score --workers 2`` on one
machine: the overhead of the cluster path where a cluster brings nothing.

    python benchmarks/distributed_benchmark.py                    # 4 nights x 50,400 runs
    python benchmarks/distributed_benchmark.py --copies 36        # 4 x 5,040, while iterating
    python benchmarks/distributed_benchmark.py --source ../older  # another checkout's code too

The campaign is the four sample nights, each night's observations written ``--copies`` times
over (later copies are further runs of the same cases). Each command runs as a fresh process
(start-up, and for Dask the local cluster's start, included), the two taking turns for
``--repeat`` rounds; the fastest round of each is shown, with the ratio and whether the two
datasets hold the same files, row groups and rows (``score --partition-by-bundle`` against
``score-dask``'s; the local files also carry the receipt ``score`` stamps in their metadata).
The local cluster has as many workers as the machine has cores (the command's default), one
thread each. Machines here are shared and noisy: quote the ratio of one run, with the load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "observations"


def build_campaign(folder: Path, copies: int) -> int:
    """The sample nights, each written ``copies`` times over; how many observations."""
    count = 0
    for night in sorted(SAMPLES.iterdir()):
        if not (night / "bundle.json").is_file():
            continue
        target = folder / night.name
        target.mkdir(parents=True)
        shutil.copy(night / "bundle.json", target / "bundle.json")
        lines = (night / "observations.jsonl").read_bytes()
        (target / "observations.jsonl").write_bytes(lines * copies)
        count += lines.count(b"\n") * copies
    return count


def timed(command: list[str], source: Path | None) -> float:
    """Wall seconds of ``python -m scorecard COMMAND``, which must succeed."""
    environment = dict(os.environ)
    if source is not None:
        environment["PYTHONPATH"] = str(source.resolve() / "src")
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "scorecard", *command],
        check=True,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def same_files(first: Path, second: Path) -> bool:
    """Whether two datasets hold the same files, each with the same row groups and rows (the
    local run's files also carry its receipt in their metadata; a cluster run's do not)."""
    import pyarrow.parquet as pq

    names = sorted(path.relative_to(first) for path in first.rglob("*") if path.is_file())
    if names != sorted(path.relative_to(second) for path in second.rglob("*") if path.is_file()):
        return False
    for name in names:
        one, other = pq.ParquetFile(first / name), pq.ParquetFile(second / name)
        if one.num_row_groups != other.num_row_groups or not one.read().equals(other.read()):
            return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=360, help="each night written N times")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--source", type=Path, help="also time another checkout's code")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scorecard-distributed-") as scratch:
        folder = Path(scratch)
        observations = build_campaign(folder / "nights", arguments.copies)
        print(f"load average at the start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
        print(f"campaign: {observations:,} observations in 4 nights")
        sources: list[Path | None] = [None]
        if arguments.source is not None:
            sources.append(arguments.source)
        nights = str(folder / "nights")
        best: dict[tuple[str, Path | None], float] = {}
        identical = True
        for _ in range(arguments.repeat):
            for source in sources:
                local, dask = folder / "local.parquet", folder / "dask.parquet"
                for path in (local, dask):
                    shutil.rmtree(path, ignore_errors=True)
                runs = {
                    "score --workers 2": ["score", nights, "--out", str(local),
                                          "--partition-by-bundle", "--workers", "2"],
                    "score-dask local": ["score-dask", nights, "--scheduler", "local",
                                         "--out", str(dask)],
                }  # fmt: skip
                for name, command in runs.items():
                    elapsed = timed(command, source)
                    best[(name, source)] = min(best.get((name, source), elapsed), elapsed)
                if source is None:  # another checkout may predate the identical layout
                    identical = identical and same_files(local, dask)
        print(f"\n{'checkout':10} {'command':18} {'seconds':>8} {'obs/s':>9}")
        for (name, source), seconds in best.items():
            checkout = "this" if source is None else source.name
            print(f"{checkout:10} {name:18} {seconds:8.2f} {observations / seconds:9,.0f}")
        for source in sources:
            checkout = "this" if source is None else source.name
            ratio = best[("score-dask local", source)] / best[("score --workers 2", source)]
            print(f"{checkout}: score-dask local / score --workers 2 = {ratio:.2f}x")
        print(
            f"datasets the same files, row groups and rows (this checkout, every round): {identical}"
        )
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
