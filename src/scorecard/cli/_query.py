"""``scorecard query --store STORE "SQL"``: one read-only SQL statement over the store's runs,
detail and bundles (``scorecard.api.query``, DuckDB), written as a table, CSV, JSON Lines or
Parquet."""

from __future__ import annotations

import contextlib
import enum
import sys
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from ._common import OutOption, check_outputs, library_errors


class QueryFormat(enum.StrEnum):
    """How the rows are written."""

    table = "table"
    csv = "csv"
    jsonl = "jsonl"
    parquet = "parquet"


SqlArgument = Annotated[
    str,
    typer.Argument(
        help="One read statement (SELECT, WITH ...) over the views runs, detail and bundles.",
        show_default=False,
    ),
]
QueryStoreOption = Annotated[
    Path, typer.Option("--store", help="The campaign store to read.", show_default=False)
]
FormatOption = Annotated[
    QueryFormat | None,
    typer.Option(
        "--format",
        help="table for people; csv, jsonl or parquet for tools. Default: from the --out "
        "extension, else table.",
        show_default=False,
    ),
]


def query(
    sql: SqlArgument,
    store: QueryStoreOption,
    output_format: FormatOption = None,
    out: OutOption = None,
) -> None:
    """Answer any question the other commands do not: one read-only SQL statement over the
    store (writes, other files and extensions are refused; secret-shaped text is redacted).

    Exit status: 0 when the rows were written, 2 on a refused statement or a bad store."""
    check_outputs({"--out": out})
    from scorecard.api import query as run_query

    suffix = "" if out is None else out.suffix.lower().lstrip(".")
    known = {item.value for item in QueryFormat}
    chosen = output_format or QueryFormat(suffix if suffix in known else "table")
    with library_errors():
        table = run_query(store, sql)
        _write(table, chosen, out)


def _write(table: Any, chosen: QueryFormat, out: Path | None) -> None:
    from scorecard.engine import atomic_binary_writer, atomic_writer
    from scorecard.report import rows_csv, rows_json_lines, rows_table

    if chosen is QueryFormat.parquet:
        if out is None:
            from scorecard.contract import InputError

            raise InputError("Parquet needs --out FILE.parquet", rule="usage", source="--format")
        import pyarrow.parquet as pq

        with atomic_binary_writer(out) as binary:
            pq.write_table(table, binary, compression="zstd")
        return
    columns, rows = table.column_names, [tuple(row.values()) for row in table.to_pylist()]
    with contextlib.ExitStack() as stack:
        stream: IO[str] = stack.enter_context(atomic_writer(out)) if out is not None else sys.stdout
        if chosen is QueryFormat.csv:
            stream.write(rows_csv(columns, rows))
        elif chosen is QueryFormat.jsonl:
            stream.write(rows_json_lines(columns, rows))
        else:
            rows_table(columns, rows, stream)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("query")(query)
