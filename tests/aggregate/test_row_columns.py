"""The rows-to-columns conversions held to their straightforward definitions.

``_row_columns`` codes text columns by dict lookup through ``map`` and flags through a state
table, and ``column_values`` turns flags back into Python values with numpy; each is compared
here with the plain per-value definition (``pd.Categorical`` of the list, ``pd.array`` of the
flags, a comprehension), on rows with None values, categories a batch does not hold, unicode
ids, and no rows at all.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pandas as pd
import pytest

from scorecard.aggregate._frames import (
    _categories,
    _floats,
    _row_columns,
    column_values,
    rows_frame,
)
from scorecard.contract import CASE_IDS, ROW_COLUMNS
from scorecard.engine import CLASSIFICATIONS, ROW_FIELDS

_FLAGS = [column.name for column in ROW_COLUMNS if column.arrow_type == "bool_"]
_FLOATS = [column.name for column in ROW_COLUMNS if column.arrow_type == "float64"]
_IDS = ["cand-a", "кандидат", "候选", "cand-\U0001f600", "z-last", "A-upper"]


def _row(rng: random.Random, *, candidates: list[str], bundles: list[str]) -> tuple[Any, ...]:
    values: dict[str, Any] = {
        "bundle": rng.choice(bundles),
        "candidate": rng.choice(candidates),
        "provider": rng.choice(["codex", "кодекс", None]),
        "model": rng.choice(["m-1", None, "模型"]),
        "tier": rng.choice([None, "high", "low"]),
        "case": rng.choice([*CASE_IDS[:3], "not-a-catalog-case", None]),
        "repetition": rng.randint(1, 50),
        "classification": rng.choice([*CLASSIFICATIONS, "no-such-class", None]),
    }
    for name in ROW_FIELDS[8:]:
        if name in _FLAGS:
            values[name] = rng.choice([True, False, None])
        elif name in _FLOATS:
            values[name] = rng.choice([math.nan, 0.0, -0.0, rng.random(), 1e300])
        else:
            values[name] = rng.randint(0, 2**40)
    return tuple(values[name] for name in ROW_FIELDS)


def _plain(rows: list[tuple[Any, ...]], bundle_order: list[str]) -> dict[str, Any]:
    """The columns as the per-value definition gives them."""
    columns = {name: [row[index] for row in rows] for index, name in enumerate(ROW_FIELDS)}

    def categories(values: list[Any], first: list[str] | tuple[str, ...] = ()) -> list[str]:
        rest = sorted({value for value in values if value is not None} - set(first))
        return [*first, *rest]

    def categorical(values: list[Any], chosen: list[str] | tuple[str, ...]) -> pd.Categorical:
        known = [value if value in chosen else None for value in values]
        return pd.Categorical(known, categories=list(chosen))

    data: dict[str, Any] = {
        "bundle": categorical(columns["bundle"], categories(columns["bundle"], bundle_order))
    }
    for name in ("candidate", "provider", "model", "tier"):
        data[name] = categorical(columns[name], categories(columns[name]))
    data["case"] = categorical(columns["case"], categories(columns["case"], CASE_IDS))
    data["repetition"] = np.array(columns["repetition"], dtype=np.int64)
    data["classification"] = categorical(columns["classification"], CLASSIFICATIONS)
    for name in ROW_FIELDS[8:]:
        if name in _FLAGS:
            data[name] = pd.array(columns[name], dtype="boolean")
        elif name in _FLOATS:
            data[name] = np.array([float(value) for value in columns[name]], dtype=np.float64)
        else:
            data[name] = np.array(columns[name], dtype=np.int64)
    return data


def _assert_same(found: dict[str, Any], expected: dict[str, Any]) -> None:
    assert list(found) == list(expected)
    for name, values in expected.items():
        got = found[name]
        if isinstance(values, pd.Categorical):
            assert isinstance(got, pd.Categorical), name
            assert list(got.categories) == list(values.categories), name
            assert got.codes.tolist() == values.codes.tolist(), name
        elif isinstance(values, pd.arrays.BooleanArray):
            pd.testing.assert_extension_array_equal(got, values)
        else:
            assert got.dtype == values.dtype, name
            np.testing.assert_array_equal(got, values)
            if got.dtype == np.float64:  # -0.0 stays -0.0
                assert np.signbit(got).tolist() == np.signbit(values).tolist(), name


@pytest.mark.parametrize("seed", range(6))
def test_row_columns_equal_the_per_value_definition(seed: int) -> None:
    rng = random.Random(seed)
    # Some batches hold only some of the ids (categories absent from the batch).
    candidates = rng.sample(_IDS, rng.randint(1, len(_IDS)))
    bundles = rng.sample(["b-1", "b-2", "пакет"], rng.randint(1, 3))
    rows = [_row(rng, candidates=candidates, bundles=bundles) for _ in range(rng.randint(1, 300))]
    order = ["b-9-not-held", "b-2"] if seed % 2 else []
    _assert_same(_row_columns(rows, order), _plain(rows, order))


def test_row_columns_of_no_rows() -> None:
    _assert_same(_row_columns([], ["b-1"]), _plain([], ["b-1"]))


def test_row_columns_of_rows_without_any_value_of_a_text_column() -> None:
    rng = random.Random(7)
    rows = [_row(rng, candidates=["c"], bundles=["b"]) for _ in range(20)]
    provider = ROW_FIELDS.index("provider")
    rows = [(*row[:provider], None, *row[provider + 1 :]) for row in rows]
    _assert_same(_row_columns(rows, []), _plain(rows, []))


def test_floats_read_missing_numbers_given_as_none() -> None:
    np.testing.assert_array_equal(_floats((1.5, None, 2)), np.array([1.5, math.nan, 2.0]))
    np.testing.assert_array_equal(_floats(()), np.zeros(0))
    np.testing.assert_array_equal(_floats((1, 2.5)), np.array([1.0, 2.5]))


def test_categories_leave_out_none_and_put_the_first_ones_first() -> None:
    assert _categories(["b", None, "a", "c", "b"], ["c", "x"]) == ["c", "x", "a", "b"]
    assert _categories([]) == []
    assert _categories([None]) == []


def test_the_frame_of_batches_equals_the_frame_of_one_batch() -> None:
    rng = random.Random(3)
    rows = [_row(rng, candidates=_IDS, bundles=["b-1"]) for _ in range(200)]
    # distinct repetitions, so the order does not depend on ties
    rows = [(*row[:6], index + 1, *row[7:]) for index, row in enumerate(rows)]
    one, order_one = rows_frame(rows, batch=1_000)
    many, order_many = rows_frame(rows, batch=7)
    pd.testing.assert_frame_equal(one, many)
    assert order_one.tolist() == order_many.tolist()


def test_column_values_give_flags_as_python_values() -> None:
    rng = random.Random(11)
    rows = [_row(rng, candidates=_IDS, bundles=["b-1"]) for _ in range(100)]
    rows = [(*row[:6], index + 1, *row[7:]) for index, row in enumerate(rows)]
    frame, _ = rows_frame(rows)
    positions = [5, 0, 99, 42]
    found = column_values(frame, _FLAGS, positions)
    for name in _FLAGS:
        column = frame[name]
        expected = [None if pd.isna(column.iloc[i]) else bool(column.iloc[i]) for i in positions]
        assert found[name] == expected
        assert all(value is None or type(value) is bool for value in found[name])
    every = column_values(frame, _FLAGS)
    assert every["passed"] == [
        None if pd.isna(value) else bool(value) for value in frame["passed"].tolist()
    ]
    assert column_values(frame, _FLAGS, [])["passed"] == []
