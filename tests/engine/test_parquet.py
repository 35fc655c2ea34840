"""Parquet output: the aggregation frame's columns, streamed, atomic, partitioned by bundle."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from scorecard.contract._catalog import Catalog
from scorecard.core._record import ScoredRecord
from scorecard.engine._pipeline import score_paths_serially
from scorecard.engine._rows import ROW_FIELDS, Row, scored_row
from scorecard.engine.parquet import PARQUET_SCHEMA, read_parquet_rows, write_parquet
from tests.conftest import ROOT

SAMPLE = str(ROOT / "observations")


def same(left: list[Row], right: list[Row]) -> bool:
    """Row lists equal, NaN equal to NaN."""

    def key(value: Any) -> Any:
        return "NaN" if isinstance(value, float) and math.isnan(value) else value

    return [tuple(map(key, row)) for row in left] == [tuple(map(key, row)) for row in right]


@pytest.fixture(scope="module")
def sample_rows(catalog: Catalog) -> list[Row]:
    """The sample bundles scored into rows."""
    return [
        scored_row(r)
        for r in score_paths_serially([SAMPLE], catalog=catalog)
        if isinstance(r, ScoredRecord)
    ]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    """The catalog (module scope for the module-scoped rows)."""
    from scorecard.contract._catalog import load_catalog

    return load_catalog(ROOT / "cases")


def test_the_schema_is_the_frame_columns() -> None:
    """Parquet columns are the aggregation frame's, in its order."""
    assert PARQUET_SCHEMA.names == list(ROW_FIELDS)


def test_a_file_round_trips(tmp_path: Path, sample_rows: list[Row]) -> None:
    """Rows written to one file read back identical, unscoreable scores as NaN."""
    path = tmp_path / "scored.parquet"
    assert write_parquet(sample_rows, path) == 560
    back = read_parquet_rows(path)
    assert same(back, sample_rows)
    table = pq.read_table(path)
    assert table.column("overall_score").null_count == sum(
        1 for row in sample_rows if math.isnan(row[ROW_FIELDS.index("overall_score")])
    )


def test_a_partitioned_dataset_round_trips_per_bundle(
    tmp_path: Path, sample_rows: list[Row]
) -> None:
    """One bundle=<id> folder per bundle; reading gives every row back, bundles in sorted order."""
    path = tmp_path / "scored.parquet"
    write_parquet(sample_rows, path, partition_by_bundle=True)
    folders = sorted(p.name for p in path.iterdir())
    assert folders == sorted(f"bundle={b}" for b in {row[0] for row in sample_rows})
    back = read_parquet_rows(path)
    expected = sorted(
        sample_rows, key=lambda row: row[0]
    )  # stable: file order kept within a bundle
    assert same(back, expected)


def test_writes_are_deterministic_and_atomic(tmp_path: Path, sample_rows: list[Row]) -> None:
    """Same rows, same bytes; a failing writer leaves the old file and no temporary behind."""
    first, second = tmp_path / "a.parquet", tmp_path / "b.parquet"
    write_parquet(sample_rows, first)
    write_parquet(sample_rows, second)
    assert first.read_bytes() == second.read_bytes()

    def exploding() -> Any:
        yield sample_rows[0]
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        write_parquet(exploding(), first)
    assert first.read_bytes() == second.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.parquet", "b.parquet"]


def test_score_writes_parquet_identically_for_any_worker_count(tmp_path: Path) -> None:
    """`scorecard score --out X.parquet` gives the same bytes on 1 and 2 workers."""
    outputs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.parquet"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "scorecard",
                "score",
                SAMPLE,
                "--out",
                str(out),
                "--workers",
                workers,
            ],
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert pq.read_metadata(tmp_path / "w1.parquet").num_rows == 560


@pytest.mark.parametrize("partition", [False, True])
def test_the_aggregation_frame_reads_parquet(tmp_path: Path, partition: bool) -> None:
    """records_frame over a Parquet file or dataset equals the frame scored from observations."""
    import pandas as pd

    from scorecard.aggregate._frames import records_frame

    path = tmp_path / "scored.parquet"
    args = [
        sys.executable,
        "-m",
        "scorecard",
        "score",
        SAMPLE,
        "--out",
        str(path),
        "--workers",
        "1",
    ]
    if partition:
        args.append("--partition-by-bundle")
    assert subprocess.run(args, capture_output=True, check=False).returncode == 0
    pd.testing.assert_frame_equal(records_frame(path), records_frame([SAMPLE]))
