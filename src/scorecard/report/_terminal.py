"""Terminal rendering of scorecards (rich), kept out of the pure core.

The table takes the widest layout the terminal holds: every column with borders; then without
vertical rules, one table per bundle; then (narrow terminals) the overall score, the flags and
the abbreviations of the failing dimensions instead of the eight scores; then with candidate ids
abbreviated and a legend. An id is never cut.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import IO

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from scorecard.contract import DIMENSIONS, printable
from scorecard.core import ScoredRecord

from ._table_layout import Abbreviations, compact_table, output_console, print_fitting

__all__ = ["DIMENSION_ABBREVIATIONS", "scorecard_table"]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CLASS_LABELS = {
    "completed": "completed",
    "candidate_failure": "cand. failure",
    "infrastructure_failure": "infra failure",
    "skipped": "skipped",
}
#: Classifications in the compact layouts (the full table spells them out).
_SHORT_CLASS = {
    "completed": "completed",
    "candidate_failure": "cand fail",
    "infrastructure_failure": "infra fail",
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


_CAPTION = "* gate dimension   " + "  ".join(
    f"{short}={name}" for name, short in DIMENSION_ABBREVIATIONS.items()
)

Cell = tuple[str, str]
"""A cell's text and its rich style ("" for none)."""


def _cell(score: float | None, passed: bool | None) -> Cell:
    if score is None:
        return ("-", "dim")
    return (f"{score:.2f}", "green" if passed else "red")


def _flag(value: bool | None) -> Cell:
    if value is None:
        return ("-", "dim")
    return ("yes", "green") if value else ("NO", "bold red")


def _row(record: ScoredRecord, one_bundle: bool) -> list[Cell]:
    card = record.card
    dimensions = card["dimensions"]
    overall = card["overall"]
    # Ids are the producer's text: shown escaped, never interpreted by the terminal.
    return [
        *(() if one_bundle else ((printable(card["bundleId"]), ""),)),
        (printable(card["caseId"]), ""),
        (printable(card["candidateId"]), ""),
        (str(record.repetition), ""),
        (_CLASS_LABELS[card["classification"]], ""),
        *(_cell(dimensions[name]["score"], dimensions[name]["passed"]) for name in DIMENSIONS),
        _cell(overall["score"], overall["passed"]),
        _flag(overall["gatePassed"]),
        _flag(overall["passed"]),
    ]


def _table(title: str, one_bundle: bool, rows: Sequence[Sequence[Cell]]) -> Table:
    table = Table(
        title=Text(title),  # a bundle id is text, never rich markup
        caption=_CAPTION,
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
    for row in rows:
        table.add_row(*(Text(text, style=style) for text, style in row))
    return table


def scorecard_table(
    records: Sequence[ScoredRecord], stream: IO[str], *, width: int | None = None
) -> None:
    """One row per scorecard: bundle, case, candidate, class, the eight dimensions, overall.

    The width is ``width``, else ``COLUMNS``, else the terminal's (200 for files and pipes).
    When every column fits, rich lays out a table of only the rows that hold each column's
    widest cell (so it decides every width, the title, header, borders and caption); the body is
    then written row by row in that layout, which costs a small fraction of rich laying out every
    row. Narrower, the compact layouts (module docstring) are laid out by rich.
    """
    bundles = sorted({record.card["bundleId"] for record in records})
    one_bundle = len(bundles) == 1
    title = f"scorecards of bundle {printable(bundles[0])}" if one_bundle else "scorecards"
    rows = [_row(record, one_bundle) for record in records]
    console = output_console(stream, width, default=200)
    widths = _natural_widths(rows, one_bundle)
    if not rows or sum(widths) + 3 * len(widths) + 1 <= console.width:
        _full(console, stream, title, one_bundle, rows, widths)
        return
    groups = _by_bundle(records)
    candidates = Abbreviations("c", (record.card["candidateId"] for record in records))
    print_fitting(
        console,
        [
            lambda: [_compact(bundle, part) for bundle, part in groups],
            lambda: [_narrow(bundle, part, None) for bundle, part in groups],
            lambda: [
                *(_narrow(bundle, part, candidates) for bundle, part in groups),
                candidates.legend("candidates"),
            ],
        ],
    )


def _by_bundle(records: Sequence[ScoredRecord]) -> list[tuple[str, list[ScoredRecord]]]:
    """Runs of consecutive records of one bundle, in input order."""
    groups: list[tuple[str, list[ScoredRecord]]] = []
    for record in records:
        bundle = record.card["bundleId"]
        if not groups or groups[-1][0] != bundle:
            groups.append((bundle, []))
        groups[-1][1].append(record)
    return groups


def _compact(bundle: str, records: Sequence[ScoredRecord]) -> Table:
    """Every column but the bundle (in the title), without vertical rules."""
    table = compact_table(f"scorecards of bundle {printable(bundle)}", _CAPTION, gap=1)
    for header in ("case", "candidate", "rep", "class"):
        table.add_column(header, overflow="fold")
    for header in [DIMENSION_ABBREVIATIONS[name] for name in DIMENSIONS] + ["overall"]:
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("gate", no_wrap=True)
    table.add_column("pass", no_wrap=True)
    for record in records:
        cells = _row(record, True)
        cells[3] = (_SHORT_CLASS[record.card["classification"]], "")
        table.add_row(*(Text(text, style=style) for text, style in cells))
    return table


def _narrow(bundle: str, records: Sequence[ScoredRecord], ids: Abbreviations | None) -> Table:
    """The overall score and flags, and the failing dimensions by abbreviation."""
    table = compact_table(
        f"scorecards of bundle {printable(bundle)}",
        "failing: the dimensions that did not pass (* gate)   "
        + "  ".join(f"{short}={name}" for name, short in DIMENSION_ABBREVIATIONS.items()),
        gap=1,
    )
    for header in ("case", "candidate", "rep", "class"):
        table.add_column(header, overflow="fold")
    table.add_column("overall", justify="right", no_wrap=True)
    table.add_column("gate", no_wrap=True)
    table.add_column("pass", no_wrap=True)
    # Three abbreviations a line: the failing list wraps rather than widening the table.
    table.add_column("failing", overflow="fold", max_width=11)
    for record in records:
        card = record.card
        cells = _row(record, True)
        candidate = card["candidateId"]
        failing = " ".join(
            DIMENSION_ABBREVIATIONS[name]
            for name in DIMENSIONS
            if card["dimensions"][name]["passed"] is False
        )
        table.add_row(
            Text(cells[0][0]),
            Text(ids(candidate) if ids is not None else cells[1][0]),
            Text(cells[2][0]),
            Text(_SHORT_CLASS[card["classification"]]),
            *(Text(text, style=style) for text, style in cells[-3:]),
            Text(failing, style="red"),
        )
    return table


def _full(
    console: Console,
    stream: IO[str],
    title: str,
    one_bundle: bool,
    rows: Sequence[Sequence[Cell]],
    widths: Sequence[int],
) -> None:
    """The bordered table of every column, its body written row by row when rich agrees."""
    if not rows:
        console.print(_table(title, one_bundle, rows))
        return
    widest = sorted(
        {max(range(len(rows)), key=lambda i: cell_len(rows[i][c][0])) for c in range(len(widths))}
    )
    frame = io.StringIO()
    framing = Console(
        file=frame,
        width=console.width,
        highlight=False,
        soft_wrap=False,
        force_terminal=console.is_terminal,
        color_system=console.color_system,  # type: ignore[arg-type]
    )
    framing.print(_table(title, one_bundle, [rows[i] for i in widest]))
    lines = frame.getvalue().split("\n")
    first_body = next(i for i, line in enumerate(lines) if "┡" in line) + 1
    if cell_len(_ANSI.sub("", lines[first_body])) != sum(widths) + 3 * len(widths) + 1:
        console.print(_table(title, one_bundle, rows))  # rich chose other widths: let it lay out
        return
    stream.write("\n".join(lines[:first_body]) + "\n")
    right = [False] * (len(widths) - 11) + [True] * 9 + [False, False]
    for row in rows:
        if console.is_terminal:
            console.print(_styled_line(row, widths, right))
        else:
            stream.write(_plain_line(row, widths, right) + "\n")
    stream.write("\n".join(lines[first_body + len(widest) :]))


def _natural_widths(rows: Sequence[Sequence[Cell]], one_bundle: bool) -> list[int]:
    headers = [*(() if one_bundle else ("bundle",)), "case", "candidate", "rep", "class"]
    headers += [DIMENSION_ABBREVIATIONS[name] for name in DIMENSIONS] + ["overall", "gate", "pass"]
    minimum = [3] * (len(headers) - 11) + [4] * 9 + [3, 3]
    return [
        max(least, cell_len(header), *(cell_len(row[column][0]) for row in rows))
        for column, (header, least) in enumerate(zip(headers, minimum, strict=True))
    ]


def _padded(text: str, width: int, right: bool) -> str:
    gap = " " * (width - cell_len(text))
    return gap + text if right else text + gap


def _plain_line(row: Sequence[Cell], widths: Sequence[int], right: Sequence[bool]) -> str:
    cells = (_padded(text, w, r) for (text, _), w, r in zip(row, widths, right, strict=True))
    return "│ " + " │ ".join(cells) + " │"


def _styled_line(row: Sequence[Cell], widths: Sequence[int], right: Sequence[bool]) -> Text:
    line = Text("│ ")
    for index, ((text, style), w, r) in enumerate(zip(row, widths, right, strict=True)):
        if index:
            line.append(" │ ")
        gap = " " * (w - cell_len(text))
        if r:
            line.append(gap)
        line.append(text, style=style or None)
        if not r:
            line.append(gap)
    line.append(" │")
    return line
