"""The commands that read scored Parquet (``compare``, ``gate``, ``plot all``) against the plain
aggregates DuckDB and pandas compute from the same file: what reading columns costs, beside
what the commands do with them.

    python benchmarks/columnar_benchmark.py                  # 4 nights x 50,400 runs
    python benchmarks/columnar_benchmark.py --copies 36      # 4 x 5,040, while iterating

The campaign is the four sample nights, each night's observations written ``--copies`` times
over (``distributed_benchmark.build_campaign``), scored once to ``campaign.parquet`` (every
night) and to ``newest.parquet`` / ``before.parquet`` (the newest night, the night before it).
Then, each a fresh process timed with its CPU seconds and peak memory (imports included, as a
user pays them), taking turns for ``--repeat`` rounds, the fastest round shown:

- ``duckdb``: per night x candidate, the runs, mean overall score, passed and gate-failed runs,
  each dimension's mean score, mean cost and settlement (``SELECT ... GROUP BY`` on the file);
- ``pandas``: the same aggregates by ``read_parquet`` and ``groupby``;
- ``scorecard compare campaign.parquet`` (every night's table, intervals, pairing, trends);
- ``scorecard gate newest.parquet --baseline before.parquet``;
- ``scorecard plot all campaign.parquet --out FOLDER``.

Each scorecard row is given as a ratio to ``duckdb``'s time in the same run (issue 33's target
for ``compare``: at most 3x; for ``plot all``: at most 10 s and 300 MiB). The machine's cores
are shared: quote the ratios of one run with the load printed before and after.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from distributed_benchmark import build_campaign
from score_benchmark import run_measured

from scorecard.contract import DIMENSIONS

DIMENSION_SCORES = tuple(f"score_{name}" for name in DIMENSIONS)

_DUCKDB = """
import sys, duckdb
dimensions = sys.argv[2].split(",")
query = (
    "SELECT bundle, candidate, count(*) AS runs, avg(overall_score) AS mean_overall, "
    "sum(CASE WHEN passed THEN 1 ELSE 0 END) AS passed, "
    "sum(CASE WHEN gate_passed = false THEN 1 ELSE 0 END) AS gate_failed, "
    + ", ".join(f"avg({name}) AS {name}" for name in dimensions)
    + ", avg(cost_usd) AS cost, avg(settlement_ms) AS settlement "
    "FROM read_parquet(?) GROUP BY bundle, candidate ORDER BY bundle, candidate"
)
rows = duckdb.connect().execute(query, [sys.argv[1]]).fetchall()
assert rows, "no groups"
"""

_PANDAS = """
import sys, pandas as pd
dimensions = sys.argv[2].split(",")
frame = pd.read_parquet(sys.argv[1])
frame["gate_failed"] = frame["gate_passed"].eq(False)
groups = frame.groupby(["bundle", "candidate"], observed=True, sort=True)
table = groups.agg(
    runs=("case", "size"), mean_overall=("overall_score", "mean"), passed=("passed", "sum"),
    gate_failed=("gate_failed", "sum"), cost=("cost_usd", "mean"),
    settlement=("settlement_ms", "mean"), **{name: (name, "mean") for name in dimensions},
)
assert len(table), "no groups"
"""


def measured(command: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak MiB of the largest process) of ``command``, which must
    succeed (``gate``: exit 0 or 1, a verdict)."""
    status, seconds, peak, cpu, _ = run_measured(command)
    if status not in (0, 1):
        raise SystemExit(f"{' '.join(command[:6])}... exited {status}")
    return seconds, cpu, peak


def scorecard(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "scorecard", *arguments]


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} CPUs)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=360, help="each night written N times")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the fastest is shown")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="columnar-benchmark-") as scratch:
        root = Path(scratch)
        runs = build_campaign(root / "nights", options.copies)
        nights = sorted(path for path in (root / "nights").iterdir())
        campaign, newest, before = (root / name for name in ("campaign", "newest", "before"))
        for out, inputs in ((campaign, nights), (newest, nights[-1:]), (before, nights[-2:-1])):
            subprocess.run(
                scorecard("score", *map(str, inputs), "--out", f"{out}.parquet"),
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        dimensions = ",".join(DIMENSION_SCORES)
        parquet = f"{campaign}.parquet"
        rows = {
            "duckdb": [sys.executable, "-c", _DUCKDB, parquet, dimensions],
            "pandas": [sys.executable, "-c", _PANDAS, parquet, dimensions],
            "compare": scorecard("compare", parquet),
            "gate": scorecard("gate", f"{newest}.parquet", "--baseline", f"{before}.parquet"),
            "plot all": [],  # a new folder each round
        }
        print(f"{runs:,} runs in {len(nights)} nights; {load()}", flush=True)
        best: dict[str, tuple[float, float, float]] = {}
        for round_number in range(options.repeat):
            for name, command in rows.items():
                if name == "plot all":
                    command = scorecard(
                        "plot", "all", parquet, "--out", str(root / f"plots-{round_number}")
                    )
                figures = measured(command)
                print(f"  round {round_number + 1}: {name} {figures[0]:.2f} s", flush=True)
                if name not in best or figures[0] < best[name][0]:
                    best[name] = figures
        print(f"fastest of {options.repeat}; after: {load()}")
        reference = best["duckdb"][0]
        for name, (wall, cpu, peak) in best.items():
            print(
                f"{name:<10} {wall:7.2f} s wall {cpu:7.2f} s CPU {peak:7.0f} MiB"
                f"  {wall / reference:5.1f}x duckdb"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
