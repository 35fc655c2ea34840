"""What aggregation reads: scored records (``scorecard.record.v1``) checked into flat rows.

Inputs are record dicts, :class:`~scorecard.core.ScoredRecord` objects, JSON Lines files of
records, or observation files and folders, which are scored on the fly. Every input becomes one
:data:`Row` (a tuple in :data:`ROW_FIELDS` order) so the frame builder never parses JSON. No
pandas here: the frame is built in :mod:`scorecard.aggregate._frames`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorecard.contract import (
    CLASSIFICATIONS,
    ROW_FIELDS,
    InputError,
    Row,
    parse_json_document,
    record_row,
    row_of,
    written_name,
)
from scorecard.core import RECORD_SCHEMA, ScoredRecord

from ._io import InputFile, discover_inputs, read_json_lines

__all__ = [
    "CLASSIFICATIONS",
    "ROW_FIELDS",
    "LoadedRecords",
    "Row",
    "count_input_files",
    "input_bundles",
    "is_parquet",
    "is_records_file",
    "is_scored_input",
    "record_row",
    "scored_input_rows",
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
        gate_passed=record.gate_passed,
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


def is_scored_input(path: str | Path) -> bool:
    """Whether ``path`` is read as rows rather than scored: a records file or Parquet."""
    return is_records_file(path) or is_parquet(path)


def _parquet_rows(path: Path) -> Iterator[Row | InputError]:
    from .parquet import parquet_input_error, read_parquet_rows, unreadable_parquet

    wrong = parquet_input_error(path)
    if wrong is not None:
        yield wrong
        return
    try:
        rows = read_parquet_rows(path)
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        yield unreadable_parquet(path, error)
        return
    yield from rows


def scored_input_rows(path: str | Path) -> Iterator[Row | InputError]:
    """The rows of a records file or Parquet file or dataset, and the located error of every
    record that cannot be read. Their ids and names were written by another run or another
    tool: secret-shaped parts are redacted (:func:`~scorecard.contract.written_name`), as
    scoring would have refused them."""
    rows = _parquet_rows(Path(path)) if is_parquet(path) else _records_file_rows(str(path))
    for row in rows:
        yield row if isinstance(row, InputError) else _redacted(row)


def _redacted(row: Row) -> Row:
    if not any(type(value) is str and written_name(value) != value for value in row):
        return row
    return tuple(written_name(value) if type(value) is str else value for value in row)


def count_input_files(paths: Sequence[str | Path]) -> int:
    """How many files :func:`load_records` will read (for a progress bar's total)."""
    return sum(
        isinstance(found, InputFile) for found in discover_inputs([str(path) for path in paths])
    )


def input_bundles(paths: Sequence[str], bundle_id: str | None = None) -> list[str] | None:
    """The bundle ids the observation files under ``paths`` are scored into (``bundle_id`` when
    it overrides them), read from their manifests before anything is scored, in order; None
    when an input is not read so (stdin, scored records, Parquet) or cannot be read (a missing
    path, a bad manifest: the scoring says what is wrong). A bundle id a command is asked for
    that is not among them can be an error at once, not after the scoring."""
    if any(path == "-" or is_scored_input(path) for path in paths):
        return None
    if bundle_id is not None:
        return [bundle_id]
    found = list(discover_inputs(paths))
    if any(isinstance(item, InputError) for item in found):
        return None
    return list(dict.fromkeys(item.bundle.id for item in found if isinstance(item, InputFile)))


def _records_file_rows(source: str) -> Iterator[Row | InputError]:
    for item in read_json_lines(source):
        if isinstance(item, InputError):
            yield item
            continue
        number, document = item
        try:
            yield record_row(document)
        except InputError as error:
            yield error.located(source=source, line=number)
