"""What the hardening suites share: the console entry point run in this process."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

import scorecard.contract
from scorecard.cli import main

Main = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run_main(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> Main:
    """``run_main(*args)``: (exit code, stdout, stderr) of ``scorecard ARGS`` through
    ``scorecard.cli.main`` (its error handling and exit codes), in this process: only for runs
    on one worker (no pool forked from the test process)."""

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["scorecard", *args])
        monkeypatch.setattr(scorecard.contract, "install_stop_handlers", lambda: None)
        capfd.readouterr()
        with pytest.raises(SystemExit) as exited:
            main()
        out, err = capfd.readouterr()
        code = exited.value.code
        assert isinstance(code, int)
        return code, out, err

    return run
