"""The terminal table of scorecards, rendered at a fixed width, matches its reviewed golden file.

Regenerate with ``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_render.py`` and review
the diff before committing.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from scorecard.catalog import Catalog
from scorecard.pipeline import ScoredRecord, score_paths
from scorecard.render import scorecard_table

from .conftest import ROOT

GOLDEN = Path(__file__).parent / "golden" / "score-table.txt"


def test_the_table_matches_its_golden_file(catalog: Catalog) -> None:
    """The first runs of the oldest sample bundle render exactly as reviewed, at 160 columns."""
    source = ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl"
    records = [
        r for r in score_paths([str(source)], catalog=catalog) if isinstance(r, ScoredRecord)
    ]
    chosen = records[:3] + [r for r in records if r.card["overall"]["score"] is None][:1]
    stream = io.StringIO()
    scorecard_table(chosen, stream, width=160)
    text = stream.getvalue()
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
    assert "\x1b[" not in text  # no colour codes when writing to a file
