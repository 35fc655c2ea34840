"""What aggregation reads: scored records (``scorecard.record.v1``) checked into flat rows.

Inputs are record dicts, :class:`~scorecard.core.ScoredRecord` objects, JSON Lines files of
records, or observation files and folders, which are scored on the fly. Every input becomes one
:data:`Row` (a tuple in :data:`ROW_FIELDS` order) so the frame builder never parses JSON. No
pandas here: the frame is built in :mod:`scorecard.aggregate._frames`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorecard.contract import (
    CLASSIFICATIONS,
    ROW_FIELDS,
    Catalog,
    InputError,
    Policy,
    Row,
    load_catalog,
    parse_json_document,
    record_row,
    row_of,
)
from scorecard.core import RECORD_SCHEMA, ScoredRecord

from ._io import InputFile, RawRecord, discover_inputs, read_json_lines, read_records
from ._pipeline import score_records

__all__ = [
    "CLASSIFICATIONS",
    "ROW_FIELDS",
    "LoadedRecords",
    "Row",
    "count_input_files",
    "is_parquet",
    "is_records_file",
    "load_records",
    "record_row",
    "scored_row",
]


def scored_row(record: ScoredRecord) -> Row:
    """The row of a :class:`ScoredRecord`: the values its ``scorecard.record.v1`` form holds
    (:func:`~scorecard.contract.row_of`), without writing the rest of the record."""
    card = record.card
    observation = record.observation
    candidate = record.bundle.candidates.get(observation["candidateId"])
    return row_of(
        bundle_id=card["bundleId"],
        case_id=observation["caseId"],
        candidate_id=observation["candidateId"],
        provider=observation["provider"],
        model=candidate.model if candidate else None,
        tier=candidate.tier if candidate else None,
        repetition=record.repetition,
        classification=observation["classification"],
        metrics=observation["metrics"],
        scorecard=card,
    )


@dataclass
class LoadedRecords:
    """Rows read from paths, the located errors met on the way, and bundles in first-seen order."""

    rows: list[Row] = field(default_factory=list)
    """One flattened row per accepted record, in input order."""
    errors: list[InputError] = field(default_factory=list)
    """Rejected records and unreadable inputs, located by file and line."""
    bundle_order: list[str] = field(default_factory=list)
    """Bundle ids in the order they first appear in the inputs."""

    def add(self, row: Row) -> None:
        """Keep ``row`` and note its bundle if it is new."""
        recent = self.bundle_order and self.bundle_order[-1] == row[0]
        if not recent and row[0] not in self.bundle_order:
            self.bundle_order.append(row[0])
        self.rows.append(row)


def _first_document(path: Path) -> Any:
    try:
        with path.open("rb") as stream:
            for raw in stream:
                text = raw.decode("utf-8-sig", errors="replace").strip()
                if text:
                    return parse_json_document(text)
    except (OSError, InputError):
        return None
    return None


def is_records_file(path: str | Path) -> bool:
    """Whether ``path`` is a JSON Lines file whose first record is a ``scorecard.record.v1``."""
    candidate = Path(path)
    if candidate.suffix != ".jsonl" or not candidate.is_file():
        return False
    first = _first_document(candidate)
    return isinstance(first, Mapping) and first.get("schema") == RECORD_SCHEMA


def is_parquet(path: str | Path) -> bool:
    """Whether ``path`` is a Parquet file or dataset folder written by ``scorecard score``."""
    return Path(path).suffix == ".parquet" and Path(path).exists()


def _read_parquet(path: Path, loaded: LoadedRecords) -> None:
    from .parquet import read_parquet_rows

    try:
        rows = read_parquet_rows(path)
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        loaded.errors.append(
            InputError(
                f"cannot read Parquet: {type(error).__name__}", rule="unreadable", source=str(path)
            )
        )
        return
    for row in rows:
        loaded.add(row)


def _read_scored(path: Path, loaded: LoadedRecords) -> None:
    if is_parquet(path):
        _read_parquet(path, loaded)
    else:
        _read_records_file(path, loaded)


def count_input_files(paths: Sequence[str | Path]) -> int:
    """How many files :func:`load_records` will read (for a progress bar's total)."""
    return sum(
        isinstance(found, InputFile) for found in discover_inputs([str(path) for path in paths])
    )


def _read_records_file(path: Path, loaded: LoadedRecords) -> None:
    source = str(path)
    for item in read_json_lines(source):
        if isinstance(item, InputError):
            loaded.errors.append(item)
            continue
        number, document = item
        try:
            loaded.add(record_row(document))
        except InputError as error:
            loaded.errors.append(error.located(source=source, line=number))


def _announce(
    records: Iterable[RawRecord | InputError], on_file: Callable[[str], None]
) -> Iterator[RawRecord | InputError]:
    current: str | None = None
    for record in records:
        source = record.source
        if source is not None and source != current:
            current = source
            on_file(source)
        yield record


def load_records(
    paths: Sequence[str | Path],
    *,
    catalog: Catalog | None = None,
    policy: Policy | None = None,
    on_file: Callable[[str], None] | None = None,
) -> LoadedRecords:
    """Read scored-record files and score observation files/folders, in the order given.

    A ``.jsonl`` file whose first record is a ``scorecard.record.v1`` is read as records, a
    ``.parquet`` file or bundle-partitioned dataset (``scorecard score --out X.parquet``) as rows; any
    other path is scored with ``catalog`` (default: :func:`~scorecard.contract.load_catalog`) and
    ``policy`` in one scoring run, so repetitions are numbered across all of them. ``on_file`` is
    called with each file name as reading reaches it (progress bars). Problems never stop the
    reading: they are collected, located, in :attr:`LoadedRecords.errors`.
    """
    loaded = LoadedRecords()
    kinds = [(str(given), is_records_file(given) or is_parquet(given)) for given in paths]
    if all(is_records for _, is_records in kinds):
        for given, _ in kinds:
            if on_file is not None:
                on_file(given)
            _read_scored(Path(given), loaded)
        return loaded

    def observations() -> Iterator[RawRecord | InputError]:
        # Records files are read in their turn, so rows stay in the order the paths were given.
        for given, is_records in kinds:
            if is_records:
                if on_file is not None:
                    on_file(given)
                _read_scored(Path(given), loaded)
            else:
                raw: Iterable[RawRecord | InputError] = read_records([given])
                yield from (_announce(raw, on_file) if on_file is not None else raw)

    catalog = catalog if catalog is not None else load_catalog()
    for result in score_records(observations(), catalog=catalog, policy=policy):
        if isinstance(result, InputError):
            loaded.errors.append(result)
        else:
            loaded.add(scored_row(result))
    return loaded
