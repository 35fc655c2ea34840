"""Parquet output: scored records as the aggregation frame's columns (pyarrow, streamed).

``scorecard score --out results.parquet`` writes one file; ``--partition-by-bundle`` writes a
Hive-style dataset folder (``results.parquet/bundle=<id>/part-0.parquet``). Rows are written in
input order in row groups, so memory stays bounded; files appear atomically (a temporary file or
folder renamed into place). The schema is :data:`PARQUET_SCHEMA` (``docs/records.md``).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from scorecard.contract import ROW_COLUMNS, InputError, Row, written_name

from ._output import atomic_binary_writer, atomic_folder

__all__ = [
    "DICTIONARY_SCHEMA",
    "PARQUET_SCHEMA",
    "parquet_batches",
    "parquet_bundle_order",
    "parquet_input_error",
    "parquet_metadata_value",
    "parquet_row_count",
    "read_parquet_rows",
    "read_parquet_table",
    "row_batch",
    "rows_of",
    "unreadable_parquet",
    "write_parquet",
]

ROW_GROUP = 65_536

#: Columns in the aggregation frame's order; scores are null (not NaN) when unscoreable.
PARQUET_SCHEMA = pa.schema(
    [pa.field(column.name, getattr(pa, column.arrow_type)()) for column in ROW_COLUMNS]
)
#: Files inside a bundle-partitioned dataset: the bundle is the folder (``bundle=<id>``).
PARTITION_SCHEMA = PARQUET_SCHEMA.remove(0)


def _batch(rows: list[Row], schema: pa.Schema = PARQUET_SCHEMA) -> pa.RecordBatch:
    skip = len(PARQUET_SCHEMA) - len(schema)
    columns = list(zip(*rows, strict=True))[skip:] if rows else [() for _ in schema]
    arrays = []
    for field, values in zip(schema, columns, strict=True):
        # NaN means "absent" in the frame; Parquet has real nulls for that (from_pandas).
        floating = pa.types.is_floating(field.type)
        arrays.append(pa.array(values, type=field.type, from_pandas=floating))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def row_batch(rows: list[Row]) -> pa.RecordBatch:
    """``rows`` as one record batch of :data:`PARQUET_SCHEMA` (missing numbers null), as
    ``scorecard score --out X.parquet`` writes them."""
    return _batch(rows)


def _batches(rows: Iterable[Row]) -> Iterator[pa.RecordBatch]:
    pending: list[Row] = []
    for row in rows:
        pending.append(row)
        if len(pending) == ROW_GROUP:
            yield _batch(pending)
            pending = []
    if pending:
        yield _batch(pending)


Metadata = Callable[[], Mapping[bytes, bytes]]
"""Key-value metadata made once every row is written (a receipt naming their digest)."""


def _write_file(rows: Iterable[Row], path: Path, metadata: Metadata | None = None) -> int:
    count = 0
    with (
        atomic_binary_writer(path) as stream,
        pq.ParquetWriter(stream, PARQUET_SCHEMA, compression="zstd") as writer,
    ):
        for batch in _batches(rows):
            writer.write_batch(batch)
            count += batch.num_rows
        if metadata is not None:
            writer.add_key_value_metadata(dict(metadata()))
    return count


def _bundle_folder(bundle: str) -> str:
    # Hive partition values are path segments: percent-encode (UTF-8) all but unreserved chars.
    return "bundle=" + urllib.parse.quote(bundle, safe="")


def write_parquet(
    rows: Iterable[Row],
    path: str | Path,
    *,
    partition_by_bundle: bool = False,
    metadata: Metadata | None = None,
) -> int:
    """Write ``rows`` to ``path`` atomically; return how many were written. ``metadata``, when
    given, is called once every row is written and its key-value pairs are stamped on the file
    (on each file of a partitioned dataset)."""
    if not partition_by_bundle:
        return _write_file(rows, Path(path), metadata)
    with atomic_folder(path) as staging:
        return _write_partitions(rows, staging, metadata)


def _write_partitions(rows: Iterable[Row], folder: Path, metadata: Metadata | None = None) -> int:
    """One file per bundle, rows in input order; bundles kept open while their rows stream in."""
    writers: dict[str, pq.ParquetWriter] = {}
    pending: dict[str, list[Row]] = {}
    count = 0
    try:
        for row in rows:
            bundle = row[0]
            if bundle not in writers:
                part = folder / _bundle_folder(bundle)
                part.mkdir()
                writers[bundle] = pq.ParquetWriter(
                    part / "part-0.parquet", PARTITION_SCHEMA, compression="zstd"
                )
                pending[bundle] = []
            pending[bundle].append(row)
            if len(pending[bundle]) == ROW_GROUP:
                writers[bundle].write_batch(_batch(pending[bundle], PARTITION_SCHEMA))
                pending[bundle] = []
            count += 1
        for bundle, batch in pending.items():
            if batch:
                writers[bundle].write_batch(_batch(batch, PARTITION_SCHEMA))
        if metadata is not None and writers:
            stamp = dict(metadata())
            for writer in writers.values():
                writer.add_key_value_metadata(stamp)
    finally:
        for writer in writers.values():
            writer.close()
    return count


def _write_partition_file(table: pa.Table, path: Path) -> int:
    """One bundle's rows (:data:`PARTITION_SCHEMA`, in input order) as the file
    ``--partition-by-bundle`` writes for it: row groups of :data:`ROW_GROUP` rows, zstd,
    written atomically. The bytes are those :func:`write_parquet` writes for the same rows,
    however ``table`` is chunked (a cluster run's bundle file, ``tests/engine/test_distributed.py``)."""
    with (
        atomic_binary_writer(path) as stream,
        pq.ParquetWriter(stream, PARTITION_SCHEMA, compression="zstd") as writer,
    ):
        for batch in table.combine_chunks().to_batches(max_chunksize=ROW_GROUP):
            writer.write_batch(batch)
    return int(table.num_rows)


def _bundle_from_folder(name: str) -> str:
    return urllib.parse.unquote(name.removeprefix("bundle="))


def rows_of(table: pa.Table, schema: pa.Schema) -> list[list[Any]]:
    """The columns of ``table`` as lists of Python values, numbers missing as NaN."""
    return [_values(field, column) for field, column in zip(schema, table.columns, strict=True)]


def _values(field: pa.Field, column: pa.ChunkedArray) -> list[Any]:
    # numpy makes the Python floats (nulls NaN) and ints at once; text and flags keep None.
    if pa.types.is_floating(field.type) or (
        pa.types.is_integer(field.type) and not column.null_count
    ):
        values: list[Any] = column.to_numpy().tolist()
    else:
        values = column.to_pylist()
    return values


def unreadable_parquet(path: str | Path, error: Exception) -> InputError:
    """The located error of a Parquet input that cannot be read."""
    return InputError(
        f"cannot read Parquet: {type(error).__name__}", rule="unreadable", source=str(path)
    )


#: :data:`PARQUET_SCHEMA` with text read dictionary-encoded: each distinct value once per row
#: group (as Parquet stores it), rows holding indices (what categorical columns are made of).
DICTIONARY_SCHEMA = pa.schema(
    [
        pa.field(field.name, pa.dictionary(pa.int32(), pa.string()))
        if pa.types.is_string(field.type)
        else field
        for field in PARQUET_SCHEMA
    ]
)


def _read_file(path: Path, schema: pa.Schema) -> pa.Table:
    """One Parquet file as ``schema`` (its columns selected and cast if the file differs).

    ``ParquetFile.read`` on one thread: about half the time of ``pq.read_table``'s dataset
    machinery for these files, and faster than threads while other work shares the cores."""
    text = [field.name for field in schema if pa.types.is_dictionary(field.type)]
    table = pq.ParquetFile(path, read_dictionary=text).read(use_threads=False)
    if table.schema.equals(schema):
        return table
    missing = [name for name in schema.names if name not in table.schema.names]
    if missing:
        raise ValueError(f"Parquet file lacks column(s) {', '.join(missing)}")
    return table.select(schema.names).cast(schema)


def read_parquet_table(path: str | Path) -> pa.Table:
    """A Parquet file or bundle-partitioned dataset as one Arrow table of
    :data:`DICTIONARY_SCHEMA` (the frame's columns, in its order; text dictionary-encoded,
    missing numbers null), without Python rows.

    A dataset's bundles come back in sorted folder order, each in its written row order.
    """
    source = Path(path)
    if not source.is_dir():
        return _read_file(source, DICTIONARY_SCHEMA)
    tables = [DICTIONARY_SCHEMA.empty_table()]
    for file in sorted(source.glob("bundle=*/*.parquet")):
        table = _read_file(file, DICTIONARY_SCHEMA.remove(0))
        bundle = pa.DictionaryArray.from_arrays(
            pa.array([0] * table.num_rows, pa.int32()),
            pa.array([_bundle_from_folder(file.parent.name)], pa.string()),
        )
        tables.append(table.add_column(0, DICTIONARY_SCHEMA.field(0), bundle))
    return pa.concat_tables(tables)


def read_parquet_rows(path: str | Path) -> list[Row]:
    """Rows of a Parquet file or bundle-partitioned dataset, in the frame's column order.

    A dataset's bundles come back in sorted folder order, each in its written row order.
    """
    source = Path(path)
    rows: list[Row] = []
    if not source.is_dir():
        columns = rows_of(_read_file(source, PARQUET_SCHEMA), PARQUET_SCHEMA)
        rows.extend(zip(*columns, strict=True))
        return rows
    for file in sorted(source.glob("bundle=*/*.parquet")):
        table = _read_file(file, PARTITION_SCHEMA)
        columns = rows_of(table, PARTITION_SCHEMA)
        bundle = [_bundle_from_folder(file.parent.name)] * table.num_rows
        rows.extend(zip(bundle, *columns, strict=True))
    return rows


def _parts(path: Path) -> list[tuple[Path, str | None]]:
    """The files of a Parquet input, each with its bundle when the folder names it (a
    dataset) or None when the file holds the bundle column; in :func:`read_parquet_table`'s
    order."""
    if not path.is_dir():
        return [(path, None)]
    return [
        (file, _bundle_from_folder(file.parent.name))
        for file in sorted(path.glob("bundle=*/*.parquet"))
    ]


def _missing_column(path: str | Path) -> InputError | None:
    """The located ``wrong_schema`` error of a Parquet file (or a dataset's first part) that
    lacks a row column, else None: a file of another schema is refused by name instead of
    being read as nulls."""
    parts = _parts(Path(path))
    if not parts:
        return None
    file, bundle = parts[0]
    names = set(pq.read_schema(file).names)
    if bundle is not None:
        names.add(PARQUET_SCHEMA.names[0])  # the bundle is the partition folder
    missing = next((name for name in PARQUET_SCHEMA.names if name not in names), None)
    if missing is None:
        return None
    return InputError(
        f"not a scorecard Parquet file: no column {missing!r} (docs/records.md)",
        rule="wrong_schema",
        source=str(path),
    )


def parquet_batches(
    path: str | Path, columns: Sequence[str]
) -> Iterator[tuple[pa.RecordBatch, str | None]]:
    """The named ``columns`` of a Parquet file or dataset, batch by batch, in
    :func:`read_parquet_table`'s row order, typed as :data:`DICTIONARY_SCHEMA` says (text
    dictionary-encoded). Each batch comes with its dataset folder's bundle, the batch then
    lacking the bundle column, or None for a file, whose batches hold it.

    Batches of at most one row group are decoded one at a time (a batch's columns on
    Arrow's threads: on shared cores two threads get more of them), so Arrow reuses the same
    buffers instead of holding the whole table. An input :func:`parquet_input_error` names
    raises that error, as does one that cannot be read further on."""
    wrong = parquet_input_error(path)
    if wrong is not None:
        raise wrong
    text = [field.name for field in DICTIONARY_SCHEMA if pa.types.is_dictionary(field.type)]
    for file, bundle in _parts(Path(path)):
        wanted = [name for name in columns if bundle is None or name != PARQUET_SCHEMA.names[0]]
        try:
            reader = pq.ParquetFile(file, read_dictionary=[n for n in text if n in wanted])
            for batch in reader.iter_batches(ROW_GROUP, columns=wanted, use_threads=True):
                yield _typed(batch, wanted), bundle
        except (OSError, ValueError) as error:  # pyarrow's errors derive from these
            raise unreadable_parquet(path, error) from None


def _typed(batch: pa.RecordBatch, names: Sequence[str]) -> pa.RecordBatch:
    """``batch``'s ``names`` in that order, each of its :data:`DICTIONARY_SCHEMA` type."""
    arrays = []
    for name in names:
        array = batch.column(name)
        wanted = DICTIONARY_SCHEMA.field(name).type
        arrays.append(array if array.type == wanted else array.cast(wanted))
    return pa.RecordBatch.from_arrays(arrays, names=list(names))


def parquet_bundle_order(path: str | Path) -> list[str]:
    """The bundles of a Parquet file or dataset in the order their rows first appear (as
    :func:`read_parquet_rows` gives them), redacted as rows read from files are."""
    seen: dict[str, None] = {}
    for batch, bundle in parquet_batches(path, PARQUET_SCHEMA.names[:1]):
        if bundle is not None:
            seen.setdefault(written_name(bundle))
            continue
        column = batch.column(0)
        present = column.indices.drop_null()
        if not len(present):
            continue
        first = pc.unique(present)  # in order of first appearance
        for value in column.dictionary.take(first).to_pylist():
            seen.setdefault(written_name(value))
    return list(seen)


def parquet_row_count(path: str | Path) -> int:
    """How many rows a Parquet file or dataset holds (from the files' footers); an input that
    cannot be read is the located ``unreadable`` error."""
    try:
        return sum(pq.ParquetFile(file).metadata.num_rows for file, _ in _parts(Path(path)))
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        raise unreadable_parquet(path, error) from None


def parquet_input_error(path: str | Path) -> InputError | None:
    """The located error :func:`~scorecard.engine.load_records` reports for a Parquet input
    (another schema: ``wrong_schema``; not Parquet: ``unreadable``), else None."""
    try:
        return _missing_column(path)
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        return unreadable_parquet(path, error)


def parquet_metadata_value(path: str | Path, key: bytes) -> bytes | None:
    """The value of ``key`` in a Parquet file's key-value metadata (a dataset folder: its first
    file's, in path order); None when absent. An unreadable file raises :class:`InputError`."""
    parts = _parts(Path(path))
    if not parts:
        return None
    try:
        found = pq.read_metadata(parts[0][0]).metadata or {}
    except (OSError, ValueError) as error:
        raise unreadable_parquet(parts[0][0], error) from None
    return found.get(key)
