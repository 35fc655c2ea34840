"""dev/check.py runs every check, and measures coverage only when asked (the suite stays fast)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import load_script

CHECK_SCRIPT = Path(__file__).resolve().parents[1] / "dev" / "check.py"


def _check_script() -> Any:
    return load_script(CHECK_SCRIPT)


def test_the_default_checks_measure_no_coverage() -> None:
    """Without --coverage no check's command asks pytest-cov for anything."""
    check = _check_script()
    commands = check.checks_to_run(None, coverage=False)
    assert [name for name, _ in commands] == ["lint", "format", "types", "layers", "tests"]
    assert not any(part.startswith("--cov") for _, command in commands for part in command)


def test_coverage_is_added_to_the_test_command_only_when_asked() -> None:
    """--coverage adds the coverage options to the test command and to nothing else."""
    check = _check_script()
    plain = dict(check.checks_to_run(None, coverage=False))
    measured = dict(check.checks_to_run(None, coverage=True))
    assert measured["tests"] == [*plain["tests"], "--cov=scorecard", "--cov-report=term"]
    assert {name: command for name, command in measured.items() if name != "tests"} == {
        name: command for name, command in plain.items() if name != "tests"
    }


def test_the_engine_pass_runs_the_suite_alone() -> None:
    """--engine runs only the checks whose outcome depends on the engine: the test suite."""
    check = _check_script()
    assert [name for name, _ in check.checks_to_run("python", coverage=False)] == ["tests"]
