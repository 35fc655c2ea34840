"""``build_report`` / ``report_site`` over inputs with rejected records: the site is built from
the good records, the rejected ones are returned located (as ``score`` returns them) and listed
on the site; only when nothing is left does the call raise.

Expected locations come from the files written here (line numbers counted by hand) and from
``api.score`` on the same files, the other command that keeps good records beside bad ones."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from scorecard import api
from scorecard.contract import InputErrors
from tests.conftest import ROOT

NIGHT = ROOT / "observations" / "2026-11-22-nightly"
KEY = "sk-" + "q9w8e7r6" * 4
BAD_LINES = ['{"schema": "nope"}', json.dumps({"schema": 5, "apiKey": KEY}), "{not json"]


@pytest.fixture
def clean_night(tmp_path: Path) -> Path:
    """The first 20 runs of the newest sample night."""
    folder = tmp_path / "clean"
    folder.mkdir()
    shutil.copy(NIGHT / "bundle.json", folder / "bundle.json")
    lines = (NIGHT / "observations.jsonl").read_text(encoding="utf-8").splitlines()[:20]
    (folder / "observations.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def broken_night(clean_night: Path, tmp_path: Path) -> Path:
    """The same night with three bad lines after its 20 runs (lines 21 to 23), so each good
    run keeps its line (the run pages show it)."""
    folder = tmp_path / "broken"
    shutil.copytree(clean_night, folder)
    lines = (clean_night / "observations.jsonl").read_text(encoding="utf-8").splitlines()
    mixed = [*lines, *BAD_LINES]
    (folder / "observations.jsonl").write_text("\n".join(mixed) + "\n", encoding="utf-8")
    return folder


def test_the_site_is_built_from_the_good_records(clean_night: Path) -> None:
    """Every page but the overview is the clean night's, byte for byte (the same folder, before
    the bad lines were added after its runs), and the rejected records are listed apart."""
    clean = api.build_report([clean_night], workers=1)
    with (clean_night / "observations.jsonl").open("a", encoding="utf-8") as stream:
        stream.write("\n".join(BAD_LINES) + "\n")
    broken = api.build_report([clean_night], workers=1)
    assert clean.rejected == ()
    changed = {
        name
        for name in broken.files.keys() | clean.files.keys()
        if broken.files.get(name) != clean.files.get(name)
    }
    # the receipt names other input bytes; the marker lists rejected.html
    assert changed == {"index.html", "rejected.html", "receipt.json", ".scorecard-site"}
    assert "3 input records were rejected" in broken.files["index.html"].decode()


def test_rejected_records_are_located_as_score_locates_them(broken_night: Path) -> None:
    """The lines, pointers and rules are those of the bad lines, and the very errors ``score``
    returns for the same folder."""
    site = api.build_report([broken_night], workers=1)
    source = str(broken_night / "observations.jsonl")
    assert [(error.source, error.line) for error in site.rejected] == [
        (source, 21),
        (source, 22),
        (source, 23),
    ]
    assert [error.rule for error in site.rejected][:2] == ["unsupported_schema"] * 2
    scored = api.score([broken_night], out=io.StringIO(), output_format="jsonl", workers=1)
    assert [error.to_record() for error in site.rejected] == [
        error.to_record() for error in scored.errors
    ]
    page = site.files["rejected.html"].decode()
    assert KEY not in page
    for error in site.rejected:
        assert f'<td class="num">{error.line}</td>' in page


def test_the_same_inputs_give_the_same_bytes(broken_night: Path) -> None:
    first = api.build_report([broken_night], workers=1)
    second = api.build_report([broken_night], workers=2)
    assert first.files == second.files
    assert [error.to_record() for error in first.rejected] == [
        error.to_record() for error in second.rejected
    ]


def test_a_scored_input_is_rejected_whole_beside_good_ones(
    clean_night: Path, tmp_path: Path
) -> None:
    """A records file among observation folders is one rejected input (rule ``scored_input``);
    the site is the other folders'."""
    records = tmp_path / "records.jsonl"
    api.score([clean_night], out=records, output_format="records", workers=1)
    site = api.build_report([records, clean_night], workers=1)
    assert [(error.rule, error.source, error.line) for error in site.rejected] == [
        ("scored_input", str(records), None)
    ]
    alone = api.build_report([clean_night], workers=1)
    assert site.files["data/runs.js"] == alone.files["data/runs.js"]


def test_nothing_left_raises_every_rejection(tmp_path: Path) -> None:
    """Only bad records: nothing to show, so each rejection is raised together."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(BAD_LINES) + "\n", encoding="utf-8")
    with pytest.raises(InputErrors) as raised:
        api.build_report([bad], workers=1)
    assert [error.line for error in raised.value.errors] == [1, 2, 3]


def test_report_site_writes_the_site_and_returns_the_rejected(
    broken_night: Path, tmp_path: Path
) -> None:
    """The folder holds the built files, the list page among them, and the call returns the
    rejections; ``verify`` finds the site identical to what its receipt rebuilds."""
    out = tmp_path / "site"
    written = api.report_site([broken_night], out=out, workers=1)
    built = api.build_report([broken_night], workers=1)
    assert [error.to_record() for error in written.rejected] == [
        error.to_record() for error in built.rejected
    ]
    assert len(written.rejected) == 3
    on_disk = {
        path.relative_to(out).as_posix(): path.read_bytes()
        for path in out.rglob("*")
        if path.is_file()
    }
    assert on_disk == built.files
    assert written.files == len(on_disk)
    assert api.verify(out, workers=1).difference is None
