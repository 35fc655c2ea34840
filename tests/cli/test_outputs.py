"""Outputs never destroy inputs or special files: one guard, checked before any work."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from scorecard.engine import output_problems
from tests.conftest import ROOT

SAMPLE = ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl"


def _score(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scorecard", "score", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """A folder holding one copy of a sample bundle's observations."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "runs.jsonl").write_bytes(SAMPLE.read_bytes())
    return folder


@pytest.mark.parametrize(
    ("option", "target"),
    [
        ("--out", "runs.jsonl"),
        ("--errors", "runs.jsonl"),
        ("--out", "."),
        ("--out", ""),
    ],
)
def test_an_output_that_is_an_input_or_a_folder_is_refused(
    inputs: Path, option: str, target: str
) -> None:
    """Exit 2 with one bad_output line, and the input keeps every byte."""
    path = inputs / target if target else ""
    done = _score(inputs / "runs.jsonl", option, path)
    assert done.returncode == 2
    assert done.stderr.count("[bad_output]") == 1
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert (inputs / "runs.jsonl").read_bytes() == SAMPLE.read_bytes()


def test_an_output_found_inside_an_input_folder_is_refused(inputs: Path) -> None:
    """Scoring a folder into a .jsonl it already holds would read and replace it."""
    done = _score(inputs, "--out", inputs / "runs.jsonl")
    assert done.returncode == 2
    assert "one of the inputs" in done.stderr
    assert (inputs / "runs.jsonl").read_bytes() == SAMPLE.read_bytes()


def test_two_outputs_may_not_be_one_file(inputs: Path, tmp_path: Path) -> None:
    """--out and --errors naming one (new) file is refused."""
    target = tmp_path / "both.jsonl"
    done = _score(inputs, "--out", target, "--errors", target)
    assert done.returncode == 2
    assert "also the --out output" in done.stderr
    assert not target.exists()


def test_dev_null_is_written_to_not_replaced(inputs: Path) -> None:
    """--out /dev/null discards the scorecards and leaves the device a device."""
    done = _score(inputs, "--out", os.devnull)
    assert done.returncode == 0, done.stderr
    assert Path(os.devnull).is_char_device()


def test_a_fifo_and_a_link_to_stdout_are_written_through(inputs: Path, tmp_path: Path) -> None:
    """A named pipe gets the lines (and stays a pipe); a link to /dev/stdout prints them."""
    expected = len(SAMPLE.read_text().splitlines())
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    done = _score(inputs, "--out", fifo)
    reader.join(timeout=60)
    assert done.returncode == 0, done.stderr
    assert len(received[0].splitlines()) == expected
    assert fifo.is_fifo()
    link = tmp_path / "out"
    link.symlink_to("/dev/stdout")
    done = _score(inputs, "--out", link)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == expected
    assert link.is_symlink()


def test_the_guard_allows_a_folder_where_one_is_expected(tmp_path: Path) -> None:
    """An output option declared a folder (a dataset, `plot all`) may name an existing folder."""
    assert output_problems({"--out": tmp_path}, folders=["--out"]) == []
    [problem] = output_problems({"--out": tmp_path})
    assert (problem.rule, problem.source) == ("bad_output", "--out")
