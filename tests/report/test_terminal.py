"""The terminal table of scorecards, rendered at a fixed width, matches its reviewed golden file.

Regenerate with ``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/report/test_terminal.py`` and review
the diff before committing.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console

from scorecard.contract._catalog import Catalog
from scorecard.core._record import ScoredRecord
from scorecard.engine._pipeline import score_paths_serially
from scorecard.report import _terminal as render
from scorecard.report._terminal import scorecard_table
from tests.conftest import ROOT

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "score-table.txt"


def test_the_table_matches_its_golden_file(catalog: Catalog) -> None:
    """The first runs of the oldest sample bundle render exactly as reviewed, at 160 columns."""
    source = ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl"
    records = [
        r
        for r in score_paths_serially([str(source)], catalog=catalog)
        if isinstance(r, ScoredRecord)
    ]
    chosen = records[:3] + [r for r in records if r.card["overall"]["score"] is None][:1]
    stream = io.StringIO()
    scorecard_table(chosen, stream, width=160)
    text = stream.getvalue()
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
    assert "\x1b[" not in text  # no colour codes when writing to a file


def rich_oracle(records: list[ScoredRecord], stream: io.StringIO, width: int) -> None:
    """What rich prints laying out every row itself: the reference for the fast layout."""
    bundles = sorted({record.card["bundleId"] for record in records})
    one = len(bundles) == 1
    title = f"scorecards of bundle {bundles[0]}" if one else "scorecards"
    console = Console(file=stream, width=width, highlight=False, soft_wrap=False)
    console.print(render._table(title, one, [render._row(record, one) for record in records]))


def renamed(record: ScoredRecord, candidate: str) -> ScoredRecord:
    """``record`` as if run by ``candidate``."""
    return dataclasses.replace(record, card={**record.card, "candidateId": candidate})


@pytest.fixture(scope="module")
def sample(catalog: Catalog) -> list[ScoredRecord]:
    """Every sample scorecard, four bundles."""
    return [
        r
        for r in score_paths_serially([str(ROOT / "observations")], catalog=catalog)
        if isinstance(r, ScoredRecord)
    ]


def natural_width(text: str) -> int:
    """The widest line of ``text``."""
    return max(cell_len(line) for line in text.split("\n"))


@pytest.mark.parametrize("width", [160, 200, 240])
@pytest.mark.parametrize(
    "pick",
    ["all", "one bundle", "one record", "wide characters", "too long for the width"],
)
def test_rows_laid_out_by_hand_equal_rich_laying_out_every_row(
    sample: list[ScoredRecord], pick: str, width: int
) -> None:
    """When every column fits: the same bytes as rich for many rows, one bundle, one row and
    East Asian ids. When not: a compact layout within the width, no id cut."""
    records = {
        "all": sample,
        "one bundle": [r for r in sample if r.card["bundleId"] == sample[0].card["bundleId"]],
        "one record": sample[:1],
        "wide characters": [renamed(r, "候補-エージェント") for r in sample[:5]] + sample[5:40],
        "too long for the width": [renamed(sample[0], "c" * 120), *sample[1:20]],
    }[pick]
    fast, oracle, unbounded = io.StringIO(), io.StringIO(), io.StringIO()
    scorecard_table(records, fast, width=width)
    rich_oracle(records, oracle, width)
    rich_oracle(records, unbounded, 1000)
    if natural_width(unbounded.getvalue()) <= width:
        assert fast.getvalue() == oracle.getvalue()
        return
    text = fast.getvalue()
    assert natural_width(text) <= width
    assert "…" not in text
    for name in {r.card["candidateId"] for r in records}:
        assert name in text.replace("\n", "") or name in text


def test_every_id_is_whole_at_any_width(sample: list[ScoredRecord]) -> None:
    """At 80, 120 and 160 columns no line is wider than the terminal, nothing is cut with an
    ellipsis, and every case and candidate id appears whole on one line."""
    records = [r for r in sample if r.card["bundleId"] == sample[-1].card["bundleId"]]
    for width in (80, 120, 160):
        stream = io.StringIO()
        scorecard_table(records, stream, width=width)
        text = stream.getvalue()
        lines = text.split("\n")
        assert natural_width(text) <= width, width
        assert "…" not in text
        for name in {r.card["candidateId"] for r in records} | {r.card["caseId"] for r in records}:
            assert any(
                re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", line) for line in lines
            ), (width, name)


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_colours_and_the_same_text(
    sample: list[ScoredRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal: colour codes, and once they are removed, the text rich would print."""
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    fast = Terminal()
    scorecard_table(sample[:30], fast)
    oracle = Terminal()
    rich_oracle(sample[:30], oracle, 200)
    ansi = re.compile(r"\x1b\[[0-9;]*m")
    assert "\x1b[32m1.00" in fast.getvalue()  # passing scores in green
    assert ansi.sub("", fast.getvalue()) == ansi.sub("", oracle.getvalue())
