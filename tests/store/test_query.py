"""SQL over a store: reads only, the store's files only, secrets redacted; and history."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorecard.aggregate import records_frame
from scorecard.contract import StoreError
from scorecard.store import Store, open_store
from tests.store.conftest import NIGHTS
from tests.store.test_ingest import stored_bytes

SECRET = "sk-abcdefghijklmnopqrstuvwxyz012345"


def test_the_views_hold_the_runs_the_detail_and_the_index(sample_store: Store) -> None:
    """``runs`` and ``detail`` have a row per run, ``bundles`` one per bundle in night order."""
    table = sample_store.query(
        "SELECT b.position, b.id, b.night, count(*) AS runs, count(d.observation) AS kept "
        'FROM runs r JOIN detail d USING (bundle, candidate, "case", repetition) '
        "JOIN bundles b ON b.id = r.bundle GROUP BY ALL ORDER BY b.position"
    )
    assert table.to_pylist() == [
        {
            "position": 0,
            "id": "campaign-2026-11-01",
            "night": "2026-11-01",
            "runs": 140,
            "kept": 140,
        },
        {
            "position": 1,
            "id": "campaign-2026-11-08",
            "night": "2026-11-08",
            "runs": 140,
            "kept": 140,
        },
        {
            "position": 2,
            "id": "campaign-2026-11-15",
            "night": "2026-11-15",
            "runs": 140,
            "kept": 140,
        },
        {
            "position": 3,
            "id": "campaign-2026-11-22",
            "night": "2026-11-22",
            "runs": 140,
            "kept": 140,
        },
    ]


@pytest.mark.parametrize(
    "sql",
    [
        "COPY (SELECT 1 AS bundle) TO '{runs}' (FORMAT parquet, USE_TMP_FILE false)",
        "COPY runs TO '{folder}/copy.csv'",
        "ATTACH '{folder}/other.duckdb' AS other",
        "CREATE TABLE kept AS SELECT * FROM runs",
        "INSERT INTO bundles SELECT * FROM bundles",
        "DROP VIEW runs",
        "SET enable_external_access = true",
        "PRAGMA enable_profiling",
        "INSTALL httpfs",
        "LOAD httpfs",
        "EXPORT DATABASE '{folder}/exported'",
        "SELECT 1; COPY runs TO '{folder}/x.csv'",
        "CALL pragma_version()",
    ],
)
def test_anything_but_a_read_is_refused(sample_store: Store, sql: str) -> None:
    """Refused before it reaches DuckDB; the store's files keep their bytes, none is added."""
    before = stored_bytes(sample_store.path)
    runs = sample_store.runs_files()[0]
    with pytest.raises(StoreError) as raised:
        sample_store.query(sql.format(runs=runs, folder=sample_store.path))
    assert raised.value.rule == "not_a_read"
    assert stored_bytes(sample_store.path) == before


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM read_parquet('{folder}/../*.parquet')",
        "SELECT * FROM read_csv('{folder}/store.json')",
        "SELECT * FROM query('COPY runs TO ''{folder}/x.csv''')",
    ],
)
def test_no_other_file_can_be_read(sample_store: Store, sql: str) -> None:
    """Reads reach the listed files only: anything else is DuckDB's error, as a StoreError."""
    with pytest.raises(StoreError) as raised:
        sample_store.query(sql.format(folder=sample_store.path))
    assert raised.value.rule == "bad_query"


def test_a_bad_query_is_a_located_error(sample_store: Store) -> None:
    """A mistake in the SQL is reported on one line, never a traceback."""
    with pytest.raises(StoreError) as raised:
        sample_store.query("SELECT no_such_column FROM runs")
    assert raised.value.rule == "bad_query"
    assert "no_such_column" in str(raised.value)
    with pytest.raises(StoreError, match="parse"):
        sample_store.query("SELEC 1")


def test_secret_shaped_text_in_results_is_redacted(tmp_path: Path) -> None:
    """An observation may carry a secret-shaped string in a field the contract leaves open:
    the store keeps it as given, results never show it."""
    line = (NIGHTS[0] / "observations.jsonl").read_text(encoding="utf-8").splitlines()[0]
    document = json.loads(line)
    document["base"]["provenance"]["note"] = f"token {SECRET}"
    night = tmp_path / "night"
    night.mkdir()
    (night / "runs.jsonl").write_text(json.dumps(document) + "\n", encoding="utf-8")
    store = open_store(tmp_path / "s", create=True)
    assert store.ingest([night]).ok
    table = store.query(
        "SELECT observation, [observation] AS listed, {'o': observation} AS nested FROM detail"
    )
    assert SECRET not in json.dumps(table.to_pylist())
    assert "[redacted]" in table.column("observation")[0].as_py()
    assert SECRET in store.run("local-night", "codex-luna", "final-response", 1).observation


def test_an_empty_store_has_empty_views(tmp_path: Path) -> None:
    """No bundle yet: the views exist, with their columns and no row."""
    store = open_store(tmp_path / "s", create=True)
    assert store.query("SELECT count(*) AS n FROM runs").to_pylist() == [{"n": 0}]
    assert "observation" in store.query("SELECT * FROM detail").column_names
    assert store.history().num_rows == 0


def test_history_counts_each_nights_outcomes(sample_store: Store) -> None:
    """Per candidate x case x night: runs passed, failed, gate failed and not scored, as the
    records frame counts them; the night's outcome the worst of its scored runs."""
    order = [entry.id for entry in sample_store.bundles()]
    frame = records_frame(sample_store.runs_files(), bundle_order=order)
    table = sample_store.history()
    rows = table.to_pylist()
    assert len(rows) == frame.groupby(["candidate", "case", "bundle"], observed=True).ngroups
    for row in rows[::7]:
        runs = frame[
            (frame.candidate == row["candidate"])
            & (frame.case == row["case"])
            & (frame.bundle == row["bundle"])
        ]
        scoreable = runs[runs.scoreable]
        gate_failed = int((scoreable.gate_passed == False).sum())  # noqa: E712 (nullable)
        passed = int(((scoreable.gate_passed != False) & (scoreable.passed == True)).sum())  # noqa: E712
        counts = (row["runs"], row["passed"], row["failed"], row["gate_failed"], row["not_scored"])
        expected = (
            len(runs),
            passed,
            len(scoreable) - passed - gate_failed,
            gate_failed,
            len(runs) - len(scoreable),
        )
        assert counts == expected
        if gate_failed:
            assert row["outcome"] == "gate failed"
        elif expected[2]:
            assert row["outcome"] == "failed"
        elif passed:
            assert row["outcome"] == "passed"
        else:
            assert row["outcome"] == "not scored"
    outcomes = {row["outcome"] for row in rows}
    assert outcomes == {"passed", "failed", "gate failed", "not scored"}


def test_history_of_one_candidate_and_case_is_in_night_order(sample_store: Store) -> None:
    """Filtered, one row per night, nights in order."""
    table = sample_store.history(candidate="opencode-glm", case="final-response")
    assert table.column("position").to_pylist() == [0, 1, 2, 3]
    assert set(table.column("candidate").to_pylist()) == {"opencode-glm"}
    assert table.column("runs").to_pylist() == [3, 3, 3, 3]
    assert sample_store.history(candidate="nobody").num_rows == 0


SMALL_READS = """
import sys
from scorecard.store import open_store
store = open_store(sys.argv[1])
store.run("campaign-2026-11-22", "opencode-glm", "restart-recovery", 1)
store.history(candidate="opencode-glm", case="restart-recovery")
store.query("SELECT bundle, avg(overall_score) FROM runs GROUP BY ALL")
print(sorted(name for name in ("pandas", "matplotlib", "typer", "rich") if name in sys.modules))
"""


def test_small_reads_never_load_pandas(sample_store: Store) -> None:
    """A run's detail, a history and a query load no pandas (pyarrow would, given Python
    values to convert: a third of a second of a drill-down)."""
    done = subprocess.run(
        [sys.executable, "-c", SMALL_READS, str(sample_store.path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "[]"
