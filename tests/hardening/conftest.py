"""What the hardening suites share: the console entry point run in this process."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import pytest

import scorecard.contract
from scorecard.cli import main


class _Exited(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


Main = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run_main(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> Main:
    """``run_main(*args)``: (exit code, stdout, stderr) of ``scorecard ARGS`` through
    ``scorecard.cli.main`` (its error handling and exit codes), in this process: only for runs
    on one worker (a forked worker would inherit the patched ``os._exit``)."""

    def leave(code: int) -> None:
        raise _Exited(code)

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["scorecard", *args])
        monkeypatch.setattr(os, "_exit", leave)
        monkeypatch.setattr(scorecard.contract, "install_stop_handlers", lambda: None)
        capfd.readouterr()
        with pytest.raises(_Exited) as exited:
            main()
        out, err = capfd.readouterr()
        return exited.value.code, out, err

    return run
