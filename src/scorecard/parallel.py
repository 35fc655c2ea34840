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
from typing import IO

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

__all__ = ["default_workers", "score_lines_parallel"]

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


def _start_worker(catalog: Catalog | Path | None, policy: Policy, output_format: str) -> None:
    global _catalog, _policy, _format
    # A forked worker inherits a loaded catalog as it is; a spawned one unpickles it.
    _catalog = catalog if isinstance(catalog, Catalog) else load_catalog(catalog)
    _policy = policy
    _format = output_format


def _score_chunk(chunk: _Chunk) -> list[tuple[Tally, str] | InputError]:
    """Parse, score and render one chunk; only small tallies and text travel back."""
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
    outcomes: list[tuple[Tally, str] | InputError] = []
    for record in records:
        result = score_record(record, catalog=catalog, policy=policy)
        if isinstance(result, InputError):
            outcomes.append(result)
        else:
            outcomes.append((result.tally(), result.render(_format)))
    return outcomes


def _in_order(
    chunks: Iterator[_Chunk | InputError], executor: ProcessPoolExecutor, window: int
) -> Iterator[tuple[Tally, str] | InputError]:
    pending: deque[Future[list[tuple[Tally, str] | InputError]] | InputError] = deque()
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
    summary = summary if summary is not None else RunSummary()
    numbered = output_format != "jsonl"
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
            tally, text = outcome
            repetitions[tally.run_key] += 1
            summary.count(tally)
            if numbered:
                number = f'"repetition":{repetitions[tally.run_key]},'
                text = text.replace(_REPETITION_PLACEHOLDER, number, 1)
            yield text
