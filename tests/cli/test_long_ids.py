"""Ids of any length in bounded time: drawn and shown shortened with a digest, whole in data.

A megabyte candidate id once made ``report`` and ``plot heatmap`` run past five minutes
(matplotlib laid out every glyph of every tick label; every page redacted and wrote the id
whole). Here two candidates whose ids differ only in their last character must stay apart on
screen, and every command must finish in seconds."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from matplotlib.text import Text

from scorecard import api
from scorecard.contract import shortened
from scorecard.plots._base import LABEL_LIMIT, TEXT_LIMIT
from tests.conftest import ROOT

LONG = 1 << 20  # one megabyte


@pytest.fixture(scope="module")
def long_ids(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Six runs of two candidates whose megabyte ids differ only in their last character."""
    lines = (ROOT / "observations" / "2026-11-22-nightly" / "observations.jsonl").read_text()
    first = json.loads(lines.splitlines()[0])
    ids = ["c" * LONG + "a", "c" * LONG + "b"]
    records = []
    for candidate in ids:
        for case in ("final-response", "rich-activity", "governed-interaction"):
            record: dict[str, Any] = json.loads(json.dumps(first))
            record["candidateId"] = candidate
            record["caseId"] = case
            record["base"]["caseId"] = case
            records.append(json.dumps(record, separators=(",", ":")))
    folder = tmp_path_factory.mktemp("long-ids")
    (folder / "runs.jsonl").write_text("\n".join(records) + "\n")
    return folder, ids


def run(*args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """`python -m scorecard ARGS` (at most two minutes: five were not enough before), timed."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "scorecard", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    return done, time.monotonic() - started


def test_a_plot_of_megabyte_ids_is_drawn_in_seconds(
    long_ids: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """`plot heatmap` finishes quickly and writes its image."""
    folder, _ = long_ids
    done, seconds = run("plot", "heatmap", str(folder), "--out", str(tmp_path / "h.png"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "h.png").stat().st_size > 0
    assert seconds < 60


def test_drawn_ids_are_bounded_and_stay_apart(long_ids: tuple[Path, list[str]]) -> None:
    """Every line of figure text is at most TEXT_LIMIT characters once drawn (a tick label
    LABEL_LIMIT), and the two ids are drawn differently (their digests differ)."""
    folder, ids = long_ids
    plots = api.draw_plots(["heatmap"], [folder], workers=1)
    figure = plots.figures["heatmap"]
    figure.draw_without_rendering()
    texts = [text.get_text() for text in figure.findobj(Text)]
    labels = [str(label.get_text()) for label in figure.axes[0].get_yticklabels()]
    assert all(len(line) <= TEXT_LIMIT for text in texts for line in text.split("\n"))
    assert sorted(labels) == sorted(shortened(name, LABEL_LIMIT) for name in ids)
    assert len(set(labels)) == 2


def test_a_report_of_megabyte_ids_is_built_in_seconds_and_stays_small(
    long_ids: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """`report` finishes quickly; its pages show the ids shortened (the runs page is far
    smaller than the ids it names), and the two candidates keep two pages."""
    folder, _ = long_ids
    done, seconds = run("report", str(folder), "--out", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert seconds < 90
    runs_page = (tmp_path / "site" / "runs.html").read_text()
    assert len(runs_page) < LONG
    assert len(list((tmp_path / "site" / "candidates").iterdir())) == 2


def test_records_keep_the_whole_id(long_ids: tuple[Path, list[str]]) -> None:
    """Shortening is for display: the scored records hold each id whole."""
    folder, ids = long_ids
    done, _ = run("score", str(folder), "--format", "records")
    assert done.returncode == 0, done.stderr[-2000:]
    found = [json.loads(line)["candidateId"] for line in done.stdout.splitlines()]
    assert found == [ids[0]] * 3 + [ids[1]] * 3


def test_shortened_text_keeps_its_start_and_a_digest_of_the_whole() -> None:
    """Short text is itself; long text is cut to the limit, ending in 8 hex digits."""
    assert shortened("opencode-glm", 20) == "opencode-glm"
    long = "x" * 50
    shown = shortened(long, 20)
    assert len(shown) == 20
    assert shown.startswith("x" * 11 + "\u2026")
    assert shown != shortened("x" * 49 + "y", 20)
