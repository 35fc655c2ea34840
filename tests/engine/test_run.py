"""The one scoring run (``score_run``) and ``load_records`` on it: whatever view is asked for and
however many workers score it, the results are the serial general path's, in input order."""

from __future__ import annotations

import io
import json
import multiprocessing
import shutil
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError
from scorecard.core._record import ScoredRecord
from scorecard.engine import _chunk_scorer
from scorecard.engine._pipeline import score_paths_serially, score_record
from scorecard.engine._rows import record_row, scored_row
from scorecard.engine._run import load_records, score_run
from scorecard.engine.parquet import read_parquet_rows, write_parquet
from tests.conftest import PYTHON_ONLY, ROOT

SAMPLE = ROOT / "observations"
NIGHTLIES = sorted(folder for folder in SAMPLE.iterdir() if folder.is_dir())


def described(item: Any) -> str:
    """A row by its repr (exact floats, int and float told apart, NaN equal to NaN), an error by
    its located message and rule."""
    if isinstance(item, InputError):
        return f"error {item} [{item.rule}]"
    return repr(item)


def serial_rows(paths: list[str], catalog: Catalog) -> list[str]:
    """The general path's rows and errors, record by record, described."""
    return [
        described(result if isinstance(result, InputError) else scored_row(result))
        for result in score_paths_serially(paths, catalog=catalog)
    ]


def serial_records(
    paths: list[str], catalog: Catalog, stdin: bytes | None = None, bundle_id: str | None = None
) -> list[dict[str, Any] | str]:
    """The general path's records (as record documents) and errors."""
    results = score_paths_serially(
        paths,
        catalog=catalog,
        bundle_id=bundle_id,
        stdin=io.BytesIO(stdin) if stdin is not None else None,
    )
    return [
        described(result) if isinstance(result, InputError) else result.record_json()
        for result in results
    ]


def from_records_text(path: Path) -> list[str]:
    """The lines of a records file."""
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture
def broken_folder(tmp_path: Path) -> Path:
    """A folder of the first nightly's lines and bad ones between them: a line that is not
    JSON, one spelt as ``json.dumps`` spells it (spaces: the fast path reads it too), a bad
    observation, a bad
    ``.json`` file and an empty line."""
    lines = (NIGHTLIES[0] / "observations.jsonl").read_text(encoding="utf-8").splitlines()
    spaced = json.dumps(json.loads(lines[3]))
    invalid = json.loads(lines[4])
    invalid["classification"] = "finished"
    folder = tmp_path / "broken"
    folder.mkdir()
    shutil.copy(NIGHTLIES[0] / "bundle.json", folder / "bundle.json")
    text = [*lines[:3], "{not json", spaced, json.dumps(invalid), "", *lines[5:40]]
    (folder / "a.jsonl").write_text("\n".join(text) + "\n", encoding="utf-8")
    (folder / "b.json").write_text("[1, ", encoding="utf-8")
    (folder / "c.jsonl").write_text("\n".join(lines[40:60]) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("workers", [1, 2])
def test_loaded_rows_are_the_serial_rows(catalog: Catalog, workers: int) -> None:
    """``load_records`` over observation folders gives the serial path's rows, value and type,
    in input order, and the bundles in first-seen order."""
    expected = serial_rows([str(SAMPLE)], catalog)
    loaded = load_records([SAMPLE], catalog=catalog, workers=workers)
    assert len(expected) == 560
    assert [described(row) for row in loaded.rows] == expected
    assert loaded.errors == []
    assert loaded.bundle_order == [
        "campaign-2026-11-01",
        "campaign-2026-11-08",
        "campaign-2026-11-15",
        "campaign-2026-11-22",
    ]


def test_plain_lines_take_the_fast_path_and_declined_ones_the_general_path(
    catalog: Catalog, broken_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows come from the compiled scorer, spaced lines included: the general path scores only
    what it declines (the broken JSON and the bad observation). Under
    ``SCORECARD_ENGINE=python`` it scores every line instead."""
    generally_scored: list[int | None] = []

    def counting(record: Any, **options: Any) -> Any:
        generally_scored.append(getattr(record, "line", None))
        return score_record(record, **options)

    monkeypatch.setattr(_chunk_scorer, "score_record", counting)
    loaded = load_records([SAMPLE], catalog=catalog)
    assert len(loaded.rows) == 560
    assert len(generally_scored) == (560 if PYTHON_ONLY else 0)
    generally_scored.clear()
    load_records([broken_folder / "a.jsonl"], catalog=catalog)
    assert generally_scored == ([*range(1, 7), *range(8, 43)] if PYTHON_ONLY else [4, 6])


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("chunk_bytes", [1, 50_000])
def test_bad_input_is_located_in_input_order_and_loses_no_good_row(
    catalog: Catalog, broken_folder: Path, tmp_path: Path, workers: int, chunk_bytes: int
) -> None:
    """Errors between rows are the serial path's, located and in their place; a missing path
    and a broken file lose none of the good rows around them."""
    paths = [str(broken_folder), str(tmp_path / "missing"), str(NIGHTLIES[1])]
    expected = serial_rows(paths, catalog)
    run = score_run(paths, catalog=catalog, workers=workers, chunk_bytes=chunk_bytes)
    assert [described(item) for item in run.rows()] == expected
    assert sum(item.startswith("error") for item in expected) == 4
    assert len(expected) == 4 + 39 + 20 + 140


@pytest.mark.parametrize("workers", [1, 2])
def test_scored_inputs_are_read_in_their_turn(
    catalog: Catalog, tmp_path: Path, workers: int
) -> None:
    """Records files and Parquet among observation paths are read where they are given; runs of
    the observations are numbered across all observation paths (the same folder twice: its
    runs continue), the scored inputs keep their own numbers."""
    first, second, third, _ = (str(folder) for folder in NIGHTLIES)
    records_file = tmp_path / "second.records.jsonl"
    records_file.write_text(
        "".join(
            result.numbered(result.repetition + 6).render("records") + "\n"
            for result in score_paths_serially([second], catalog=catalog)
            if isinstance(result, ScoredRecord)
        ),
        encoding="utf-8",
    )
    parquet = tmp_path / "third.parquet"
    write_parquet(
        (
            scored_row(r)
            for r in score_paths_serially([third], catalog=catalog)
            if isinstance(r, ScoredRecord)
        ),
        parquet,
    )
    observed = serial_rows([first, first], catalog)
    from_records = [
        described(record_row(json.loads(line))) for line in from_records_text(records_file)
    ]
    from_parquet = [described(row) for row in read_parquet_rows(parquet)]
    repetitions = {json.loads(line)["repetition"] for line in from_records_text(records_file)}
    assert repetitions == {7, 8, 9}

    loaded = load_records([first, records_file, first, parquet], catalog=catalog, workers=workers)
    assert [described(row) for row in loaded.rows] == [
        *observed[:140],
        *from_records,
        *observed[140:],
        *from_parquet,
    ]
    assert loaded.errors == []
    assert loaded.bundle_order == [
        "campaign-2026-11-01",
        "campaign-2026-11-08",
        "campaign-2026-11-15",
    ]


def test_inputs_are_announced_in_the_order_they_are_read(
    catalog: Catalog, broken_folder: Path, tmp_path: Path
) -> None:
    """``on_file`` hears of each file (and a missing path) once, as reading reaches it."""
    records_file = tmp_path / "scored.jsonl"
    records_file.write_text(
        next(
            result.render("records") + "\n"
            for result in score_paths_serially([str(NIGHTLIES[0])], catalog=catalog)
            if isinstance(result, ScoredRecord)
        ),
        encoding="utf-8",
    )
    heard: list[str] = []
    missing = str(tmp_path / "missing")
    load_records(
        [broken_folder, missing, records_file, NIGHTLIES[1]],
        catalog=catalog,
        on_file=heard.append,
    )
    assert heard == [
        str(broken_folder / "a.jsonl"),
        str(broken_folder / "b.json"),
        str(broken_folder / "c.jsonl"),
        missing,
        str(records_file),
        str(NIGHTLIES[1] / "observations.jsonl"),
    ]


@pytest.mark.parametrize("workers", [1, 2])
def test_records_are_the_serial_records(
    catalog: Catalog, broken_folder: Path, workers: int
) -> None:
    """The records view (explain, the gate) gives the serial path's records, numbered, with its
    errors in their places."""
    paths = [str(broken_folder), str(SAMPLE)]
    expected = serial_records(paths, catalog)
    run = score_run(paths, catalog=catalog, workers=workers, chunk_bytes=20_000)
    found = [
        described(item) if isinstance(item, InputError) else item.record_json()
        for item in run.records()
    ]
    assert found == expected
    assert run.summary.scored == 560 + 59
    assert run.summary.rejected == 3


def test_a_workers_records_travel_packed_and_read_back_whole(catalog: Catalog) -> None:
    """Two workers send each record packed (``engine.PackedDocuments``: a quarter of pickling's
    time) and the main process reads it back: every field equal to one worker's record, its
    documents in the same key order, its findings the same type."""
    import json

    from scorecard.core import Finding

    paths = [str(SAMPLE)]
    here = list(score_run(paths, catalog=catalog, workers=1).records())
    sent = list(score_run(paths, catalog=catalog, workers=2, chunk_bytes=20_000).records())
    assert len(sent) == len(here) == 560
    for mine, theirs in zip(here, sent, strict=True):
        assert isinstance(mine, ScoredRecord)
        assert isinstance(theirs, ScoredRecord)
        assert theirs == mine
        assert json.dumps(theirs.observation) == json.dumps(mine.observation)
        assert json.dumps(theirs.card) == json.dumps(mine.card)
        assert all(type(finding) is Finding for finding in theirs.findings)
        assert theirs.bundle == mine.bundle


def test_a_record_packed_compressed_reads_back_whole(catalog: Catalog) -> None:
    """Packed compressed (how a report keeps the runs it details), a record reads back equal,
    its documents in the same key order, in fewer bytes than packed plain; so does a copy sent
    through pickle."""
    import json
    import pickle

    from scorecard.engine import PackedDocuments

    records = list(score_run([str(SAMPLE)], catalog=catalog, workers=1).records())
    plain = compressed = 0
    for record in records:
        assert isinstance(record, ScoredRecord)
        packed = PackedDocuments.of(record, compressed=True)
        assert packed is not None
        whole = PackedDocuments.of(record)
        assert whole is not None
        assert packed != whole
        for copy in (packed, pickle.loads(pickle.dumps(packed))):
            back = copy.record()
            assert back == record
            assert json.dumps(back.observation) == json.dumps(record.observation)
            assert json.dumps(back.card) == json.dumps(record.card)
        plain += len(whole.documents)
        compressed += len(packed.documents)
    assert compressed * 3 < plain * 2


def test_records_from_stdin_with_a_bundle_id(catalog: Catalog) -> None:
    """``-`` reads standard input, and ``bundle_id`` names the bundle, as the serial path does."""
    data = (NIGHTLIES[2] / "observations.jsonl").read_bytes()
    expected = serial_records(["-"], catalog, stdin=data, bundle_id="mine")
    run = score_run(["-"], catalog=catalog, workers=2, bundle_id="mine", stdin=io.BytesIO(data))
    found = [item.record_json() for item in run.records() if isinstance(item, ScoredRecord)]
    assert found == expected
    assert {record["bundleId"] for record in found} == {"mine"}


@pytest.mark.parametrize("view", ["rows", "records", "text"])
def test_no_worker_process_outlives_its_run(catalog: Catalog, view: str) -> None:
    """Worker processes end with the run, whether it is read to the end or abandoned."""
    run = score_run([SAMPLE], catalog=catalog, workers=2, chunk_bytes=10_000)
    results = getattr(run, view)()
    next(results)
    assert multiprocessing.active_children() != []
    results.close()
    assert multiprocessing.active_children() == []
    for _ in getattr(score_run([SAMPLE], catalog=catalog, workers=2), view)():
        pass
    assert multiprocessing.active_children() == []


def test_workers_must_be_positive(catalog: Catalog) -> None:
    """Zero workers is a mistake, said at once."""
    with pytest.raises(ValueError, match="at least 1"):
        score_run([SAMPLE], catalog=catalog, workers=0)


@pytest.mark.parametrize("workers", [None, 2])
def test_the_public_score_paths_is_the_runs_records_view(
    catalog: Catalog, broken_folder: Path, workers: int | None
) -> None:
    """``scorecard.score_paths`` gives the serial path's records and errors, in order, with the
    same summary, on any number of workers."""
    import scorecard
    from scorecard.engine._pipeline import RunSummary

    paths = [str(broken_folder), str(NIGHTLIES[1])]
    expected_summary, summary = RunSummary(), RunSummary()
    expected = [
        item.render("records") if isinstance(item, ScoredRecord) else str(item)
        for item in score_paths_serially(paths, catalog=catalog, summary=expected_summary)
    ]
    results = list(scorecard.score_paths(paths, catalog=catalog, summary=summary, workers=workers))
    got = [
        item.render("records") if isinstance(item, ScoredRecord) else str(item) for item in results
    ]
    assert got == expected
    assert summary.line() == expected_summary.line()
    assert sum(isinstance(item, InputError) for item in results) == 3


@pytest.mark.parametrize("workers", [1, 2])
def test_rows_hold_the_effective_gate_when_the_audit_gates(catalog: Catalog, workers: int) -> None:
    """With ``auditGate: true`` a row's gate is the record's (a failed finding fails it), as the
    gate judges it; some sample runs pass the scorecard's gate and fail the audit's."""
    from scorecard.contract import ROW_FIELDS, Policy

    policy = Policy(audit_gate=True)
    records = [
        item
        for item in score_paths_serially([str(NIGHTLIES[3])], catalog=catalog, policy=policy)
        if isinstance(item, ScoredRecord)
    ]
    flipped = [r for r in records if r.card["overall"]["gatePassed"] and not r.gate_passed]
    assert flipped
    loaded = load_records([NIGHTLIES[3]], catalog=catalog, policy=policy, workers=workers)
    gate = ROW_FIELDS.index("gate_passed")
    assert [row[gate] for row in loaded.rows] == [record.gate_passed for record in records]
    assert [record_row(r.record_json())[gate] for r in records] == [r.gate_passed for r in records]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_collector_is_paused_while_records_come_and_enabled_again(
    catalog: Catalog, workers: int
) -> None:
    """Scored records arrive with the cyclic collector paused, as rows do (a report keeps
    every one); it is on again when they are all read and when the reader stops early."""
    import gc

    paths = [str(ROOT / "observations")]
    assert gc.isenabled()
    states = [gc.isenabled() for _ in score_run(paths, catalog=catalog, workers=workers).records()]
    assert len(states) > 100
    assert not any(states)
    assert gc.isenabled()
    records = score_run(paths, catalog=catalog, workers=workers).records()
    next(records)
    assert not gc.isenabled()
    del records
    assert gc.isenabled()


def test_the_collector_is_paused_while_rows_come_and_enabled_again_however_they_stop(
    catalog: Catalog,
) -> None:
    """Rows arrive with the cyclic collector paused; it is on again when they are all read,
    when the reader stops early, and it stays off when the caller had turned it off."""
    import gc

    paths = [str(ROOT / "observations")]
    assert gc.isenabled()
    states = [gc.isenabled() for _ in score_run(paths, catalog=catalog).rows()]
    assert len(states) > 100
    assert not any(states)
    assert gc.isenabled()
    rows = score_run(paths, catalog=catalog).detailed_rows()
    next(rows)
    assert not gc.isenabled()
    del rows  # a reader that stops early: closing the generator ends the pause
    assert gc.isenabled()
    gc.disable()
    try:
        assert list(score_run(paths, catalog=catalog).rows())
        assert not gc.isenabled()
    finally:
        gc.enable()
