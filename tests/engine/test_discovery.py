"""Finding observation files in folders: iterative, in sorted order, every unreadable thing
located (never skipped in silence)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract import InputError
from scorecard.engine._io import discover_inputs, observation_files


@pytest.fixture
def deep_folder(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path/d/d/.../d``, 1,000 levels (2 kB): made and removed one level at a time
    (``Path.mkdir(parents=True)`` and ``shutil.rmtree`` recurse, as ``rglob`` did)."""
    deep = tmp_path
    for _ in range(1000):
        deep /= "d"
        os.mkdir(deep)
    yield deep
    for path in [deep, *deep.parents]:
        if path == tmp_path:
            break
        for child in path.iterdir():
            child.unlink()
        path.rmdir()


def _names(root: Path, found: list[Path | InputError]) -> list[str]:
    return [
        f"error {item.source} {item.rule}: {item.message}"
        if isinstance(item, InputError)
        else str(item.relative_to(root))
        for item in found
    ]


def test_files_come_in_path_component_order(tmp_path: Path) -> None:
    """Sorted as paths sort (by component: `a/b` before `a-c`), manifests and other suffixes
    left out, hidden files and folders included."""
    for name in ("a-c.jsonl", "a/b.jsonl", "a/bundle.json", "b.json", ".h/x.json", "c.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    assert _names(tmp_path, observation_files(tmp_path)) == [
        ".h/x.json",
        "a/b.jsonl",
        "a-c.jsonl",
        "b.json",
    ]


def test_a_folder_a_thousand_levels_deep_is_walked_with_its_shallow_files(
    tmp_path: Path, deep_folder: Path
) -> None:
    """A 2 kB deep path neither overflows the stack nor loses the files beside it."""
    (tmp_path / "first.jsonl").write_text("{}")
    (deep_folder / "deep.jsonl").write_text("{}")
    (tmp_path / "z.jsonl").write_text("{}")
    found = observation_files(tmp_path)
    assert _names(tmp_path, found) == [
        "/".join(["d"] * 1000) + "/deep.jsonl",
        "first.jsonl",
        "z.jsonl",
    ]


def test_linked_folders_are_not_entered_so_a_loop_ends(tmp_path: Path) -> None:
    """A link back to an ancestor is not followed (as before); the walk ends."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.jsonl").write_text("{}")
    os.symlink(tmp_path, tmp_path / "a" / "up")
    os.symlink(tmp_path / "a" / "x.jsonl", tmp_path / "linked.jsonl")
    assert _names(tmp_path, observation_files(tmp_path)) == ["a/x.jsonl", "linked.jsonl"]


def test_a_dangling_link_and_a_link_loop_are_located_errors(tmp_path: Path) -> None:
    """A file that cannot be read is reported by name in its place, as it is when named."""
    os.symlink(tmp_path / "nowhere.jsonl", tmp_path / "a.jsonl")
    os.symlink(tmp_path / "b.jsonl", tmp_path / "b.jsonl")
    (tmp_path / "c.jsonl").write_text("{}")
    assert _names(tmp_path, observation_files(tmp_path)) == [
        f"error {tmp_path / 'a.jsonl'} unreadable: cannot read file: No such file or directory",
        f"error {tmp_path / 'b.jsonl'} unreadable: cannot read file: Too many levels of "
        "symbolic links",
        "c.jsonl",
    ]


def test_a_folder_that_cannot_be_listed_is_a_located_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sub-folder scandir refuses is one error naming it; the rest is still found."""
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "hidden.jsonl").write_text("{}")
    (tmp_path / "open.jsonl").write_text("{}")
    real = os.scandir

    def guarded(path: Any) -> Any:
        if str(path) == str(tmp_path / "locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", guarded)
    found = list(discover_inputs([str(tmp_path)]))
    assert isinstance(found[0], InputError)
    assert (found[0].source, found[0].rule, found[0].message) == (
        str(tmp_path / "locked"),
        "unreadable",
        "cannot read folder: Permission denied",
    )
    assert [getattr(item, "path", None) for item in found[1:]] == [str(tmp_path / "open.jsonl")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads folders whatever their mode")
def test_an_unreadable_folder_fails_the_score_command(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """Through the command line: the folder is named and the exit status is 2."""
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x.jsonl").write_text(json.dumps(observation) + "\n")
    locked.chmod(0)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "scorecard", "score", str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        locked.chmod(0o700)
    assert done.returncode == 2
    assert f"error: {locked}: cannot read folder: Permission denied [unreadable]" in done.stderr


def test_score_reads_every_file_of_a_deep_tree(
    tmp_path: Path, deep_folder: Path, observation: dict[str, Any]
) -> None:
    """The command scores the shallow and the deep observation alike, no traceback."""
    line = json.dumps(observation) + "\n"
    (tmp_path / "a.jsonl").write_text(line)
    (deep_folder / "b.jsonl").write_text(line)
    done = subprocess.run(
        [sys.executable, "-m", "scorecard", "score", str(tmp_path), "--format", "jsonl"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(done.stdout.splitlines()) == 2
    assert "Traceback" not in done.stderr


def test_input_bundles_are_the_bundles_the_scored_records_hold(tmp_path: Path) -> None:
    """Read from the manifests before scoring, the sample's bundle ids are those its scored
    records carry, in order; an override names them all; a scored input (records, Parquet)
    or stdin is not read so (None)."""
    from scorecard.engine import input_bundles, score_run
    from tests.conftest import ROOT

    samples = [str(path) for path in sorted((ROOT / "observations").iterdir())]
    scored = [
        str(item.card["bundleId"])
        for item in score_run(samples, workers=1).records()
        if not isinstance(item, InputError)
    ]
    assert input_bundles(samples) == list(dict.fromkeys(scored))
    assert len(set(scored)) == len(samples)
    assert input_bundles(samples, "one-id") == ["one-id"]
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"schema": "scorecard.record.v1"}) + "\n")
    assert input_bundles([*samples, str(records)]) is None
    assert input_bundles(["-"]) is None
    # What cannot be read is the scoring's to report, with its own error: a missing path, a
    # manifest that is not JSON.
    assert input_bundles([*samples, str(tmp_path / "missing")]) is None
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bundle.json").write_text("{not json")
    (broken / "observations.jsonl").write_text("{}\n")
    assert input_bundles([*samples, str(broken)]) is None
