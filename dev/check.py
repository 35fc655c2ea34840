"""Run every check the project has, in order, and fail when any fails.

Usage: ``python dev/check.py`` from the repository root (the README's test command).
"""

from __future__ import annotations

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


def main() -> int:
    """Run the checks; return non-zero when any failed."""
    failed = []
    for name, command in CHECKS:
        print(
            f"== {name}: {' '.join(Path(part).name if i == 0 else part for i, part in enumerate(command))}",
            flush=True,
        )
        if subprocess.call(command, cwd=ROOT) != 0:
            failed.append(name)
    if failed:
        print(f"== FAILED: {', '.join(failed)}", flush=True)
        return 1
    print("== all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
