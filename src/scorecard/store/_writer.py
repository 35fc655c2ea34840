"""One bundle's files written into a staging folder as its runs come: the runs file (the rows
``scorecard score --out X.parquet`` writes, and each run's source) and the detail file (each
run's scorecard line, failed findings, failure and observation, in row groups of
:data:`~scorecard.store._layout.DETAIL_ROW_GROUP` runs), both zstd-compressed; the rejected
records when they are kept. Memory stays bounded: at most one runs row group and one detail row
group are held.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from scorecard.contract import InputError, Row
from scorecard.engine import StoredBlock
from scorecard.engine.parquet import PARQUET_SCHEMA, row_batch

from ._files import durable
from ._layout import (
    DETAIL,
    DETAIL_ROW_GROUP,
    DETAIL_SCHEMA,
    METADATA_KEY,
    REJECTS,
    RUNS,
    RUNS_ROW_GROUP,
    RUNS_SCHEMA,
    TALLY_COLUMNS,
)

__all__ = ["BundleWriter", "Tally"]

#: Where a detail file's key columns (bundle, candidate, case, repetition) are in a row.
_DETAIL_KEY_COLUMNS = (0, 1, 5, 6)
_SOURCE_NAMES = ["source_file", "source_line", "source_index"]
_SOURCES = pa.schema([RUNS_SCHEMA.field(name) for name in _SOURCE_NAMES])
#: The detail columns worth statistics and dictionaries (keys); the heavy text has neither.
_DETAIL_KEYS = ["bundle", "candidate", "case", "repetition", "source_file", "source_line"]


_CANDIDATE, _CASE, _OVERALL, _GATE, _PASSED = (
    PARQUET_SCHEMA.names.index(name)
    for name in ("candidate", "case", "overall_score", "gate_passed", "passed")
)


def _stamp(
    kind: str,
    bundle: str,
    digest: str,
    manifest: str | None = None,
    tally: dict[str, Any] | None = None,
) -> dict[bytes, bytes]:
    """A file's stamp (its key-value metadata): whose file it is (and, in the runs file, the
    bundle's manifest as given, which holds its roster, and its :class:`Tally`)."""
    stamp: dict[str, Any] = {"kind": kind, "bundle": bundle, "digest": digest}
    if kind == RUNS:
        stamp["manifest"] = manifest
        stamp["tally"] = tally
    return {METADATA_KEY: json.dumps(stamp, ensure_ascii=False).encode()}


class Tally:
    """How the bundle's runs ended, per candidate x case, counted as they are written: the
    history of a long campaign reads these few numbers from each runs file's footer instead of
    scanning every run (``Store.history``). The counts are those of ``HISTORY_SQL``: a run is
    not scored without an overall score; else gate failed when its gate passed is false; else
    passed when it passed; else failed. Of the gate failed, those the scorecard passed are
    counted too (the audit's gate failed them): the ``history`` command's nights count every
    run the scorecard passed."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], list[int]] = {}

    def add(self, rows: list[Row]) -> None:
        counts = self._counts
        for row in rows:
            key = (row[_CANDIDATE], row[_CASE])
            found = counts.get(key)
            if found is None:
                found = counts[key] = [0, 0, 0, 0, 0, 0]
            found[0] += 1
            overall, gate, passed = row[_OVERALL], row[_GATE], row[_PASSED]
            if overall is None or overall != overall:  # None or NaN: null in the file
                found[4] += 1
            elif gate is not None and not gate:
                found[3] += 1
                if passed is not None and passed:
                    found[5] += 1
            elif passed is not None and passed:
                found[1] += 1
            else:
                found[2] += 1

    def document(self) -> dict[str, Any]:
        """The counts as the stamp keeps them: ``columns``, then one row per candidate x case
        (sorted), in :data:`~._layout.TALLY_COLUMNS` order."""
        return {
            "columns": list(TALLY_COLUMNS),
            "rows": [[*key, *counts] for key, counts in sorted(self._counts.items())],
        }


class _Background:
    """Batches written (encoded, compressed) in a thread of their own, in order, while the
    main thread takes the next runs from the workers: pyarrow lets go of the GIL to write."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[pq.ParquetWriter, pa.RecordBatch] | None] = queue.Queue(4)
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="store-writer", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while (item := self._queue.get()) is not None:
            if self._failure is None:
                try:
                    item[0].write_batch(item[1])
                except BaseException as error:  # handed to the main thread at finish
                    self._failure = error

    def write(self, writer: pq.ParquetWriter, batch: pa.RecordBatch) -> None:
        """Write ``batch`` with ``writer`` after the batches given before."""
        if self._failure is not None:
            raise self._failure
        self._queue.put((writer, batch))

    def finish(self) -> None:
        """Wait for every batch to be written; raise what failed, if anything did."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        if self._failure is not None:
            raise self._failure


class BundleWriter:
    """Writes one bundle's runs and detail files (and its rejects) into ``folder``."""

    def __init__(self, folder: Path, bundle: str, manifest: str | None) -> None:
        self.folder = folder
        self.bundle = bundle
        self.manifest = manifest
        self.runs = 0
        self.rejected = 0
        self._rows: list[Row] = []
        self._runs_sources: list[pa.RecordBatch] = []
        self._detail: list[pa.RecordBatch] = []
        self._held = 0
        self._runs_writer = pq.ParquetWriter(
            folder / f"{RUNS}.parquet", RUNS_SCHEMA, compression="zstd"
        )
        self._detail_writer = pq.ParquetWriter(
            folder / f"{DETAIL}.parquet",
            DETAIL_SCHEMA,
            compression="zstd",
            use_dictionary=_DETAIL_KEYS,
            write_statistics=_DETAIL_KEYS,
        )
        self._rejects: Any = None
        self._tally = Tally()
        self._background = _Background()

    def add(self, block: StoredBlock) -> None:
        """Keep a block of runs (in input order)."""
        if block.detail is None or not block.rows:
            return
        keys = [[row[index] for row in block.rows] for index in _DETAIL_KEY_COLUMNS]
        key_arrays = [
            pa.array(values, field.type) for values, field in zip(keys, DETAIL_SCHEMA, strict=False)
        ]
        self._detail.append(
            pa.RecordBatch.from_arrays([*key_arrays, *block.detail.columns], schema=DETAIL_SCHEMA)
        )
        self._rows.extend(block.rows)
        self._tally.add(block.rows)
        self._runs_sources.append(block.detail.select(_SOURCE_NAMES))
        self.runs += len(block.rows)
        self._held += len(block.rows)
        if self._held >= DETAIL_ROW_GROUP:
            self._write_detail(final=False)
        if len(self._rows) >= RUNS_ROW_GROUP:
            self._write_runs(final=False)

    def reject(self, error: InputError) -> None:
        """Keep one rejected record's error (``--errors``'s line)."""
        if self._rejects is None:
            self._rejects = open(self.folder / f"{REJECTS}.jsonl", "w", encoding="utf-8")  # noqa: SIM115
        self._rejects.write(json.dumps(error.to_record(), ensure_ascii=False) + "\n")
        self.rejected += 1

    def _write_runs(self, *, final: bool) -> None:
        """Row groups of exactly :data:`RUNS_ROW_GROUP` runs (the last: what is left)."""
        sources = pa.Table.from_batches(self._runs_sources, schema=_SOURCES).combine_chunks()
        count = len(self._rows) if final else len(self._rows) // RUNS_ROW_GROUP * RUNS_ROW_GROUP
        for start in range(0, count, RUNS_ROW_GROUP):
            rows = self._rows[start : start + RUNS_ROW_GROUP]
            batch = row_batch(rows)
            where = sources.slice(start, len(rows))
            columns = [
                *batch.columns,
                *(where.column(name).combine_chunks() for name in _SOURCE_NAMES),
            ]
            self._background.write(
                self._runs_writer, pa.RecordBatch.from_arrays(columns, schema=RUNS_SCHEMA)
            )
        self._rows = self._rows[count:]
        self._runs_sources = sources.slice(count).to_batches()

    def _write_detail(self, *, final: bool) -> None:
        """Row groups of exactly :data:`DETAIL_ROW_GROUP` runs (the last: what is left), each
        written from contiguous arrays, so the file's bytes do not depend on how the runs came
        in blocks (the worker count, the chunk size)."""
        held = pa.Table.from_batches(self._detail, schema=DETAIL_SCHEMA)
        count = held.num_rows if final else held.num_rows // DETAIL_ROW_GROUP * DETAIL_ROW_GROUP
        for start in range(0, count, DETAIL_ROW_GROUP):
            group = held.slice(start, min(DETAIL_ROW_GROUP, count - start)).combine_chunks()
            for batch in group.to_batches():
                self._background.write(self._detail_writer, batch)
        self._detail = held.slice(count).to_batches()
        self._held = held.num_rows - count

    def finish(self, digest: str) -> dict[str, Path]:
        """Write what is held, stamp the files as the bundle's of input ``digest`` (known by
        now: it is taken while the runs are scored), close them and make them durable; the
        files by kind."""
        if self._held:
            self._write_detail(final=True)
        if self._rows:
            self._write_runs(final=True)
        self._background.finish()
        self._runs_writer.add_key_value_metadata(
            _stamp(RUNS, self.bundle, digest, self.manifest, self._tally.document())
        )
        self._detail_writer.add_key_value_metadata(_stamp(DETAIL, self.bundle, digest))
        self._runs_writer.close()
        self._detail_writer.close()
        files = {RUNS: self.folder / f"{RUNS}.parquet", DETAIL: self.folder / f"{DETAIL}.parquet"}
        if self._rejects is not None:
            self._rejects.close()
            files[REJECTS] = self.folder / f"{REJECTS}.jsonl"
        for path in files.values():
            durable(path)
        return files

    def abandon(self) -> None:
        """Close the files without finishing them (the staging folder is removed after)."""
        with contextlib.suppress(Exception):
            self._background.finish()
        for writer in (self._runs_writer, self._detail_writer):
            with contextlib.suppress(OSError, ValueError, pa.ArrowException):
                writer.close()
        if self._rejects is not None:
            self._rejects.close()
