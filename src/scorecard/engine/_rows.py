"""What aggregation reads: scored records (``scorecard.record.v1``) checked into flat rows.

Inputs are record dicts, :class:`~scorecard.core.ScoredRecord` objects, JSON Lines files of
records, or observation files and folders, which are scored on the fly. Every input becomes one
:data:`Row` (a tuple in :data:`ROW_FIELDS` order) so the frame builder never parses JSON. No
pandas here: the frame is built in :mod:`scorecard.aggregate._frames`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorecard.contract import (
    DIMENSIONS,
    Catalog,
    InputError,
    Policy,
    load_catalog,
    parse_json_document,
)
from scorecard.core import RECORD_SCHEMA, ScoredRecord

from ._io import InputFile, discover_inputs, read_json_lines

__all__ = [
    "CLASSIFICATIONS",
    "ROW_FIELDS",
    "LoadedRecords",
    "Row",
    "count_input_files",
    "is_parquet",
    "is_records_file",
    "is_scored_input",
    "load_records",
    "record_row",
    "scored_input_rows",
    "scored_row",
]

CLASSIFICATIONS = ("completed", "candidate_failure", "infrastructure_failure", "skipped")
ROW_FIELDS: tuple[str, ...] = (
    "bundle",
    "candidate",
    "provider",
    "model",
    "tier",
    "case",
    "repetition",
    "classification",
    *(f"score_{name}" for name in DIMENSIONS),
    *(f"passed_{name}" for name in DIMENSIONS),
    "overall_score",
    "gate_passed",
    "passed",
    "settlement_ms",
    "first_progress_ms",
    "total_tokens",
    "cost_usd",
    "attempts",
    "tool_count",
)
#: One scored record flattened in :data:`ROW_FIELDS` order (``scoreable`` is derived later).
Row = tuple[Any, ...]

_OPTIONAL_METRICS = ("settlementMs", "timeToFirstVisibleProgressMs", "totalTokens", "costUsd")


def _bad(message: str, pointer: str, rule: str = "record_field") -> InputError:
    return InputError(message, rule=rule, pointer=pointer)


def _member(parent: Mapping[str, Any], key: str, pointer: str) -> Any:
    if key not in parent:
        raise _bad("required field is missing", f"{pointer}/{key}", "record_missing_field")
    return parent[key]


def _object(parent: Mapping[str, Any], key: str, pointer: str) -> Mapping[str, Any]:
    value = _member(parent, key, pointer)
    if not isinstance(value, Mapping):
        raise _bad("must be an object", f"{pointer}/{key}")
    return value


def _text(parent: Mapping[str, Any], key: str, *, nullable: bool = False) -> str | None:
    value = parent.get(key) if nullable else _member(parent, key, "")
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not value:
        raise _bad("must be a non-empty string", f"/{key}")
    return value


def _number(parent: Mapping[str, Any], key: str, pointer: str, *, required: bool) -> float:
    value = _member(parent, key, pointer) if required else parent.get(key)
    if value is None and not required:
        return math.nan
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        message = "must be a non-negative number" + ("" if required else " or null")
        raise _bad(message, f"{pointer}/{key}")
    return float(value)


def _score(parent: Mapping[str, Any], pointer: str) -> float:
    value = _member(parent, "score", pointer)
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _bad("must be a finite number or null", f"{pointer}/score")
    return float(value)


def _flag(parent: Mapping[str, Any], key: str, pointer: str) -> bool | None:
    value = _member(parent, key, pointer)
    if value is not None and not isinstance(value, bool):
        raise _bad("must be true, false or null", f"{pointer}/{key}")
    return value


def _count(parent: Mapping[str, Any], key: str, pointer: str) -> int:
    value = _member(parent, key, pointer)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad("must be a non-negative integer", f"{pointer}/{key}")
    return value


_NAN = math.nan


def _fast_row(record: Any) -> Row | None:
    """The row of a well-formed record dict, or None to let the checking path explain why not.

    Most inputs are well formed, so this path uses exact type tests and plain lookups; anything
    unusual (a missing key, a wrong type, an infinite number) falls back to :func:`record_row`.
    """
    try:
        if type(record) is not dict or record["schema"] != RECORD_SCHEMA:
            return None
        card = record["scorecard"]
        dimensions = card["dimensions"]
        overall = card["overall"]
        metrics = record["metrics"]
        scores: list[Any] = []
        flags: list[Any] = []
        for name in DIMENSIONS:
            dimension = dimensions[name]
            scores.append(dimension["score"])
            flags.append(dimension["passed"])
        scores.append(overall["score"])
        flags.append(overall["gatePassed"])
        flags.append(overall["passed"])
        measured = [metrics.get(key) for key in _OPTIONAL_METRICS]
        row = (
            record["bundleId"],
            record["candidateId"],
            record["provider"],
            record.get("model"),
            record.get("tier"),
            record["caseId"],
            record["repetition"],
            record["classification"],
        )
        attempts, tools = metrics["attempts"], metrics["toolCount"]
    except (KeyError, TypeError):
        return None
    for flag in flags:
        if flag is not True and flag is not False and flag is not None:
            return None
    numbers: list[float] = []
    for value in scores:
        kind = type(value)
        if kind is float and value - value == 0:
            numbers.append(value)
        elif kind is int:
            numbers.append(float(value))
        elif value is None:
            numbers.append(_NAN)
        else:
            return None
    for value in measured:
        kind = type(value)
        if kind is float and value - value == 0 and value >= 0:
            numbers.append(value)
        elif kind is int and value >= 0:
            numbers.append(float(value))
        elif value is None:
            numbers.append(_NAN)
        else:
            return None
    bundle, candidate, provider, model, tier, case, repetition, classification = row
    for text in (bundle, candidate, provider, case):
        if type(text) is not str or not text:
            return None
    for text in (model, tier):
        if text is not None and (type(text) is not str or not text):
            return None
    if (
        type(repetition) is not int
        or repetition < 1
        or classification not in CLASSIFICATIONS
        or type(attempts) is not int
        or type(tools) is not int
        or attempts < 0
        or tools < 0
    ):
        return None
    return (
        *row,
        *numbers[:8],
        *flags[:8],
        numbers[8],
        flags[8],
        flags[9],
        *numbers[9:],
        attempts,
        tools,
    )


def record_row(record: Any) -> Row:
    """Check one ``scorecard.record.v1`` dict and flatten it; problems raise a pointed InputError."""
    fast = _fast_row(record)
    if fast is not None:
        return fast
    if not isinstance(record, Mapping):
        raise _bad("a scored record must be a JSON object", "", "record_shape")
    if record.get("schema") != RECORD_SCHEMA:
        raise _bad(f"expected schema {RECORD_SCHEMA}", "/schema", "unsupported_schema")
    repetition = _member(record, "repetition", "")
    if isinstance(repetition, bool) or not isinstance(repetition, int) or repetition < 1:
        raise _bad("must be a positive integer", "/repetition")
    classification = _member(record, "classification", "")
    if classification not in CLASSIFICATIONS:
        raise _bad("must be one of " + ", ".join(CLASSIFICATIONS), "/classification")
    metrics = _object(record, "metrics", "")
    card = _object(record, "scorecard", "")
    dimensions = _object(card, "dimensions", "/scorecard")
    overall = _object(card, "overall", "/scorecard")
    scores: list[float] = []
    flags: list[bool | None] = []
    for name in DIMENSIONS:
        pointer = f"/scorecard/dimensions/{name}"
        dimension = _object(dimensions, name, "/scorecard/dimensions")
        scores.append(_score(dimension, pointer))
        flags.append(_flag(dimension, "passed", pointer))
    return (
        _text(record, "bundleId"),
        _text(record, "candidateId"),
        _text(record, "provider"),
        _text(record, "model", nullable=True),
        _text(record, "tier", nullable=True),
        _text(record, "caseId"),
        repetition,
        classification,
        *scores,
        *flags,
        _score(overall, "/scorecard/overall"),
        _flag(overall, "gatePassed", "/scorecard/overall"),
        _flag(overall, "passed", "/scorecard/overall"),
        *(_number(metrics, key, "/metrics", required=False) for key in _OPTIONAL_METRICS),
        _count(metrics, "attempts", "/metrics"),
        _count(metrics, "toolCount", "/metrics"),
    )


def scored_row(record: ScoredRecord) -> Row:
    """Flatten a :class:`ScoredRecord` through its ``scorecard.record.v1`` form.

    Going through the record keeps one definition of what a record holds (the pipeline's).
    """
    return record_row(record.record_json())


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
    from .parquet import read_parquet_rows

    try:
        rows = read_parquet_rows(path)
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        yield InputError(
            f"cannot read Parquet: {type(error).__name__}", rule="unreadable", source=str(path)
        )
        return
    yield from rows


def scored_input_rows(path: str | Path) -> Iterator[Row | InputError]:
    """The rows of a records file or Parquet file or dataset, and the located error of every
    record that cannot be read."""
    if is_parquet(path):
        yield from _parquet_rows(Path(path))
    else:
        yield from _records_file_rows(str(path))


def count_input_files(paths: Sequence[str | Path]) -> int:
    """How many files :func:`load_records` will read (for a progress bar's total)."""
    return sum(
        isinstance(found, InputFile) for found in discover_inputs([str(path) for path in paths])
    )


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
    other path is scored with ``catalog`` (default: :func:`~scorecard.contract.load_catalog`) and
    ``policy`` in one scoring run (:func:`~scorecard.engine.score_run`: the fast path where it
    accepts a line, on ``workers`` processes; one: in this process), so repetitions are
    numbered across all of them. ``on_file`` is called with each file name as reading reaches
    it (progress bars). Problems never stop the reading: they are collected, located, in
    :attr:`LoadedRecords.errors`. The rows do not depend on ``workers``.
    """
    # Imported here: the run's modules import this one (rows are defined here).
    from ._run import score_run

    loaded = LoadedRecords()
    given = [str(path) for path in paths]
    items: Iterable[Row | InputError]
    if all(is_scored_input(path) for path in given):
        items = _announced_rows(given, on_file)  # nothing to score: no catalog, no workers
    else:
        run = score_run(
            given,
            catalog=catalog if catalog is not None else load_catalog(),
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
