"""A scoring run's chunks worked on in this process or on a pool of worker processes.

:class:`Run` is one run's inputs and settings; :meth:`Run.map` gives a chunk call's results in
input order. With one worker (or input of one chunk) the chunks are scored right here. Otherwise
a ``ProcessPoolExecutor`` is started (forked where the platform can, so the workers inherit the
catalog and the output slots, :mod:`._slots`), at most ``WINDOW x workers`` chunks are in flight,
and a run cut short (an error, a stop, the reader gone) ends its workers
(:mod:`._lifetime`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast

from scorecard.contract import Catalog, InputError, Policy, raise_if_stopped

from ._chunk_scorer import RECORDS, ChunkScorer, chunk_outcomes, chunk_records, chunk_text
from ._chunks import Chunk, LineNumbers, ScoredInput, Uncounted, input_chunks, worked
from ._slots import OutputSlots

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = [
    "PIPE_BYTES",
    "WINDOW",
    "Run",
    "default_workers",
    "forked_map",
    "slot_bytes",
    "widen_pipes",
]


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


T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Run:
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
    only_bundles: frozenset[str] | None = None
    """Score only the files of these bundles (None: every file)."""

    def map(
        self,
        work: Callable[[ChunkScorer, Chunk], T],
        read: Callable[[ScoredInput], T] | None = None,
        *,
        counted: bool = True,
    ) -> Iterator[T | InputError]:
        """``work`` on every chunk, results in input order; with one worker, in this process.
        With ``read``, given paths already scored are read by it, here, in their turn.

        Without ``counted``, a pool's main process does not count a file's lines (it reads
        only near each cut): the workers number their chunks' lines from 1 or 2 and the errors
        in the results (``(items, summary)``, the only place a line number is) are moved here.
        """
        chunks = input_chunks(
            self.paths,
            self.bundle_id,
            self.stdin,
            self.chunk_bytes,
            spans=self.workers > 1,
            read_scored=read is not None,
            counted=counted,
            only_bundles=self.only_bundles,
        )
        announced: str | None = None
        numbers = LineNumbers()
        for item, result in self._results(chunks, work, read):
            source = item.source
            if self.on_file is not None and source is not None and source != announced:
                announced = source
                self.on_file(source)
            if isinstance(result, Uncounted):
                yield numbers.moved(cast(Chunk, item), result)
            else:
                yield result

    def _results(
        self,
        chunks: Iterator[Chunk | ScoredInput | InputError],
        work: Callable[[ChunkScorer, Chunk], T],
        read: Callable[[ScoredInput], T] | None,
    ) -> Iterator[tuple[Chunk | ScoredInput | InputError, T | Uncounted[T] | InputError]]:
        # Input of one chunk (one observation, say) is scored here: starting workers would
        # cost more than scoring it (and the pool's modules are imported only when needed).
        ahead: list[Chunk | ScoredInput | InputError] = []
        if self.workers > 1:
            for item in chunks:
                ahead.append(item)
                if sum(isinstance(seen, Chunk) for seen in ahead) == 2:
                    break
            chunks = itertools.chain(ahead, chunks)
        if self.workers == 1 or sum(isinstance(item, Chunk) for item in ahead) < 2:
            scorer = ChunkScorer(self.catalog, self.policy, self.output_format)
            for chunk in chunks:
                if isinstance(chunk, Chunk):
                    yield chunk, worked(scorer, work, chunk)
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
            OutputSlots(window, slot_bytes(self.chunk_bytes))
            if forked
            and (work in (chunk_text, chunk_records) or getattr(work, "uses_output_slots", False))
            else None
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


# Set in each worker by `_start_worker`.
_scorer: ChunkScorer | None = None


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
    _scorer = ChunkScorer(catalog, policy, output_format)
    _slots = slots


def _in_worker(
    work: Callable[[ChunkScorer, Chunk], T], chunk: Chunk, slot: int | None = None
) -> T | Uncounted[T]:
    """``work`` on one chunk in a worker; only its small result travels back (with ``slot``,
    its text is written into that output slot and only where it lies travels)."""
    if _scorer is None:
        raise RuntimeError("worker not started")
    result = worked(_scorer, work, chunk)
    if work is chunk_outcomes and _scorer.format == RECORDS and isinstance(result, list):
        return cast("T", _packed_outcomes(result))
    if slot is None or _slots is None:
        return result
    slots = _slots
    return cast("T | Uncounted[T]", _items_mapped(result, lambda items: slots.written(items, slot)))


def _packed_outcomes(outcomes: list[Any]) -> list[Any]:
    """A chunk's scored records as they travel to the main process: packed
    (:class:`~scorecard.engine.PackedDocuments`), read back there."""
    from ._packed import PackedDocuments

    sent: list[Any] = []
    for outcome in outcomes:
        if isinstance(outcome, InputError):
            sent.append(outcome)
            continue
        tally, record = outcome
        sent.append((tally, PackedDocuments.of(record) or record))
    return sent


def _items_mapped(result: Any, change: Callable[[list[Any]], list[Any]]) -> Any:
    """A chunk's ``(items, summary)`` result (or one :class:`Uncounted`) with ``change`` made to
    its items."""
    if isinstance(result, Uncounted):
        return Uncounted(_items_mapped(result.result, change), result.newlines)
    items, summary = result
    return change(items), summary


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
    item: ScoredInput | InputError, read: Callable[[ScoredInput], T] | None
) -> T | InputError:
    """The result of an item the main process handles: an error as it is, a scored input read."""
    if isinstance(item, InputError):
        return item
    if read is None:
        raise TypeError("a scored input in a run that does not read them")
    return read(item)


def _in_order(
    chunks: Iterator[Chunk | ScoredInput | InputError],
    executor: ProcessPoolExecutor,
    work: Callable[[ChunkScorer, Chunk], T],
    read: Callable[[ScoredInput], T] | None,
    window: int,
    slots: OutputSlots | None = None,
) -> Iterator[tuple[Chunk | ScoredInput | InputError, T | Uncounted[T] | InputError]]:
    pending: deque[
        tuple[Chunk | ScoredInput | InputError, Future[T | Uncounted[T]] | None, int | None]
    ] = deque()
    exhausted = False
    while pending or not exhausted:
        raise_if_stopped()  # a stop whose first raise was swallowed ends the run here
        while not exhausted and len(pending) < window:
            item = next(chunks, None)
            if item is None:
                exhausted = True
            elif isinstance(item, Chunk):
                slot = slots.take() if slots is not None else None
                pending.append((item, executor.submit(_in_worker, work, item, slot), slot))
            else:  # errors and scored inputs: here, in their turn
                pending.append((item, None, None))
        if pending:
            item, future, slot = pending.popleft()
            if future is None:
                if not isinstance(item, Chunk):
                    yield item, _here(item, read)
                continue
            result = future.result()
            if slot is not None and slots is not None:
                result = _items_mapped(result, slots.read)
                slots.give_back(slot)  # read: the next chunk may be written there
            yield item, result


# Set in each worker of `forked_map` by `_start_forked`.
_forked_work: Callable[[Any], Any] | None = None


def forked_map(work: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[R]:
    """``work(item)`` of every item, in order, on ``workers`` forked processes (one, input of
    one item, or a platform without ``fork``: here, one by one).

    The workers inherit ``work`` and everything this process holds when the pool starts (open
    files among them: a worker reads them with ``pread``-like calls, never moving a shared
    offset), so ``work`` is never pickled; each item goes to a worker and each result comes
    back pickled. At most :data:`WINDOW` x ``workers`` items are in flight; the workers live
    by the pool's rules (:mod:`._lifetime`), and an exception ``work`` raises is raised here,
    in its turn, after the workers are ended."""
    import multiprocessing

    listed = list(items)
    forked = "fork" in multiprocessing.get_all_start_methods()
    if workers <= 1 or len(listed) < 2 or not forked:
        yield from map(work, listed)
        return
    from concurrent.futures import ProcessPoolExecutor

    from ._lifetime import end_pool, track_pool

    executor = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_start_forked,
        initargs=(os.getpid(), work),  # forked: inherited, not pickled
    )
    track_pool(executor)
    widen_pipes(executor)
    finished = False
    try:
        pending: deque[Future[R]] = deque()
        waiting = iter(listed)
        window = WINDOW * workers
        while True:
            raise_if_stopped()
            for item in itertools.islice(waiting, window - len(pending)):
                pending.append(executor.submit(_forked_call, item))
            if not pending:
                break
            yield pending.popleft().result()
        finished = True
    finally:
        end_pool(executor, finished=finished)


def _start_forked(parent: int, work: Callable[[Any], Any]) -> None:
    global _forked_work
    from ._lifetime import start_worker_lifetime

    start_worker_lifetime(parent)
    _forked_work = work


def _forked_call(item: Any) -> Any:
    if _forked_work is None:
        raise RuntimeError("worker not started")
    return _forked_work(item)
