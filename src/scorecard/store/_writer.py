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
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from scorecard.contract import InputError, Row
from scorecard.engine import StoredRun
from scorecard.engine.parquet import row_batch

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
)

__all__ = ["BundleWriter"]

#: The detail columns worth statistics and dictionaries (keys); the heavy text has neither.
_DETAIL_KEYS = ["bundle", "candidate", "case", "repetition", "source_file", "source_line"]


def _stamped(
    schema: pa.Schema, kind: str, bundle: str, digest: str, manifest: str | None = None
) -> pa.Schema:
    """``schema`` with the file's stamp: whose file it is (and, in the runs file, the bundle's
    manifest as given, which holds its roster)."""
    stamp: dict[str, Any] = {"kind": kind, "bundle": bundle, "digest": digest}
    if kind == RUNS:
        stamp["manifest"] = manifest
    return schema.with_metadata({METADATA_KEY: json.dumps(stamp, ensure_ascii=False).encode()})


class BundleWriter:
    """Writes one bundle's runs and detail files (and its rejects) into ``folder``."""

    def __init__(self, folder: Path, bundle: str, digest: str, manifest: str | None) -> None:
        self.folder = folder
        self.bundle = bundle
        self.runs = 0
        self.rejected = 0
        self._rows: list[Row] = []
        self._sources: list[tuple[str, int | None, int | None]] = []
        self._detail: list[StoredRun] = []
        self._runs_writer = pq.ParquetWriter(
            folder / f"{RUNS}.parquet",
            _stamped(RUNS_SCHEMA, RUNS, bundle, digest, manifest),
            compression="zstd",
        )
        self._detail_writer = pq.ParquetWriter(
            folder / f"{DETAIL}.parquet",
            _stamped(DETAIL_SCHEMA, DETAIL, bundle, digest),
            compression="zstd",
            use_dictionary=_DETAIL_KEYS,
            write_statistics=_DETAIL_KEYS,
        )
        self._rejects: Any = None

    def add(self, run: StoredRun) -> None:
        """Keep one run (in input order)."""
        self._rows.append(run.row)
        self._sources.append((run.source_file, run.source_line, run.source_index))
        self._detail.append(run)
        self.runs += 1
        if len(self._detail) == DETAIL_ROW_GROUP:
            self._write_detail()
        if len(self._rows) == RUNS_ROW_GROUP:
            self._write_runs()

    def reject(self, error: InputError) -> None:
        """Keep one rejected record's error (``--errors``'s line)."""
        if self._rejects is None:
            self._rejects = open(self.folder / f"{REJECTS}.jsonl", "w", encoding="utf-8")  # noqa: SIM115
        self._rejects.write(json.dumps(error.to_record(), ensure_ascii=False) + "\n")
        self.rejected += 1

    def _write_runs(self) -> None:
        batch = row_batch(self._rows)
        files, lines, indexes = zip(*self._sources, strict=True)
        columns = [
            *batch.columns,
            pa.array(files, pa.string()),
            pa.array(lines, pa.int64()),
            pa.array(indexes, pa.int64()),
        ]
        self._runs_writer.write_batch(pa.RecordBatch.from_arrays(columns, schema=RUNS_SCHEMA))
        self._rows, self._sources = [], []

    def _write_detail(self) -> None:
        runs = self._detail
        rows = [run.row for run in runs]
        columns = [
            pa.array([row[0] for row in rows], pa.string()),
            pa.array([row[1] for row in rows], pa.string()),
            pa.array([row[5] for row in rows], pa.string()),
            pa.array([row[6] for row in rows], pa.int64()),
            pa.array([run.scorecard for run in runs], pa.string()),
            pa.array([run.findings for run in runs], pa.string()),
            pa.array([run.failure for run in runs], pa.string()),
            pa.array([run.observation for run in runs], pa.string()),
            pa.array([run.source_file for run in runs], pa.string()),
            pa.array([run.source_line for run in runs], pa.int64()),
            pa.array([run.source_index for run in runs], pa.int64()),
        ]
        self._detail_writer.write_batch(pa.RecordBatch.from_arrays(columns, schema=DETAIL_SCHEMA))
        self._detail = []

    def finish(self) -> dict[str, Path]:
        """Write what is held, close the files and make them durable; the files by kind."""
        if self._rows:
            self._write_runs()
        if self._detail:
            self._write_detail()
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
        for writer in (self._runs_writer, self._detail_writer):
            with contextlib.suppress(OSError, ValueError, pa.ArrowException):
                writer.close()
        if self._rejects is not None:
            self._rejects.close()
