"""The history of a campaign (``scorecard history``) as a table for people, JSON and CSV."""

from __future__ import annotations

import csv
import io
from typing import IO, TYPE_CHECKING, Any

from scorecard.contract import js_json, printable

if TYPE_CHECKING:
    from scorecard.api import History

__all__ = ["HISTORY_SCHEMA", "history_csv", "history_json", "render_history"]

HISTORY_SCHEMA = "scorecard.history.v1"
_COLUMNS = (
    "candidate",
    "case",
    "nights",
    "passed_nights",
    "flips",
    "flip_rate",
    "flip_low",
    "flip_high",
    "first_failure",
    "last_failure",
    "strip",
)


def history_json(history: History) -> str:
    """The nights and the ledger as one JSON document (``scorecard.history.v1``)."""
    return (
        js_json(
            {
                "schema": HISTORY_SCHEMA,
                "bundles": history.bundles,
                "ledger": history.ledger,
                "nights": history.nights,
            },
            2,
        )
        + "\n"
    )


def history_csv(history: History) -> str:
    """The ledger as CSV, one row per candidate x case (empty cells where a value is None)."""
    from scorecard.contract import csv_cell

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_COLUMNS)
    for row in history.ledger:
        writer.writerow(
            ["" if row[name] is None else csv_cell(str(row[name])) for name in _COLUMNS]
        )
    return buffer.getvalue()


def _rate(row: dict[str, Any]) -> str:
    if row["flip_rate"] is None:
        return "-"
    return f"{row['flip_rate']:.2f} [{row['flip_low']:.2f}, {row['flip_high']:.2f}]"


def render_history(history: History, stream: IO[str]) -> None:
    """The ledger as a table: one line per candidate x case, its strip of nights (P passed, F
    failed, G gate failed, - not scored, blank not run), then a key."""
    header = ("candidate", "case", "nights", "passed", "flips", "flip rate [95%]", "last failure")
    rows = [
        (
            printable(row["candidate"]),
            printable(row["case"]),
            row["strip"],
            f"{row['passed_nights']}/{row['nights']}",
            str(row["flips"]),
            _rate(row),
            printable(row["last_failure"] or "-"),
        )
        for row in history.ledger
    ]
    widths = [max(len(str(item)) for item in column) for column in zip(header, *rows, strict=False)]
    for line in (header, *rows):
        stream.write(
            "  ".join(
                str(item).ljust(width) for item, width in zip(line, widths, strict=True)
            ).rstrip()
            + "\n"
        )
    first, last = (history.bundles[0], history.bundles[-1]) if history.bundles else ("-", "-")
    stream.write(
        f"\n{len(history.bundles)} nights, {printable(first)} .. {printable(last)}: "
        "P passed, F failed, G gate failed, - not scored, blank: did not run\n"
    )
