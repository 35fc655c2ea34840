"""Terminal rendering of scorecards (rich), kept out of the pure core."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .models import DIMENSIONS
from .pipeline import ScoredRecord

__all__ = ["DIMENSION_ABBREVIATIONS", "scorecard_table"]

MIN_WIDTH = 160
_CLASS_LABELS = {
    "completed": "completed",
    "candidate_failure": "cand. failure",
    "infrastructure_failure": "infra failure",
    "skipped": "skipped",
}
DIMENSION_ABBREVIATIONS = {
    "hard_invariants": "HI*",
    "lifecycle_integrity": "LI*",
    "semantic_outcome": "SO",
    "trajectory_restraint": "TR",
    "trace_completeness": "TC",
    "quality_efficiency": "QE",
    "continuation_integrity": "CI",
    "presentation_fidelity": "PF",
}


def _cell(score: float | None, passed: bool | None) -> Text:
    if score is None:
        return Text("-", style="dim")
    return Text(f"{score:.2f}", style="green" if passed else "red")


def scorecard_table(
    records: Sequence[ScoredRecord], stream: IO[str], *, width: int | None = None
) -> None:
    """One row per scorecard: bundle, case, candidate, class, the eight dimensions, overall."""
    bundles = sorted({record.card["bundleId"] for record in records})
    one_bundle = len(bundles) == 1
    table = Table(
        title=f"scorecards of bundle {bundles[0]}" if one_bundle else "scorecards",
        caption="* gate dimension   "
        + "  ".join(f"{short}={name}" for name, short in DIMENSION_ABBREVIATIONS.items()),
        show_lines=False,
    )
    # One bundle goes in the title rather than in a column repeated on every row.
    for header in (
        ("case", "candidate", "rep", "class")
        if one_bundle
        else ("bundle", "case", "candidate", "rep", "class")
    ):
        table.add_column(header, no_wrap=True, min_width=3)
    # Numbers keep their width on narrow terminals; the id columns give way (with an ellipsis).
    for name in DIMENSIONS:
        table.add_column(DIMENSION_ABBREVIATIONS[name], justify="right", min_width=4, no_wrap=True)
    table.add_column("overall", justify="right", min_width=4, no_wrap=True)
    table.add_column("gate", min_width=3, no_wrap=True)
    table.add_column("pass", min_width=3, no_wrap=True)
    for record in records:
        card = record.scorecard
        overall = card.overall
        table.add_row(
            *(() if one_bundle else (card.bundle_id,)),
            card.case_id,
            card.candidate_id,
            str(record.repetition),
            _CLASS_LABELS[card.classification],
            *(
                _cell(card.dimensions[name].score, card.dimensions[name].passed)
                for name in DIMENSIONS
            ),
            _cell(overall.score, overall.passed),
            _flag(overall.gate_passed),
            _flag(overall.passed),
        )
    if width is None and not stream.isatty():
        width = 200  # files and pipes: wide enough for every column, stable for golden files
    console = Console(file=stream, width=width, highlight=False, soft_wrap=False)
    if console.width < MIN_WIDTH:
        # Narrower terminals wrap lines rather than lose numbers to ellipses.
        console = Console(file=stream, width=MIN_WIDTH, highlight=False, soft_wrap=False)
    console.print(table)


def _flag(value: bool | None) -> Text:
    if value is None:
        return Text("-", style="dim")
    return Text("yes", style="green") if value else Text("NO", style="bold red")
