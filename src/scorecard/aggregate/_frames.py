"""Tidy frames of scored records: the only way scored data enters pandas.

:func:`records_frame` makes one row per scored record (columns and dtypes in
``docs/aggregation.md``); :func:`long_frame` makes one row per record and dimension. The other
``aggregate_*`` modules compute from these frames: reference report aggregates
(:mod:`scorecard.aggregate._reference`), tables with intervals (:mod:`scorecard.aggregate._tables`)
and paired comparisons (:mod:`scorecard.aggregate._compare`).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from scorecard.contract import (
    CASE_IDS,
    DIMENSIONS,
    GATE_DIMENSIONS,
    ROW_COLUMNS,
    Catalog,
    InputError,
    Policy,
    written_name,
)
from scorecard.core import ScoredRecord
from scorecard.engine import (
    CLASSIFICATIONS,
    ROW_FIELDS,
    LoadedRecords,
    Row,
    collection_paused,
    load_records,
    record_row,
    scored_row,
)

__all__ = [
    "COLUMNS",
    "LABEL_COLUMNS",
    "LONG_COLUMNS",
    "METRIC_COLUMNS",
    "PASSED_COLUMNS",
    "SCORE_COLUMNS",
    "column_codes",
    "column_values",
    "flag_array",
    "held_labels",
    "long_frame",
    "observed_categories",
    "records_frame",
    "restore_categories",
    "rows_frame",
    "select_rows",
    "stack_frames",
]

LABEL_COLUMNS = ("bundle", "candidate", "provider", "model", "tier", "case")
SCORE_COLUMNS = tuple(f"score_{name}" for name in DIMENSIONS)
PASSED_COLUMNS = tuple(f"passed_{name}" for name in DIMENSIONS)
METRIC_COLUMNS = (
    "settlement_ms",
    "first_progress_ms",
    "total_tokens",
    "cost_usd",
    "attempts",
    "tool_count",
)
#: Columns of :func:`records_frame`, in order.
COLUMNS: tuple[str, ...] = (
    *LABEL_COLUMNS,
    "repetition",
    "classification",
    *SCORE_COLUMNS,
    *PASSED_COLUMNS,
    "overall_score",
    "gate_passed",
    "passed",
    "scoreable",
    *METRIC_COLUMNS,
)
#: Columns of :func:`long_frame`, in order.
LONG_COLUMNS: tuple[str, ...] = (
    *LABEL_COLUMNS,
    "repetition",
    "classification",
    "scoreable",
    "dimension",
    "gate",
    "score",
    "passed",
)
# dtypes follow the row's column table: flags are nullable booleans, numbers NaN when missing.
_FLAG_FIELDS = frozenset(column.name for column in ROW_COLUMNS if column.arrow_type == "bool_")
_FLOAT_FIELDS = frozenset(column.name for column in ROW_COLUMNS if column.arrow_type == "float64")

RecordSource = (
    str
    | os.PathLike[str]
    | Sequence[str | os.PathLike[str]]
    | LoadedRecords
    | Iterable[Mapping[str, Any] | ScoredRecord | InputError]
)


def _rows(source: RecordSource, catalog: Catalog | None, policy: Policy | None) -> list[Row]:
    if isinstance(source, LoadedRecords):
        loaded = source
    else:
        items: Iterator[Any] = iter([source] if isinstance(source, str | os.PathLike) else source)
        first = next(items, None)
        if first is None:
            return []
        items = itertools.chain([first], items)
        if not isinstance(first, str | os.PathLike):
            rows: list[Row] = []
            for index, item in enumerate(items):
                if isinstance(item, InputError):
                    raise item
                try:
                    row = scored_row(item) if isinstance(item, ScoredRecord) else record_row(item)
                except InputError as error:
                    raise error.located(index=index) from None
                rows.append(row)
            return rows
        loaded = load_records([Path(item) for item in items], catalog=catalog, policy=policy)
    if loaded.errors:
        raise loaded.errors[0]
    return loaded.rows


def _categories(values: Iterable[Any], first: Sequence[str] = ()) -> list[str]:
    """``first``, then the other values held (None left out), sorted."""
    held = set(values)
    held.discard(None)
    return [*first, *sorted(held.difference(first))]


def _parquet_inputs(source: RecordSource) -> list[Path] | None:
    """The paths of ``source`` when it is one or more Parquet inputs only (read through Arrow)."""
    given: list[Any]
    if isinstance(source, str | os.PathLike):
        given = [source]
    elif isinstance(source, list | tuple) and source:
        given = list(source)
    else:
        return None
    if not all(isinstance(item, str | os.PathLike) for item in given):
        return None
    paths = [Path(item) for item in given]
    return paths if all(path.suffix == ".parquet" and path.exists() for path in paths) else None


def records_frame(
    records: RecordSource,
    *,
    bundle_order: Sequence[str] | None = None,
    catalog: Catalog | None = None,
    policy: Policy | None = None,
    only: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """One row per scored record, in a deterministic order, from any record source.

    ``records`` may be record dicts (``scorecard.record.v1``), :class:`ScoredRecord` objects, a
    :class:`LoadedRecords`, or paths: JSON Lines records files, Parquet files or datasets
    (``scorecard score --out X.parquet``), or observation files/folders that are scored here
    with ``catalog`` and ``policy``. Parquet alone is read column by column through Arrow,
    never as Python rows; the frame is the same. Rows are sorted by bundle (``bundle_order``,
    else sorted ids; unlisted bundles follow, sorted), candidate, case in catalog order and
    repetition. The first bad record raises its located :class:`InputError`, as does a repeated
    (bundle, candidate, case, repetition).

    ``only`` (label column: ids) keeps the records whose label, as the frame holds it, is one of
    those given, for every column named: the frame is then the full frame's rows of those
    records (categories: the values they hold). Parquet inputs are filtered batch by batch on
    the label columns: the other columns of the rows left out are read but never placed, so
    the frame, and all computed from it, costs only the rows kept.
    """
    first = [b for b in bundle_order or () if b]
    parquet = _parquet_inputs(records)
    if parquet is not None:
        data = _arrow_columns(parquet, first, only or {})
    else:
        frame, _ = rows_frame(_rows(records, catalog, policy), bundle_order=first)
        _check_repeats(frame)
        if only:
            frame = _only_rows(frame, only, first)
        return frame
    frame = _frame_of(data)
    _check_repeats(frame)
    return frame


def _only_rows(
    frame: pd.DataFrame, only: Mapping[str, Sequence[str]], bundle_order: Sequence[str]
) -> pd.DataFrame:
    """The rows of ``frame`` that ``only`` keeps, with the categories the frame of those rows
    alone has: the values held, after the bundles of ``bundle_order`` and the catalog's cases."""
    keep = np.ones(len(frame), dtype=bool)
    for name, wanted in only.items():
        keep &= frame[name].astype(str).isin(list(wanted)).to_numpy()
    kept = frame[keep].reset_index(drop=True)
    for name in LABEL_COLUMNS:
        column = kept[name]
        held = {*observed_categories(column), *(CASE_IDS if name == "case" else ())}
        held.update(bundle_order if name == "bundle" else ())
        categories = [category for category in column.cat.categories if category in held]
        kept[name] = column.astype(pd.CategoricalDtype(categories))  # as _TextColumn makes it
    return kept


def _frame_of(data: dict[str, Any]) -> pd.DataFrame:
    """The frame of sorted columns (but ``scoreable``, derived here)."""
    data["scoreable"] = ~np.isnan(data["overall_score"])
    # copy=False: each column is already a fresh array, kept as its own block (no second copy).
    return pd.DataFrame({name: data[name] for name in COLUMNS}, copy=False)


def rows_frame(
    rows: Iterable[Row], *, bundle_order: Sequence[str] = (), batch: int = 65_536
) -> tuple[pd.DataFrame, np.ndarray]:
    """The records frame of ``rows`` (what :func:`records_frame` makes of them, repeated runs
    not checked) and, for each of its rows, the index of the row it came from. The rows are
    turned into columns ``batch`` at a time, so no list of every row is made."""
    items = iter(rows)
    parts = []
    while chunk := list(itertools.islice(items, batch)):
        parts.append(_row_columns(chunk, bundle_order))
        del chunk  # the next block of rows is read without this one
    if not parts:
        parts.append(_row_columns([], bundle_order))
    data = parts[0] if len(parts) == 1 else _joined(parts, bundle_order)
    del parts
    # Sorted column by column before the frame is made: one copy of each, not two, each
    # unsorted column let go once its sorted copy is made.
    order = _sort_order(data)
    return _frame_of(_sorted(data, order)), order


def _sorted(data: dict[str, Any], order: np.ndarray) -> dict[str, Any]:
    """``data``'s columns in ``order``, taken out of ``data`` one by one (it is left empty)."""
    return {name: _take(data.pop(name), order) for name in list(data)}


def _joined(parts: Sequence[dict[str, Any]], bundle_order: Sequence[str]) -> dict[str, Any]:
    """Columns of :func:`_row_columns` end to end, categories as one call would make them.
    Each column is taken out of the parts once joined (they are left empty)."""
    first: dict[str, Sequence[str]] = {"bundle": bundle_order, "case": CASE_IDS}
    data: dict[str, Any] = {}
    for name in list(parts[0]):
        values = parts[0][name]
        columns = [part.pop(name) for part in parts]
        if name == "classification":
            data[name] = _recoded(columns, CLASSIFICATIONS)
        elif isinstance(values, pd.Categorical):
            held = {value for column in columns for value in _held(column)}
            data[name] = _recoded(columns, _categories(held, first.get(name, ())))
        elif isinstance(values, pd.arrays.BooleanArray):
            data[name] = pd.arrays.BooleanArray(
                np.concatenate([column.to_numpy(dtype=bool, na_value=False) for column in columns]),
                np.concatenate([column.isna() for column in columns]),
            )
        else:
            data[name] = np.concatenate(columns)
    return data


def _held(column: Any) -> list[str]:
    """The categories a categorical (or a categorical column) holds."""
    values = getattr(column, "cat", column)
    codes = np.unique(np.asarray(values.codes))
    return [str(values.categories[int(code)]) for code in codes if code >= 0]


def _check_repeats(frame: pd.DataFrame) -> None:
    key = ["bundle", "candidate", "case", "repetition"]
    repeated = _first_repeat(frame, key)
    if repeated is not None:
        duplicate = frame.loc[repeated, key]
        raise InputError(
            f"record repeats bundle {duplicate['bundle']}, candidate {duplicate['candidate']}, "
            f"case {duplicate['case']}, repetition {duplicate['repetition']} (the same runs "
            "given twice?)",
            rule="duplicate_record",
        )


def _sort_order(data: Mapping[str, Any]) -> np.ndarray:
    """The frame's row order: bundle, candidate, case (category order), then repetition."""
    keys = (data["repetition"], data["case"].codes, data["candidate"].codes, data["bundle"].codes)
    return np.lexsort(keys)


def _first_repeat(frame: pd.DataFrame, key: Sequence[str]) -> int | None:
    """The first row whose ``key`` equals the row before's, else None. The frame is sorted by
    the key (categorical codes, then repetition), so a repeated key is always next to its
    first row: this is the first row ``frame.duplicated(key)`` marks, found in one pass."""
    if len(frame) < 2:
        return None
    same = np.ones(len(frame) - 1, dtype=bool)
    for name in key:
        column = frame[name]
        values = column.cat.codes.to_numpy() if name != "repetition" else column.to_numpy()
        same &= values[1:] == values[:-1]
    found = np.flatnonzero(same)
    return int(found[0]) + 1 if len(found) else None


def _take(values: Any, order: np.ndarray) -> Any:
    if isinstance(values, pd.Categorical):
        return pd.Categorical.from_codes(values.codes[order], dtype=values.dtype)
    return values[order]


def _row_columns(rows: list[Row], bundle_order: Sequence[str]) -> dict[str, Any]:
    """The frame's columns (but ``scoreable``) from rows, in row order: categorical codes by
    dict lookup, flags by one pass each (what ``pd.Categorical`` and ``pd.array`` of the lists
    give, several times faster)."""
    columns: dict[str, Sequence[Any]] = dict.fromkeys(ROW_FIELDS, ())
    if rows:
        with collection_paused():  # zip(*rows) makes an object per row
            columns = dict(zip(ROW_FIELDS, zip(*rows, strict=True), strict=True))
    data: dict[str, Any] = {
        "bundle": _categorical(columns["bundle"], _categories(columns["bundle"], bundle_order))
    }
    for name in ("candidate", "provider", "model", "tier"):
        data[name] = _categorical(columns[name], _categories(columns[name]))
    data["case"] = _categorical(columns["case"], _categories(columns["case"], CASE_IDS))
    data["repetition"] = np.asarray(columns["repetition"], dtype=np.int64)
    data["classification"] = _categorical(columns["classification"], CLASSIFICATIONS)
    for name in ROW_FIELDS[8:]:
        if name in _FLAG_FIELDS:
            data[name] = _flags(columns[name])
        elif name in _FLOAT_FIELDS:
            data[name] = _floats(columns[name])
        else:
            data[name] = np.asarray(columns[name], dtype=np.int64)
    return data


def _floats(values: Sequence[Any]) -> np.ndarray:
    """Numbers (NaN when missing) as float64: ``np.asarray``'s array, read value by value
    (twice as fast) unless a value is not a number (a None: asarray makes it NaN)."""
    try:
        return np.fromiter(values, np.float64, len(values))
    except TypeError:
        return np.asarray(values, dtype=np.float64)


def _categorical(values: Sequence[Any], categories: Sequence[str]) -> Any:
    """``values`` as a categorical of ``categories`` (others, None included, missing)."""
    code = {category: index for index, category in enumerate(categories)}
    # map(code.get, values, -1...) is code.get(value, -1) per value, without a Python frame.
    codes = np.fromiter(map(code.get, values, itertools.repeat(-1)), np.int64, len(values))
    return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(list(categories)))


_FLAG_STATES = {False: 0, True: 1, None: 2}


def _flags(values: Sequence[bool | None]) -> pd.arrays.BooleanArray:
    """Flags (true, false or null: rows are checked) as a nullable boolean array."""
    states = np.fromiter(map(_FLAG_STATES.__getitem__, values), np.int8, len(values))
    return pd.arrays.BooleanArray(states == 1, states == 2)


_TEXT_FIELDS = (*ROW_FIELDS[:6], "classification")


class _TextColumn:
    """One text column read batch by batch: each row holds the id of its (redacted) value in
    :attr:`values`, the values in the order first met; -1 stands for null."""

    def __init__(self, size: int) -> None:
        self.ids = np.full(size, -1, dtype=np.int32)
        self.values: dict[str, int] = {}

    def add(self, rows: slice, column: Any) -> None:
        """``rows`` from ``column`` (dictionary-encoded: its distinct values looked up once)."""
        lookup = np.array([*map(self._id, column.dictionary.to_pylist()), -1], dtype=np.int32)
        self.ids[rows] = lookup[column.indices.fill_null(len(lookup) - 1).to_numpy()]

    def keep(self, size: int) -> None:
        """Keep the first ``size`` rows (the rest were reserved for rows a filter left out)."""
        self.ids = self.ids[:size]

    def fill(self, rows: slice, value: str) -> None:
        """``rows`` all ``value`` (a dataset folder's bundle)."""
        self.ids[rows] = self._id(value)

    def _id(self, value: str) -> int:
        return self.values.setdefault(written_name(value), len(self.values))

    def codes(self, first: Sequence[str] = (), *, fixed: bool = False) -> pd.Categorical:
        """The column as a categorical of the values it holds (``first`` first, the rest
        sorted), or of exactly ``first`` when ``fixed``: what :func:`_categorical` makes."""
        names = list(self.values)
        if fixed:
            categories = list(first)
        else:
            held = np.bincount(self.ids[self.ids >= 0], minlength=len(names))
            categories = _categories((names[i] for i in np.flatnonzero(held)), first)
        index = {category: code for code, category in enumerate(categories)}
        lookup = np.array([*(index.get(name, -1) for name in names), -1], dtype=np.int32)
        dtype = pd.CategoricalDtype(categories)
        return pd.Categorical.from_codes(lookup[self.ids], dtype=dtype)


def _kept_rows(
    batch: Any, bundle: str | None, only: Mapping[str, Sequence[str]]
) -> np.ndarray | None:
    """Which rows of ``batch`` :func:`records_frame`'s ``only`` keeps (None: every one). Each
    dictionary value is redacted and looked up once, as :class:`_TextColumn` does."""
    keep: np.ndarray | None = None
    for name, wanted in only.items():
        if name == "bundle" and bundle is not None:
            held = np.full(batch.num_rows, written_name(bundle) in wanted, dtype=bool)
        else:
            column = batch.column(name)
            lookup = [written_name(value) in wanted for value in column.dictionary.to_pylist()]
            codes = column.indices.fill_null(len(lookup)).to_numpy()
            held = np.array([*lookup, False], dtype=bool)[codes]
        keep = held if keep is None else keep & held
    return None if keep is None or keep.all() else keep


def _arrow_columns(
    paths: Sequence[Path], bundle_order: Sequence[str], only: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """The frame's columns (but ``scoreable``) from Parquet inputs, in the frame's order: what
    :func:`_row_columns` makes of the same rows, sorted (ids redacted as
    :func:`~scorecard.engine.scored_input_rows` redacts them); ``only`` as
    :func:`records_frame` takes it.

    Two passes over the files, a batch at a time, so Arrow reuses its buffers and no Python
    value is made per row: the labels and repetitions (text as dictionary indices, each
    batch's few distinct values looked up once) give the order and the rows kept; then every
    other column is decoded and written straight to its sorted place in the frame's array."""
    import pyarrow as pa

    from scorecard.engine.parquet import parquet_batches

    size = sum(_row_count(path) for path in paths)
    text = {name: _TextColumn(size) for name in _TEXT_FIELDS}
    repetition = np.empty(size, dtype=np.int64)
    kept: list[np.ndarray | None] = []
    start = 0
    for path in paths:
        for batch, bundle in parquet_batches(path, (*_TEXT_FIELDS, "repetition")):
            keep = _kept_rows(batch, bundle, only) if only else None
            kept.append(keep)
            if keep is not None:
                batch = batch.filter(pa.array(keep))
            rows = slice(start, start + batch.num_rows)
            for name, column in text.items():
                if name == "bundle" and bundle is not None:
                    column.fill(rows, bundle)
                else:
                    column.add(rows, batch.column(name))
            repetition[rows] = _integers(batch, "repetition")
            start = rows.stop
    if start < size:
        size = start
        repetition = repetition[:size]
        for column in text.values():
            column.keep(size)
    data: dict[str, Any] = {"bundle": text["bundle"].codes(bundle_order)}
    for name in ("candidate", "provider", "model", "tier"):
        data[name] = text[name].codes()
    data["case"] = text["case"].codes(CASE_IDS)
    data["classification"] = text["classification"].codes(CLASSIFICATIONS, fixed=True)
    data["repetition"] = repetition
    order = _sort_order(data)
    place = np.empty(size, dtype=np.intp)
    place[order] = np.arange(size)
    sorted_data = {name: _take(values, order) for name, values in data.items()}
    rest = ROW_FIELDS[8:]
    columns = {name: _empty_column(name, size) for name in rest}
    start = 0
    batches = (batch for path in paths for batch, _ in parquet_batches(path, rest))
    for batch, keep in zip(batches, kept, strict=True):
        if keep is not None:
            batch = batch.filter(pa.array(keep))
        if batch.num_rows:
            where = place[start : start + batch.num_rows]
            for name, target in columns.items():
                _place(batch, name, target, where)
            start += batch.num_rows
    for name, target in columns.items():
        flag = isinstance(target, tuple)
        sorted_data[name] = pd.arrays.BooleanArray(*target) if flag else target
    # Arrow's allocator keeps the decoded batches' pages for reuse; the frame holds its own
    # copies, and what comes next (a gate, plots) is numpy's: tens of MiB handed back.
    pa.default_memory_pool().release_unused()
    return sorted_data


def _row_count(path: Path) -> int:
    from scorecard.engine.parquet import parquet_row_count

    return parquet_row_count(path)


def _integers(batch: Any, name: str) -> np.ndarray:
    column = batch.column(name)
    if column.null_count:
        raise InputError(f"Parquet column {name} has nulls", rule="unreadable")
    return cast(np.ndarray, column.to_numpy())


def _empty_column(name: str, size: int) -> Any:
    """Where a numeric or flag column is written: an array, or (values, missing) for flags."""
    if name in _FLAG_FIELDS:
        return np.zeros(size, dtype=bool), np.zeros(size, dtype=bool)
    return np.empty(size, dtype=np.float64 if name in _FLOAT_FIELDS else np.int64)


def _place(batch: Any, name: str, target: Any, where: np.ndarray) -> None:
    """Write ``batch``'s column ``name`` to rows ``where`` of ``target``; absent numbers NaN."""
    column = batch.column(name)
    if isinstance(target, tuple):
        values, missing = target
        values[where] = column.fill_null(False).to_numpy(zero_copy_only=False)
        if column.null_count:
            missing[where] = column.is_null().to_numpy(zero_copy_only=False)
    elif name in _FLOAT_FIELDS:  # nulls (absent numbers) become NaN
        target[where] = column.to_numpy(zero_copy_only=False)
    else:
        target[where] = _integers(batch, name)


def long_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per record and dimension (dimensions in canonical order), from :func:`records_frame`."""
    count = len(frame)
    width = len(DIMENSIONS)
    repeat = np.repeat(np.arange(count), width)
    data: dict[str, Any] = {}
    for name in (*LABEL_COLUMNS, "classification"):
        column = frame[name]
        data[name] = pd.Categorical.from_codes(
            np.repeat(column.cat.codes.to_numpy(), width),
            dtype=cast(pd.CategoricalDtype, column.dtype),
        )
    data["repetition"] = frame["repetition"].to_numpy()[repeat]
    data["scoreable"] = frame["scoreable"].to_numpy()[repeat]
    data["dimension"] = pd.Categorical.from_codes(
        np.tile(np.arange(width, dtype=np.int8), count),
        dtype=pd.CategoricalDtype(list(DIMENSIONS), ordered=True),
    )
    data["gate"] = np.tile(np.array([name in GATE_DIMENSIONS for name in DIMENSIONS]), count)
    data["score"] = frame[list(SCORE_COLUMNS)].to_numpy(dtype=np.float64).ravel()
    passed = frame[list(PASSED_COLUMNS)]
    values = passed.to_numpy(dtype=bool, na_value=False).ravel()
    missing = passed.isna().to_numpy().ravel()
    data["passed"] = pd.arrays.BooleanArray(values, missing)
    return pd.DataFrame({name: data[name] for name in LONG_COLUMNS})


def held_labels(paths: Sequence[str | Path], names: Sequence[str]) -> dict[str, list[str]]:
    """For each label column named, the values the records frame of the Parquet inputs
    ``paths`` would hold (:func:`observed_categories` of its column: cases in catalog order
    first, the rest sorted), read from those columns alone."""
    from scorecard.engine.parquet import parquet_batches

    held: dict[str, set[str]] = {name: set() for name in names}
    for path in paths:
        for batch, bundle in parquet_batches(path, names):
            for name in names:
                if name == "bundle" and bundle is not None:
                    held[name].add(written_name(bundle))
                    continue
                column = batch.column(name)
                codes = np.unique(column.indices.drop_null().to_numpy())
                values = column.dictionary.to_pylist()
                held[name].update(written_name(values[int(code)]) for code in codes)
    return {
        name: [case for case in CASE_IDS if case in values] + sorted(values.difference(CASE_IDS))
        if name == "case"
        else sorted(values)
        for name, values in held.items()
    }


def observed_categories(column: pd.Series) -> list[str]:
    """The values a categorical column actually holds, in category order."""
    codes = np.unique(column.cat.codes.to_numpy())
    categories = column.cat.categories
    return [str(categories[int(code)]) for code in codes if code >= 0]


def restore_categories(
    table: pd.DataFrame, frame: pd.DataFrame, columns: Sequence[str]
) -> pd.DataFrame:
    """Give ``table``'s ``columns`` the categorical dtypes they have in ``frame`` (in place)."""
    for column in columns:
        if isinstance(frame[column].dtype, pd.CategoricalDtype):
            table[column] = table[column].astype(frame[column].dtype)
    return table


def select_rows(
    frame: pd.DataFrame, *, bundle: str | None = None, candidate: str | None = None
) -> pd.DataFrame:
    """The rows of one bundle and/or candidate; an unknown id raises a clear :class:`InputError`."""
    mask = np.ones(len(frame), dtype=bool)
    for column, value in (("bundle", bundle), ("candidate", candidate)):
        if value is None:
            continue
        present = observed_categories(frame[column])
        if value not in present:
            known = ", ".join(str(item) for item in present) or "none"
            raise InputError(
                f"no {column} {value!r} in the records (found: {known})", rule=f"unknown_{column}"
            )
        mask &= (frame[column] == value).to_numpy()
    rows = np.flatnonzero(mask)
    if rows.size and rows[-1] - rows[0] + 1 == rows.size:
        # One stretch of rows (a sorted frame's bundle): a slice, which copy-on-write shares.
        return frame.iloc[rows[0] : rows[-1] + 1].reset_index(drop=True)
    return frame.iloc[rows].reset_index(drop=True)


_JUDGED_ONLY = ("first_progress_ms", "total_tokens")


def stack_frames(
    parts: Sequence[tuple[str, pd.DataFrame]], *, judged: bool = False
) -> pd.DataFrame:
    """One records frame of several bundles' frames, in the order given, each part's runs
    relabelled as the bundle its label names: what :func:`records_frame` makes of their rows
    so labelled (categories of the values the parts hold; ``bundle_order`` the labels).

    With ``judged``, the frame holds what a gate judges of each run, as the gate's frame always
    has: the gate is null where the run is unscoreable, and the time to first progress and the
    tokens are left out (NaN).
    """
    labels = [label for label, _ in parts]
    frames = [frame for _, frame in parts]
    sizes = [len(frame) for frame in frames]
    data: dict[str, Any] = {
        "bundle": pd.Categorical.from_codes(
            np.repeat(np.arange(len(labels)), sizes), dtype=pd.CategoricalDtype(labels)
        )
    }
    first: dict[str, Sequence[str]] = {"case": CASE_IDS}
    for name in ("candidate", "provider", "model", "tier", "case"):
        held = {value for frame in frames for value in _held(frame[name])}
        data[name] = _recoded(
            [frame[name] for frame in frames], _categories(held, first.get(name, ()))
        )
    data["classification"] = _recoded(
        [frame["classification"] for frame in frames], CLASSIFICATIONS
    )
    data["repetition"] = np.concatenate(
        [frame["repetition"].to_numpy(dtype=np.int64) for frame in frames]
    )
    for name in ROW_FIELDS[8:]:
        columns = [frame[name] for frame in frames]
        if name in _FLAG_FIELDS:
            data[name] = pd.arrays.BooleanArray(
                np.concatenate([c.to_numpy(dtype=bool, na_value=False) for c in columns]),
                np.concatenate([c.isna().to_numpy() for c in columns]),
            )
        elif name in _FLOAT_FIELDS:
            data[name] = np.concatenate([c.to_numpy(dtype=np.float64) for c in columns])
        else:
            data[name] = np.concatenate([c.to_numpy(dtype=np.int64) for c in columns])
    if judged:
        unscoreable = np.isnan(data["overall_score"])
        gate = data["gate_passed"]
        data["gate_passed"] = pd.arrays.BooleanArray(
            gate.to_numpy(dtype=bool, na_value=False) & ~unscoreable,
            gate.isna() | unscoreable,
        )
        for name in _JUDGED_ONLY:
            data[name] = np.full(len(data[name]), np.nan)
    order = _sort_order(data)
    return _frame_of(_sorted(data, order))


def _recoded(columns: Sequence[Any], categories: Sequence[str]) -> Any:
    """The categoricals (or categorical columns) ``columns`` end to end, as codes of
    ``categories``."""
    index = {category: code for code, category in enumerate(categories)}
    codes = []
    for column in columns:
        values = getattr(column, "cat", column)
        own = values.categories
        lookup = np.array([*(index.get(str(value), -1) for value in own), -1], dtype=np.int64)
        codes.append(lookup[np.asarray(values.codes)])
    joined = np.concatenate(codes) if codes else np.empty(0, dtype=np.int64)
    return pd.Categorical.from_codes(joined, dtype=pd.CategoricalDtype(list(categories)))


def column_codes(frame: pd.DataFrame, name: str) -> tuple[np.ndarray, list[Any]]:
    """Column ``name`` as integer codes into a list of its values (text, or None when missing):
    a categorical column's own codes, any other column's values numbered as they first come."""
    column = frame[name]
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy().astype(np.int64)
        values: list[Any] = [*column.cat.categories, None]
        codes[codes < 0] = len(values) - 1
        return codes, values
    seen: dict[Any, int] = {}
    found = [seen.setdefault(value, len(seen)) for value in column_values(frame, (name,))[name]]
    return np.array(found, dtype=np.int64), list(seen)


def flag_array(frame: pd.DataFrame, name: str) -> np.ndarray:
    """A nullable flag column as booleans: True only where the flag is True."""
    column = frame[name]
    if isinstance(column.dtype, pd.BooleanDtype):
        return np.asarray(column.array.to_numpy(dtype=bool, na_value=False), dtype=bool)
    values = column.tolist()
    return np.fromiter((flag is True for flag in values), dtype=bool, count=len(values))


def column_values(
    frame: pd.DataFrame, names: Sequence[str], rows: slice | list[int] | None = None
) -> dict[str, list[Any]]:
    """Columns ``names`` (of ``rows``: a slice or row numbers; default all) as Python values, as
    a row holds them: text or None, int, float (NaN when missing), True, False or None for
    flags."""
    found: dict[str, list[Any]] = {}
    for name in names:
        column = frame[name] if rows is None else frame[name].iloc[rows]
        if isinstance(column.dtype, pd.CategoricalDtype):
            categories = np.array([*column.cat.categories, None], dtype=object)
            found[name] = categories[column.cat.codes.to_numpy()].tolist()
        elif name in _FLAG_FIELDS:
            flags = column.array
            values = flags.to_numpy(dtype=bool, na_value=False).astype(object)  # True, False
            values[flags.isna()] = None
            found[name] = values.tolist()
        else:
            found[name] = column.to_numpy().tolist()
    return found
