"""Scoring in chunks, on one process or several, with output identical to the serial run.

The main process discovers inputs and cuts them into chunks of whole lines (with a pool, a
file's chunks are byte ranges its workers read, and for ``jsonl`` and rows number, themselves);
each chunk is parsed, validated, scored, audited and rendered by a worker process (or, with one
worker, right here), and only the output text and a small tally come back (sending records back
costs more than scoring them; forked workers write ``jsonl`` text into shared memory,
:mod:`._slots`, and send back where it lies). Plain ``jsonl`` records take the compiled fast path
(:mod:`scorecard.fast._fastpath`). Chunks come back in submission order; the main process numbers
repetitions and counts the summary exactly as the serial path does, so the bytes written do not
depend on the worker count. At most ``WINDOW x workers`` chunks are in flight, which bounds
memory however large the input is. The entry point is :func:`scorecard.engine.score_run`; the
functions here are its views (text, rows, records)."""

from __future__ import annotations

import contextlib
import copy
import gc
import itertools
import os
import sys
from collections import Counter, deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Generic, TypeVar, cast

from scorecard.contract import BundleInfo, Catalog, InputError, Policy, raise_if_stopped
from scorecard.core import Tally
from scorecard.fast import Counts, FastScorer, Piece, RowPiece, fast_scorer

from ._catalog import scoring_catalog
from ._io import (
    STDIN,
    Discovery,
    RawRecord,
    count_newlines,
    line_blocks,
    line_ranges,
    line_spans,
    numbered_lines,
    parse_json_file,
    parse_line,
    reads_as_lines,
    unreadable,
)
from ._output import is_special_file
from ._pipeline import STREAMING_FORMATS, RunSummary, score_record
from ._rows import ROW_FIELDS, Row, is_scored_input, scored_input_rows, scored_row
from ._slots import OutputSlots

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from scorecard.core import ScoredRecord

__all__ = ["default_workers", "score_rows_parallel", "score_scored_records", "score_text"]

CHUNK_BYTES = 2 << 20
"""About how much JSON Lines text one worker call scores."""
WINDOW = 4
"""Chunks in flight per worker: enough that a worker rarely waits for the main process (which
shares the cores) to hand it the next one, few enough that memory stays small (about 8 MiB of
input per worker)."""


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class _Chunk:
    """Work for one worker call: a block of JSON Lines (its text, or where to read it), or one
    whole ``.json`` file."""

    source: str
    bundle: BundleInfo
    block: bytes | None = None
    """Whole lines of a JSON Lines input, without the last newline."""
    first_line: int = 1
    """Number of the block's first line in its file; for a chunk not ``counted``, what its first
    line is numbered in the worker (1 at the start of its file, else 2: no byte order mark is
    taken off a line inside a file), the main process renumbering the results."""
    counted: bool = True
    """Whether ``first_line`` is the true number (else the main process knows it only once the
    chunks before have come back with their line counts)."""
    whole_file: bytes | None = None
    span: tuple[int, int] | None = None
    """(offset, length) of the block in the file ``source``, when the worker reads it."""

    def text(self) -> bytes | None:
        """The block's lines (read from the file for a span), or None for a ``.json`` file."""
        if self.span is None:
            return self.block
        offset, length = self.span
        with open(self.source, "rb") as stream:
            stream.seek(offset)
            block = stream.read(length)
        if len(block) != length:
            raise OSError(0, "the file changed while it was read")
        return block


@dataclass(frozen=True)
class _ScoredInput:
    """A given path already scored (a records file or Parquet), read as rows in its turn."""

    source: str


def _chunks(
    paths: Iterable[str],
    bundle_id: str | None,
    stdin: IO[bytes] | None,
    size: int,
    spans: bool = False,
    read_scored: bool = False,
    counted: bool = True,
) -> Iterator[_Chunk | _ScoredInput | InputError]:
    """The chunks of every input; with ``spans``, those of JSON Lines files say where their
    block is instead of carrying it (the main process of a pool only finds line ends, and
    without ``counted`` does not count lines either: it reads only near each cut); with
    ``read_scored``, a given records file or Parquet path is one :class:`_ScoredInput`."""
    discovery = Discovery(bundle_id=bundle_id)
    for given in paths:
        if read_scored and is_scored_input(given):
            yield _ScoredInput(given)
            continue
        for item in discovery.inputs(given):
            if isinstance(item, InputError):
                yield item
                continue
            try:
                if item.path == STDIN:
                    yield from _line_chunks(stdin or sys.stdin.buffer, "<stdin>", item.bundle, size)
                    continue
                with open(item.path, "rb") as stream:
                    lines = reads_as_lines(item.path)
                    if lines and spans and not is_special_file(item.path) and not counted:
                        for offset, length in line_spans(stream, size):
                            yield _Chunk(
                                item.path,
                                item.bundle,
                                first_line=1 if offset == 0 else 2,
                                span=(offset, length),
                                counted=False,
                            )
                    elif lines and spans and not is_special_file(item.path):
                        for first_line, offset, length in line_ranges(stream, size):
                            yield _Chunk(
                                item.path, item.bundle, first_line=first_line, span=(offset, length)
                            )
                    elif lines:  # a stream is read once, here: its blocks travel
                        yield from _line_chunks(stream, item.path, item.bundle, size)
                    else:
                        yield _Chunk(item.path, item.bundle, whole_file=stream.read())
            except OSError as error:
                yield unreadable(item.path, error)


def _line_chunks(stream: IO[bytes], source: str, bundle: BundleInfo, size: int) -> Iterator[_Chunk]:
    """Blocks of whole lines of about ``size`` bytes; the main process never splits lines. A
    file's reads are ``size`` bytes but for the partial line each ends in, so a chunk is one
    read's block as it is (the join of one is that object); a pipe's short reads are gathered."""
    parts: list[bytes] = []
    first_line = 1
    gathered = 0
    for number, block in line_blocks(stream, size):
        if not parts:
            first_line = number
        parts.append(block)
        gathered += len(block) + 1
        if gathered >= size // 2:
            yield _Chunk(source, bundle, block=b"\n".join(parts), first_line=first_line)
            parts, gathered = [], 0
    if parts:
        yield _Chunk(source, bundle, block=b"\n".join(parts), first_line=first_line)


# Rendered before the run number is known; the main process writes the number in.
_REPETITION_PLACEHOLDER = '"repetition":0,'
# Workers asked for aggregation rows instead of lines; the main process sets the run number.
_ROWS = "rows"
# Workers asked for the scored records themselves (what explain and the gate read).
_RECORDS = "scored records"
_REPETITION_COLUMN = ROW_FIELDS.index("repetition")

Outcome = tuple[Tally, Any] | InputError
"""A record's tally and output (a line, or the aggregation row), or its error."""
Text = tuple[list[str | InputError], RunSummary]
"""A chunk of ``jsonl``: runs of whole output lines and the errors between them, in input order,
and the chunk's counts."""
RunKey = tuple[str, str, str]
Rows = tuple[list[tuple[RunKey | None, Row] | InputError], RunSummary]
"""A chunk as aggregation rows: each with its run key (the main process numbers the runs; None
for a row read already scored, which keeps its number) or an error, in input order, and the
chunk's counts."""


T = TypeVar("T")


class _ChunkScorer:
    """Parses, scores and renders chunks for one catalog, policy and output format."""

    def __init__(self, catalog: Catalog | Path | None, policy: Policy, output_format: str):
        # A forked worker inherits a loaded catalog as it is; a spawned one unpickles it.
        self.catalog = catalog if isinstance(catalog, Catalog) else scoring_catalog(catalog)
        self.policy = policy
        self.format = output_format
        fast = output_format in ("jsonl", _ROWS)
        self.fast = fast_scorer(self.catalog, policy) if fast else None

    def outcomes(self, chunk: _Chunk) -> list[Outcome]:
        """The outcome of every record of ``chunk``, in order."""
        try:
            block = chunk.text()
        except OSError as error:
            return [unreadable(chunk.source, error)]
        if block is None:
            records = parse_json_file(
                chunk.whole_file or b"", source=chunk.source, bundle=chunk.bundle
            )
            return [self._general(record) for record in records]
        # Each document is parsed, scored and freed before the next is parsed; a thousand live
        # documents cost measurably more in cache misses.
        return [
            self._line(number, raw, chunk)
            for number, raw in numbered_lines(block, chunk.first_line)
        ]

    def text(self, chunk: _Chunk) -> Text:
        """``chunk`` as ``jsonl`` text, counted here: its lines need no run numbers, so the main
        process only writes them. Plain lines are scored in C, a block at a time."""
        summary = RunSummary()
        if self.fast is None or chunk.whole_file is not None:
            return [self._counted(outcome, summary) for outcome in self.outcomes(chunk)], summary
        scored = self._fast_block(self.fast, chunk, summary)
        if isinstance(scored, InputError):
            return [scored], summary
        _, pieces = scored
        items = [
            piece if isinstance(piece, str) else self._counted(self._line(*piece, chunk), summary)
            for piece in pieces
        ]
        return items, summary

    def rows(self, chunk: _Chunk) -> Rows:
        """``chunk`` as aggregation rows, counted here. Plain lines are scored in C, which makes
        their rows as the one definition of a row says (``contract.ROW_COLUMNS``; the C code
        reads it through ``fast.row_plan``)."""
        summary = RunSummary()
        if self.fast is None or chunk.whole_file is not None:
            return [self._keyed(outcome, summary) for outcome in self.outcomes(chunk)], summary
        pieces = self.fast_rows(
            self.fast, chunk, summary, detail=0, audit_gates=self.policy.audit_gate
        )
        if isinstance(pieces, InputError):
            return [pieces], summary
        items: list[tuple[RunKey | None, Row] | InputError] = []
        for piece in pieces:
            if len(piece) == 2:  # declined: (line number, line)
                items.append(self._keyed(self._line(*piece, chunk), summary))
            else:
                items.append((run_key(piece[0]), piece[0]))
        return items, summary

    @staticmethod
    def _fast_block(
        fast: FastScorer, chunk: _Chunk, summary: RunSummary
    ) -> tuple[bytes, list[Piece]] | InputError:
        """``chunk``'s block and its pieces from the C scorer, the lines it scored counted into
        ``summary``; or, counted too, the error that the block could not be read."""
        block = _block_of(chunk, summary)
        if isinstance(block, InputError):
            return block
        pieces, counts = fast.score_block(block, chunk.first_line, chunk.bundle.id)
        _count_block(summary, counts, chunk.bundle.id)
        return block, pieces

    @staticmethod
    def fast_rows(
        fast: FastScorer, chunk: _Chunk, summary: RunSummary, *, detail: int, audit_gates: bool
    ) -> list[RowPiece] | InputError:
        """``chunk``'s lines from the C scorer as rows (:meth:`FastScorer.score_rows`, with
        ``detail`` and ``audit_gates``), the lines it scored counted into ``summary``; or,
        counted too, the error that the block could not be read."""
        block = _block_of(chunk, summary)
        if isinstance(block, InputError):
            return block
        labels: dict[str, tuple[str | None, str | None]] = {
            candidate: (spec.model, spec.tier)
            for candidate, spec in chunk.bundle.candidates.items()
        }
        pieces, counts = fast.score_rows(
            block, chunk.first_line, chunk.bundle.id, labels, detail, audit_gates=audit_gates
        )
        _count_block(summary, counts, chunk.bundle.id)
        return pieces

    @staticmethod
    def _keyed(outcome: Outcome, summary: RunSummary) -> tuple[RunKey | None, Row] | InputError:
        """A rows outcome counted into ``summary``: its run key and row, or its error."""
        if isinstance(outcome, InputError):
            summary.rejected += 1
            return outcome
        tally, row = outcome
        summary.count(tally)
        return tally.run_key, row

    @staticmethod
    def _counted(outcome: Outcome, summary: RunSummary) -> str | InputError:
        """A ``jsonl`` outcome counted into ``summary``: its line (with newline) or its error."""
        if isinstance(outcome, InputError):
            summary.rejected += 1
            return outcome
        tally, line = outcome
        summary.count(tally)
        return f"{line}\n"

    def _line(self, number: int, raw: bytes, chunk: _Chunk) -> Outcome:
        record = parse_line(raw, number=number, source=chunk.source, bundle=chunk.bundle)
        return self._general(record)

    def _general(self, record: RawRecord | InputError) -> Outcome:
        result = score_record(record, catalog=self.catalog, policy=self.policy)
        if isinstance(result, InputError):
            return result
        if self.format == _ROWS:
            return result.tally(), scored_row(result.numbered(1))  # the main process renumbers it
        if self.format == _RECORDS:
            return result.tally(), result
        return result.tally(), result.render(self.format)


def _outcomes(scorer: _ChunkScorer, chunk: _Chunk) -> list[Outcome]:
    return scorer.outcomes(chunk)


def _text(scorer: _ChunkScorer, chunk: _Chunk) -> Text:
    return scorer.text(chunk)


def _rows(scorer: _ChunkScorer, chunk: _Chunk) -> Rows:
    return scorer.rows(chunk)


def _block_of(chunk: _Chunk, summary: RunSummary) -> bytes | InputError:
    """``chunk``'s block for the C scorer, or (counted as rejected) why it could not be read."""
    try:
        return chunk.text() or b""
    except OSError as error:
        summary.rejected += 1
        return unreadable(chunk.source, error)


def _count_block(summary: RunSummary, counts: Counts, bundle_id: str) -> None:
    summary.scored, summary.gate_failures, summary.unscoreable, summary.audit_failed = counts
    if summary.scored:
        summary.bundles.add(bundle_id)


_KEY_COLUMNS = tuple(ROW_FIELDS.index(name) for name in ("bundle", "candidate", "case"))


def run_key(row: Row) -> RunKey:
    """The (bundle, candidate, case) of a row."""
    bundle, candidate, case = _KEY_COLUMNS
    return row[bundle], row[candidate], row[case]


# Set in each worker by `_start_worker`.
_scorer: _ChunkScorer | None = None
_slots: OutputSlots | None = None


def _start_worker(
    parent: int,
    catalog: Catalog | Path | None,
    policy: Policy,
    output_format: str,
    slots: OutputSlots | None = None,
) -> None:
    global _scorer, _slots
    from ._lifetime import start_worker_lifetime

    start_worker_lifetime(parent)
    _scorer = _ChunkScorer(catalog, policy, output_format)
    _slots = slots


def _in_worker(
    work: Callable[[_ChunkScorer, _Chunk], T], chunk: _Chunk, slot: int | None = None
) -> T | _Uncounted[T]:
    """``work`` on one chunk in a worker; only its small result travels back (with ``slot``,
    its text is written into that output slot and only where it lies travels)."""
    if _scorer is None:
        raise RuntimeError("worker not started")
    result = _worked(_scorer, work, chunk)
    if slot is None or _slots is None:
        return result
    slots = _slots
    return cast(
        "T | _Uncounted[T]", _items_mapped(result, lambda items: slots.written(items, slot))
    )


def _items_mapped(result: Any, change: Callable[[list[Any]], list[Any]]) -> Any:
    """A chunk's ``(items, summary)`` result (or one :class:`_Uncounted`) with ``change`` made to
    its items."""
    if isinstance(result, _Uncounted):
        return _Uncounted(_items_mapped(result.result, change), result.newlines)
    items, summary = result
    return change(items), summary


@dataclass(frozen=True)
class _Uncounted(Generic[T]):
    """The result of a chunk that was not ``counted``, with how many newlines its block holds
    (the main process numbers the next chunk's lines from it)."""

    result: T
    newlines: int


def _worked(
    scorer: _ChunkScorer, work: Callable[[_ChunkScorer, _Chunk], T], chunk: _Chunk
) -> T | _Uncounted[T]:
    """``work`` on ``chunk``; for a chunk not ``counted``, with the newlines of its block."""
    if chunk.counted:
        return work(scorer, chunk)
    try:
        block = chunk.text() or b""
    except OSError:  # read again by ``work``, which reports the file unreadable
        return _Uncounted(work(scorer, chunk), 0)
    read = replace(chunk, block=block, span=None)
    return _Uncounted(work(scorer, read), count_newlines(block, len(block)))


class _LineNumbers:
    """Where each chunk that was not ``counted`` starts in its file, from the chunks before it
    (they come back in input order): its results' errors get their true line numbers."""

    def __init__(self) -> None:
        self.next_line = 1

    def moved(self, chunk: _Chunk, counted: _Uncounted[T]) -> T:
        """The result of ``chunk``, its errors moved to their lines in the file."""
        if chunk.span is None or chunk.span[0] == 0:  # a file's first chunk
            self.next_line = 1
        shift = self.next_line - chunk.first_line
        self.next_line += counted.newlines + 1
        if shift == 0:
            return counted.result
        items, summary = cast("tuple[list[Any], RunSummary]", counted.result)
        moved = [_moved(item, shift) if isinstance(item, InputError) else item for item in items]
        return cast("T", (moved, summary))


def _moved(error: InputError, shift: int) -> InputError:
    """``error`` with its line ``shift`` lines further on."""
    if error.line is None:
        return error
    moved = copy.copy(error)
    moved.line = error.line + shift
    return moved


@dataclass(frozen=True)
class _Run:
    """One scoring run: its inputs and how to score them."""

    paths: Iterable[str]
    catalog: Catalog | Path | None
    policy: Policy
    workers: int
    output_format: str
    bundle_id: str | None
    stdin: IO[bytes] | None
    chunk_bytes: int
    on_file: Callable[[str], None] | None = None
    """Called with each input's name when its first result is handed on."""

    def map(
        self,
        work: Callable[[_ChunkScorer, _Chunk], T],
        read: Callable[[_ScoredInput], T] | None = None,
        *,
        counted: bool = True,
    ) -> Iterator[T | InputError]:
        """``work`` on every chunk, results in input order; with one worker, in this process.
        With ``read``, given paths already scored are read by it, here, in their turn.

        Without ``counted``, a pool's main process does not count a file's lines (it reads
        only near each cut): the workers number their chunks' lines from 1 or 2 and the errors
        in the results (``(items, summary)``, the only place a line number is) are moved here.
        """
        chunks = _chunks(
            self.paths,
            self.bundle_id,
            self.stdin,
            self.chunk_bytes,
            spans=self.workers > 1,
            read_scored=read is not None,
            counted=counted,
        )
        announced: str | None = None
        numbers = _LineNumbers()
        for item, result in self._results(chunks, work, read):
            source = item.source
            if self.on_file is not None and source is not None and source != announced:
                announced = source
                self.on_file(source)
            if isinstance(result, _Uncounted):
                yield numbers.moved(cast(_Chunk, item), result)
            else:
                yield result

    def _results(
        self,
        chunks: Iterator[_Chunk | _ScoredInput | InputError],
        work: Callable[[_ChunkScorer, _Chunk], T],
        read: Callable[[_ScoredInput], T] | None,
    ) -> Iterator[tuple[_Chunk | _ScoredInput | InputError, T | _Uncounted[T] | InputError]]:
        # Input of one chunk (one observation, say) is scored here: starting workers would
        # cost more than scoring it (and the pool's modules are imported only when needed).
        ahead: list[_Chunk | _ScoredInput | InputError] = []
        if self.workers > 1:
            for item in chunks:
                ahead.append(item)
                if sum(isinstance(seen, _Chunk) for seen in ahead) == 2:
                    break
            chunks = itertools.chain(ahead, chunks)
        if self.workers == 1 or sum(isinstance(item, _Chunk) for item in ahead) < 2:
            scorer = _ChunkScorer(self.catalog, self.policy, self.output_format)
            for chunk in chunks:
                if isinstance(chunk, _Chunk):
                    yield chunk, _worked(scorer, work, chunk)
                else:
                    yield chunk, _here(chunk, read)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # Only a run with a pool needs the workers' lifetime (threads, ctypes, signals).
        from ._lifetime import end_pool, track_pool

        forked = "fork" in multiprocessing.get_all_start_methods()
        window = WINDOW * self.workers
        # Text comes back through shared memory where workers are forked (they inherit it).
        slots = (
            OutputSlots(window, slot_bytes(self.chunk_bytes)) if forked and work is _text else None
        )
        executor = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("fork" if forked else "spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(), self.catalog, self.policy, self.output_format, slots),
        )
        track_pool(executor)
        widen_pipes(executor)
        finished = False
        try:
            yield from _in_order(chunks, executor, work, read, window, slots)
            finished = True
        finally:
            # Cut short (an error, a stop, the reader gone, the view dropped): kill the workers.
            end_pool(executor, finished=finished)
            if slots is not None:
                slots.close()


def slot_bytes(chunk_bytes: int) -> int:
    """How much output text a chunk's slot holds: twice its input (scorecards are smaller than
    the observations they score; more is sent through the pipe), and at least 1 MiB."""
    return max(2 * chunk_bytes, 1 << 20)


PIPE_BYTES = 1 << 20
"""What a pool's pipes are asked to hold (Linux's default is 64 KiB, and Linux's default ceiling
for an unprivileged process 1 MiB)."""


def widen_pipes(executor: ProcessPoolExecutor) -> None:
    """Let a pool's pipes hold a chunk's whole output (about 1 MiB of text for 2 MiB of input):
    with 64 KiB a worker sending it waits on the main process's reads sixteen times over, and
    scoring 50,000 lines on two workers took about a tenth longer. Best effort: where the pipe
    size cannot be set (not Linux, or the user's pipe memory spent), they stay as they are."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        return
    setting = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setting is None:
        return
    for queue in (getattr(executor, "_result_queue", None), getattr(executor, "_call_queue", None)):
        reader = getattr(queue, "_reader", None)
        with contextlib.suppress(OSError, ValueError, AttributeError):
            fcntl.fcntl(reader.fileno(), setting, PIPE_BYTES)  # type: ignore[union-attr]


def _here(
    item: _ScoredInput | InputError, read: Callable[[_ScoredInput], T] | None
) -> T | InputError:
    """The result of an item the main process handles: an error as it is, a scored input read."""
    if isinstance(item, InputError):
        return item
    if read is None:
        raise TypeError("a scored input in a run that does not read them")
    return read(item)


def _in_order(
    chunks: Iterator[_Chunk | _ScoredInput | InputError],
    executor: ProcessPoolExecutor,
    work: Callable[[_ChunkScorer, _Chunk], T],
    read: Callable[[_ScoredInput], T] | None,
    window: int,
    slots: OutputSlots | None = None,
) -> Iterator[tuple[_Chunk | _ScoredInput | InputError, T | _Uncounted[T] | InputError]]:
    pending: deque[
        tuple[_Chunk | _ScoredInput | InputError, Future[T | _Uncounted[T]] | None, int | None]
    ] = deque()
    exhausted = False
    while pending or not exhausted:
        raise_if_stopped()  # a stop whose first raise was swallowed ends the run here
        while not exhausted and len(pending) < window:
            item = next(chunks, None)
            if item is None:
                exhausted = True
            elif isinstance(item, _Chunk):
                slot = slots.take() if slots is not None else None
                pending.append((item, executor.submit(_in_worker, work, item, slot), slot))
            else:  # errors and scored inputs: here, in their turn
                pending.append((item, None, None))
        if pending:
            item, future, slot = pending.popleft()
            if future is None:
                if not isinstance(item, _Chunk):
                    yield item, _here(item, read)
                continue
            result = future.result()
            if slot is not None and slots is not None:
                result = _items_mapped(result, slots.read)
                slots.give_back(slot)  # read: the next chunk may be written there
            yield item, result


def _scored_rows(scored: _ScoredInput) -> Rows:
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


def _numbered(run: _Run, summary: RunSummary) -> Iterator[tuple[int, Any] | InputError]:
    """(run number, output) of every record in input order, or its error; counts ``summary``."""
    repetitions: Counter[tuple[str, str, str]] = Counter()
    for result in run.map(_outcomes):
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
    run = _Run(
        paths, catalog, policy, workers, output_format, bundle_id, stdin, chunk_bytes, on_file
    )
    if output_format != "jsonl":
        for item in _numbered(run, summary):
            if isinstance(item, InputError):
                yield item
                continue
            number, text = item
            yield text.replace(_REPETITION_PLACEHOLDER, f'"repetition":{number},', 1) + "\n"
        return
    yield from merged_items(run.map(_text, counted=False), summary)


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
) -> Iterator[ScoredRecord | InputError]:
    """The scored records themselves, numbered, and the errors between them, in input order;
    scored by the general path on ``workers`` processes (one: in this process), equal to
    :func:`scorecard.engine._pipeline.score_paths_serially`."""
    summary = summary if summary is not None else RunSummary()
    run = _Run(paths, catalog, policy, workers, _RECORDS, bundle_id, stdin, chunk_bytes, on_file)
    for item in _numbered(run, summary):
        if isinstance(item, InputError):
            yield item
            continue
        number, record = item
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
    run = _Run(paths, catalog, policy, workers, _ROWS, bundle_id, stdin, chunk_bytes, on_file)
    summary = summary if summary is not None else RunSummary()
    repetitions: Counter[RunKey] = Counter()
    rows = run.map(_rows, _scored_rows if read_scored else None, counted=False)
    for item in merged_items(rows, summary):
        if isinstance(item, InputError):
            yield item
            continue
        key, row = item
        yield row if key is None else numbered_row(row, key, repetitions)
