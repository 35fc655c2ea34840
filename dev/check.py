"""Run every check the project has, in order, and fail when any fails.

Usage, from the repository root::

    python dev/check.py                   # every check (the README's test command)
    python dev/check.py --engine python   # the test suite again, with the C extension off
    python dev/check.py --coverage        # every check, the suite measured for line coverage

``--engine python`` sets ``SCORECARD_ENGINE=python`` for the test suite, so every line every
test scores goes through the Python general path, and runs only the suite: lint, formatting,
types and layers do not depend on the engine. CI (``.ci/run``) runs both.

Coverage is never measured unless ``--coverage`` asks for it: tracing every line slows the suite,
which has to stay fast. With it, the test command runs under pytest-cov (``[tool.coverage]`` in
``pyproject.toml``: the ``scorecard`` package, console-script subprocesses included) and prints
the line coverage per module; README ("Coverage") quotes one measured figure and its date.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

CHECKS: list[tuple[str, list[str]]] = [
    ("lint", [str(BIN / "ruff"), "check", "src", "tests", "dev", "benchmarks"]),
    ("format", [str(BIN / "ruff"), "format", "--check", "src", "tests", "dev", "benchmarks"]),
    ("types", [str(BIN / "mypy")]),
    ("layers", [str(BIN / "lint-imports")]),
    ("tests", [sys.executable, "-m", "pytest", "-q"]),
]
ENGINE_CHECKS = {"tests"}
"""The checks whose outcome depends on the scoring engine."""
COVERAGE_OPTIONS = ["--cov=scorecard", "--cov-report=term"]
"""What ``--coverage`` adds to the test command (and only then)."""


def checks_to_run(engine: str | None, coverage: bool) -> list[tuple[str, list[str]]]:
    """The checks and their commands: all of them, or the engine's alone; the test command
    measured for coverage only when asked."""
    checks = [check for check in CHECKS if engine is None or check[0] in ENGINE_CHECKS]
    if coverage:
        checks = [
            (name, [*command, *COVERAGE_OPTIONS] if name == "tests" else command)
            for name, command in checks
        ]
    return checks


def main(arguments: list[str] | None = None) -> int:
    """Run the checks; return non-zero when any failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--engine",
        choices=["c", "python"],
        help="run the test suite alone, with this SCORECARD_ENGINE (python: the C extension off)",
    )
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="measure the test suite's line coverage (slower; off by default)",
    )
    options = parser.parse_args(arguments)
    environment = dict(os.environ)
    if options.engine is not None:
        environment["SCORECARD_ENGINE"] = options.engine
    checks = checks_to_run(options.engine, options.coverage)
    failed = []
    for name, command in checks:
        shown = " ".join(Path(part).name if i == 0 else part for i, part in enumerate(command))
        engine = f" (SCORECARD_ENGINE={options.engine})" if options.engine else ""
        print(f"== {name}: {shown}{engine}", flush=True)
        if subprocess.call(command, cwd=ROOT, env=environment) != 0:
            failed.append(name)
    if failed:
        print(f"== FAILED: {', '.join(failed)}", flush=True)
        return 1
    print("== all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
