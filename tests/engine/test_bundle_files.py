"""A bundle's files as discovery finds them, and the digest that makes it the same bundle again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scorecard.contract import FramedDigest
from scorecard.engine import bundle_files, input_digest
from tests.engine.test_run import NIGHTLIES


@pytest.fixture
def night(tmp_path: Path) -> Path:
    """A copy of the first sample night, with a second file in a subfolder."""
    folder = tmp_path / "campaign" / NIGHTLIES[0].name
    shutil.copytree(NIGHTLIES[0], folder)
    (folder / "more").mkdir()
    lines = (folder / "observations.jsonl").read_bytes().splitlines(keepends=True)
    (folder / "more" / "late.jsonl").write_bytes(b"".join(lines[:3]))
    return folder


def test_the_digest_frames_the_manifest_then_the_files_by_their_names_in_the_folder(
    night: Path,
) -> None:
    """Manifest first, then the files in reading order, named relative to the bundle folder."""
    (bundle,), errors = bundle_files([night])
    assert errors == []
    assert bundle.names == ("more/late.jsonl", "observations.jsonl")
    expected = FramedDigest()
    expected.add("bundle.json", (night / "bundle.json").read_bytes())
    for name in bundle.names:
        expected.add(name, (night / name).read_bytes())
    assert expected.hexdigest() == input_digest(bundle)


def test_the_digest_does_not_depend_on_how_the_bundle_is_pointed_at(
    night: Path, tmp_path: Path
) -> None:
    """The parent folder, the bundle folder, or the folder moved elsewhere: one digest."""
    (whole,), _ = bundle_files([night.parent])
    (own,), _ = bundle_files([night])
    moved = tmp_path / "elsewhere" / "x"
    shutil.copytree(night, moved)
    (copy,), _ = bundle_files([moved])
    assert input_digest(whole) == input_digest(own) == input_digest(copy)
    assert (own.folder_name, copy.folder_name) == (night.name, "x")


def test_a_changed_or_renamed_file_changes_the_digest(night: Path) -> None:
    """One byte more, or the same bytes under another name, is another bundle."""
    (bundle,), _ = bundle_files([night])
    before = input_digest(bundle)
    late = night / "more" / "late.jsonl"
    late.rename(night / "more" / "later.jsonl")
    (renamed,), _ = bundle_files([night])
    after_rename = input_digest(renamed)
    (night / "more" / "later.jsonl").rename(late)
    late.write_bytes(late.read_bytes() + b"\n")
    (grown,), _ = bundle_files([night])
    assert len({before, after_rename, input_digest(grown)}) == 3


def test_folders_without_manifests_are_bundles_of_their_own(tmp_path: Path) -> None:
    """Each folder without a manifest is ``local-<name>``; the same name twice is one id from two
    folders."""
    line = (NIGHTLIES[0] / "observations.jsonl").read_bytes().splitlines()[0] + b"\n"
    for parent in ("a", "b"):
        (tmp_path / parent / "nightly").mkdir(parents=True)
        (tmp_path / parent / "nightly" / "runs.jsonl").write_bytes(line)
    (bundle,), errors = bundle_files([tmp_path])
    assert errors == []
    assert bundle.id == "local-nightly"
    assert bundle.folders == (str(tmp_path / "a" / "nightly"), str(tmp_path / "b" / "nightly"))
    assert bundle.manifests == ()
    assert bundle.names == ("runs.jsonl", "runs.jsonl")


def test_a_broken_manifest_is_an_error_and_its_files_no_bundle(night: Path) -> None:
    """Discovery's error, once; no bundle."""
    (night / "bundle.json").write_text("{", encoding="utf-8")
    bundles, errors = bundle_files([night, night])
    assert bundles == []
    assert [error.rule for error in errors] == ["malformed_json"]


def test_standard_input_is_named_by_a_dash(tmp_path: Path) -> None:
    """``-`` is a bundle of its own (``local-stdin``), hashed from the bytes given."""
    (bundle,), _ = bundle_files(["-"])
    assert (bundle.id, bundle.names, bundle.folder_name) == ("local-stdin", ("-",), "")
    expected = FramedDigest()
    expected.add("-", b"{}\n")
    assert expected.hexdigest() == input_digest(bundle, b"{}\n")
