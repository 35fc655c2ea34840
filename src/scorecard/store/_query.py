"""SQL over a store, read-only: DuckDB in this process over one snapshot's files.

The connection is made for one snapshot: views ``runs`` and ``detail`` over exactly the files
the index lists (never a glob, so a half-made commit is never seen) and a table ``bundles`` of
the index. Then DuckDB is shut off from everything else: no file access but to those files
(``allowed_paths``, ``enable_external_access = false``), no extension loaded, no temporary
files, and its configuration locked. A query must be one read (a ``SELECT``, ``EXPLAIN``,
``DESCRIBE``, ``SHOW``, ``SUMMARIZE``...): ``COPY``, ``ATTACH``, ``CREATE``, ``INSERT``,
``SET``, ``PRAGMA`` and the like are refused before they reach DuckDB (DuckDB itself would let
a ``COPY`` overwrite an allowed file). Text in results goes through
:func:`~scorecard.contract.redact`: observations may hold secret-shaped strings.
"""

from __future__ import annotations

import array
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from scorecard.contract import CASE_IDS, StoreError, redact

from ._layout import DETAIL, DETAIL_SCHEMA, RUNS, RUNS_SCHEMA

__all__ = [
    "BUNDLE_COLUMNS",
    "HISTORY_SCHEMA",
    "HISTORY_SQL",
    "arrow_table",
    "connect",
    "history_order",
    "night_outcome",
    "read_only",
    "redacted",
]

#: The ``bundles`` table: the index, one row per bundle in night order.
BUNDLE_COLUMNS = pa.schema(
    [
        pa.field("position", pa.int64()),
        pa.field("id", pa.string()),
        pa.field("night", pa.string()),
        pa.field("folder", pa.string()),
        pa.field("digest", pa.string()),
        pa.field("runs", pa.int64()),
        pa.field("rejected", pa.int64()),
        pa.field("scorecard_version", pa.string()),
    ]
)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_SQL_TYPES = {"string": "VARCHAR", "int64": "BIGINT", "double": "DOUBLE", "bool": "BOOLEAN"}


def _columns(schema: pa.Schema) -> str:
    """``schema`` as SQL column definitions."""
    return ", ".join(f'"{field.name}" {_SQL_TYPES[str(field.type)]}' for field in schema)


def _view(connection: Any, name: str, files: Sequence[Path], schema: pa.Schema) -> None:
    if not files:  # no bundle yet: the columns, no rows
        connection.execute(f"CREATE TABLE {name} ({_columns(schema)})")
        return
    listed = ", ".join(_quoted(str(path)) for path in files)
    connection.execute(
        f"CREATE VIEW {name} AS SELECT * FROM read_parquet([{listed}], hive_partitioning = false)"
    )


def connect(files: Mapping[str, Sequence[Path]], bundles: Sequence[tuple[Any, ...]]) -> Any:
    """An in-memory DuckDB connection with views ``runs`` and ``detail`` over ``files`` (by
    kind) and the table ``bundles`` (rows of :data:`BUNDLE_COLUMNS`), shut off from every other
    file and locked. (No Arrow table is made from Python values here: pyarrow would import
    pandas to do it, a third of a second of every query.)"""
    import duckdb

    connection = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    try:
        _view(connection, "runs", files[RUNS], RUNS_SCHEMA)
        _view(connection, "detail", files[DETAIL], DETAIL_SCHEMA)
        connection.execute(f"CREATE TABLE bundles ({_columns(BUNDLE_COLUMNS)})")
        if bundles:
            # One statement for every row: executemany runs one statement a row (a tenth of
            # a second for 200 bundles, half of a history question's time).
            row = "(" + ", ".join("?" for _ in BUNDLE_COLUMNS) + ")"
            connection.execute(
                f"INSERT INTO bundles VALUES {', '.join(row for _ in bundles)}",
                [value for values in bundles for value in values],
            )
        allowed = ", ".join(_quoted(str(path)) for kind in files for path in files[kind])
        connection.execute(f"SET allowed_paths = [{allowed}]")
        connection.execute("SET temp_directory = ''")
        connection.execute("SET enable_external_access = false")
        connection.execute("SET lock_configuration = true")
    except BaseException:
        connection.close()
        raise
    return connection


_READS = ("SELECT", "EXPLAIN")


def read_only(sql: str) -> None:
    """Refuse ``sql`` unless it is one statement that only reads."""
    import duckdb

    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as error:
        raise StoreError(
            f"the query does not parse: {_first_line(error)}", rule="bad_query", source="query"
        ) from None
    if len(statements) != 1:
        raise StoreError(
            f"give one statement, not {len(statements)}", rule="not_a_read", source="query"
        )
    kind = statements[0].type.name
    if kind not in _READS:
        raise StoreError(
            f"a store is queried read-only: {kind} is not a read (use SELECT)",
            rule="not_a_read",
            source="query",
        )


def _first_line(error: Exception) -> str:
    return redact(str(error).strip().split("\n")[0])


def _redacted_array(array: pa.ChunkedArray) -> Any:
    """The column with its text redacted; the column itself when nothing in it is
    secret-shaped (the usual case: no array is made from Python values, which would make
    pyarrow import pandas)."""
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        fixed = []
        changed = False
        for chunk in pc.dictionary_encode(array).chunks:
            words = chunk.dictionary.to_pylist()
            shown = [None if word is None else redact(word) for word in words]
            changed |= shown != words
            fixed.append((chunk, shown))
        if not changed:
            return array
        return pa.chunked_array(
            [pc.take(pa.array(shown, kind), chunk.indices) for chunk, shown in fixed], kind
        )
    if pa.types.is_nested(kind) or pa.types.is_dictionary(kind):
        values = array.to_pylist()
        shown = _redacted_value(values)
        return array if shown == values else pa.chunked_array([pa.array(shown, kind)], kind)
    return array


def _redacted_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_redacted_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _redacted_value(item) for key, item in value.items()}
    return value


def redacted(table: pa.Table) -> pa.Table:
    """``table`` with every secret-shaped string in it redacted (nested values too)."""
    columns = [_redacted_array(column) for column in table.columns]
    if all(new is old for new, old in zip(columns, table.columns, strict=True)):
        return table
    return pa.Table.from_arrays(columns, schema=table.schema)


_CASE_ORDER = "[" + ", ".join(_quoted(case) for case in CASE_IDS) + "]"

#: Per candidate x case x bundle (night order): runs and how they ended. A run is ``not
#: scored`` without an overall score, else ``gate failed`` when its effective gate failed,
#: else ``passed`` or ``failed`` as its overall verdict says; a night's ``outcome`` is the
#: worst of its scored runs (gate failed, failed, passed), ``not scored`` when none was scored.
HISTORY_SQL = f"""
WITH judged AS (
    SELECT
        bundle, candidate, "case",
        overall_score IS NULL AS not_scored,
        overall_score IS NOT NULL AND gate_passed IS NOT DISTINCT FROM false AS gate_failed,
        overall_score IS NOT NULL AND gate_passed IS DISTINCT FROM false
            AND passed IS NOT DISTINCT FROM true AS run_passed
    FROM runs
    WHERE ($candidate IS NULL OR candidate = $candidate) AND ($case IS NULL OR "case" = $case)
),
counted AS (
    SELECT
        candidate,
        "case",
        bundle,
        count(*) AS runs,
        count(*) FILTER (WHERE run_passed) AS passed,
        count(*) FILTER (WHERE NOT run_passed AND NOT gate_failed AND NOT not_scored) AS failed,
        count(*) FILTER (WHERE gate_failed) AS gate_failed,
        count(*) FILTER (WHERE not_scored) AS not_scored
    FROM judged
    GROUP BY candidate, "case", bundle
)
SELECT
    counted.candidate,
    counted."case",
    bundles.position,
    counted.bundle,
    bundles.night,
    counted.runs,
    counted.passed,
    counted.failed,
    counted.gate_failed,
    counted.not_scored,
    CASE
        WHEN counted.gate_failed > 0 THEN 'gate failed'
        WHEN counted.failed > 0 THEN 'failed'
        WHEN counted.passed > 0 THEN 'passed'
        ELSE 'not scored'
    END AS outcome
FROM counted JOIN bundles ON counted.bundle = bundles.id
ORDER BY
    counted.candidate,
    coalesce(list_position({_CASE_ORDER}, counted."case"), {len(CASE_IDS) + 1}),
    counted."case",
    bundles.position
"""

#: The columns of a history (``Store.history``), as ``HISTORY_SQL`` gives them.
HISTORY_SCHEMA = pa.schema(
    [
        pa.field("candidate", pa.string()),
        pa.field("case", pa.string()),
        pa.field("position", pa.int64()),
        pa.field("bundle", pa.string()),
        pa.field("night", pa.string()),
        pa.field("runs", pa.int64()),
        pa.field("passed", pa.int64()),
        pa.field("failed", pa.int64()),
        pa.field("gate_failed", pa.int64()),
        pa.field("not_scored", pa.int64()),
        pa.field("outcome", pa.string()),
    ]
)

_CASE_RANK = {case: rank for rank, case in enumerate(CASE_IDS)}


def night_outcome(passed: int, failed: int, gate_failed: int) -> str:
    """A candidate x case's outcome on a night from its counts, as ``HISTORY_SQL`` says it."""
    if gate_failed > 0:
        return "gate failed"
    if failed > 0:
        return "failed"
    return "passed" if passed > 0 else "not scored"


def history_order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """Where a history row (``HISTORY_SCHEMA``'s columns) goes, as ``HISTORY_SQL`` orders:
    candidate, case in catalog order (others after, by name), night order. (DuckDB compares
    text byte by byte in UTF-8, which is the order of code points Python compares.)"""
    return (row[0], _CASE_RANK.get(row[1], len(CASE_IDS)), row[1], row[2])


def arrow_table(rows: Sequence[Sequence[Any]], schema: pa.Schema) -> pa.Table:
    """``rows`` (values in ``schema``'s order: text, int64, None for null) as a table, made
    from buffers: pyarrow's conversion from Python values would import pandas (a third of a
    second of a small read)."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema]
    return pa.Table.from_arrays(
        [_arrow_array(values, field.type) for values, field in zip(columns, schema, strict=True)],
        schema=schema,
    )


def _arrow_array(values: Sequence[Any], kind: pa.DataType) -> pa.Array:
    count = len(values)
    nulls = sum(value is None for value in values)
    validity = None
    if nulls:
        bits = bytearray((count + 7) // 8)
        for index, value in enumerate(values):
            if value is not None:
                bits[index >> 3] |= 1 << (index & 7)
        validity = pa.py_buffer(bytes(bits))
    if kind == pa.int64():
        data = array.array("q", (0 if value is None else value for value in values))
        return pa.Array.from_buffers(kind, count, [validity, pa.py_buffer(data)], nulls)
    if kind != pa.string():
        raise TypeError(f"no buffers for {kind}")
    encoded = [b"" if value is None else value.encode("utf-8") for value in values]
    offsets = array.array("i", [0])
    end = 0
    for piece in encoded:
        end += len(piece)
        offsets.append(end)
    buffers = [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(kind, count, buffers, nulls)
