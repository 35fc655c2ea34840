"""The one atomic writer: text and bytes to a file, a folder, and the Parquet writers built on it.

The text writer's background flushing is specified in ``tests/cli/test_score.py``; here the
binary writer and the folder are held to the same contract: readers see the old version or the
complete new one, and a failure (even Ctrl-C) leaves no temporary file behind.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorecard.contract._catalog import Catalog
from scorecard.core._record import ScoredRecord
from scorecard.engine import _output as scorecard_output
from scorecard.engine._output import atomic_binary_writer, atomic_folder, atomic_writer
from scorecard.engine._pipeline import score_paths_serially
from scorecard.engine._rows import Row, scored_row
from scorecard.engine.parquet import read_parquet_rows, write_parquet
from tests.conftest import ROOT
from tests.engine.test_parquet import same


@pytest.fixture(scope="module")
def sample_rows(catalog: Catalog) -> list[Row]:
    """The rows of the first sample bundle, scored by the serial path."""
    folder = str(ROOT / "observations" / "2026-11-01-nightly")
    scored = score_paths_serially([folder], catalog=catalog)
    return [scored_row(result) for result in scored if isinstance(result, ScoredRecord)]


def syncing_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "sync"]


def plain_open_mode(tmp_path: Path) -> int:
    """The permission bits a plain ``open()`` gives a new file here (the umask applied)."""
    probe = tmp_path / "probe"
    probe.write_bytes(b"")
    mode = stat.S_IMODE(probe.stat().st_mode)
    probe.unlink()
    return mode


def write_bytes_then_fail(target: Path, error: BaseException) -> None:
    """Start an atomic binary write of ``target``, write some bytes, and fail with ``error``."""
    with atomic_binary_writer(target) as stream:
        stream.write(b"partial")
        raise error


def fill_folder_then_fail(target: Path) -> None:
    """Start filling a folder for ``target``, and stop with Ctrl-C."""
    with atomic_folder(target) as staging:
        (staging / "half").write_bytes(b"new")
        raise KeyboardInterrupt


def test_bytes_replace_the_file_with_the_mode_open_gives(tmp_path: Path) -> None:
    """A binary write puts exactly its bytes in place, with a plain open()'s mode, nothing else."""
    target = tmp_path / "image.png"
    target.write_bytes(b"old")
    expected_mode = plain_open_mode(tmp_path)
    with atomic_binary_writer(target) as stream:
        stream.write(b"\x89PNG\r\n")
        stream.write(b"\x00\xff")
        assert target.read_bytes() == b"old"  # readers still see the old file
    assert target.read_bytes() == b"\x89PNG\r\n\x00\xff"
    assert stat.S_IMODE(target.stat().st_mode) == expected_mode
    assert [path.name for path in tmp_path.iterdir()] == ["image.png"]


def test_a_text_write_gets_the_mode_open_gives(tmp_path: Path) -> None:
    """The text writer, built on the same temporary file, gives the same mode."""
    expected_mode = plain_open_mode(tmp_path)
    with atomic_writer(tmp_path / "out.txt") as stream:
        stream.write("text\n")
    assert stat.S_IMODE((tmp_path / "out.txt").stat().st_mode) == expected_mode


@pytest.mark.parametrize("error", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_an_interrupted_binary_write_keeps_the_old_file(
    tmp_path: Path, error: BaseException
) -> None:
    """A failed binary rewrite (even Ctrl-C) leaves the previous file and no temporary file."""
    target = tmp_path / "image.png"
    target.write_bytes(b"old")
    with pytest.raises(type(error)):
        write_bytes_then_fail(target, error)
    assert target.read_bytes() == b"old"
    assert [path.name for path in tmp_path.iterdir()] == ["image.png"]


def test_a_large_binary_write_is_flushed_to_disk_while_it_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past SYNC_EVERY bytes a background thread syncs the data; it is gone at the end."""
    synced: list[int] = []
    monkeypatch.setattr(scorecard_output, "SYNC_EVERY", 100)
    monkeypatch.setattr(scorecard_output, "_fdatasync", synced.append)
    target = tmp_path / "out.bin"
    blocks = [bytes([number]) * 10 for number in range(100)]
    with atomic_binary_writer(target) as stream:
        for block in blocks:
            stream.write(block)
        handle = stream.fileno()
        assert len(syncing_threads()) == 1
        deadline = time.monotonic() + 10
        while not synced and time.monotonic() < deadline:
            time.sleep(0.01)
        assert synced
    assert target.read_bytes() == b"".join(blocks)
    assert set(synced) == {handle}
    assert syncing_threads() == []


def test_a_short_binary_write_starts_no_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below SYNC_EVERY bytes only the closing fsync runs."""
    synced: list[int] = []
    monkeypatch.setattr(scorecard_output, "_fdatasync", synced.append)
    with atomic_binary_writer(tmp_path / "out.bin") as stream:
        stream.write(b"short")
        assert syncing_threads() == []
    assert synced == []


def test_a_folder_replaces_the_old_one_whole(tmp_path: Path) -> None:
    """The filled folder takes the target's place; nothing of the old folder stays."""
    target = tmp_path / "dataset.parquet"
    (target / "bundle=old").mkdir(parents=True)
    (target / "bundle=old" / "part-0.parquet").write_bytes(b"old")
    with atomic_folder(target) as staging:
        (staging / "bundle=new").mkdir()
        (staging / "bundle=new" / "part-0.parquet").write_bytes(b"new")
        assert (target / "bundle=old").is_dir()  # readers still see the old dataset
    assert sorted(path.relative_to(target).as_posix() for path in target.rglob("*")) == [
        "bundle=new",
        "bundle=new/part-0.parquet",
    ]
    assert [path.name for path in tmp_path.iterdir()] == ["dataset.parquet"]


def test_a_failed_folder_leaves_the_old_one_and_no_staging(tmp_path: Path) -> None:
    """On an error the staging folder and everything in it is removed; the old folder stays."""
    target = tmp_path / "dataset.parquet"
    target.mkdir()
    (target / "kept").write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt):
        fill_folder_then_fail(target)
    assert [path.name for path in tmp_path.iterdir()] == ["dataset.parquet"]
    assert [path.name for path in target.iterdir()] == ["kept"]


def failing_rows(rows: list[Row]) -> Iterator[Row]:
    """``rows``, then an error, as an input that breaks half way through."""
    yield from rows
    raise RuntimeError("input broke")


@pytest.mark.parametrize("partition_by_bundle", [False, True])
def test_a_parquet_write_that_fails_keeps_the_old_output(
    tmp_path: Path, sample_rows: list[Row], partition_by_bundle: bool
) -> None:
    """Parquet output goes through the same writer: a failure leaves the old output only."""
    target = tmp_path / "out.parquet"
    write_parquet(sample_rows[:3], target, partition_by_bundle=partition_by_bundle)
    with pytest.raises(RuntimeError):
        write_parquet(failing_rows(sample_rows), target, partition_by_bundle=partition_by_bundle)
    assert same(read_parquet_rows(target), sample_rows[:3])
    assert [path.name for path in tmp_path.iterdir()] == ["out.parquet"]


def test_a_parquet_file_is_synced_before_it_is_renamed(
    tmp_path: Path, sample_rows: list[Row], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Parquet file is on disk (fsync) when it replaces the target, as text output is."""
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(handle: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{handle}"))
        real_fsync(handle)

    monkeypatch.setattr(os, "fsync", fsync)
    write_parquet(sample_rows, tmp_path / "out.parquet")
    assert len(synced) == 1
    assert Path(synced[0]).parent == tmp_path
    # A temporary file beside it, named or (O_TMPFILE) not: "#INODE (deleted)".
    name = Path(synced[0]).name
    assert name.startswith(".out.parquet.") or (name.startswith("#") and "(deleted)" in name)
    assert same(read_parquet_rows(tmp_path / "out.parquet"), sample_rows)


def _makes_unnamed_files(folder: Path) -> bool:
    flag = getattr(os, "O_TMPFILE", 0)
    try:
        os.close(os.open(folder, flag | os.O_WRONLY, 0o600))
    except OSError:
        return False
    return bool(flag)


@pytest.mark.parametrize("exists", [False, True], ids=["new", "replacing"])
def test_while_it_is_written_the_output_has_no_name_beside_it(tmp_path: Path, exists: bool) -> None:
    """Where ``O_TMPFILE`` works, the file being written has no name until it is complete (a
    SIGKILL leaves nothing); it then takes the output's name, with a plain open()'s mode."""
    if not _makes_unnamed_files(tmp_path):
        pytest.skip("no O_TMPFILE on this file system")
    target = tmp_path / "out.jsonl"
    if exists:
        target.write_text("old\n")
    expected_mode = plain_open_mode(tmp_path)
    with atomic_writer(target) as stream:
        stream.write("new\n")
        assert [path.name for path in tmp_path.iterdir()] == (["out.jsonl"] if exists else [])
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == expected_mode
    assert [path.name for path in tmp_path.iterdir()] == ["out.jsonl"]


@pytest.mark.parametrize("error", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_the_named_temporary_file_is_the_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    """Without ``O_TMPFILE`` (another platform or file system) a named temporary file is
    written and renamed, or removed when the write fails."""
    monkeypatch.setattr(scorecard_output, "_unnamed_file", lambda folder: None)
    target = tmp_path / "image.png"
    target.write_bytes(b"old")
    with atomic_binary_writer(target) as stream:
        stream.write(b"new")
        assert sorted(path.name for path in tmp_path.iterdir())[0].startswith(".image.png.")
    assert target.read_bytes() == b"new"
    with pytest.raises(type(error)):
        write_bytes_then_fail(target, error)
    assert target.read_bytes() == b"new"
    assert [path.name for path in tmp_path.iterdir()] == ["image.png"]
