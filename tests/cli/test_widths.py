"""Tables read at any terminal width: golden files of `compare` and `score` at 80, 120 and 160
columns (``COLUMNS``), reviewed by eye, and the properties every width must keep: no line wider
than the terminal, no id cut (no ellipsis), every candidate id whole on one line.

Regenerate with ``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_widths.py`` and read
the diff before committing.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from scorecard.cli._app import app
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden"
WIDTHS = (80, 120, 160)
CANDIDATES = (
    "codex-luna",
    "opencode-kimi",
    "opencode-glm",
    "opencode-gpt-oss",
    "opencode-glm-flash",
    "acpx-claude-sonnet",
    "acpx-codex-sol",
)


@pytest.fixture(scope="module")
def small_campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two sample bundles, every tenth observation of each (every candidate id appears)."""
    root = tmp_path_factory.mktemp("campaign")
    for name in ("2026-11-15-nightly", "2026-11-22-nightly"):
        source = ROOT / "observations" / name
        target = root / name
        target.mkdir()
        shutil.copy(source / "bundle.json", target / "bundle.json")
        lines = (source / "observations.jsonl").read_text(encoding="utf-8").splitlines()
        (target / "observations.jsonl").write_text("\n".join(lines[::10]) + "\n", encoding="utf-8")
    return root


def _run(width: int, *args: str) -> str:
    result = CliRunner().invoke(
        app, list(args), env={"COLUMNS": str(width), "NO_COLOR": "1", "TERM": "dumb"}
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def _assert_readable(text: str, width: int, ids: tuple[str, ...]) -> None:
    lines = text.split("\n")
    assert max(cell_len(line) for line in lines) <= width
    assert "…" not in text
    for name in ids:
        whole = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
        assert any(whole.search(line) for line in lines), (width, name)


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_matches_its_golden_file_at_each_width(width: int) -> None:
    """`compare observations/` at 80, 120 and 160 columns, as reviewed."""
    text = _run(width, "compare", str(ROOT / "observations"), "--workers", "1")
    _check_golden(f"compare-{width}.txt", text)
    _assert_readable(text, width, CANDIDATES)


@pytest.mark.parametrize("width", WIDTHS)
def test_score_table_matches_its_golden_file_at_each_width(
    width: int, small_campaign: Path
) -> None:
    """`score --format table` of two bundles at 80, 120 and 160 columns, as reviewed."""
    text = _run(width, "score", str(small_campaign), "--format", "table", "--workers", "1")
    _check_golden(f"score-{width}.txt", text)
    _assert_readable(text, width, CANDIDATES)


@pytest.mark.parametrize("width", WIDTHS)
def test_side_by_side_and_trend_views_keep_every_id_whole(width: int) -> None:
    """The one-bundle view (candidates, dimensions, pairs) and a candidate's trend fit too."""
    bundle = str(ROOT / "observations" / "2026-11-22-nightly")
    text = _run(
        width,
        "compare",
        bundle,
        "--candidate",
        "opencode-glm-flash",
        "--candidate",
        "acpx-claude-sonnet",
        "--candidate",
        "opencode-glm",
    )
    _assert_readable(text, width, ("opencode-glm-flash", "acpx-claude-sonnet", "opencode-glm"))
    text = _run(width, "compare", str(ROOT / "observations"), "--across-bundles", "opencode-glm")
    _assert_readable(text, width, ("campaign-2026-11-22",))
    text = _run(width, "compare", bundle)
    _assert_readable(text, width, CANDIDATES)


def test_a_wide_terminal_gets_the_bordered_table() -> None:
    """At 160 columns compare's tables have their borders; at 80 they have none."""
    wide = _run(160, "compare", str(ROOT / "observations"), "--workers", "1")
    narrow = _run(80, "compare", str(ROOT / "observations"), "--workers", "1")
    assert "┃ candidate" in wide
    assert "┃" not in narrow
    assert "│" not in narrow
