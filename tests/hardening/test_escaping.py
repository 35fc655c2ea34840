"""One escaping layer for CSV and SVG: a CSV cell never runs as a formula and never splits a
row; an SVG plot is well-formed XML whatever its ids hold.

Generated cases: hypothesis texts for the cell and XML escapes (example counts in the settings),
and seeded hostile candidate ids through ``compare --format csv`` and ``plot ... --out x.svg``.
"""

from __future__ import annotations

import csv
import io
import json
import random
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from scorecard.cli._app import app
from scorecard.contract import csv_cell, xml_characters
from tests.conftest import ROOT

SAMPLE = ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl"
LINES = SAMPLE.read_text(encoding="utf-8").splitlines()
FORMULA = ("=", "+", "-", "@", "\t", "\r")
#: What the hostile texts are built from: formula starts, row breakers, XML-invalid controls.
PIECES = ["=", "+", "-", "@", "\t", "\r", "\n", "\x00", "\x1b", "\x07", "\x0b", "\x7f", "\x85",
          "\ufffe", "\u202e", ",", '"', "cand", "HYPERLINK(\"http://x\")", "1", " "]  # fmt: skip
TEXTS = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join) | st.text()


@settings(max_examples=400, derandomize=True, deadline=None)
@given(TEXTS)
def test_a_csv_cell_is_one_inert_cell(text: str) -> None:
    """The cell reads back as one cell of one row, starts with no formula character, and holds
    no raw control; plain text is left as it is."""
    cell = csv_cell(text)
    assert not cell.startswith(FORMULA)
    assert not any(ord(character) < 0x20 or 0x7F <= ord(character) < 0xA0 for character in cell)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([cell, "next"])
    assert buffer.getvalue().count("\n") == 1
    assert list(csv.reader(io.StringIO(buffer.getvalue()))) == [[cell, "next"]]
    if text.isascii() and text.isprintable() and not text.startswith(FORMULA):
        assert cell == text


@settings(max_examples=300, derandomize=True, deadline=None)
@given(TEXTS)
def test_xml_characters_make_any_text_parse(text: str) -> None:
    """Escaped (markup first, then characters), any text is the content of a parseable element."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;")
    document = f"<t>{xml_characters(escaped)}</t>"
    assert ElementTree.fromstring(document).tag == "t"


def _hostile_ids(count: int, seed: int) -> list[str]:
    generator = random.Random(seed)
    ids = []
    for _ in range(count):
        start = generator.choice(["=", "+", "-", "@", "\t", "\r", "", "cand"])
        middle = "".join(generator.choice(PIECES) for _ in range(generator.randint(1, 4)))
        ids.append(start + middle + "x")
    return ids


def _bundle(tmp_path: Path, candidates: list[str]) -> Path:
    """A folder of sample runs whose candidates are renamed to ``candidates`` (in turn)."""
    folder = tmp_path / "bundle"
    folder.mkdir()
    names: dict[str, str] = {}
    out = []
    for line in LINES[:60]:
        document = json.loads(line)
        original = document["candidateId"]
        names.setdefault(original, candidates[len(names) % len(candidates)])
        document["candidateId"] = names[original]
        out.append(json.dumps(document))
    (folder / "runs.jsonl").write_text("\n".join(out) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("candidate", _hostile_ids(8, 11))
def test_compare_csv_cells_are_inert(tmp_path: Path, candidate: str) -> None:
    """Every row of ``compare --format csv`` is one row; no text cell starts a formula; no raw
    CR or control reaches the file."""
    folder = _bundle(tmp_path, [candidate, "plain-b"])
    result = CliRunner().invoke(app, ["compare", str(folder), "--format", "csv", "--workers", "1"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "\r" not in text
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) == 3  # the header and two candidates
    assert len({len(row) for row in rows}) == 1
    for row in rows[1:]:
        for cell in row:
            if cell.startswith(FORMULA):
                float(cell)  # only a number may start with a sign
    assert any(cell.startswith("'") or "\\" in cell for row in rows for cell in row)


@pytest.mark.parametrize(
    ("kind", "candidate"),
    [
        (kind, candidate)
        for kind, candidate in zip(
            ["overall", "heatmap", "overall", "passk"], _hostile_ids(4, 12), strict=True
        )
    ],
)
def test_svg_plots_are_well_formed_xml(tmp_path: Path, kind: str, candidate: str) -> None:
    """Whatever controls the ids hold, the SVG parses and holds none of them raw."""
    folder = _bundle(tmp_path, [candidate + "\x1b\x00\x0c", "plain-b"])
    out = tmp_path / "plot.svg"
    result = CliRunner().invoke(
        app, ["plot", kind, str(folder), "--out", str(out), "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    ElementTree.fromstring(text.encode("utf-8"))
    assert not any(ord(character) < 0x09 or character in "\x0b\x0c\x1b" for character in text)
