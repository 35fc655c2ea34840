"""A store under CI, with real processes: readers during ingests see whole snapshots, two
ingests of different bundles at once both land, and an ingest stopped by SIGINT, SIGTERM or
SIGKILL mid-run leaves the store as it was (the next writer removes what SIGKILL left), its
workers gone with it."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from scorecard.store import open_store
from tests.hardening.test_signals import _marked, _no_survivors
from tests.store.conftest import NIGHTS

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")


def make_night(folder: Path, bundle_id: str, copies: int) -> Path:
    """A night of the first sample's observations ``copies`` times over (repetitions), under
    its own campaign id."""
    folder.mkdir(parents=True)
    manifest = json.loads((NIGHTS[0] / "bundle.json").read_text(encoding="utf-8"))
    manifest["id"] = bundle_id
    manifest.pop("night", None)
    (folder / "bundle.json").write_text(json.dumps(manifest), encoding="utf-8")
    lines = (NIGHTS[0] / "observations.jsonl").read_bytes()
    (folder / "observations.jsonl").write_bytes(lines * copies)
    return folder


INGEST = """
import faulthandler, os, signal, sys
faulthandler.register(signal.SIGUSR1, all_threads=True)
from scorecard.contract import Stopped, install_stop_handlers
from scorecard.store import open_store
install_stop_handlers()
try:
    report = open_store(sys.argv[1]).ingest(sys.argv[3:], workers=2, replace=sys.argv[2] == "replace")
except Stopped as stopped:
    # As the command line leaves (cli._app._end): pools a stop cut short are ended, then
    # os._exit (an interpreter shutdown would join a pool thread a killed worker left waiting).
    sys.modules["scorecard.engine._lifetime"].end_workers()
    sys.stdout.flush()
    os._exit(128 + stopped.signal)
print(" ".join(outcome.status for outcome in report.bundles))
"""


def start_ingest(
    store: Path, paths: list[Path], *, replace: bool = False, marker: str = ""
) -> subprocess.Popen[str]:
    import os

    return subprocess.Popen(
        [sys.executable, "-c", INGEST, str(store), "replace" if replace else "-", *map(str, paths)],
        env={**os.environ, "SCORECARD_TEST_MARK": marker or uuid.uuid4().hex},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


READER = """
import sys
from pathlib import Path
from scorecard.store import open_store
store = open_store(sys.argv[1])
done = Path(sys.argv[2])
checks = seen = 0
while not done.exists() or checks < 3:
    # One snapshot per query: every bundle the index lists has exactly its runs in the files.
    table = store.query(
        "SELECT b.id, b.runs, count(r.bundle) AS found FROM bundles b "
        "LEFT JOIN runs r ON r.bundle = b.id GROUP BY ALL"
    )
    for row in table.to_pylist():
        if row["runs"] != row["found"]:
            print("HALF", row)
            sys.exit(1)
    seen = max(seen, table.num_rows)
    bundles = store.bundles()
    if bundles:
        last = bundles[-1]
        if sum(1 for _ in store.detailed_rows(last.id)) != store.bundle(last.id).runs and \\
                store.bundle(last.id).digest == last.digest:
            print("HALF ROWS", last.id)
            sys.exit(1)
    checks += 1
print(checks, seen)
"""


def test_readers_during_ingests_see_the_store_before_or_after(tmp_path: Path) -> None:
    """A reader looping while nights are added and one is replaced never sees a bundle whose
    files do not hold its runs, nor a file missing."""
    store = open_store(tmp_path / "s", create=True)
    nights = [make_night(tmp_path / f"n{index}", f"night-{index}", 8) for index in range(3)]
    done = tmp_path / "done"
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(store.path), str(done)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for night in nights:
            writer = start_ingest(store.path, [night])
            assert writer.communicate(timeout=120)[0].split() == ["added"]
        lines = (nights[0] / "observations.jsonl").read_bytes()
        (nights[0] / "observations.jsonl").write_bytes(lines[: len(lines) // 2])
        writer = start_ingest(store.path, [nights[0]], replace=True)
        assert writer.communicate(timeout=120)[0].split() == ["replaced"]
    finally:
        done.touch()
        out, err = reader.communicate(timeout=120)
    assert reader.returncode == 0, out + err
    checks, seen = map(int, out.split())
    assert checks >= 3
    assert seen == 3


def test_two_ingests_of_different_bundles_at_once_both_land(tmp_path: Path) -> None:
    """Both score at once and commit one after the other; the index lists both."""
    store = open_store(tmp_path / "s", create=True)
    first = make_night(tmp_path / "a", "night-a", 10)
    second = make_night(tmp_path / "b", "night-b", 10)
    writers = [start_ingest(store.path, [first]), start_ingest(store.path, [second])]
    outputs = [writer.communicate(timeout=180) for writer in writers]
    assert [out.split() for out, _ in outputs] == [["added"], ["added"]], outputs
    assert [entry.id for entry in store.bundles()] == ["night-a", "night-b"]
    assert [entry.runs for entry in store.bundles()] == [1400, 1400]
    index = json.loads((store.path / "index.json").read_text(encoding="utf-8"))
    assert index["generation"] == 2


def _files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.parts[len(root.parts)] not in ("tmp", ".lock")
    }


@pytest.fixture(scope="module")
def big_night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A night of 17,920 observations (52 MB): an ingest of a few seconds on two workers, so a
    stop sent within 0.4 s of its start always lands while it scores (at 4,480 observations a
    fast machine had finished and was in interpreter shutdown, where Python's default handlers
    are back)."""
    return make_night(tmp_path_factory.mktemp("big") / "night", "night-big", 128)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_ingest_leaves_the_store_as_it_was(
    big_night: Path, tmp_path: Path, signum: int
) -> None:
    """Stopped while it scores: exit 128 + signal (SIGKILL: killed), every file of the store
    as it was, no file under runs/ the index does not list, no worker left; what SIGKILL left
    in tmp/ is removed by the next writer."""
    store = open_store(tmp_path / "s", create=True)
    assert store.ingest(NIGHTS[:1]).ok
    before = _files(store.path)
    marker = uuid.uuid4().hex
    process = start_ingest(store.path, [big_night], marker=marker)
    deadline = time.monotonic() + 60
    while not list((store.path / "tmp").glob("ingest-*")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.005)
    time.sleep(random.Random(signum).uniform(0.05, 0.4))
    assert process.poll() is None, "the ingest ended before the signal"
    process.send_signal(signum)
    try:
        _, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGUSR1)
        time.sleep(1)
        process.kill()
        raise AssertionError(process.communicate()[1]) from None
    assert process.returncode == (-signum if signum == signal.SIGKILL else 128 + signum), stderr
    assert "Traceback" not in stderr
    assert _no_survivors(marker) == []
    assert _files(store.path) == before
    assert [entry.id for entry in store.bundles()] == ["campaign-2026-11-01"]
    left = list((store.path / "tmp").iterdir())
    assert (left != []) == (signum == signal.SIGKILL)  # only a killed writer leaves its staging
    assert store.ingest(NIGHTS[1:2]).ok
    assert list((store.path / "tmp").iterdir()) == []
    assert sorted(store.path.glob("runs/*/*.parquet")) == sorted(store.runs_files())
    assert _marked(marker) == []
