"""The one scoring run behind every command and the library: ``score_run(paths, ...)``.

::

    run = score_run(paths, catalog=..., policy=..., workers=N)
    run.text("jsonl")   pieces of output text (jsonl, records, audit), errors between them
    run.rows()          aggregation rows (Parquet, frames, compare, plot)
    run.records()       scored records (explain, the json and table outputs)
    run.detailed_rows() rows, with the detail a verdict shows of the runs that need it (the gate)
    run.stored_blocks() rows with every run's scorecard line, findings, failure and observation
                        (the campaign store)
    run.summary         the counts, as results come

Whatever is asked for, the inputs are discovered, read in chunks and numbered the same way, in
input order: paths as given, files of a folder sorted, records in file order. Plain JSON Lines
take the compiled fast path for text and rows, every other line the general path in its place;
errors stay located and in input order. With more than one worker the chunks are scored on
processes (:mod:`scorecard.engine._parallel`) and the results do not depend on their number.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, overload

from scorecard.contract import Catalog, InputError, Policy, Row, Takes, arguments

from ._catalog import scoring_catalog
from ._chunks import CHUNK_BYTES
from ._io import check_bundle_id
from ._parallel import score_rows_parallel, score_scored_records, score_text
from ._pipeline import RunSummary
from ._rows import LoadedRecords, is_scored_input, scored_input_rows

if TYPE_CHECKING:
    from scorecard.core import ScoredRecord

    from ._chunk_scorer import Keep
    from ._detail import RecordDetail
    from ._stored import StoredBlock

__all__ = ["ScoringRun", "load_records", "score_paths", "score_run"]


@dataclass(frozen=True)
class ScoringRun:
    """The observations under some paths, and how to score them; iterate one of its views once."""

    paths: tuple[str, ...]
    """Files, folders (searched recursively) and ``-`` (JSON Lines on :attr:`stdin`)."""
    catalog: Catalog | Path | None
    """A loaded catalog (handed to the workers as it is), or the folder each worker loads it
    from (``None``: the bundled cases)."""
    policy: Policy
    """The scoring policy."""
    workers: int
    """Processes to score on; one: this process."""
    bundle_id: str | None = None
    """Overrides every discovered bundle id."""
    stdin: IO[bytes] | None = None
    """What ``-`` reads (default: this process's standard input)."""
    on_file: Callable[[str], None] | None = None
    """Called with each input's name as its first result is handed on (progress)."""
    summary: RunSummary = field(default_factory=RunSummary)
    """Counted as results come."""
    chunk_bytes: int = CHUNK_BYTES
    """About how much JSON Lines text one worker call scores."""

    def text(self, output_format: str = "jsonl") -> Iterator[str | InputError]:
        """A streaming format (``jsonl``, ``records``, ``audit``) in pieces of whole lines, each
        ending in a newline, and the errors between them."""
        return score_text(
            self.paths,
            catalog=self.catalog,
            policy=self.policy,
            workers=self.workers,
            output_format=output_format,
            bundle_id=self.bundle_id,
            summary=self.summary,
            stdin=self.stdin,
            chunk_bytes=self.chunk_bytes,
            on_file=self.on_file,
        )

    def rows(self, *, read_scored: bool = False) -> Iterator[Row | InputError]:
        """Aggregation rows (:data:`~scorecard.engine.ROW_FIELDS`) and the errors between them.

        With ``read_scored``, a given path that is a records file or Parquet is read as rows in
        its turn (keeping its run numbers) instead of being scored as observations.
        """
        return score_rows_parallel(
            self.paths,
            catalog=self.catalog,
            policy=self.policy,
            workers=self.workers,
            bundle_id=self.bundle_id,
            summary=self.summary,
            stdin=self.stdin,
            chunk_bytes=self.chunk_bytes,
            on_file=self.on_file,
            read_scored=read_scored,
        )

    def detailed_rows(
        self, *, every: bool = False
    ) -> Iterator[tuple[Row, RecordDetail | None] | InputError]:
        """Aggregation rows, as :meth:`rows` gives them, each with the detail a scored record
        holds beyond it (reasons, failed findings, failure, source:
        :func:`~scorecard.engine.record_detail`) for the runs a verdict shows: those whose
        effective gate failed or whose audit failed findings (``every``: all runs), else None;
        and the errors between them. Plain lines take the fast path."""
        from ._chunk_scorer import ROWS
        from ._detail import detailed_rows
        from ._pool import Run

        run = Run(
            self.paths,
            self.catalog,
            self.policy,
            self.workers,
            ROWS,
            self.bundle_id,
            self.stdin,
            self.chunk_bytes,
            self.on_file,
        )
        return detailed_rows(run, self.summary, every=every)

    def stored_blocks(
        self, *, bundles: Collection[str] | None = None
    ) -> Generator[StoredBlock, None, None]:
        """Every run as a campaign store keeps it, a block of consecutive runs at a time
        (:class:`~scorecard.engine.StoredBlock`: their rows, and as Arrow columns their
        scorecard lines, failed findings, failures, observations and sources), with the errors
        met before each, in input order; with ``bundles``, only the files of those bundles are
        read (every path's discovery errors all the same). Plain lines take the fast path.
        Close it when done early (an error, a stop): that ends its workers."""
        from ._chunk_scorer import ROWS
        from ._pool import Run
        from ._stored import stored_blocks

        run = Run(
            self.paths,
            self.catalog,
            self.policy,
            self.workers,
            ROWS,
            self.bundle_id,
            self.stdin,
            self.chunk_bytes,
            self.on_file,
            None if bundles is None else frozenset(bundles),
        )
        return stored_blocks(run, self.summary)

    @overload
    def records(self) -> Iterator[ScoredRecord | InputError]: ...

    @overload
    def records(self, keep: Keep | None) -> Iterator[Any]: ...

    def records(self, keep: Keep | None = None) -> Iterator[Any]:
        """The scored records themselves (the general path) and the errors between them; with
        ``keep`` (:data:`~scorecard.engine.Keep`), what it keeps of each record, worked out by
        the workers that scored it (:func:`~scorecard.report.keep_for_site` so keeps the runs of
        a report of one night)."""
        return score_scored_records(
            self.paths,
            catalog=self.catalog,
            policy=self.policy,
            workers=self.workers,
            bundle_id=self.bundle_id,
            summary=self.summary,
            stdin=self.stdin,
            chunk_bytes=self.chunk_bytes,
            on_file=self.on_file,
            keep=keep,
        )


@arguments(
    paths=Takes.paths, policy=Takes.policy, workers=Takes.workers, bundle_id=Takes.optional_text
)
def score_run(
    paths: Iterable[str | Path],
    *,
    catalog: Catalog | str | os.PathLike[str] | None = None,
    policy: Policy | None = None,
    workers: int | None = None,
    bundle_id: str | None = None,
    stdin: IO[bytes] | None = None,
    on_file: Callable[[str], None] | None = None,
    summary: RunSummary | None = None,
    chunk_bytes: int = CHUNK_BYTES,
) -> ScoringRun:
    """The scoring run of the observations under ``paths``: read one of its views
    (:meth:`~ScoringRun.text`, :meth:`~ScoringRun.rows`, :meth:`~ScoringRun.records`).

    ``workers`` processes score it (``None`` or one: this process; the CLI's default is every
    core); the results are the same for any number. Nothing is read until a view is iterated.
    """
    if workers is not None and workers < 1:
        raise ValueError("workers must be at least 1")
    if isinstance(catalog, str | os.PathLike):
        catalog = Path(catalog)  # the folder each worker loads the catalog from
    elif catalog is not None and not isinstance(catalog, Catalog):
        raise TypeError(
            f"score_run(): catalog must be a Catalog, a cases folder or None, not "
            f"{type(catalog).__name__}"
        )
    check_bundle_id(bundle_id)
    return ScoringRun(
        tuple(str(path) for path in paths),
        catalog,
        policy if policy is not None else Policy(),
        workers or 1,
        bundle_id,
        stdin,
        on_file,
        summary if summary is not None else RunSummary(),
        chunk_bytes,
    )


@arguments(
    paths=Takes.paths, catalog=Takes.optional_catalog, policy=Takes.policy, workers=Takes.workers
)
def load_records(
    paths: Sequence[str | Path],
    *,
    catalog: Catalog | None = None,
    policy: Policy | None = None,
    on_file: Callable[[str], None] | None = None,
    workers: int = 1,
) -> LoadedRecords:
    """Read scored-record files and score observation files/folders, in the order given.

    A ``.jsonl`` file whose first record is a ``scorecard.record.v1`` is read as records, a
    ``.parquet`` file or bundle-partitioned dataset (``scorecard score --out X.parquet``) as rows; any
    other path is scored with ``catalog`` (default: :func:`~scorecard.engine.scoring_catalog`) and
    ``policy`` in one scoring run (:func:`~scorecard.engine.score_run`: the fast path where it
    accepts a line, on ``workers`` processes; one: in this process), so repetitions are
    numbered across all of them. ``on_file`` is called with each file name as reading reaches
    it (progress bars). Problems never stop the reading: they are collected, located, in
    :attr:`LoadedRecords.errors`. The rows do not depend on ``workers``.
    """
    loaded = LoadedRecords()
    given = [str(path) for path in paths]
    items: Iterable[Row | InputError]
    if all(is_scored_input(path) for path in given):
        items = _announced_rows(given, on_file)  # nothing to score: no catalog, no workers
    else:
        run = score_run(
            given,
            catalog=catalog if catalog is not None else scoring_catalog(),
            policy=policy,
            workers=workers,
            on_file=on_file,
        )
        items = run.rows(read_scored=True)
    for item in items:
        if isinstance(item, InputError):
            loaded.errors.append(item)
        else:
            loaded.add(item)
    return loaded


def _announced_rows(
    paths: Sequence[str], on_file: Callable[[str], None] | None
) -> Iterator[Row | InputError]:
    for path in paths:
        if on_file is not None:
            on_file(path)
        yield from scored_input_rows(path)


@arguments(
    paths=Takes.paths,
    catalog=Takes.catalog,
    policy=Takes.policy,
    workers=Takes.workers,
    bundle_id=Takes.optional_text,
)
def score_paths(
    paths: Iterable[str | Path],
    *,
    catalog: Catalog,
    policy: Policy | None = None,
    bundle_id: str | None = None,
    summary: RunSummary | None = None,
    stdin: IO[bytes] | None = None,
    workers: int | None = None,
) -> Iterator[ScoredRecord | InputError]:
    """Every observation under ``paths`` (files, folders, ``-``) as a scored record or a located
    error, streaming, in input order: the records view of :func:`score_run`."""
    run = score_run(
        paths,
        catalog=catalog,
        policy=policy,
        bundle_id=bundle_id,
        summary=summary,
        stdin=stdin,
        workers=workers,
    )
    return run.records()
