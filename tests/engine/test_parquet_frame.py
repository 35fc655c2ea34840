"""Parquet to the aggregation frame through Arrow: the frame the rows give, column for column."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from scorecard.aggregate._frames import COLUMNS, records_frame
from scorecard.contract import CASE_IDS, CLASSIFICATIONS, ROW_COLUMNS, ROW_FIELDS, InputError
from scorecard.engine import LoadedRecords, Row, load_records
from scorecard.engine.parquet import read_parquet_rows, write_parquet

# Ids a bundle folder must percent-encode, scripts beyond Latin-1, an emoji, spaces.
IDS = ["cand-a", "kandidat-ü", "候选-2", "🙂 smile", "a/b=c", "space d"]
BUNDLES = ["2026-11-01-nightly", "bündel=é/ß", "nächtlich 🌙", "z-last"]


def value(kind: str, rng: random.Random, index: int) -> Any:
    """A value of ``kind`` as rows hold it, nulls and NaN included where the kind allows."""
    if kind == "label":
        return rng.choice([None, "model-x", "modèle-ÿ", "tier-1"])
    if kind in ("score", "measure"):
        return rng.choice([math.nan, 0.0, 1.0, rng.random(), -0.0 if kind == "score" else 2.5e9])
    if kind == "flag":
        return rng.choice([True, False, None])
    if kind == "count":
        return rng.randrange(0, 2**40)
    raise AssertionError(kind)


def generated_rows(count: int, seed: int) -> list[Row]:
    """``count`` distinct rows of every shape a row may take."""
    rng = random.Random(seed)
    rows = []
    for index in range(count):
        row: list[Any] = []
        for column in ROW_COLUMNS:
            if column.name == "bundle":
                row.append(rng.choice(BUNDLES))
            elif column.name in ("candidate", "provider"):
                row.append(rng.choice(IDS))
            elif column.name == "case":
                row.append(rng.choice(CASE_IDS))
            elif column.name == "repetition":
                row.append(index + 1)  # distinct: no repeated (bundle, candidate, case, run)
            elif column.name == "classification":
                row.append(rng.choice(CLASSIFICATIONS))
            else:
                row.append(value(column.kind, rng, index))
        rows.append(tuple(row))
    return rows


def rows_frame(rows: list[Row], **options: Any) -> pd.DataFrame:
    """The frame made from Python rows (what Parquet was read as before)."""
    frame = records_frame(LoadedRecords(rows=rows), **options)
    pd.testing.assert_frame_equal(frame, reference_frame(rows, **options))
    return frame


def reference_frame(rows: list[Row], bundle_order: Sequence[str] = ()) -> pd.DataFrame:
    """The frame as ``records_frame`` built it from rows before it was made faster (pandas
    converting the lists), sorted and indexed the same way: what both paths must equal."""
    columns: dict[str, list[Any]] = {name: [] for name in ROW_FIELDS}
    if rows:
        for name, values in zip(ROW_FIELDS, zip(*rows, strict=True), strict=True):
            columns[name] = list(values)

    def categories(values: list[Any], first: Sequence[str] = ()) -> list[str]:
        return [*first, *sorted({value for value in values if value is not None} - set(first))]

    data: dict[str, Any] = {}
    first = [bundle for bundle in bundle_order if bundle]
    data["bundle"] = pd.Categorical(
        columns["bundle"], categories=categories(columns["bundle"], first)
    )
    for name in ("candidate", "provider", "model", "tier"):
        data[name] = pd.Categorical(columns[name], categories=categories(columns[name]))
    data["case"] = pd.Categorical(columns["case"], categories=categories(columns["case"], CASE_IDS))
    data["repetition"] = np.asarray(columns["repetition"], dtype=np.int64)
    data["classification"] = pd.Categorical(columns["classification"], categories=CLASSIFICATIONS)
    for column in ROW_COLUMNS[8:]:
        name = column.name
        if column.arrow_type == "bool_":
            data[name] = pd.array(columns[name], dtype="boolean")
        else:
            data[name] = np.asarray(columns[name], dtype=getattr(np, column.arrow_type))
    data["scoreable"] = ~np.isnan(data["overall_score"])
    frame = pd.DataFrame({name: data[name] for name in COLUMNS})
    order = np.lexsort(
        (
            frame["repetition"].to_numpy(),
            frame["case"].cat.codes.to_numpy(),
            frame["candidate"].cat.codes.to_numpy(),
            frame["bundle"].cat.codes.to_numpy(),
        )
    )
    return frame.take(order).reset_index(drop=True)


@pytest.mark.parametrize("partition", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_arrow_frame_equals_the_rows_frame(tmp_path: Path, partition: bool, seed: int) -> None:
    """Generated rows (unicode ids, null labels and flags, NaN scores and costs) give the same
    frame through Arrow as through the rows they were read as before, and as the rows written."""
    rows = generated_rows(500, seed)
    path = tmp_path / "scored.parquet"
    write_parquet(rows, path, partition_by_bundle=partition)
    arrow = records_frame(path)
    pd.testing.assert_frame_equal(arrow, rows_frame(read_parquet_rows(path)))
    pd.testing.assert_frame_equal(arrow, rows_frame(rows))
    assert arrow["cost_usd"].isna().any()
    assert arrow["passed"].isna().any()
    assert arrow["model"].isna().any()


def test_bundle_order_and_bundles_without_records(tmp_path: Path) -> None:
    """Listed bundles come first, also those with no records (an empty category)."""
    rows = generated_rows(200, 7)
    path = tmp_path / "scored.parquet"
    write_parquet(rows, path)
    order = ["z-last", "no-records-here", "", "bündel=é/ß"]
    arrow = records_frame(str(path), bundle_order=order)
    pd.testing.assert_frame_equal(arrow, rows_frame(rows, bundle_order=order))
    assert list(arrow["bundle"].cat.categories[:3]) == ["z-last", "no-records-here", "bündel=é/ß"]


def test_empty_inputs(tmp_path: Path) -> None:
    """A file with no rows and a dataset with no partitions give the empty frame of the rows."""
    empty = tmp_path / "empty.parquet"
    write_parquet([], empty)
    folder = tmp_path / "folder.parquet"
    write_parquet([], folder, partition_by_bundle=True)
    for path in (empty, folder):
        arrow = records_frame(path, bundle_order=["b"])
        pd.testing.assert_frame_equal(arrow, rows_frame([], bundle_order=["b"]))
        assert len(arrow) == 0


def test_several_inputs_and_repeated_records(tmp_path: Path) -> None:
    """Several Parquet inputs make one frame; a run given twice raises as the rows path does."""
    rows = generated_rows(300, 11)
    first, second = tmp_path / "a.parquet", tmp_path / "b.parquet"
    write_parquet(rows[:100], first)
    write_parquet(rows[100:], second, partition_by_bundle=True)
    pd.testing.assert_frame_equal(records_frame([first, second]), rows_frame(rows))
    again = tmp_path / "again.parquet"
    write_parquet(rows[:100], again)
    with pytest.raises(InputError) as arrow:
        records_frame([first, again])
    with pytest.raises(InputError) as expected:
        rows_frame(rows[:100] + rows[:100])
    assert str(arrow.value) == str(expected.value)
    assert arrow.value.rule == "duplicate_record"


def test_an_unreadable_file_is_a_located_error(tmp_path: Path) -> None:
    """Bytes that are not Parquet raise the located error load_records reports."""
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(InputError) as raised:
        records_frame(path)
    assert raised.value.rule == "unreadable"
    assert raised.value.source == str(path)


def test_other_column_orders_and_missing_columns(tmp_path: Path) -> None:
    """A file whose columns are in another order (or plain text, not dictionaries) is read into
    the same frame; one that lacks a column is the located error load_records reports."""
    import pyarrow.parquet as pq

    rows = generated_rows(200, 5)
    path = tmp_path / "scored.parquet"
    write_parquet(rows, path)
    table = pq.read_table(path)
    shuffled = tmp_path / "shuffled.parquet"
    pq.write_table(table.select(list(reversed(table.schema.names))), shuffled)
    pd.testing.assert_frame_equal(records_frame(shuffled), rows_frame(rows))
    lacking = tmp_path / "lacking.parquet"
    pq.write_table(table.drop_columns(["cost_usd"]), lacking)
    with pytest.raises(InputError) as raised:
        records_frame(lacking)
    assert raised.value.rule == "wrong_schema"
    assert [str(raised.value)] == [str(error) for error in load_records([lacking]).errors]


def test_secret_shaped_ids_are_redacted_as_rows_read_from_files_are(tmp_path: Path) -> None:
    """Ids written by another tool are redacted through Arrow as load_records redacts them;
    two secrets that redact alike become one category, as they become one value in rows."""
    secrets = ["cand-ghp_" + "a" * 36, "cand-ghp_" + "b" * 36]
    rows = [
        (row[0], secrets[index % 2], *row[2:]) for index, row in enumerate(generated_rows(300, 13))
    ]
    path = tmp_path / "scored.parquet"
    write_parquet(rows, path)
    loaded = load_records([path])
    arrow = records_frame(path)
    pd.testing.assert_frame_equal(arrow, rows_frame(loaded.rows))
    assert list(arrow["candidate"].cat.categories) == ["cand-[redacted]"]
