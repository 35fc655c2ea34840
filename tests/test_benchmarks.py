"""Every benchmark still runs, at a tiny size, and its own identity checks hold.

The figures in the docs come from these scripts; one that breaks unnoticed (the aggregate
benchmark's record dicts once lacked a field the records contract requires, and its last stage
stopped with an error) leaves figures nobody can reproduce. Nothing here is timed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, c_only

RUNS = [
    (
        "aggregate_benchmark.py",
        ["--records", "600", "--bundles", "3", "--candidates", "3", "--dict-records", "100"],
        ["frames + all aggregates", "records_frame from 100 record dicts"],
    ),
    (
        "producer_benchmark.py",
        ["--observations", "300", "--repeat", "1"],
        [
            "outputs identical across variants, worker counts and checkouts: True",
            "records identical across worker counts and checkouts: True",
            "records / jsonl",
        ],
    ),
    (
        "score_benchmark.py",
        ["--observations", "300", "--repeat", "1", "--startup-repeat", "1"],
        ["outputs identical across configurations (per format): True"],
    ),
    (
        "load_benchmark.py",
        ["--observations", "300", "--repeat", "1"],
        ["rows identical across configurations (value and type): True"],
    ),
    (
        "campaign_benchmark.py",
        ["--scale", "0.001", "--repeat", "1"],
        ["compare outputs identical (observations, Parquet): True", "gate verdict:"],
    ),
    (
        "store_benchmark.py",
        ["--nights", "3", "--runs", "200", "--repeat", "1"],
        ["frame identical to score --out: True", "one run's detail", "of JSON Lines"],
    ),
    (
        "distributed_benchmark.py",
        ["--copies", "2", "--repeat", "1"],
        ["datasets the same files, row groups and rows (this checkout, every round): True"],
    ),
    (
        "columnar_benchmark.py",
        ["--copies", "1", "--repeat", "1"],
        ["560 runs in 4 nights", "x duckdb", "plot all", "after: load"],
    ),
    (
        "store_engines.py",
        ["--nights", "5", "--runs", "200", "--concurrent", "1", "--repeat", "1"],
        ["answers identical across engines: True", "reader during commits", "read by dask"],
    ),
    (
        "report_benchmark.py",
        ["--repeat", "1", "--runs", "150", "--nights", "2"],
        ["generated 2 nights of 150 runs", "of the night's raw JSON Lines", "after: load"],
    ),
    (
        "interval_coverage.py",
        ["--trials", "1", "--truth-runs", "20", "--designs", "12 x 1"],
        ["Generator simulate", "Generator independent", "paired difference"],
    ),
    (
        "gate_benchmark.py",
        ["--pairs", "2", "--coverage-trials", "2", "--truth-runs", "50"],
        [
            "12 cases x 2",
            "sample schedule",
            "Generator: simulate",
            "Generator: independent",
            "size, regress +3 (3 nights): opencode-2's mean overall fell",
        ],
    ),
]


#: Modules of benchmarks/ that are not scripts of their own, and what runs them.
HELPERS = {
    "independent_generator.py": "gate_benchmark.py --generator independent|both, "
    "interval_coverage.py"
}


def test_every_benchmark_is_run_here() -> None:
    scripts = {path.name for path in (ROOT / "benchmarks").glob("*.py")} - set(HELPERS)
    assert sorted(scripts) == sorted(script for script, _, _ in RUNS)


# Under SCORECARD_ENGINE=python the others run on the Python path; this one reads C's answers.
C_ONLY = {
    "producer_benchmark.py": c_only("the producer benchmark counts the C fast path's declines")
}


@pytest.mark.parametrize(
    ("script", "arguments", "expected"),
    [pytest.param(*run, id=run[0], marks=C_ONLY.get(run[0], ())) for run in RUNS],
)
def test_a_benchmark_runs_at_a_tiny_size(
    script: str, arguments: list[str], expected: list[str], tmp_path: Path
) -> None:
    finished = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *arguments],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    assert "Traceback" not in finished.stderr
    for line in expected:
        assert line in finished.stdout, finished.stdout[-2000:]
