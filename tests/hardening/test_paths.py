"""Paths and devices: a bad or unwritable output is one located error (exit 2, no traceback, no
half file); a full disk or a full standard output is reported; a named pipe is an input; a file
name that is not UTF-8 is shown escaped and never crashes a writer.

The commands run through the real entry point (``scorecard.cli.main``): in this process where
that is enough, in a subprocess where a device or a resource limit is needed. The cases are
generated below; pytest's parametrised ids count them.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.hardening.conftest import Main

SAMPLE = ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl"
LINES = SAMPLE.read_text(encoding="utf-8").splitlines()


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    path = tmp_path / "in" / "runs.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(LINES[:20]) + "\n{broken\n", encoding="utf-8")
    return path


def _bad_outputs(tmp_path: Path) -> list[tuple[str, Path | str]]:
    (tmp_path / "folder").mkdir(exist_ok=True)
    (tmp_path / "plain-file").write_text("x")
    return [
        ("folder", tmp_path / "folder"),
        ("empty", ""),
        ("dot", "."),
        ("under-a-file", tmp_path / "plain-file" / "x.jsonl"),
        ("deep-under-a-file", tmp_path / "plain-file" / "a" / "b" / "x.jsonl"),
        ("uncreatable", "/proc/no-such-folder/x.jsonl"),
        ("parquet-uncreatable", "/proc/no-such-folder/x.parquet"),
        ("parquet-under-a-file", tmp_path / "plain-file" / "x.parquet"),
    ]


BAD_KINDS = [
    "folder",
    "empty",
    "dot",
    "under-a-file",
    "deep-under-a-file",
    "uncreatable",
    "parquet-uncreatable",
    "parquet-under-a-file",
]


@pytest.mark.parametrize("option", ["--out", "--errors"])
@pytest.mark.parametrize("kind", BAD_KINDS)
def test_a_bad_output_path_is_one_located_error(
    inputs: Path,
    tmp_path: Path,
    run_main: Main,
    option: str,
    kind: str,
) -> None:
    """Exit 2, one ``error:`` line naming the option or the path, no traceback, nothing new."""
    target = dict(_bad_outputs(tmp_path))[kind]
    before = sorted(tmp_path.rglob("*"))
    code, _, err = run_main("score", str(inputs), "--workers", "1", option, str(target))
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert any("[bad_output]" in line or "[unwritable]" in line for line in errors), err
    assert "Traceback" not in err
    assert sorted(tmp_path.rglob("*")) == before


def _limited(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def _subprocess(
    *args: str, limit: int | None = None, stdout: object = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "scorecard", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        preexec_fn=None if limit is None else lambda: _limited(limit),
        check=False,
        timeout=120,
    )


def _full_disk_cases() -> list[tuple[str, int]]:
    generator = random.Random(6)
    return [
        (output, generator.randint(1, 40_000))
        for output in ("out.jsonl", "errors.jsonl", "out.parquet")
        for _ in range(2)
    ]


@pytest.mark.parametrize(("output", "limit"), _full_disk_cases())
def test_a_full_disk_is_reported_and_leaves_no_half_file(
    tmp_path: Path, output: str, limit: int
) -> None:
    """A file-size limit (a full disk, as the writer sees it) gives exit 2, one ``unwritable``
    error and no file at all (the previous one, if any, kept)."""
    source = tmp_path / "runs.jsonl"
    source.write_text("\n".join(LINES * 4 + ["{broken"] * 3000) + "\n", encoding="utf-8")
    target = tmp_path / output
    target.write_bytes(b"previous")
    option = "--errors" if output.startswith("errors") else "--out"
    done = _subprocess("score", str(source), "--workers", "2", option, str(target), limit=limit)
    assert done.returncode == 2
    assert b"[unwritable]" in done.stderr
    assert b"Traceback" not in done.stderr
    assert target.read_bytes() == b"previous"
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(["runs.jsonl", output])


@pytest.mark.parametrize(
    ("args", "broken"),
    [
        (["--format", "jsonl"], False),
        (["--format", "table"], False),
        (["--format", "records", "--workers", "2"], False),
        (["--out", "/dev/full"], False),
        (["--errors", "/dev/full", "--out", os.devnull], True),
    ],
)
def test_a_full_standard_output_or_device_is_reported(
    tmp_path: Path, args: list[str], broken: bool
) -> None:
    """``> /dev/full`` and ``--out /dev/full``: exit 2 and one clear error, no traceback."""
    inputs = [str(SAMPLE)]
    if broken:
        (tmp_path / "broken.jsonl").write_text("{broken\n" * 500)
        inputs.append(str(tmp_path / "broken.jsonl"))
    with open("/dev/full", "wb") as full:
        done = _subprocess("score", *inputs, "--workers", "1", *args, stdout=full)
    assert done.returncode == 2, done.stderr
    assert b"cannot write: No space left on device [unwritable]" in done.stderr
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_named_pipe_is_read_as_json_lines(tmp_path: Path, workers: str) -> None:
    """A FIFO (what ``<(cat f)`` gives) is read once, in order, like stdin."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("\n".join(LINES) + "\n"))
    writer.start()
    done = _subprocess("score", str(fifo), "--workers", workers)
    writer.join(timeout=30)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["candidateId"] for line in done.stdout.splitlines()] == [
        json.loads(line)["candidateId"] for line in LINES
    ]


def test_process_substitution_is_an_input() -> None:
    """``scorecard score <(cat f)`` (a /dev/fd path) scores every line."""
    done = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m scorecard score <(cat "{SAMPLE}") --workers 2'],
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == len(LINES)


def _undecodable_names() -> list[bytes]:
    generator = random.Random(8)
    names = []
    for _ in range(6):
        middle = bytes(generator.randint(0x80, 0xFF) for _ in range(generator.randint(1, 4)))
        names.append(b"runs-" + middle + b".jsonl")
    return names


@pytest.mark.parametrize("name", _undecodable_names())
def test_a_file_name_that_is_not_utf8_is_shown_escaped(
    tmp_path: Path,
    run_main: Main,
    name: bytes,
) -> None:
    """``--errors``, records and explain write the name with its bytes escaped; nothing crashes."""
    folder = os.fsencode(tmp_path)
    with open(os.path.join(folder, name), "wb") as stream:
        stream.write(("\n".join(LINES[:2]) + "\n{broken\n").encode())
    errors = tmp_path / "errors.jsonl"
    records = tmp_path / "records.jsonl"
    code, _, err = run_main(
        "score", str(tmp_path), "--workers", "1", "--format", "records",
        "--out", str(records), "--errors", str(errors),
    )  # fmt: skip
    assert code == 2, err
    shown = os.fsdecode(name).encode("utf-8", "backslashreplace").decode()
    [error] = [json.loads(line) for line in errors.read_text(encoding="utf-8").splitlines()]
    assert error["source"].endswith(shown)
    assert error["line"] == 3
    files = {json.loads(line)["source"]["file"] for line in records.read_text("utf-8").splitlines()}
    assert {file.rsplit("/", 1)[1] for file in files} == {shown}
    assert f"{shown}:3" in err
    code, out, err = run_main("explain", str(tmp_path), "--workers", "1")
    assert code == 2
    assert "Traceback" not in err
    assert shown in out + err
