"""A corrupt, foreign or missing file in a store is a located error, never a traceback or a wrong
number; a writer killed at any step of a commit leaves the store as the index says, and the next
writer puts right what it left."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scorecard.aggregate import records_frame
from scorecard.contract import StoreError
from scorecard.store import Store, open_store
from tests.store.conftest import NIGHTS


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """A store of the first two sample nights, for one test to damage."""
    made = open_store(tmp_path / "s", create=True)
    assert made.ingest(NIGHTS[:2]).ok
    return made


def index_document(store: Store) -> dict[str, object]:
    return json.loads((store.path / "index.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def write_index(store: Store, document: object) -> None:
    (store.path / "index.json").write_text(json.dumps(document, indent=2), encoding="utf-8")


def test_a_corrupt_index_is_located(store: Store) -> None:
    """Not JSON: the file and the line."""
    path = store.path / "index.json"
    path.write_text(path.read_text(encoding="utf-8")[:200], encoding="utf-8")
    with pytest.raises(StoreError) as raised:
        store.bundles()
    assert (raised.value.rule, raised.value.source) == ("corrupt_file", str(path))
    assert raised.value.line is not None


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        (lambda entry: entry.update(runs=-1), "/bundles/1/runs"),
        (lambda entry: entry.update(digest="abc"), "/bundles/1/digest"),
        (lambda entry: entry["files"].update(runs="../../etc/passwd"), "/bundles/1/files/runs"),
        (lambda entry: entry.pop("bytes"), "/bundles/1/bytes"),
        (lambda entry: entry.update(id="campaign-2026-11-01"), "/bundles/1/id"),
    ],
)
def test_a_wrong_index_entry_is_pointed_at(store: Store, change: object, pointer: str) -> None:
    """The JSON Pointer of the first value that is not what an index holds."""
    document = index_document(store)
    change(document["bundles"][1])  # type: ignore[index, operator]
    write_index(store, document)
    with pytest.raises(StoreError) as raised:
        store.bundles()
    assert (raised.value.rule, raised.value.pointer) == ("corrupt_file", pointer)


def test_files_of_another_schema_are_refused_by_name(store: Store, tmp_path: Path) -> None:
    """An index or store.json of another schema, a folder that is no store."""
    document = index_document(store)
    write_index(store, {**document, "schema": "scorecard.store.index.v9"})
    with pytest.raises(StoreError) as raised:
        store.bundles()
    assert (raised.value.rule, raised.value.pointer) == ("unsupported_schema", "/schema")
    meta = store.path / "store.json"
    meta.write_text(json.dumps({"schema": "somebody.else"}), encoding="utf-8")
    with pytest.raises(StoreError) as raised:
        open_store(store.path)
    assert (raised.value.rule, raised.value.source) == ("unsupported_schema", str(meta))
    with pytest.raises(StoreError) as raised:
        open_store(tmp_path / "nothing")
    assert raised.value.rule == "not_a_store"
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(StoreError) as raised:
        open_store(tmp_path / "busy", create=True)
    assert raised.value.rule == "not_a_store"


def test_a_truncated_file_is_located(store: Store) -> None:
    """Shorter than the index says: refused before it is read, by every reader."""
    runs = store.runs_files()[1]
    runs.write_bytes(runs.read_bytes()[:1000])
    for read in (
        store.runs_files,
        lambda: list(store.detailed_rows("campaign-2026-11-08")),
        lambda: store.query("SELECT count(*) FROM runs"),
    ):
        with pytest.raises(StoreError) as raised:
            read()
        assert (raised.value.rule, raised.value.source) == ("corrupt_file", str(runs))


def test_a_damaged_file_of_the_right_size_is_located(store: Store) -> None:
    """Bytes overwritten in place: the Parquet reader's failure, as the file's error."""
    detail = store.detail_files()[0]
    data = bytearray(detail.read_bytes())
    data[-20:] = b"\0" * 20  # the footer
    detail.write_bytes(bytes(data))
    with pytest.raises(StoreError) as raised:
        store.run("campaign-2026-11-01", "codex-luna", "final-response", 1)
    assert (raised.value.rule, raised.value.source) == ("corrupt_file", str(detail))


def test_another_bundles_file_in_a_bundles_place_is_foreign(store: Store) -> None:
    """A runs file copied over another (the index's size made to match): never its numbers."""
    first, second = store.runs_files()
    shutil.copyfile(first, second)
    document = index_document(store)
    document["bundles"][1]["bytes"]["runs"] = first.stat().st_size  # type: ignore[index]
    write_index(store, document)
    with pytest.raises(StoreError) as raised:
        list(store.detailed_rows("campaign-2026-11-08"))
    assert (raised.value.rule, raised.value.source) == ("foreign_file", str(second))


def test_a_missing_file_is_located(store: Store) -> None:
    """Gone, and still listed by a fresh index: the file is named."""
    runs = store.runs_files()[0]
    runs.unlink()
    with pytest.raises(StoreError) as raised:
        store.runs_files()
    assert (raised.value.rule, raised.value.source) == ("missing_file", str(runs))


KILLED = """
import os, sys
from pathlib import Path
from scorecard.store import _ingest, open_store
real = _ingest.replace_file
moment = sys.argv[3]
def replace_file(temporary, target):
    if moment == "before the index":
        os._exit(9)
    real(temporary, target)
    os._exit(9)
_ingest.replace_file = replace_file
open_store(sys.argv[1]).ingest([sys.argv[2]], replace=True)
"""


def _kill_during_commit(store: Store, night: Path, moment: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(store.path), str(night), moment],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 9, done.stderr


def test_a_writer_killed_before_the_index_leaves_the_store_as_it_was(store: Store) -> None:
    """Its files wait under pending/ (no reader looks there), its staging under tmp/; the next
    writer removes both."""
    before = (store.path / "index.json").read_bytes()
    runs_before = sorted(store.path.glob("runs/*/*.parquet"))
    _kill_during_commit(store, NIGHTS[2], "before the index")
    assert (store.path / "index.json").read_bytes() == before
    assert sorted(store.path.glob("runs/*/*.parquet")) == runs_before
    assert list((store.path / "pending").rglob("*.parquet"))
    assert [entry.id for entry in store.bundles()] == ["campaign-2026-11-01", "campaign-2026-11-08"]
    assert store.ingest([NIGHTS[3]]).ok
    assert not (store.path / "pending").exists()
    assert list((store.path / "tmp").iterdir()) == []
    assert sorted(store.path.glob("runs/*/*.parquet")) == sorted(store.runs_files())


def test_a_writer_killed_after_the_index_has_committed(store: Store) -> None:
    """The bundle is in the store: readers find its files under pending/ (records_frame reads
    them), and the next writer moves them into place."""
    _kill_during_commit(store, NIGHTS[2], "after the index")
    assert [entry.id for entry in store.bundles()][-1] == "campaign-2026-11-15"
    files = store.runs_files()
    assert "pending" in files[-1].parts
    assert len(records_frame(files)) == 420
    assert len(list(store.detailed_rows("campaign-2026-11-15"))) == 140
    assert store.ingest([NIGHTS[2]]).bundles[0].status == "unchanged"
    assert not (store.path / "pending").exists()
    assert sorted(store.path.glob("runs/*/*.parquet")) == sorted(store.runs_files())


@pytest.mark.parametrize(("moment", "runs"), [("before the index", 140), ("after the index", 70)])
def test_a_replace_killed_in_its_commit_leaves_no_unlisted_file(
    store: Store, tmp_path: Path, moment: str, runs: int
) -> None:
    """The replaced bundle's files go aside (under pending/) before the index changes: runs/
    never holds a file the index does not list, and readers of either index find theirs; the
    next writer puts the survivors in place."""
    night = tmp_path / "changed"
    shutil.copytree(NIGHTS[1], night)
    lines = (night / "observations.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (night / "observations.jsonl").write_text("".join(lines[:70]), encoding="utf-8")
    _kill_during_commit(store, night, moment)
    assert store.bundle("campaign-2026-11-08").runs == runs
    assert list(store.path.glob("runs/campaign-2026-11-08/*.parquet")) == []
    assert len(list(store.detailed_rows("campaign-2026-11-08"))) == runs
    assert len(records_frame(store.runs_files())) == 140 + runs
    store.ingest([NIGHTS[3]])
    assert not (store.path / "pending").exists()
    assert sorted(store.path.glob("runs/*/*.parquet")) == sorted(store.runs_files())
    assert len(list(store.path.glob("runs/campaign-2026-11-08/*.parquet"))) == 1


def test_a_file_the_index_does_not_list_is_removed_by_the_next_writer(store: Store) -> None:
    """An orphan under runs/ (what a replace killed between its steps may leave) never counts:
    scorecard reads the index, and the next writer removes it."""
    orphan = store.path / "runs" / "campaign-2026-11-01" / "0000000000000000.parquet"
    shutil.copyfile(store.runs_files()[0], orphan)
    assert len(records_frame(store.runs_files())) == 280
    assert store.query("SELECT count(*) AS n FROM runs").to_pylist() == [{"n": 280}]
    assert store.ingest([NIGHTS[0]]).bundles[0].status == "unchanged"
    assert not orphan.exists()
