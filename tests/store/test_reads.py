"""What the views read from a store is what they read from the same folders: the frame, the
gate's sides (and so the gate's bytes), the scored records and record lines, a run's detail."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from scorecard.aggregate import records_frame
from scorecard.contract import InputError, StoreError
from scorecard.core import explain_record, record_line
from scorecard.engine import load_records, score_run, scoring_catalog
from scorecard.gate import GateRules, evaluate_gate, rows_side
from scorecard.report import render_gate_json, render_markdown, verdict_line, write_junit_runs
from scorecard.store import Store, open_store
from tests.store.conftest import NIGHTS, SAMPLES, write_campaign


def described(items: Any) -> list[str]:
    """Rows and details by their repr (NaN equal to NaN, int and float told apart)."""
    return [repr(item) for item in items]


def folder_rows(folder: Path, *, every: bool) -> list[Any]:
    run = score_run([str(folder)], catalog=scoring_catalog())
    items = list(run.detailed_rows(every=every))
    assert not any(isinstance(item, InputError) for item in items)
    return items


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, list[Path]]:
    """A store of a generated campaign (other seeds: other failures and findings) and its
    folders."""
    folder = tmp_path_factory.mktemp("generated")
    nights = write_campaign(folder / "campaign", seed=7, bundles=3)
    store = open_store(folder / "store", create=True)
    assert store.ingest(nights, workers=2).ok
    return store, nights


def test_the_frame_of_the_runs_files_is_the_frame_of_the_folders(sample_store: Store) -> None:
    """``records_frame`` over the runs files (the source columns ignored) equals it over the
    observations, bundles in night order."""
    order = [entry.id for entry in sample_store.bundles()]
    from_store = records_frame(sample_store.runs_files(), bundle_order=order)
    loaded = load_records([SAMPLES])
    from_folders = records_frame(loaded, bundle_order=loaded.bundle_order)
    assert loaded.bundle_order == order
    pd.testing.assert_frame_equal(from_store, from_folders)
    some = sample_store.runs_files(["campaign-2026-11-22", "campaign-2026-11-01"])
    assert [path.parent.name for path in some] == ["campaign-2026-11-01", "campaign-2026-11-22"]


@pytest.mark.parametrize("every", [False, True])
def test_detailed_rows_are_the_folders(sample_store: Store, every: bool) -> None:
    """Rows and the detail of the runs a verdict shows, exactly as the scoring run gives them
    for the bundle's folder."""
    for night, entry in zip(NIGHTS, sample_store.bundles(), strict=True):
        expected = folder_rows(night, every=every)
        assert described(sample_store.detailed_rows(entry.id, every=every)) == described(expected)


def test_detailed_rows_of_a_generated_campaign_are_the_folders(
    generated: tuple[Store, list[Path]],
) -> None:
    """Another campaign: other failures, findings and forbidden calls, the same equality."""
    store, nights = generated
    for night, entry in zip(nights, store.bundles(), strict=True):
        for every in (False, True):
            expected = folder_rows(night, every=every)
            assert described(store.detailed_rows(entry.id, every=every)) == described(expected)


def _gate_outputs(current: Any, baseline: Any) -> tuple[str, str, str, str]:
    rules = GateRules()
    result = evaluate_gate(
        rows_side(current, source="current"), rows_side(baseline, source="base"), rules, seed=0
    )
    line = verdict_line(result, fail_on_inconclusive=False)
    runs = io.StringIO()
    write_junit_runs(result, runs)
    return line, render_gate_json(result), render_markdown(result, line), runs.getvalue()


def test_a_gate_from_the_store_is_the_gate_from_the_folders(sample_store: Store) -> None:
    """The newest night against the one before: verdict line, JSON, markdown and per-run
    JUnit (every run's detail), byte for byte."""
    newest, before = "campaign-2026-11-22", "campaign-2026-11-15"
    from_store = _gate_outputs(
        sample_store.detailed_rows(newest, every=True), sample_store.detailed_rows(before)
    )
    from_folders = _gate_outputs(
        folder_rows(NIGHTS[3], every=True), folder_rows(NIGHTS[2], every=False)
    )
    assert from_store == from_folders
    assert "fail" in from_store[0]
    lean_baseline = _gate_outputs(
        sample_store.detailed_rows(newest, every=True),
        sample_store.detailed_rows(before, findings_only=True),
    )
    assert lean_baseline == from_folders


def test_findings_only_keeps_what_a_baseline_side_reads(sample_store: Store) -> None:
    """The same rows, and for the same runs the failed findings and whether they gate."""
    for entry in sample_store.bundles():
        full = list(sample_store.detailed_rows(entry.id))
        lean = list(sample_store.detailed_rows(entry.id, findings_only=True))
        assert described(row for row, _ in lean) == described(row for row, _ in full)
        assert [None if d is None else d[1:3] for _, d in lean] == [
            None if d is None else d[1:3] for _, d in full
        ]


def test_record_lines_are_what_score_writes(sample_store: Store) -> None:
    """``scorecard score FOLDER --format records`` (the one engine's records text), byte for
    byte, for every sample night."""
    for night, entry in zip(NIGHTS, sample_store.bundles(), strict=True):
        expected = "".join(
            piece
            for piece in score_run([str(SAMPLES)], catalog=scoring_catalog()).text("records")
            if isinstance(piece, str) and f'"bundleId":"{entry.id}"' in piece
        )
        assert "".join(sample_store.record_lines(entry.id)) == expected
        assert expected.count("\n") == 140
        del night


def test_record_lines_of_a_generated_campaign_through_the_command(
    generated: tuple[Store, list[Path]], tmp_path: Path
) -> None:
    """The command itself: ``scorecard score NIGHT --format records --out FILE``."""
    store, nights = generated
    for night, entry in zip(nights, store.bundles(), strict=True):
        out = tmp_path / f"{entry.id}.jsonl"
        subprocess.run(
            [
                *(sys.executable, "-m", "scorecard", "score", str(night)),
                *("--format", "records", "--out", str(out), "--workers", "1"),
            ],
            check=True,
            capture_output=True,
        )
        assert "".join(store.record_lines(entry.id)) == out.read_text(encoding="utf-8")


def test_scored_records_explain_as_the_folders_do(sample_store: Store) -> None:
    """The records the store gives are the scoring run's: same lines, same explanations (the
    unredacted reasons, pointers and every audit finding)."""
    catalog = sample_store.catalog
    expected = [
        record
        for record in score_run([str(NIGHTS[3])], catalog=scoring_catalog()).records()
        if not isinstance(record, InputError)
    ]
    stored = list(sample_store.scored_records(["campaign-2026-11-22"]))
    assert [record_line(record) for record in stored] == [
        record_line(record) for record in expected
    ]
    assert [explain_record(record, catalog) for record in stored] == [
        explain_record(record, catalog) for record in expected
    ]


def test_a_runs_detail_is_its_record(sample_store: Store) -> None:
    """Observation as given, scorecard line, failed findings, failure and source."""
    records = {
        (record.card["candidateId"], record.card["caseId"], record.repetition): record
        for record in sample_store.scored_records(["campaign-2026-11-15"])
    }
    lines = (NIGHTS[2] / "observations.jsonl").read_text(encoding="utf-8").splitlines()
    failures = 0
    for (candidate, case, repetition), record in records.items():
        detail = sample_store.run("campaign-2026-11-15", candidate, case, repetition)
        document = record.record_json()
        assert detail.observation == lines[detail.source_line - 1]  # type: ignore[operator]
        assert detail.scorecard == record.render("jsonl")
        failed = [item for item in document["audit"]["findings"] if item["status"] == "failed"]
        assert [item["code"] for item in detail.findings] == [item["code"] for item in failed]
        assert detail.failure == document["failure"]
        assert (detail.source_file, detail.source_line) == (
            document["source"]["file"],
            document["source"]["line"],
        )
        failures += detail.failure is not None
    assert failures > 0
    with pytest.raises(StoreError) as raised:
        sample_store.run("campaign-2026-11-15", "codex-luna", "final-response", 9)
    assert raised.value.rule == "unknown_run"
    with pytest.raises(StoreError) as raised:
        sample_store.bundle("campaign-1999-01-01")
    assert raised.value.rule == "unknown_bundle"


READ_WITHOUT_SCORECARD = """
import glob, sys
import duckdb, pandas, polars
root = sys.argv[1]
files = sorted(glob.glob(root + "/runs/*/*.parquet"))
duck = duckdb.sql(f"SELECT bundle, count(*), round(sum(overall_score), 9) FROM read_parquet('{root}/runs/**/*.parquet') GROUP BY ALL ORDER BY 1").fetchall()
pola = polars.scan_parquet(root + "/runs/**/*.parquet").group_by("bundle").agg(polars.len(), polars.col("overall_score").sum().round(9)).sort("bundle").collect().rows()
frame = pandas.read_parquet(files, partitioning=None)
pand = [(b, len(g), round(g["overall_score"].sum(), 9)) for b, g in frame.groupby("bundle")]
detail = duckdb.sql(f"SELECT count(*) FROM read_parquet('{root}/detail/**/*.parquet') WHERE observation LIKE '%caseId%'").fetchall()
print(duck == pola == pand, duck[0][1], detail[0][0], "scorecard" in sys.modules)
"""


def test_other_tools_read_the_store_without_scorecard(sample_store: Store) -> None:
    """DuckDB, Polars and pandas (in a process that never imports scorecard) agree on the
    runs files, and DuckDB reads the detail."""
    done = subprocess.run(
        [sys.executable, "-c", READ_WITHOUT_SCORECARD, str(sample_store.path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["True", "140", "560", "False"]


def test_the_distributed_path_reads_the_runs_folder(sample_store: Store) -> None:
    """``read_dataset`` (Dask) over ``runs/`` and ``dask_report`` give the reference report of
    the runs files read here."""
    pytest.importorskip("dask.dataframe")
    from scorecard.aggregate import report_aggregate
    from scorecard.aggregate.distributed import dask_report, read_dataset

    frame = read_dataset(sample_store.path / "runs")
    assert set(frame.columns) >= {"bundle", "overall_score", "source_file", "source_line"}
    expected = report_aggregate(records_frame(sample_store.runs_files()), by=["bundle", "case"])
    pd.testing.assert_frame_equal(dask_report(frame, by=("bundle", "case")), expected)


@pytest.fixture(scope="module")
def small_groups(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """A store of the last two sample nights whose detail files hold row groups of 16 runs
    (each night several groups: work for several workers)."""
    from scorecard.store import _writer

    store = open_store(tmp_path_factory.mktemp("groups") / "store", create=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_writer, "DETAIL_ROW_GROUP", 16)
        assert store.ingest(NIGHTS[-2:], workers=1).ok
    return store


@pytest.mark.parametrize("workers", [1, 2])
def test_runs_kept_from_the_store_by_workers_are_those_kept_here(
    small_groups: Store, workers: int
) -> None:
    """``scored_records(keep=...)`` gives, in night and input order, what the keep keeps of
    each record ``scored_records()`` scores here (facts, row, documents, change values, by
    ``repr``), from the workers as from this process, with the names and repeated values the
    workers send shared here (:func:`~tests.report.kept_runs.assert_kept_as_here`)."""
    import pyarrow.parquet as pq

    from scorecard.report import keep_for_site, site_keeper
    from tests.report.kept_runs import assert_kept_as_here

    shown = [entry.id for entry in small_groups.bundles()]
    judged = shown[-1]
    for entry in small_groups.bundles():
        detail = small_groups.path / entry.files["detail"]
        assert pq.ParquetFile(detail).metadata.num_row_groups >= 4
    catalog = small_groups.catalog
    here = [keep_for_site(record, [judged], catalog) for record in small_groups.scored_records()]
    kept = list(small_groups.scored_records(shown, keep=site_keeper([judged]), workers=workers))
    assert_kept_as_here(here, kept)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_that_scores_differently_now_is_a_located_error(
    small_groups: Store, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose scorecard comes out other than the one the store keeps (another scorer
    version) is a StoreError naming its source line and saying what to do, also when a
    worker met it."""
    import dataclasses

    from scorecard.core import ScoredRecord
    from scorecard.engine import stored_record
    from scorecard.report import site_keeper
    from scorecard.store import _read

    last = small_groups.bundles()[-1].id
    victim = list(small_groups.scored_records([last]))[40]  # in a middle row group
    real = stored_record

    def drifted(*args: Any, **kwargs: Any) -> Any:
        record = real(*args, **kwargs)
        assert isinstance(record, ScoredRecord)
        if kwargs["source"] == victim.source and kwargs["line"] == victim.line:
            return dataclasses.replace(record, card={**record.card, "caseId": "another"})
        return record

    monkeypatch.setattr(_read, "stored_record", drifted)
    with pytest.raises(StoreError) as raised:
        list(small_groups.scored_records([last], keep=site_keeper([last]), workers=workers))
    error = raised.value
    assert error.rule == "scored_differently"
    assert f"{victim.source}:{victim.line}" in str(error)
    assert "ingest bundle" in str(error)
    assert "again with replace" in str(error)
    assert error.source is not None
    assert error.source.endswith(".parquet")
