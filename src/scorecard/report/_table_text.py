"""Plain results (a query's rows, the labels) as text for people, CSV and JSON Lines: every cell
made printable (untrusted text never moves the terminal), columns as wide as their cells."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from typing import IO, Any

from scorecard.contract import csv_cell, js_json, printable

__all__ = ["rows_csv", "rows_json_lines", "rows_table"]

_CELL_LIMIT = 60


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def rows_table(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], stream: IO[str], *, limit: int = 200
) -> None:
    """The rows as an aligned table (cells cut to 60 characters, at most ``limit`` rows, the
    count of the rest said), then the row count."""
    shown = [[printable(_text(value))[:_CELL_LIMIT] for value in row] for row in rows[:limit]]
    header = [printable(name) for name in columns]
    widths = [max([len(name), *(len(row[i]) for row in shown)]) for i, name in enumerate(header)]
    for line in (header, *shown):
        stream.write(
            "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
            + "\n"
        )
    more = len(rows) - len(shown)
    stream.write(
        f"({len(rows)} row{'s' if len(rows) != 1 else ''}"
        + (f", {more} not shown: --format csv or json" if more else "")
        + ")\n"
    )


def rows_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """The rows as CSV (a header line; cells that a spreadsheet would run made inert)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([csv_cell(name) for name in columns])
    for row in rows:
        writer.writerow([csv_cell(_text(value)) for value in row])
    return buffer.getvalue()


def rows_json_lines(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """One JSON object per row, keys in column order (numbers as JavaScript writes them)."""
    return "".join(
        js_json({name: _json_value(value) for name, value in zip(columns, row, strict=True)}) + "\n"
        for row in rows
    )


def _json_value(value: Any) -> Any:
    """A cell as JSON holds it: dates, decimals and other SQL types as their text."""
    if value is None or isinstance(value, str | bool | int | float):
        return None if isinstance(value, float) and not math.isfinite(value) else value
    if isinstance(value, list | tuple):
        return [_json_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json_value(item) for key, item in value.items()}
    return str(value)
