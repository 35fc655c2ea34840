"""Scoring on a Dask cluster, with results identical to the local path.

A scoring run is three waves of tasks driven from this process (``docs/distributed.md``)::

    count   one task per byte range of a .jsonl file: how many lines it holds
            -> the driver adds them up into each range's first line number
    score   one task per range (or .json file): what a local worker does with a chunk (the C
            scorer, the general path for what it declines); the rows stay on the worker, only
            each run's key, the range's counts and its located errors come back
            -> the driver numbers repetitions in input order and counts the run summary
    write   one task per bundle: its ranges' rows, numbered, as the one Parquet file the local
            run writes for it (``bundle=<id>/part-0.parquet``, the same bytes)

Repetition numbers are the one thing a range cannot know alone (they count runs in all earlier
ranges), which is why the driver walks the ranges in input order between the last two waves.
Workers read the inputs and write the dataset through a file system they share with the driver,
at the same absolute paths. Dask is an optional extra (``scorecard[distributed]``) imported only
inside the functions that use it, so ``import scorecard.engine.distributed`` works without it. Aggregating a dataset
on the cluster is :mod:`scorecard.aggregate.distributed`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pyarrow as pa

from scorecard.contract import BundleInfo, Catalog, InputError, Policy, load_catalog

from ._chunk_scorer import ROWS, ChunkScorer, RunKey
from ._chunks import Chunk
from ._io import STDIN, discover_inputs, unreadable
from ._output import atomic_folder, atomic_writer
from ._pipeline import RunSummary
from .parquet import PARTITION_SCHEMA, _batch, _bundle_folder, _write_partition_file

__all__ = [
    "SPLIT_BYTES",
    "DistributedRun",
    "refuse_stdin",
    "score_on_dask",
]

#: Default size of the byte ranges ``.jsonl`` files are cut into (one task each).
SPLIT_BYTES = 64 * 1024 * 1024
_REPETITION = PARTITION_SCHEMA.get_field_index("repetition")


@dataclass
class DistributedRun:
    """What a scoring run on a cluster produced, besides the dataset itself."""

    summary: RunSummary
    """The run summary, counted exactly as the local path counts it."""
    errors: list[InputError] = field(default_factory=list)
    """Rejected records and unreadable inputs, located, in input order."""
    rows: int = 0
    """Rows written to the dataset (one per scored record)."""
    tasks: int = 0
    """Ranges and ``.json`` files the inputs were cut into (score tasks)."""


@dataclass(frozen=True)
class _Range:
    """One score task's input: a byte range of a ``.jsonl`` file, or a whole ``.json`` file."""

    index: int
    """Position in the run."""
    file: int
    """Which input file of the run (a file given twice is two files, as in the local path)."""
    source: str
    """The path as given: how records and errors name the file."""
    location: str
    """The absolute path workers open."""
    bundle: BundleInfo
    start: int = 0
    end: int | None = None
    """End offset of the range; None for a whole file parsed as one JSON document."""


@dataclass(frozen=True)
class _Scored:
    """A score task's result, kept on its worker until its bundle's write task takes it."""

    keys: list[RunKey]
    """Each scored run's (bundle, candidate, case), in input order."""
    summary: RunSummary
    """The range's counts (its rejected records aside: the driver counts the errors)."""
    errors: list[InputError]
    rows: pa.RecordBatch | None
    """Rows in :data:`PARTITION_SCHEMA` with placeholder repetitions; None when nothing scored."""
    scorecards: str
    """v2 scorecard lines (the ``jsonl`` format), when the run writes them."""


def _plan(
    paths: Iterable[str], bundle_id: str | None, split_bytes: int
) -> list[_Range | InputError]:
    """Input files cut into ranges, and discovery errors, in input order."""
    plan: list[_Range | InputError] = []
    index = 0
    for file, found in enumerate(discover_inputs(paths, bundle_id=bundle_id)):
        if isinstance(found, InputError):
            plan.append(found)
            continue
        location = os.path.abspath(found.path)
        if not found.path.endswith(".jsonl"):
            plan.append(_Range(index, file, found.path, location, found.bundle))
            index += 1
            continue
        try:
            size = os.path.getsize(location)
        except OSError as error:
            plan.append(unreadable(found.path, error))
            continue
        # An empty file still gets a range, so that an unreadable one is reported.
        for start in range(0, max(size, 1), split_bytes):
            end = min(start + split_bytes, size)
            plan.append(_Range(index, file, found.path, location, found.bundle, start, end))
            index += 1
    return plan


def _range_bytes(piece: _Range) -> bytes:
    """The lines of a range: each line belongs to the range its first byte is in, where a
    range ``[start, end]`` includes its end (so a line starting exactly at ``end`` is this
    range's, and the next range, starting there, skips it)."""
    assert piece.end is not None
    with open(piece.location, "rb") as stream:
        start = piece.start
        stream.seek(start)
        if start > 0:
            start += len(stream.readline())  # the line that began earlier is the previous range's
        if start > piece.end:
            return b""
        return stream.read(piece.end - start) + stream.readline()


def _count_lines(piece: _Range) -> int | InputError:
    """Count task: the lines of a range (its last, unterminated line aside, only at file end)."""
    try:
        return _range_bytes(piece).count(b"\n")
    except OSError as error:
        return unreadable(piece.source, error)


_scorers: dict[tuple[int, str], ChunkScorer] = {}
"""This worker's chunk scorers, by catalog (the object the run's catalog task gave) and format."""


def _scorer(catalog: Catalog, policy: Policy, output: str) -> ChunkScorer:
    """The chunk scorer of this run in this worker (made once: it compiles the case plans)."""
    key = (id(catalog), output)
    scorer = _scorers.get(key)
    if scorer is None or scorer.catalog is not catalog or scorer.policy != policy:
        if len(_scorers) >= 8:
            _scorers.clear()
        scorer = _scorers[key] = ChunkScorer(catalog, policy, output)
    return scorer


def _the_catalog(catalog: Catalog) -> Catalog:
    """The run's catalog as a task's result: a worker that dies holding it has it computed
    again (scattered data lost with its last holder cannot be, and every task after it was
    cancelled)."""
    return catalog


def _chunk(piece: _Range, first_line: int) -> Chunk:
    """The local run's chunk of a range (its lines, without the last newline) or ``.json``
    file."""
    if piece.end is None:
        with open(piece.location, "rb") as stream:
            return Chunk(piece.source, piece.bundle, whole_file=stream.read())
    block = _range_bytes(piece)
    return Chunk(piece.source, piece.bundle, block.removesuffix(b"\n"), first_line)


def _score_range(
    piece: _Range, first_line: int, catalog: Catalog, policy: Policy, scorecards: bool
) -> _Scored:
    """Score task: the range as a local worker scores a chunk (:class:`ChunkScorer`'s rows,
    and its text when the run writes scorecards), in file order."""
    try:
        chunk = _chunk(piece, first_line)
    except OSError as error:
        return _Scored([], RunSummary(), [unreadable(piece.source, error)], None, "")
    items, summary = _scorer(catalog, policy, ROWS).rows(chunk)
    summary.rejected = 0  # the driver counts the errors, an unreadable file's once
    keys: list[RunKey] = []
    rows = []
    errors: list[InputError] = []
    for item in items:
        if isinstance(item, InputError):
            errors.append(item)
            continue
        key, row = item
        assert key is not None  # observations, never rows read already scored
        keys.append(key)
        rows.append(row)
    text = ""
    if scorecards:
        pieces, _ = _scorer(catalog, policy, "jsonl").text(chunk)
        text = "".join(piece for piece in pieces if isinstance(piece, str))
    batch = _batch(rows, PARTITION_SCHEMA) if rows else None
    return _Scored(keys, summary, errors, batch, text)


def _outcome(scored: _Scored) -> tuple[list[RunKey], RunSummary, list[InputError]]:
    """What the driver needs of a score task: small, unlike the rows."""
    return scored.keys, scored.summary, scored.errors


def _scorecard_lines(scored: _Scored) -> str:
    return scored.scorecards


def _write_bundle(parts: list[_Scored], repetitions: list[list[int]], path: str) -> int:
    """Write task: a bundle's rows, range after range with their repetition numbers, as the
    one file the local run writes for the bundle (:func:`.parquet._write_partition_file`: the
    same row groups, so the same bytes; written atomically, so a task retried after a lost
    worker never leaves half a file or a temporary one under the dataset)."""
    batches = []
    for scored, numbers in zip(parts, repetitions, strict=True):
        assert scored.rows is not None
        column = pa.array(numbers, type=pa.int64())
        batches.append(
            scored.rows.set_column(_REPETITION, PARTITION_SCHEMA.field(_REPETITION), column)
        )
    table = pa.Table.from_batches(batches, schema=PARTITION_SCHEMA)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return _write_partition_file(table, Path(path))


@dataclass
class _Step:
    """One item of the run in input order: a discovery error, or a range and its tasks."""

    piece: _Range | None = None
    error: InputError | None = None
    """Why the step has nothing to score (discovery error, or its file became unreadable)."""
    scored: Any = None
    """The score task's future; its result stays on the worker."""
    outcome: Any = None
    """Future of the tallies and errors the driver gathers."""
    scorecards: Any = None
    """Future of the rendered scorecards, when the run writes them."""


def _in_order(futures: Sequence[Any]) -> Iterator[Any]:
    """Results of ``futures`` in list order, each as soon as it and all before it are done."""
    from distributed import as_completed

    position = {future.key: index for index, future in enumerate(futures)}
    done: dict[int, Any] = {}
    wanted = 0
    completed: Any = as_completed(futures, with_results=True)  # type: ignore[no-untyped-call]
    del futures  # as_completed lets go of each future once done; so must this frame
    for batch in completed.batches():
        for future, result in batch:
            if isinstance(result, CancelledError):  # as_completed yields it, and raises others
                raise result
            done[position[future.key]] = result
        while wanted in done:
            yield done.pop(wanted)
            wanted += 1


class _Driver:
    """Submits the tasks of one run and walks their results in input order."""

    def __init__(self, client: Any, staging: Path, policy: Policy, keep_scorecards: bool) -> None:
        self.client = client
        self.staging = staging
        self.policy = policy
        self.keep_scorecards = keep_scorecards
        self.futures: dict[str, Any] = {}
        """Futures this driver still holds, by key (to cancel them all if the run fails)."""
        self.catalog: Any = None

    def submit(self, function: Any, *args: Any) -> Any:
        future = self.client.submit(function, *args, pure=False)
        self.futures[future.key] = future
        return future

    def forget(self, *futures: Any) -> None:
        """Let go of futures whose results are taken, so the cluster frees them."""
        for future in futures:
            if future is not None:
                self.futures.pop(future.key, None)

    def cancel(self) -> None:
        """Stop what has not run and drop every result held on the cluster (after a failure;
        after success the futures are simply dropped, which releases them)."""
        with contextlib.suppress(Exception):  # a lost connection must not hide the real error
            self.client.cancel(list(self.futures.values()))
        self.futures.clear()

    def score(self, plan: list[_Range | InputError], catalog: Catalog) -> list[_Step]:
        """Count and score tasks; a range is scored as soon as its first line number is known."""
        steps = [
            _Step(error=item) if isinstance(item, InputError) else _Step(item) for item in plan
        ]
        ranges = {step.piece.index: step for step in steps if step.piece is not None}
        pieces = [item for item in plan if isinstance(item, _Range)]
        # Only a range followed by more of its file needs counting (for the next one's numbers).
        counted = [
            piece.index
            for piece, following in itertools.pairwise(pieces)
            if following.file == piece.file
        ]
        counts = [self.submit(_count_lines, ranges[index].piece) for index in counted]
        self.catalog = self.submit(_the_catalog, catalog)
        first_lines: dict[int, int] = {}
        for piece in pieces:
            if not piece.start:
                first_lines[piece.index] = 1
                self.submit_scoring(ranges[piece.index], 1)
        failed: set[int] = set()
        for index, count in zip(counted, _in_order(counts), strict=True):
            following = ranges[index + 1]
            assert following.piece is not None
            if following.piece.file in failed:
                continue
            if isinstance(count, InputError):
                failed.add(following.piece.file)
                following.error = count
                continue
            first_lines[index + 1] = first_lines[index] + count
            self.submit_scoring(following, first_lines[index + 1])
        return steps

    def submit_scoring(self, step: _Step, first_line: int) -> None:
        keep = self.keep_scorecards
        step.scored = self.submit(
            _score_range, step.piece, first_line, self.catalog, self.policy, keep
        )
        step.outcome = self.submit(_outcome, step.scored)
        if keep:
            step.scorecards = self.submit(_scorecard_lines, step.scored)

    def number_and_write(
        self, steps: list[_Step], run: DistributedRun, scorecards: IO[str] | None
    ) -> list[Any]:
        """Walk the steps in input order: number runs, count, collect errors; submit each
        bundle's write (its ranges in input order) as soon as its last range is walked."""
        scored = [step for step in steps if step.outcome is not None]
        outcomes = _in_order([step.outcome for step in scored])
        texts = _in_order([step.scorecards for step in scored]) if scorecards is not None else None
        last = {step.piece.bundle.id: index for index, step in enumerate(steps) if step.piece}
        repetitions: Counter[RunKey] = Counter()
        unreadable: set[int] = set()
        bundles: dict[str, tuple[list[Any], list[list[int]]]] = {}
        writes = []
        for index, step in enumerate(steps):
            errors = [step.error] if step.error is not None else []
            if step.outcome is not None:
                assert step.piece is not None
                keys, counts, errors = next(outcomes)
                run.summary.merge(counts)
                numbers: list[int] = []
                for key in keys:
                    repetitions[key] += 1
                    numbers.append(repetitions[key])
                if numbers:
                    parts, numbered = bundles.setdefault(step.piece.bundle.id, ([], []))
                    parts.append(step.scored)
                    numbered.append(numbers)
                else:
                    self.forget(step.scored)
                if scorecards is not None and texts is not None:
                    scorecards.write(next(texts))
                self.forget(step.outcome, step.scorecards)
                step.scored = step.outcome = step.scorecards = None
            for error in errors:
                if error.rule == "unreadable" and step.piece is not None:
                    # Every range of an unreadable file says so; the local path says it once.
                    if step.piece.file in unreadable:
                        continue
                    unreadable.add(step.piece.file)
                run.summary.rejected += 1
                run.errors.append(error)
            bundle = step.piece.bundle.id if step.piece is not None else None
            if bundle in bundles and last[bundle] == index:
                parts, numbered = bundles.pop(bundle)
                path = str(self.staging / _bundle_folder(bundle) / "part-0.parquet")
                writes.append(self.submit(_write_bundle, parts, numbered, path))
                self.forget(*parts)  # the write task holds them now
        return writes


def _drop_temporaries(staging: Path) -> None:
    """Remove what a worker lost mid-write left in the dataset being staged: where files cannot
    be made without a name (no ``O_TMPFILE``), a killed write leaves its ``.part-0.parquet.XXXX.tmp``
    beside the part a retried task wrote. The dataset's own files never start with a dot."""
    for folder, _, names in os.walk(staging):
        for name in names:
            if name.startswith("."):
                os.unlink(os.path.join(folder, name))


def refuse_stdin(paths: Collection[str]) -> None:
    """Raise the :class:`InputError` a cluster run gives for stdin (``-``) among ``paths``."""
    if STDIN in paths:
        raise InputError(
            "stdin cannot be scored on a cluster: workers read inputs from a shared file "
            "system; save the observations to a file there first",
            rule="stdin_unsupported",
            source=STDIN,
        )


def score_on_dask(
    paths: Iterable[str],
    *,
    client: Any,
    out: str | Path,
    cases: Path | None = None,
    policy: Policy | None = None,
    bundle_id: str | None = None,
    split_bytes: int = SPLIT_BYTES,
    scorecards_out: str | Path | None = None,
    summary: RunSummary | None = None,
) -> DistributedRun:
    """Score the observations under ``paths`` on the cluster of ``client`` (a
    ``distributed.Client``) into the bundle-partitioned Parquet dataset ``out``.

    The dataset has the rows ``scorecard score PATHS --out OUT --partition-by-bundle`` writes,
    read back in the same order by :func:`scorecard.engine.parquet.read_parquet_rows`; errors and the
    summary are the local path's. ``scorecards_out`` also gets the v2 scorecards as JSON Lines,
    byte for byte the local ``--format jsonl`` output. Both appear atomically, and only when the
    run succeeds. Workers must see the inputs and ``out``'s folder at the driver's absolute
    paths. Stdin (``-``), which workers cannot read, raises an :class:`InputError`, and a
    broken case catalog a :class:`~scorecard.contract.CatalogError`, before any task is
    submitted.
    """
    paths = list(paths)
    refuse_stdin(paths)
    if split_bytes < 1:
        raise ValueError("split_bytes must be at least 1")
    catalog = load_catalog(cases)
    policy = policy or Policy()
    run = DistributedRun(summary if summary is not None else RunSummary())
    target = Path(out).absolute()
    with atomic_folder(target) as staging:
        driver = _Driver(client, staging, policy, scorecards_out is not None)
        try:
            with contextlib.ExitStack() as stack:
                scorecards = (
                    stack.enter_context(atomic_writer(scorecards_out))
                    if scorecards_out is not None
                    else None
                )
                steps = driver.score(_plan(paths, bundle_id, split_bytes), catalog)
                run.tasks = sum(1 for step in steps if step.scored is not None)
                writes = driver.number_and_write(steps, run, scorecards)
                run.rows = sum(driver.client.gather(writes))
            _drop_temporaries(staging)
        except BaseException as error:
            driver.cancel()
            if _lost_by_cluster(error):
                raise InputError(
                    f"the cluster lost this run's work ({type(error).__name__}: {error}); "
                    "nothing was written: run it again once the workers are sound",
                    rule="cluster_failed",
                    source=str(target),
                ) from error
            raise
    return run


def _lost_by_cluster(error: BaseException) -> bool:
    """Whether ``error`` is the cluster's failure, not the run's: a task killed with its worker
    more often than the scheduler allows, results cancelled or forgotten, a closed connection."""
    from distributed import KilledWorker
    from distributed.comm.core import CommClosedError

    return isinstance(error, KilledWorker | CommClosedError | CancelledError)
