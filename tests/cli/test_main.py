"""The console script's entry point changes nothing about the process the user did not ask for
and ends the interpreter as Python does: ``atexit`` handlers run, streams are flushed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import scorecard.contract
from scorecard.cli import main
from tests.conftest import ROOT

SAMPLE = ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl"

_WITH_AN_ATEXIT_HANDLER = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
sys.argv = ["scorecard", *sys.argv[1:]]
from scorecard.cli import main
main()
"""


@pytest.mark.parametrize(("args", "code"), [(["--version"], 0), (["score", "no-such.jsonl"], 2)])
def test_atexit_handlers_run_and_the_status_is_the_command_s(
    tmp_path: Path, args: list[str], code: int
) -> None:
    """The interpreter ends normally (``sys.exit``), whatever the command's exit status."""
    done = subprocess.run(
        [sys.executable, "-c", _WITH_AN_ATEXIT_HANDLER, *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == code
    assert done.stderr.endswith("atexit ran\n")


def test_the_environment_is_left_as_it_is(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A run sets no environment variable (``PYDANTIC_DISABLE_PLUGINS`` is the user's)."""
    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    monkeypatch.setattr(sys, "argv", ["scorecard", "score", str(SAMPLE), "--workers", "1"])
    monkeypatch.setattr(scorecard.contract, "install_stop_handlers", lambda: None)
    before = dict(os.environ)
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 0
    assert dict(os.environ) == before
    assert capfd.readouterr().err.startswith("scored ")


def test_a_reader_that_goes_away_is_quiet(tmp_path: Path) -> None:
    """``scorecard score ... | head -1``: exit 1 (as before), and no message about the pipe as
    the interpreter ends."""
    done = subprocess.run(
        f'"{sys.executable}" -m scorecard score "{ROOT / "observations"}" --workers 1 | head -c 1',
        shell=True,
        capture_output=True,
        check=False,
        executable="/bin/bash",
    )
    assert len(done.stdout) == 1
    assert done.stderr == b""


def test_standard_output_that_cannot_hold_the_text_is_an_output_error(tmp_path: Path) -> None:
    """The wide table (box-drawing characters) on an ASCII-only standard output
    (``PYTHONIOENCODING=ascii``): one located
    ``unwritable`` error and exit 2, not a traceback of a bare ``UnicodeEncodeError``."""
    done = subprocess.run(
        [sys.executable, "-m", "scorecard", "score", str(SAMPLE), "--format", "table"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "ascii", "COLUMNS": "160"},  # the wide layout
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert (
        "error: <stdout>: cannot write: the text cannot be encoded as ascii (set "
        "PYTHONIOENCODING=utf-8) [unwritable]\n"
    ) in done.stderr
