"""Signals at random moments: a stopped run exits 128 + signal, never replaces the previous
output, leaves no temporary file, and no worker outlives it (SIGTERM, SIGINT, SIGKILL, a reader
that goes away).

Real processes (``scorecard score --workers 2``) on an input large enough that the signal lands
mid-run; the moments are drawn from a seeded generator, after the temporary output appears.
Every process started carries a marker in its environment, so orphans are found in ``/proc``
whoever their parent is now. The cases are few (they are slow) but real; pytest counts them.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")

SAMPLES = sorted((ROOT / "observations").glob("*/observations.jsonl"))
PREVIOUS = b"the previous output\n"


@pytest.fixture(scope="module")
def big_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample observations 96 times over (about 54,000 lines, 150 MB): a run of some
    seconds even to Parquet on the fast path, so a signal up to 0.6 s after the temporary output
    appears lands mid-run (24 times over, a Parquet run on a fast machine ended first)."""
    text = b"".join(path.read_bytes() for path in SAMPLES)
    path = tmp_path_factory.mktemp("signals") / "runs.jsonl"
    path.write_bytes(text * 96)
    return path


def _marked(marker: str) -> list[int]:
    """Pids of live processes whose environment holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"SCORECARD_TEST_MARK={marker}".encode() in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


def _no_survivors(marker: str, within: float = 5.0) -> list[int]:
    deadline = time.monotonic() + within
    while (alive := _marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _start(args: list[str], marker: str, **options: object) -> subprocess.Popen[bytes]:
    environment = {**os.environ, "SCORECARD_TEST_MARK": marker}
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "scorecard", "score", *args, "--workers", "2"],
        env=environment,
        stderr=subprocess.PIPE,
        **options,
    )


def _unnamed_files(folder: Path, pid: int) -> list[str]:
    """The files ``pid`` holds open in ``folder`` that have no name there (``O_TMPFILE``:
    ``/proc/PID/fd`` shows them as ``FOLDER/#INODE (deleted)``)."""
    found = []
    for entry in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(entry)
        except OSError:
            continue
        if target.startswith(f"{folder}/#") and target.endswith(" (deleted)"):
            found.append(target)
    return found


def _has_unnamed_files(folder: Path) -> bool:
    """Whether ``folder``'s file system makes files without a name (``O_TMPFILE``)."""
    flag = getattr(os, "O_TMPFILE", 0)
    try:
        os.close(os.open(folder, flag | os.O_WRONLY, 0o600))
    except OSError:
        return False
    return bool(flag)


def _wait_for_temporary(folder: Path, name: str, process: subprocess.Popen[bytes]) -> None:
    """Until the run's output is being written: a temporary file (or staging folder) beside
    it, or a file it has open there without a name."""
    deadline = time.monotonic() + 30
    while not list(folder.glob(f".{name}.*")) and not _unnamed_files(folder, process.pid):
        assert process.poll() is None, "the run ended before its temporary output appeared"
        assert time.monotonic() < deadline
        time.sleep(0.005)


def _moments(count: int, seed: int) -> Iterator[float]:
    generator = random.Random(seed)
    for _ in range(count):
        yield round(generator.uniform(0.0, 0.6), 3)


STOP_CASES = (
    [(signal.SIGTERM, "out.jsonl", delay) for delay in _moments(2, 1)]
    + [(signal.SIGTERM, "out.parquet", delay) for delay in _moments(2, 2)]
    + [(signal.SIGINT, "out.jsonl", delay) for delay in _moments(2, 3)]
    + [(signal.SIGINT, "out.parquet", delay) for delay in _moments(1, 4)]
    + [(signal.SIGTERM, "dataset.parquet", delay) for delay in _moments(1, 7)]
)


@pytest.mark.parametrize(("signum", "name", "delay"), STOP_CASES)
def test_a_stopped_run_keeps_the_previous_output(
    big_input: Path, tmp_path: Path, signum: int, name: str, delay: float
) -> None:
    """Exit 128 + signal; the previous output byte for byte; no temporary file; no worker."""
    out = tmp_path / name
    out.write_bytes(PREVIOUS)
    marker = uuid.uuid4().hex
    args = [str(big_input), "--out", str(out)]
    if name.endswith(".jsonl"):
        args += ["--format", "records"]  # the general path: slow enough to be caught mid-run
    if name.startswith("dataset"):
        args += ["--partition-by-bundle"]  # a staging folder instead of a temporary file
    process = _start(args, marker)
    _wait_for_temporary(tmp_path, name, process)
    time.sleep(delay)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, stderr.decode()
    assert b"Traceback" not in stderr
    assert out.read_bytes() == PREVIOUS
    assert [path.name for path in tmp_path.iterdir()] == [name]
    assert _no_survivors(marker) == []


@pytest.mark.parametrize(("name", "delay"), [("out.jsonl", 0.2), ("out.parquet", 0.1)])
def test_a_killed_run_leaves_no_temporary_file_where_the_platform_allows(
    big_input: Path, tmp_path: Path, name: str, delay: float
) -> None:
    """SIGKILL mid-write: the output is written to a file without a name (``O_TMPFILE``), so
    nothing is left beside the previous output, which is kept byte for byte."""
    out = tmp_path / name
    out.write_bytes(PREVIOUS)
    marker = uuid.uuid4().hex
    args = [str(big_input), "--out", str(out)]
    if name.endswith(".jsonl"):
        args += ["--format", "records"]
    if not _has_unnamed_files(tmp_path):
        pytest.skip("no O_TMPFILE here: a named temporary file is the fallback")
    process = _start(args, marker)
    _wait_for_temporary(tmp_path, name, process)
    time.sleep(delay)
    assert process.poll() is None, "the run ended before it was killed"
    process.kill()
    process.communicate(timeout=60)
    assert _no_survivors(marker) == []
    assert [path.name for path in tmp_path.iterdir()] == [name]
    assert out.read_bytes() == PREVIOUS


@pytest.mark.parametrize("delay", list(_moments(2, 5)))
def test_workers_die_with_a_killed_main_process(
    big_input: Path, tmp_path: Path, delay: float
) -> None:
    """SIGKILL gives the main process no chance to clean up: its workers end anyway."""
    marker = uuid.uuid4().hex
    out = tmp_path / "out.jsonl"
    process = _start([str(big_input), "--format", "records", "--out", str(out)], marker)
    _wait_for_temporary(tmp_path, out.name, process)
    time.sleep(delay)
    assert len(_marked(marker)) == 3  # the main process and its two workers
    process.kill()
    process.communicate(timeout=60)
    assert _no_survivors(marker) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_worker_asks_the_kernel_to_kill_it_with_its_parent() -> None:
    """The first guard is the kernel's: a worker's death signal is SIGKILL once its lifetime
    starts, and starting it runs no other program (``ctypes.util.find_library`` would run
    ``ldconfig`` in every worker)."""
    code = """
import ctypes, os, signal, subprocess
started = []
real = subprocess.Popen.__init__
def spy(self, *args, **kwargs):
    started.append(args)
    real(self, *args, **kwargs)
subprocess.Popen.__init__ = spy
from scorecard.engine._lifetime import start_worker_lifetime
start_worker_lifetime(os.getppid())
death = ctypes.c_int()
ctypes.CDLL(None).prctl(2, ctypes.byref(death), 0, 0, 0)  # PR_GET_PDEATHSIG
print(death.value == signal.SIGKILL, started == [])
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout.split() == [b"True", b"True"]


@pytest.mark.parametrize("output_format", ["jsonl", "records"])
def test_a_reader_that_goes_away_leaves_no_worker(big_input: Path, output_format: str) -> None:
    """``| head -c 100``: the run ends (exit 1, no traceback) and takes its workers along."""
    marker = uuid.uuid4().hex
    process = _start([str(big_input), "--format", output_format], marker, stdout=subprocess.PIPE)
    assert process.stdout is not None
    assert len(process.stdout.read(100)) == 100
    process.stdout.close()
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 1
    assert b"Traceback" not in stderr
    assert _no_survivors(marker) == []
