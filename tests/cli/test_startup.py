"""What `scorecard score` imports to start: the set of modules, not a timing (start-up time is
measured by ``benchmarks/score_benchmark.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HEAVY = ("pandas", "numpy", "matplotlib", "pyarrow", "rich", "dask")
"""Modules a JSON Lines to JSON Lines run never needs."""

# Runs the console script's entry point and, as it leaves (it leaves through os._exit, which
# skips atexit), prints the names of the loaded modules.
_LOADED_AT_EXIT = """
import json, os, sys
leave = os._exit
def report(code):
    sys.stdout.write(json.dumps(sorted(sys.modules)) + "\\n")
    sys.stdout.flush()
    leave(code)
os._exit = report
sys.argv = ["scorecard", *sys.argv[1:]]
from scorecard.cli import main
main()
"""


def loaded_by(*args: str) -> tuple[int, list[str]]:
    """(exit status, the modules loaded) of `scorecard ARGS` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _LOADED_AT_EXIT, *args], capture_output=True, check=False
    )
    return done.returncode, json.loads(done.stdout.decode().splitlines()[-1])


def is_under(module: str, package: str) -> bool:
    """Whether ``module`` is ``package`` or inside it."""
    return module == package or module.startswith(package + ".")


def test_scoring_jsonl_to_jsonl_loads_no_heavy_module(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """`scorecard score one.jsonl --out scored.jsonl` scores without pandas, numpy, matplotlib,
    pyarrow, rich or dask."""
    source = tmp_path / "one.jsonl"
    source.write_text(json.dumps(observation) + "\n")
    for workers in ("1", "2"):
        code, modules = loaded_by(
            "score", str(source), "--out", str(tmp_path / "scored.jsonl"), "--workers", workers
        )
        assert code == 0
        assert [name for name in modules if any(is_under(name, h) for h in HEAVY)] == []


def test_a_command_loads_only_its_own_command_module(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """A run of `score` imports no other command's module, nor the worker pool for one chunk."""
    source = tmp_path / "one.jsonl"
    source.write_text(json.dumps(observation) + "\n")
    code, modules = loaded_by("score", str(source), "--out", str(tmp_path / "scored.jsonl"))
    assert code == 0
    commands = {name for name in modules if is_under(name, "scorecard.cli")}
    assert commands == {
        "scorecard.cli",
        "scorecard.cli._app",
        "scorecard.cli._campaign",
        "scorecard.cli._common",
        "scorecard.cli._score",
    }
    assert [name for name in modules if is_under(name, "concurrent.futures.process")] == []
