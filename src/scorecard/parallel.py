"""Scoring on several processes, with output identical to the serial run.

The main process discovers inputs and reads raw lines in chunks; worker processes parse,
validate, score, audit and render a chunk each and send back only the output text and a small
tally (sending records back costs more than scoring them). Chunks come back in submission order;
the main process numbers repetitions and counts the summary exactly as the serial path does, so
the bytes written do not depend on the worker count. At most ``2 x workers`` chunks are in
flight, which bounds memory however large the input is.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .aggregate_input import ROW_FIELDS, Row, scored_row
from .bundles import BundleInfo
from .catalog import Catalog, load_catalog
from .errors import InputError
from .io import (
    STDIN,
    RawRecord,
    discover_inputs,
    line_blocks,
    numbered_lines,
    parse_json_file,
    parse_line,
)
from .pipeline import STREAMING_FORMATS, RunSummary, Tally, score_record
from .policy import Policy

__all__ = ["default_workers", "score_lines_parallel", "score_rows_parallel"]

CHUNK_BYTES = 1 << 20
"""About how much JSON Lines text one worker call scores."""


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class _Chunk:
    """Work for one worker call: a block of JSON Lines, or one whole ``.json`` file."""

    source: str
    bundle: BundleInfo
    block: bytes | None = None
    """Whole lines of a JSON Lines input, without the last newline."""
    first_line: int = 1
    """Number of the block's first line in its file."""
    whole_file: bytes | None = None


def _chunks(
    paths: Iterable[str], bundle_id: str | None, stdin: IO[bytes] | None, size: int
) -> Iterator[_Chunk | InputError]:
    for item in discover_inputs(paths, bundle_id=bundle_id):
        if isinstance(item, InputError):
            yield item
            continue
        try:
            if item.path == STDIN:
                yield from _line_chunks(stdin or sys.stdin.buffer, "<stdin>", item.bundle, size)
                continue
            with open(item.path, "rb") as stream:
                if item.path.endswith(".jsonl"):
                    yield from _line_chunks(stream, item.path, item.bundle, size)
                else:
                    yield _Chunk(item.path, item.bundle, whole_file=stream.read())
        except OSError as error:
            yield InputError(
                f"cannot read file: {error.strerror or type(error).__name__}",
                rule="unreadable",
                source=item.path,
            )


def _line_chunks(stream: IO[bytes], source: str, bundle: BundleInfo, size: int) -> Iterator[_Chunk]:
    """Blocks of whole lines of about ``size`` bytes; the main process never splits lines."""
    parts: list[bytes] = []
    first_line = 1
    gathered = 0
    for number, block in line_blocks(stream, size):
        if not parts:
            first_line = number
        parts.append(block)
        gathered += len(block) + 1
        if gathered >= size:
            yield _Chunk(source, bundle, block=b"\n".join(parts), first_line=first_line)
            parts, gathered = [], 0
    if parts:
        yield _Chunk(source, bundle, block=b"\n".join(parts), first_line=first_line)


# Set in each worker by `_start_worker`.
_catalog: Catalog | None = None
_policy: Policy | None = None
_format = "jsonl"
# Rendered before the run number is known; the main process writes the number in.
_REPETITION_PLACEHOLDER = '"repetition":0,'
# Workers asked for aggregation rows instead of lines; the main process sets the run number.
_ROWS = "rows"
_REPETITION_COLUMN = ROW_FIELDS.index("repetition")


def _start_worker(catalog: Catalog | Path | None, policy: Policy, output_format: str) -> None:
    global _catalog, _policy, _format
    # A forked worker inherits a loaded catalog as it is; a spawned one unpickles it.
    _catalog = catalog if isinstance(catalog, Catalog) else load_catalog(catalog)
    _policy = policy
    _format = output_format


def _score_chunk(chunk: _Chunk) -> list[tuple[Tally, Any] | InputError]:
    """Parse, score and render one chunk; only small tallies and the output (a line, or the
    aggregation row) travel back."""
    catalog, policy = _catalog, _policy
    if catalog is None or policy is None:
        raise RuntimeError("worker not started")
    records: Iterable[RawRecord | InputError]
    if chunk.block is not None:
        # A generator, not a list: each document is parsed, scored and freed before the next is
        # parsed; a thousand live documents cost measurably more in cache misses.
        records = (
            parse_line(raw, number=number, source=chunk.source, bundle=chunk.bundle)
            for number, raw in numbered_lines(chunk.block, chunk.first_line)
        )
    else:
        records = parse_json_file(chunk.whole_file or b"", source=chunk.source, bundle=chunk.bundle)
    outcomes: list[tuple[Tally, Any] | InputError] = []
    for record in records:
        result = score_record(record, catalog=catalog, policy=policy)
        if isinstance(result, InputError):
            outcomes.append(result)
        else:
            if _format == _ROWS:
                output: Any = scored_row(result.numbered(1))  # the main process renumbers it
            else:
                output = result.render(_format)
            outcomes.append((result.tally(), output))
    return outcomes


def _in_order(
    chunks: Iterator[_Chunk | InputError], executor: ProcessPoolExecutor, window: int
) -> Iterator[tuple[Tally, Any] | InputError]:
    pending: deque[Future[list[tuple[Tally, Any] | InputError]] | InputError] = deque()
    exhausted = False
    while pending or not exhausted:
        while not exhausted and len(pending) < window:
            item = next(chunks, None)
            if item is None:
                exhausted = True
            elif isinstance(item, InputError):
                pending.append(item)
            else:
                pending.append(executor.submit(_score_chunk, item))
        if pending:
            head = pending.popleft()
            if isinstance(head, InputError):
                yield head
            else:
                yield from head.result()


def _scored(
    paths: Iterable[str],
    *,
    catalog: Catalog | Path | None,
    policy: Policy,
    workers: int,
    output_format: str,
    bundle_id: str | None,
    summary: RunSummary,
    stdin: IO[bytes] | None,
    chunk_bytes: int,
) -> Iterator[tuple[int, Any] | InputError]:
    """(run number, output) of every record in input order, or its error; counts ``summary``."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    repetitions: Counter[tuple[str, str, str]] = Counter()
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_start_worker,
        initargs=(catalog, policy, output_format),
    ) as executor:
        chunks = _chunks(paths, bundle_id, stdin, chunk_bytes)
        for outcome in _in_order(chunks, executor, 2 * workers):
            if isinstance(outcome, InputError):
                summary.rejected += 1
                yield outcome
                continue
            tally, output = outcome
            repetitions[tally.run_key] += 1
            summary.count(tally)
            yield repetitions[tally.run_key], output


def score_lines_parallel(
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
) -> Iterator[str | InputError]:
    """Output lines of a streaming format (``jsonl``, ``records``, ``audit``), scored on
    ``workers`` processes, identical to rendering :func:`scorecard.pipeline.score_paths`.

    ``catalog`` is a loaded catalog (handed to the workers as it is), or the folder each worker
    loads it from (``None``: the bundled cases).
    """
    if output_format not in STREAMING_FORMATS:
        raise ValueError(f"not a streaming format: {output_format}")
    numbered = output_format != "jsonl"
    for item in _scored(
        paths,
        catalog=catalog,
        policy=policy,
        workers=workers,
        output_format=output_format,
        bundle_id=bundle_id,
        summary=summary if summary is not None else RunSummary(),
        stdin=stdin,
        chunk_bytes=chunk_bytes,
    ):
        if isinstance(item, InputError):
            yield item
            continue
        number, text = item
        if numbered:
            text = text.replace(_REPETITION_PLACEHOLDER, f'"repetition":{number},', 1)
        yield text


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
) -> Iterator[Row | InputError]:
    """Aggregation rows (:data:`scorecard.aggregate_input.ROW_FIELDS`) scored on ``workers``
    processes, equal to :func:`~scorecard.aggregate_input.scored_row` of the serial run.

    Workers build the rows, so the main process only numbers runs (what Parquet output needs).
    """
    for item in _scored(
        paths,
        catalog=catalog,
        policy=policy,
        workers=workers,
        output_format=_ROWS,
        bundle_id=bundle_id,
        summary=summary if summary is not None else RunSummary(),
        stdin=stdin,
        chunk_bytes=chunk_bytes,
    ):
        if isinstance(item, InputError):
            yield item
            continue
        number, row = item
        yield (*row[:_REPETITION_COLUMN], number, *row[_REPETITION_COLUMN + 1 :])
