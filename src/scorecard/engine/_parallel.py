"""Scoring in chunks, on one process or several, with output identical to the serial run.

The main process discovers inputs and cuts them into chunks of whole lines (:mod:`._chunks`;
with a pool, a file's chunks are byte ranges its workers read, and for ``jsonl`` and rows
number, themselves, and a ``.json`` file is read whole by its worker); each chunk is parsed, validated, scored, audited and rendered by a worker
process (:mod:`._chunk_scorer`; with one worker, right here), and only the output text and a
small tally come back (sending records back costs more than scoring them; forked workers write
``jsonl`` and ``records`` text into shared memory, :mod:`._slots`, and send back where it lies).
Plain ``jsonl`` and ``records`` lines take the compiled fast path
(:mod:`scorecard.fast._fastpath`). Chunks come back in
submission order (:mod:`._pool`); the main process numbers repetitions and counts the summary
exactly as the serial path does, so the bytes written do not depend on the worker count. At most
``WINDOW x workers`` chunks are in flight, which bounds memory however large the input is. The
entry point is :func:`scorecard.engine.score_run`; the functions here are its views (text, rows,
records)."""

from __future__ import annotations

import contextlib
import functools
import gc
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from scorecard.contract import Catalog, InputError, Policy
from scorecard.fast import REPETITION_PLACEHOLDER, number_records

from ._chunk_scorer import (
    RECORDS,
    ROWS,
    ChunkScorer,
    Keep,
    Outcome,
    Rows,
    RunKey,
    chunk_kept,
    chunk_outcomes,
    chunk_records,
    chunk_rows,
    chunk_text,
)
from ._chunks import CHUNK_BYTES, Chunk, ScoredInput
from ._packed import PackedDocuments
from ._pipeline import STREAMING_FORMATS, RunSummary
from ._pool import Run
from ._rows import ROW_FIELDS, Row, scored_input_rows

__all__ = [
    "collection_paused",
    "merged_items",
    "numbered_row",
    "score_rows_parallel",
    "score_scored_records",
    "score_text",
]


# Rendered before the run number is known; the main process writes the number in.
_REPETITION_PLACEHOLDER = REPETITION_PLACEHOLDER


_REPETITION_COLUMN = ROW_FIELDS.index("repetition")


T = TypeVar("T")


def _scored_rows(scored: ScoredInput) -> Rows:
    """The rows of an already-scored input, with their own run numbers (no counts: nothing is
    scored)."""
    items: list[tuple[RunKey | None, Row] | InputError] = [
        item if isinstance(item, InputError) else (None, item)
        for item in scored_input_rows(scored.source)
    ]
    return items, RunSummary()


def merged_items(
    results: Iterable[tuple[list[T], RunSummary] | InputError], summary: RunSummary
) -> Iterator[T | InputError]:
    """The items of each chunk's (items, counts) result in order, its counts merged into
    ``summary``; a chunk's error (an unreadable input) is counted as rejected and passed on.

    The cyclic garbage collector is paused while they come (:func:`collection_paused`)."""
    with collection_paused():
        for result in results:
            if isinstance(result, InputError):
                summary.rejected += 1
                yield result
                continue
            items, counted = result
            summary.merge(counted)
            yield from items


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic garbage collection inside (reference counting still frees everything else).

    A run hands its caller millions of rows, which the caller keeps (a frame, a list of
    records): data without reference cycles, so each full collection on the way finds nothing
    to free, but walks every object kept so far. For a gate of 2 x 500,000 observations that
    was a third of the main process's time. Nested and overlapping pauses are allowed: the
    collector is enabled again when the pause that found it enabled ends."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def numbered_row(row: Row, key: RunKey, repetitions: Counter[RunKey]) -> Row:
    """``row`` with its run number: how many runs of its (bundle, candidate, case) came so far,
    this one included (the rows view numbers runs in input order, as records are)."""
    repetitions[key] += 1
    return (*row[:_REPETITION_COLUMN], repetitions[key], *row[_REPETITION_COLUMN + 1 :])


def _numbered(
    run: Run,
    summary: RunSummary,
    work: Callable[[ChunkScorer, Chunk], list[Outcome]] = chunk_outcomes,
) -> Iterator[tuple[int, Any] | InputError]:
    """(run number, output) of every record in input order, or its error; counts ``summary``."""
    repetitions: Counter[tuple[str, str, str]] = Counter()
    for result in run.map(work):
        if isinstance(result, InputError):
            summary.rejected += 1
            yield result
            continue
        for outcome in result:
            if isinstance(outcome, InputError):
                summary.rejected += 1
                yield outcome
                continue
            tally, output = outcome
            repetitions[tally.run_key] += 1
            summary.count(tally)
            yield repetitions[tally.run_key], output


def _numbered_records(
    items: Iterable[str | list[RunKey] | InputError],
) -> Iterator[str | InputError]:
    """Pieces of record lines with their run numbers written in (each piece comes followed by
    its lines' run keys), and the errors between them, in input order."""
    repetitions: dict[RunKey, int] = {}
    piece = ""
    for item in items:
        if isinstance(item, InputError):
            yield item
        elif isinstance(item, str):
            piece = item
        else:
            yield number_records(piece, item, repetitions)


def score_text(
    paths: Iterable[str],
    *,
    catalog: Catalog | Path | None,
    policy: Policy,
    workers: int,
    output_format: str = "jsonl",
    bundle_id: str | None = None,
    summary: RunSummary | None = None,
    stdin: IO[bytes] | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    on_file: Callable[[str], None] | None = None,
) -> Generator[str | InputError, None, None]:
    """Text of a streaming format (``jsonl``, ``records``, ``audit``) in pieces of whole lines,
    each ending in a newline, and the errors between them, in input order; scored on ``workers``
    processes (one: in this process), identical to rendering
    :func:`scorecard.engine._pipeline.score_paths_serially`.

    ``catalog`` is a loaded catalog (handed to the workers as it is), or the folder each worker
    loads it from (``None``: the bundled cases). ``summary`` is counted as pieces come.
    Closing the generator early ends the pool.
    """
    if output_format not in STREAMING_FORMATS:
        raise ValueError(f"not a streaming format: {output_format}")
    summary = summary if summary is not None else RunSummary()
    run = Run(
        paths, catalog, policy, workers, output_format, bundle_id, stdin, chunk_bytes, on_file
    )
    if output_format == "records":
        yield from _numbered_records(merged_items(run.map(chunk_records), summary))
        return
    if output_format != "jsonl":
        for item in _numbered(run, summary):
            if isinstance(item, InputError):
                yield item
                continue
            number, text = item
            yield text.replace(_REPETITION_PLACEHOLDER, f'"repetition":{number},', 1) + "\n"
        return
    yield from merged_items(run.map(chunk_text, counted=False), summary)


def score_scored_records(
    paths: Iterable[str],
    *,
    catalog: Catalog | Path | None,
    policy: Policy,
    workers: int,
    bundle_id: str | None = None,
    summary: RunSummary | None = None,
    stdin: IO[bytes] | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    on_file: Callable[[str], None] | None = None,
    keep: Keep | None = None,
) -> Iterator[Any]:
    """The scored records themselves, numbered, and the errors between them, in input order;
    scored by the general path on ``workers`` processes (one: in this process), equal to
    :func:`scorecard.engine._pipeline.score_paths_serially`. The cyclic garbage collector is
    paused while they come, as for rows (:func:`collection_paused`): a caller that keeps the
    records (a report, ``explain``) would otherwise have each full collection walk every
    record kept so far.

    With ``keep`` (:data:`~._chunk_scorer.Keep`), what it keeps of each record instead, worked
    out where the record was scored and numbered here (its ``numbered`` method)."""
    summary = summary if summary is not None else RunSummary()
    run = Run(paths, catalog, policy, workers, RECORDS, bundle_id, stdin, chunk_bytes, on_file)
    work = chunk_outcomes if keep is None else functools.partial(chunk_kept, keep)
    with collection_paused():
        for item in _numbered(run, summary, work):
            if isinstance(item, InputError):
                yield item
                continue
            number, record = item
            if isinstance(record, PackedDocuments):  # as a worker sent it
                record = record.record()
            yield record.numbered(number)


def score_rows_parallel(
    paths: Iterable[str],
    *,
    catalog: Catalog | Path | None,
    policy: Policy,
    workers: int,
    bundle_id: str | None = None,
    summary: RunSummary | None = None,
    stdin: IO[bytes] | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    on_file: Callable[[str], None] | None = None,
    read_scored: bool = False,
) -> Iterator[Row | InputError]:
    """Aggregation rows (:data:`scorecard.engine.ROW_FIELDS`) scored on ``workers``
    processes (one: in this process), equal to :func:`~scorecard.engine.scored_row`
    of the serial run.

    Workers build the rows, so the main process only numbers runs (what Parquet output needs).
    With ``read_scored``, a given path that is a records file or Parquet is read as rows in its
    turn, with its own run numbers (what :func:`~scorecard.engine.load_records` needs).
    """
    run = Run(paths, catalog, policy, workers, ROWS, bundle_id, stdin, chunk_bytes, on_file)
    summary = summary if summary is not None else RunSummary()
    repetitions: Counter[RunKey] = Counter()
    rows = run.map(chunk_rows, _scored_rows if read_scored else None, counted=False)
    for item in merged_items(rows, summary):
        if isinstance(item, InputError):
            yield item
            continue
        key, row = item
        yield row if key is None else numbered_row(row, key, repetitions)
