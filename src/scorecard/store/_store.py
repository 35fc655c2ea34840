"""The campaign store: :func:`open_store` and :class:`Store`, what the commands and the Python
API call (``docs/store.md``)."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar, overload

import pyarrow as pa

from scorecard.contract import Catalog, Policy, Row, StoreError
from scorecard.core import ScoredRecord, record_line

from ._files import Vanished, durable, replace_file, sync_folder
from ._index import BundleEntry, read_index
from ._ingest import IngestReport, ingest
from ._labels import (
    Label,
    Labels,
    approved_as,
    check_label,
    read_labels,
    with_label,
    without_labels,
    write_labels,
)
from ._layout import CATALOG, DETAIL, LOCK, RUNS, STORE_JSON, TMP
from ._locks import writer_lock
from ._meta import StoreMeta, catalog_files, meta_document, meta_text, read_meta
from ._query import (
    HISTORY_SCHEMA,
    HISTORY_SQL,
    arrow_table,
    connect,
    history_order,
    night_outcome,
    read_only,
    redacted,
)
from ._read import RunDetail, RunKey, Scoring, Snapshot

if TYPE_CHECKING:
    from scorecard.engine import Keep, RecordDetail

__all__ = ["Store", "open_store"]

T = TypeVar("T")

NightCount = tuple[str, str, str, int, int, int, int]
"""A candidate x case on a night, as the ``history`` command counts it (:func:`night_counts`)."""

_ATTEMPTS = 8
"""Snapshots a read takes at most when files it lists move under it (a commit moves them in
milliseconds; the pauses add up to about a second)."""
_PAUSE = 0.04


class Store:
    """A campaign store: every bundle ingested, scored once, in night order.

    Every read takes one snapshot of ``index.json`` (a read that meets a file a concurrent
    commit moved takes a fresh one); writes (:meth:`ingest`) commit bundle by bundle. Make one
    with :func:`open_store`."""

    def __init__(self, root: Path, meta: StoreMeta) -> None:
        self._root = root
        self._meta = meta

    @property
    def path(self) -> Path:
        """The store's folder."""
        return self._root

    @property
    def policy(self) -> Policy:
        """The scoring policy every bundle of the store was scored with."""
        return self._meta.policy

    @property
    def catalog(self) -> Catalog:
        """The case catalog every bundle of the store was scored with (its ``catalog/``)."""
        return self._meta.catalog

    def __repr__(self) -> str:
        return f"Store({str(self._root)!r})"

    # --- snapshots ---------------------------------------------------------------------

    def _snapshot(self) -> Snapshot:
        return Snapshot(self._root, self._meta, read_index(self._root))

    def _read(self, work: Callable[[Snapshot], T]) -> T:
        """``work`` on a snapshot; again on a fresh one, after a pause, while a file it lists
        vanishes under it (a concurrent commit moves a file aside, into place or away for the
        milliseconds it takes); a file still missing after :data:`_ATTEMPTS` snapshots is a
        :class:`StoreError`."""
        for attempt in range(_ATTEMPTS):
            if attempt:
                time.sleep(_PAUSE * attempt)
            try:
                return work(self._snapshot())
            except Vanished as gone:
                missing = gone
        raise StoreError(
            "a file the index lists is missing", rule="missing_file", source=str(missing.path)
        )

    # --- bundles -----------------------------------------------------------------------

    def bundles(self) -> list[BundleEntry]:
        """Every bundle, in night order (its manifest's night, else its folder's name; then
        its id)."""
        return list(self._snapshot().index.bundles)

    def bundle(self, bundle_id: str) -> BundleEntry:
        """One bundle; an unknown id is a :class:`StoreError`."""
        return self._snapshot().entry(bundle_id)

    def ingest(
        self,
        paths: Iterable[str | Path],
        *,
        catalog: Catalog | None = None,
        policy: Policy | None = None,
        workers: int | None = None,
        replace: bool = False,
        bundle_id: str | None = None,
        night: str | None = None,
        keep_rejected: bool = False,
        stdin: IO[bytes] | None = None,
        on_file: Callable[[str], None] | None = None,
    ) -> IngestReport:
        """Score the bundles under ``paths`` (files, folders, ``-``) through the one engine and
        add each to the store as one unit (``docs/store.md``).

        ``catalog`` and ``policy``, when given, must be the store's (else a
        :class:`StoreError` naming the difference, before any work). ``workers`` processes
        score (the stored bytes are the same for any number). The same bundle again (same id,
        same input digest) is ``unchanged``; a changed one under the same id is refused unless
        ``replace``. A bundle with rejected records is refused, its errors located, unless
        ``keep_rejected``, which stores its scored runs and keeps the rejects' errors
        (:meth:`rejects`). ``bundle_id`` overrides every bundle's id; ``night`` (``YYYY-MM-DD``)
        places bundles whose manifest states none. Nothing here raises for a bundle: each
        bundle's outcome is in the report."""
        return ingest(
            self._root,
            self._meta,
            paths,
            catalog=catalog,
            policy=policy,
            workers=workers,
            replace=replace,
            bundle_id=bundle_id,
            night=night,
            keep_rejected=keep_rejected,
            stdin=stdin,
            on_file=on_file,
        )

    # --- files for other readers -----------------------------------------------------------

    def _files(self, kind: str, bundles: Sequence[str] | None) -> list[Path]:
        return self._read(
            lambda snapshot: [snapshot.path(entry, kind) for entry in snapshot.entries(bundles)]
        )

    def runs_files(self, bundles: Sequence[str] | None = None) -> list[Path]:
        """The runs files (Parquet, the columns of ``scorecard score --out X.parquet`` and the
        source) of ``bundles`` (default: all), in night order: what
        :func:`scorecard.aggregate.records_frame`, Dask, DuckDB, Polars and pandas read."""
        return self._files(RUNS, bundles)

    def detail_files(self, bundles: Sequence[str] | None = None) -> list[Path]:
        """The detail files of ``bundles`` (default: all), in night order."""
        return self._files(DETAIL, bundles)

    # --- what the views read ---------------------------------------------------------------

    def detailed_rows(
        self, bundle: str, *, every: bool = False, findings_only: bool = False
    ) -> Iterator[tuple[Row, RecordDetail | None]]:
        """The bundle's rows in input order, each with the detail a verdict shows for the runs
        that need it (``every``: all), exactly as ``ScoringRun.detailed_rows`` gives them for
        the bundle's folder: what the gate's sides are built from. ``findings_only`` leaves out
        what only a shown side keeps (reasons, failure, source: ``rows_side(shown=False)``, a
        baseline, reads the failed findings and whether they gate), and reads less."""
        return self._read(
            lambda snapshot: snapshot.rows_with_detail(
                snapshot.entry(bundle), every=every, findings_only=findings_only
            )
        )

    def keyed_findings(self, bundle: str) -> list[tuple[RunKey, RecordDetail]]:
        """Of the bundle's runs with failed findings or a failed gate, each run's key
        (candidate, case, repetition) and the detail ``detailed_rows(findings_only=True)`` gives
        it: a baseline side made of the runs file's frame reads only these."""
        return self._read(lambda snapshot: snapshot.keyed_findings(snapshot.entry(bundle)))

    @overload
    def scored_records(self, bundles: Sequence[str] | None = None) -> Iterator[ScoredRecord]: ...

    @overload
    def scored_records(
        self, bundles: Sequence[str] | None = None, *, keep: Keep | None, workers: int = 1
    ) -> Iterator[Any]: ...

    def scored_records(
        self,
        bundles: Sequence[str] | None = None,
        *,
        keep: Keep | None = None,
        workers: int = 1,
    ) -> Iterator[Any]:
        """The scored records of ``bundles`` (default: all; night order, each in input order),
        as ``scorecard score`` makes them of the bundles' folders: each run's kept observation
        scored again with the store's catalog and policy (the general path: about as long as
        scoring the folders in one process), checked to give the scorecard kept.

        With ``keep`` (:data:`~scorecard.engine.Keep`), what it keeps of each record instead,
        worked out on ``workers`` processes (forked: they read the files opened here), a row
        group of a detail file each, and numbered here (its ``numbered`` method), as
        :meth:`~scorecard.engine.ScoringRun.records` keeps a scoring run's records. Without it
        the records are scored here: sending a whole record back costs more than scoring it."""
        from scorecard.engine import forked_map

        def opened(snapshot: Snapshot) -> tuple[Snapshot, list[Scoring]]:
            return snapshot, [snapshot.scoring(entry) for entry in snapshot.entries(bundles)]

        snapshot, scorings = self._read(opened)
        groups = [
            (bundle, group)
            for bundle, scoring in enumerate(scorings)
            for group in range(scoring.groups)
        ]
        if keep is None:
            return (
                record
                for bundle, group in groups
                for record in snapshot.group_records(scorings[bundle], group)
            )
        kept = forked_map(functools.partial(_kept_group, snapshot, scorings, keep), groups, workers)
        return (record.numbered(repetition) for group in kept for repetition, record in group)

    def record_lines(self, bundle: str) -> Iterator[str]:
        """Each run's ``scorecard.record.v1`` line (with its newline), byte for byte what
        ``scorecard score FOLDER --format records`` writes for the bundle's folder, given as
        it was to the ingest."""
        return (record_line(record) + "\n" for record in self.scored_records([bundle]))

    def run(self, bundle: str, candidate: str, case: str, repetition: int) -> RunDetail:
        """One run's detail: its observation, scorecard line, failed findings, failure and
        source; an unknown run is a :class:`StoreError`."""
        return self._read(
            lambda snapshot: snapshot.run(snapshot.entry(bundle), candidate, case, repetition)
        )

    # --- what people say about the runs ------------------------------------------------------

    def labels(self) -> Labels:
        """The labels and the approved baseline (``labels.json``; none yet: empty)."""
        return read_labels(self._root)

    def add_label(self, label: Label) -> Labels:
        """Add ``label`` (replacing one with the same subject and word); a bad field is a
        located :class:`StoreError`. Returns the labels now in the store."""
        checked = check_label(label)
        return write_labels(self._root, lambda labels: with_label(labels, checked))

    def remove_labels(
        self, candidate: str, case: str | None = None, label: str | None = None
    ) -> int:
        """Remove the labels of ``candidate`` on ``case`` (None: its every-case labels), only
        the word ``label`` when given; returns how many went."""
        removed: list[int] = []

        def change(labels: Labels) -> Labels:
            kept, count = without_labels(labels, candidate=candidate, case=case, label=label)
            removed.append(count)
            return kept

        write_labels(self._root, change)
        return removed[0]

    def approve(self, bundles: Sequence[str]) -> Labels:
        """Make ``bundles`` (ids of this store) the approved baseline, in night order."""
        known = {entry.id: position for position, entry in enumerate(self.bundles())}
        for bundle in bundles:
            if bundle not in known:
                raise StoreError(
                    "no such bundle in the store", rule="unknown_bundle", source=str(bundle)
                )
        ordered = sorted(dict.fromkeys(bundles), key=known.__getitem__)
        return write_labels(self._root, lambda labels: approved_as(labels, ordered))

    def rejects(self, bundle: str) -> list[dict[str, object]]:
        """The rejected records kept with the bundle (``keep_rejected``), as ``--errors``
        lines."""
        return self._read(lambda snapshot: snapshot.rejects(snapshot.entry(bundle)))

    # --- SQL -------------------------------------------------------------------------------

    @staticmethod
    def _bundles_rows(snapshot: Snapshot) -> list[tuple[object, ...]]:
        """The ``bundles`` table's rows (:data:`~._query.BUNDLE_COLUMNS`): the index."""
        return [
            (
                position,
                entry.id,
                entry.night,
                entry.folder,
                entry.digest,
                entry.runs,
                entry.rejected,
                entry.scorecard_version,
            )
            for position, entry in enumerate(snapshot.index.bundles)
        ]

    def _sql(self, sql: str, params: dict[str, object] | None, kinds: Sequence[str]) -> pa.Table:
        with _query_errors():
            return self._read(lambda snapshot: self._sql_on(snapshot, sql, params, kinds))

    def _sql_on(
        self,
        snapshot: Snapshot,
        sql: str,
        params: dict[str, object] | None,
        kinds: Sequence[str],
        entries: Sequence[BundleEntry] | None = None,
    ) -> pa.Table:
        """``sql`` over the views of ``kinds`` (the files of ``entries``, default every
        bundle) and the ``bundles`` table (every bundle) of one snapshot."""
        import duckdb

        chosen = snapshot.index.bundles if entries is None else entries
        files = {
            kind: [snapshot.path(entry, kind) for entry in chosen] if kind in kinds else []
            for kind in (RUNS, DETAIL)
        }
        connection = None
        try:
            # DuckDB reads the files' schemas when the views are made: inside too.
            connection = connect(files, self._bundles_rows(snapshot))
            return connection.sql(sql, params=params).to_arrow_table()
        except duckdb.Error:
            # A file moved by a concurrent commit (DuckDB: "no files found"): again.
            for paths in files.values():
                for path in paths:
                    if not path.exists():
                        raise Vanished(path) from None
            raise
        finally:
            if connection is not None:
                connection.close()

    def query(self, sql: str) -> pa.Table:
        """The result of one read-only SQL statement (DuckDB's dialect) over the views ``runs``
        (the runs files), ``detail`` (the detail files) and the table ``bundles`` (the index:
        position in night order, id, night, folder, digest, runs, rejected,
        scorecard_version); secret-shaped strings in it redacted. Anything but a read is
        refused (a :class:`StoreError`), as is any file but the store's."""
        read_only(sql)
        return redacted(self._sql(sql, None, (RUNS, DETAIL)))

    def history(self, candidate: str | None = None, case: str | None = None) -> pa.Table:
        """Per candidate x case x bundle (night order): ``candidate``, ``case``, ``position``
        (the bundle's place in night order), ``bundle``, ``night``, ``runs``, and how many
        ``passed``, ``failed``, ``gate_failed`` and were ``not_scored``, and the night's
        ``outcome`` (``gate failed`` if any run's effective gate failed, else ``failed``,
        ``passed``, and ``not scored`` when no run was scored); rows by candidate, case in
        catalog order, night (:data:`~._query.HISTORY_SCHEMA`).

        Each bundle's counts come from its runs file's tally (its footer: the time does not
        grow with the runs a night holds); a bundle ingested before files kept one is counted
        by DuckDB over its runs (``HISTORY_SQL``), with the same result."""

        def work(snapshot: Snapshot) -> pa.Table:
            rows: list[tuple[object, ...]] = []
            untallied = []
            for position, entry in enumerate(snapshot.index.bundles):
                tally = snapshot.tally(entry)
                if tally is None:
                    untallied.append(entry)
                    continue
                for name, case_id, runs, passed, failed, gate_failed, not_scored, _ in tally:
                    if (candidate is None or name == candidate) and (
                        case is None or case_id == case
                    ):
                        counts = (runs, passed, failed, gate_failed, not_scored)
                        outcome = night_outcome(passed, failed, gate_failed)
                        rows.append(
                            (name, case_id, position, entry.id, entry.night, *counts, outcome)
                        )
            if untallied:
                params: dict[str, object] = {"candidate": candidate, "case": case}
                with _query_errors():
                    scanned = self._sql_on(snapshot, HISTORY_SQL, params, (RUNS,), untallied)
                rows.extend(tuple(row.values()) for row in scanned.to_pylist())
            rows.sort(key=history_order)
            return arrow_table(rows, HISTORY_SCHEMA)

        return redacted(self._read(work))

    def night_counts(
        self,
    ) -> tuple[list[str], list[NightCount]] | None:
        """Every bundle's runs counted per candidate x case from the tallies alone, for the
        ``history`` command: the night order (ids) and rows ``(candidate, case, bundle, runs,
        scored, passed_runs, gate_failures)`` as ``aggregate.history_frames`` counts a records
        frame (``passed_runs``: every scored run the scorecard passed, the audit's gate aside);
        names as the index and files hold them. None when a bundle has no tally (kept before
        tallies existed): its runs must be read."""

        def work(
            snapshot: Snapshot,
        ) -> tuple[list[str], list[NightCount]] | None:
            rows = []
            for entry in snapshot.index.bundles:
                tally = snapshot.tally(entry)
                if tally is None:
                    return None
                rows.extend(night_counts(entry.id, tally))
            return [entry.id for entry in snapshot.index.bundles], rows

        return self._read(work)


def night_counts(bundle: str, tally: list[list[Any]]) -> list[NightCount]:
    """A bundle's tally rows as :meth:`Store.night_counts` gives them: ``(candidate, case,
    bundle, runs, scored, passed_runs, gate_failures)``, where ``passed_runs`` counts every
    scored run the scorecard passed (those the audit's gate failed too), as the records frame
    counts them for the ``history`` command."""
    return [
        (name, case, bundle, runs, runs - not_scored, passed + gate_failed_passed, gate_failed)
        for name, case, runs, passed, _, gate_failed, not_scored, gate_failed_passed in tally
    ]


@contextlib.contextmanager
def _query_errors() -> Iterator[None]:
    """DuckDB's error of a query made a located :class:`StoreError` (its first line)."""
    import duckdb

    try:
        yield
    except duckdb.Error as error:
        message = str(error).strip().split("\n")[0]
        raise StoreError(f"the query failed: {message}", rule="bad_query", source="query") from None


def _make(root: Path, catalog: Catalog, policy: Policy) -> None:
    """Make a store in ``root`` (new, or empty but for what an interrupted making left)."""
    files = catalog_files(catalog)
    document = meta_document(catalog, policy)
    root.mkdir(parents=True, exist_ok=True)
    with writer_lock(root):
        if (root / STORE_JSON).exists():
            return
        others = sorted(
            path.name for path in root.iterdir() if path.name not in (LOCK, CATALOG, TMP)
        )
        if others:
            raise StoreError(
                f"the folder holds files that are not a store's ({others[0]}...): give a new "
                "or empty folder",
                rule="not_a_store",
                source=str(root),
            )
        shutil.rmtree(root / CATALOG, ignore_errors=True)
        (root / CATALOG).mkdir()
        for name, data in files:
            (root / CATALOG / name).write_bytes(data)
            durable(root / CATALOG / name)
        sync_folder(root / CATALOG)
        (root / TMP).mkdir(exist_ok=True)
        written = root / TMP / f".{STORE_JSON}.{os.getpid()}"
        written.write_text(meta_text(document), encoding="utf-8")
        durable(written)
        replace_file(written, root / STORE_JSON)


def _kept_group(
    snapshot: Snapshot, scorings: list[Scoring], keep: Keep, group: tuple[int, int]
) -> list[tuple[int, Any]]:
    """What ``keep`` keeps of each run of one row group (bundle, group) of ``scorings``, with
    its run number (:meth:`Store.scored_records`)."""
    bundle, at = group
    catalog = snapshot.meta.catalog
    return [
        (record.repetition, keep(record, catalog))
        for record in snapshot.group_records(scorings[bundle], at)
    ]


def open_store(
    path: str | Path,
    *,
    create: bool = False,
    catalog: Catalog | None = None,
    policy: Policy | None = None,
) -> Store:
    """The store in the folder ``path``.

    With ``create``, a folder without a store (new or empty) becomes one, scoring with
    ``catalog`` (default: the bundled cases) and ``policy`` (default: the reference's), fixed
    from then on; an existing store is opened, and a ``catalog`` or ``policy`` given must be
    its own. Without ``create``, a folder that is not a store is a :class:`StoreError`, as is
    a store whose ``store.json`` is corrupt or of another schema."""
    root = Path(path)
    if create:
        from scorecard.engine import scoring_catalog

        _make(
            root,
            catalog if catalog is not None else scoring_catalog(),
            policy if policy is not None else Policy(),
        )
    meta = read_meta(root)
    if policy is not None:
        meta.check_policy(policy)
    if catalog is not None:
        meta.check_catalog(catalog)
    return Store(root, meta)
