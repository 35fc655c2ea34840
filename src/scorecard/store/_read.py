"""Reading a store: one snapshot of ``index.json`` per read, and the files it lists.

A bundle's files are opened (and checked: size, Parquet footer, the stamp saying whose they
are) before anything is read from them, so a read either fails at once with a located
:class:`~scorecard.contract.StoreError` or goes on from files it holds open, whatever a
concurrent writer does to the names. What the engine gives for a folder, these give for the same
bundle in the store: rows with their detail (the gate's sides), scored records (explain, the
report site) and record lines (``scorecard score --format records``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from scorecard.contract import (
    BundleInfo,
    InputError,
    ManifestError,
    Row,
    StoreError,
    parse_manifest,
)
from scorecard.core import ScoredRecord, scorecard_line
from scorecard.engine import RecordDetail, record_detail, run_evidence, stored_record
from scorecard.engine.parquet import PARQUET_SCHEMA, rows_of

from ._files import Vanished, corrupt, existing_file, footer_stamp, open_parquet
from ._index import BundleEntry, Index
from ._layout import DETAIL, METADATA_KEY, REJECTS, RUNS, TALLY_COLUMNS
from ._meta import StoreMeta

__all__ = ["RunDetail", "RunKey", "Scoring", "Snapshot"]

#: A run in its bundle: candidate, case, repetition.
RunKey = tuple[str, str, int]

#: JSON text kept by the store, decoded (msgspec: ints and floats as ``json`` reads them).
_DECODE = msgspec.json.Decoder().decode


@dataclass(frozen=True)
class RunDetail:
    """One run as a store keeps it: what a drill-down shows."""

    bundle: str
    candidate: str
    case: str
    repetition: int
    observation: str
    """The observation as given (untrusted text: escape and redact it where it is shown)."""
    scorecard: str
    """The v2 scorecard line, as ``scorecard score --format jsonl`` writes it."""
    findings: tuple[dict[str, Any], ...]
    """The audit findings that failed (objects as records list them)."""
    failure: dict[str, Any] | None
    """The observation's failure as its record holds it (redacted), or None."""
    source_file: str
    source_line: int | None
    source_index: int | None


@dataclass(frozen=True)
class Opened:
    """A store Parquet file, open, and where it is."""

    path: Path
    file: pq.ParquetFile

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Turn a failure to read the file (a corrupt page) into its located error."""
        try:
            yield
        except (OSError, ValueError, pa.ArrowException) as error:
            raise StoreError(
                f"cannot read Parquet ({type(error).__name__}): truncated or overwritten?",
                rule="corrupt_file",
                source=str(self.path),
            ) from None


@dataclass(frozen=True)
class Scoring:
    """A bundle opened for its runs to be scored again (:meth:`Snapshot.scoring`)."""

    entry: BundleEntry
    detail: Opened
    """Its detail file: the kept observations, in row groups of
    :data:`~scorecard.store._layout.DETAIL_ROW_GROUP` runs."""
    info: BundleInfo
    """The bundle as discovery knew it when it was ingested."""

    @property
    def groups(self) -> int:
        """The detail file's row groups."""
        return int(self.detail.file.metadata.num_row_groups)


_SCORED_COLUMNS = [
    "observation",
    "scorecard",
    "source_file",
    "source_line",
    "source_index",
    "repetition",
]
"""The detail columns a run is scored again from."""


@dataclass(frozen=True)
class Snapshot:
    """The store as one read of its index saw it."""

    root: Path
    meta: StoreMeta
    index: Index

    def entry(self, bundle_id: str) -> BundleEntry:
        """The bundle of this id; an unknown one is a :class:`StoreError` naming a few known."""
        entry = self.index.get(bundle_id)
        if entry is None:
            known = [known.id for known in self.index.bundles]
            shown = ", ".join(known[-5:]) or "none"
            raise StoreError(
                f"no bundle {bundle_id!r} in the store ({len(known)} bundles; the newest: {shown})",
                rule="unknown_bundle",
                source=str(self.root),
            )
        return entry

    def entries(self, bundles: Sequence[str] | None) -> list[BundleEntry]:
        """The bundles named (all, when None), in night order."""
        if bundles is None:
            return list(self.index.bundles)
        wanted = {self.entry(bundle).id for bundle in bundles}
        return [entry for entry in self.index.bundles if entry.id in wanted]

    def path(self, entry: BundleEntry, kind: str) -> Path:
        """Where one of the bundle's files is, checked to have the size the index gives."""
        path = existing_file(self.root, entry.files[kind])
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            raise Vanished(path) from None
        if size != entry.sizes[kind]:
            raise StoreError(
                f"the file is {size} bytes, the index says {entry.sizes[kind]}: truncated or "
                "replaced by another file",
                rule="corrupt_file",
                source=str(path),
            )
        return path

    def parquet(self, entry: BundleEntry, kind: str) -> Opened:
        """One of the bundle's Parquet files, opened and checked to be its own, with as many
        rows as the bundle has runs."""
        path = self.path(entry, kind)
        opened = open_parquet(path, bundle=entry.id, digest=entry.digest, kind=kind)
        if opened.metadata.num_rows != entry.runs:
            raise StoreError(
                f"the file holds {opened.metadata.num_rows} runs, the index says {entry.runs}",
                rule="corrupt_file",
                source=str(path),
            )
        return Opened(path, opened)

    def bundle_info(self, entry: BundleEntry, runs: Opened) -> BundleInfo:
        """The bundle as discovery knew it when it was ingested (its roster)."""
        stamp = json.loads(runs.file.metadata.metadata[METADATA_KEY])
        manifest = stamp.get("manifest")
        if manifest is None:
            return BundleInfo(id=entry.id, kind="folder")
        try:
            info = parse_manifest(manifest)
        except ManifestError:
            raise StoreError(
                "the bundle's manifest kept in the file does not parse",
                rule="corrupt_file",
                source=str(runs.path),
            ) from None
        return BundleInfo(
            id=entry.id, kind=info.kind, campaign=info.campaign, candidates=info.candidates
        )

    # --- what the views read ------------------------------------------------------------

    def rows_with_detail(
        self, entry: BundleEntry, *, every: bool, findings_only: bool = False
    ) -> Iterator[tuple[Row, RecordDetail | None]]:
        """Rows in input order, with the detail of the runs a verdict shows (effective gate
        failed, failed findings; ``every``: all), as ``ScoringRun.detailed_rows`` gives them
        (``findings_only``: the failed findings and whether they gate, the rest left empty).
        The files are opened here, before the first row is asked for."""
        runs = self.parquet(entry, RUNS)
        detail = self.parquet(entry, DETAIL)
        return self._rows_with_detail(runs, detail, every, findings_only)

    def _rows_with_detail(
        self, runs: Opened, detail: Opened, every: bool, findings_only: bool
    ) -> Iterator[tuple[Row, RecordDetail | None]]:
        with runs.reading():
            table = runs.file.read(columns=PARQUET_SCHEMA.names, use_threads=False)
        details = dict(self._details(table, detail, every, findings_only))
        for position, row in enumerate(zip(*rows_of(table, PARQUET_SCHEMA), strict=True)):
            yield row, details.get(position)

    def _details(
        self, table: pa.Table, detail: Opened, every: bool, findings_only: bool
    ) -> Iterator[tuple[int, RecordDetail]]:
        """The detail of the runs of ``table`` (a runs file's, with ``gate_passed``) that a
        verdict shows, by position: those with failed findings or whose effective gate failed
        (``every``: all)."""
        wanted = ["findings"]
        if not findings_only:
            wanted += ["scorecard", "failure", "source_file", "source_line", "source_index"]
            wanted += ["observation"]
        with detail.reading():
            read = detail.file.read(columns=wanted, use_threads=False)
        gate = table.column("gate_passed")
        needed = pc.or_(pc.is_valid(read.column("findings")), pc.fill_null(pc.invert(gate), False))
        shown = list(range(table.num_rows)) if every else pc.indices_nonzero(needed).to_pylist()
        if not shown:
            return
        columns = read.take(pa.array(shown, pa.int64())).to_pydict()
        gates = self.meta.policy.audit_gate
        if findings_only:  # a detail is then its findings' alone: each text decoded once
            made: dict[str | None, RecordDetail] = {}
            for position, found in zip(shown, columns["findings"], strict=True):
                if found not in made:
                    made[found] = record_detail(
                        {
                            "scorecard": {},
                            "audit": {"findings": _DECODE(found) if found else [], "gates": gates},
                            "failure": None,
                            "source": {"file": None, "line": None},
                        }
                    )
                yield position, made[found]
            return
        empty = [None] * len(shown)
        catalog = self.meta.catalog
        for position, found, card, failure, file, line, index, observation in zip(
            shown,
            columns["findings"],
            columns.get("scorecard", empty),
            columns.get("failure", empty),
            columns.get("source_file", empty),
            columns.get("source_line", empty),
            columns.get("source_index", empty),
            columns.get("observation", empty),
            strict=True,
        ):
            scorecard = _DECODE(card) if card else {}
            evidence = None
            if observation:  # the kept observation: each failing reason's contract, as scored
                evidence = run_evidence(
                    _DECODE(observation), scorecard, catalog, file=file, line=line, index=index
                )
            yield (
                position,
                record_detail(
                    {
                        "scorecard": scorecard,
                        "audit": {"findings": _DECODE(found) if found else [], "gates": gates},
                        "failure": _DECODE(failure) if failure else None,
                        "source": {"file": file, "line": line},
                    },
                    evidence,
                ),
            )

    def keyed_findings(self, entry: BundleEntry) -> list[tuple[RunKey, RecordDetail]]:
        """The detail ``rows_with_detail(findings_only=True)`` gives, of only the runs that
        have one, by run (candidate, case, repetition) instead of with every row."""
        runs = self.parquet(entry, RUNS)
        detail = self.parquet(entry, DETAIL)
        with runs.reading():
            table = runs.file.read(
                columns=["candidate", "case", "repetition", "gate_passed"], use_threads=False
            )
        details = list(self._details(table, detail, every=False, findings_only=True))
        if not details:
            return []
        at = pa.array([position for position, _ in details], pa.int64())
        keys = table.select(["candidate", "case", "repetition"]).take(at).to_pydict()
        return [
            ((candidate, case, repetition), found)
            for candidate, case, repetition, (_, found) in zip(
                keys["candidate"], keys["case"], keys["repetition"], details, strict=True
            )
        ]

    def scoring(self, entry: BundleEntry) -> Scoring:
        """The bundle opened for its runs to be scored again (:meth:`group_records`)."""
        runs = self.parquet(entry, RUNS)
        detail = self.parquet(entry, DETAIL)
        return Scoring(entry, detail, self.bundle_info(entry, runs))

    def scored_records(self, entry: BundleEntry) -> Iterator[ScoredRecord]:
        """The bundle's runs scored again from their kept observations (the general path,
        with the store's catalog and policy): the records ``scorecard score`` makes of the
        bundle's folder. A run whose scorecard comes out other than the one kept (another
        scorecard version scored the bundle) is a :class:`StoreError`."""
        scoring = self.scoring(entry)
        return (
            record
            for group in range(scoring.groups)
            for record in self.group_records(scoring, group)
        )

    def group_records(self, scoring: Scoring, group: int) -> list[ScoredRecord]:
        """The runs of one row group of the bundle's detail file scored again, as
        :meth:`scored_records` scores them."""
        catalog, policy = self.meta.catalog, self.meta.policy
        entry, detail, info = scoring.entry, scoring.detail, scoring.info
        with detail.reading():
            columns = detail.file.read_row_group(
                group, columns=_SCORED_COLUMNS, use_threads=False
            ).to_pydict()
        records = []
        for observation, card, file, line, index, repetition in zip(
            *(columns[name] for name in _SCORED_COLUMNS), strict=True
        ):
            record = stored_record(
                observation.encode("utf-8"),
                source=file,
                line=line,
                index=index,
                repetition=repetition,
                bundle=info,
                catalog=catalog,
                policy=policy,
            )
            if isinstance(record, InputError) or scorecard_line(record.card) != card:
                where = file + (
                    f":{line}" if line is not None else "" if index is None else f"[{index}]"
                )
                raise StoreError(
                    f"the run read from {where} scores differently now than when it was "
                    f"ingested (by scorecard {entry.scorecard_version}): ingest bundle "
                    f"{info.id} again with replace",
                    rule="scored_differently",
                    source=str(detail.path),
                )
            records.append(record)
        return records

    def run(self, entry: BundleEntry, candidate: str, case: str, repetition: int) -> RunDetail:
        """One run's detail: its key columns read (as dictionary codes), then the one row
        group that holds it. Only Python lists leave Arrow here: converting to numpy or from
        Python values makes pyarrow import pandas, a third of a second this read need not pay."""
        detail = self.parquet(entry, DETAIL)
        keys = pq.ParquetFile(detail.path, read_dictionary=["candidate", "case"])
        with detail.reading():
            table = keys.read(columns=["candidate", "case", "repetition"], use_threads=False)
        position = start = 0
        found = None
        for wanted, names, repetitions in zip(
            table.column("candidate").chunks,
            table.column("case").chunks,
            table.column("repetition").chunks,
            strict=True,
        ):
            candidates = wanted.dictionary.to_pylist()
            cases = names.dictionary.to_pylist()
            if candidate in candidates and case in cases:
                mine, its = candidates.index(candidate), cases.index(case)
                for offset, (who, what, number) in enumerate(
                    zip(
                        wanted.indices.to_pylist(),
                        names.indices.to_pylist(),
                        repetitions.to_pylist(),
                        strict=True,
                    )
                ):
                    if who == mine and what == its and number == repetition:
                        found = start + offset
                        break
            if found is not None:
                break
            start += len(wanted)
        if found is None:
            raise StoreError(
                f"bundle {entry.id} has no run {repetition} of candidate {candidate!r} on case "
                f"{case!r}",
                rule="unknown_run",
                source=str(self.root),
            )
        metadata = detail.file.metadata
        for group in range(metadata.num_row_groups):
            rows = metadata.row_group(group).num_rows
            if found < position + rows:
                break
            position += rows
        with detail.reading():
            row = detail.file.read_row_group(group).slice(found - position, 1).to_pylist()[0]
        return RunDetail(
            bundle=entry.id,
            candidate=candidate,
            case=case,
            repetition=repetition,
            observation=row["observation"],
            scorecard=row["scorecard"],
            findings=tuple(json.loads(row["findings"])) if row["findings"] else (),
            failure=json.loads(row["failure"]) if row["failure"] else None,
            source_file=row["source_file"],
            source_line=row["source_line"],
            source_index=row["source_index"],
        )

    def rejects(self, entry: BundleEntry) -> list[dict[str, Any]]:
        """The rejected records kept with the bundle, as ``--errors`` lines (none: empty)."""
        if REJECTS not in entry.files:
            return []
        path = self.path(entry, REJECTS)
        kept = []
        with path.open(encoding="utf-8") as stream:
            for number, line in enumerate(stream, start=1):
                try:
                    kept.append(json.loads(line))
                except ValueError:
                    raise StoreError(
                        "not a JSON line", rule="corrupt_file", source=str(path), line=number
                    ) from None
        return kept

    def tally(self, entry: BundleEntry) -> list[list[Any]] | None:
        """The bundle's runs counted per candidate x case as its runs file's stamp keeps them
        (:class:`~._writer.Tally`: rows of :data:`~._layout.TALLY_COLUMNS`), read from the
        file's footer alone; None for a file written before stamps held it. A stamp that is
        not this bundle's, or counts that do not add up to its runs, is a located error."""
        path = self.path(entry, RUNS)
        stamp = footer_stamp(path, bundle=entry.id, digest=entry.digest, kind=RUNS)
        if "tally" not in stamp:
            return None
        return _checked_tally(stamp["tally"], entry.runs, str(path))


def _checked_tally(tally: Any, runs: int, source: str) -> list[list[Any]]:
    """The rows of a runs file's tally, checked: its columns, each row two names and six
    counts (runs the sum of the next four; the last at most the gate failed), the runs adding
    up to the bundle's."""

    def bad(pointer: str, message: str) -> StoreError:
        return corrupt(source, f"the runs file's tally {message}", f"/tally{pointer}")

    if not isinstance(tally, dict) or tally.get("columns") != list(TALLY_COLUMNS):
        raise bad("/columns", f"must name the columns {', '.join(TALLY_COLUMNS)}")
    rows = tally.get("rows")
    if not isinstance(rows, list):
        raise bad("/rows", "must be a list of rows")
    total = 0
    for index, row in enumerate(rows):
        if (
            not isinstance(row, list)
            or len(row) != len(TALLY_COLUMNS)
            or not all(isinstance(name, str) for name in row[:2])
            or not all(
                type(count) is int and count >= 0  # a bool is not a count
                for count in row[2:]
            )
            or row[2] != sum(row[3:7])
            or row[7] > row[5]
        ):
            raise bad(f"/rows/{index}", "row must be two names and counts that add up")
        total += row[2]
    if total != runs:
        raise bad("/rows", f"counts {total} runs, the index says {runs}")
    return rows
