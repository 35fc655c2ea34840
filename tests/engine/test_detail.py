"""``ScoringRun.detailed_rows``: the rows view, with what a scored record holds beyond a row for
exactly the runs a verdict shows, equal to the general path's records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError
from scorecard.contract._policy import Policy
from scorecard.engine import _detail
from scorecard.engine._detail import RecordDetail, record_detail
from scorecard.engine._pipeline import score_paths_serially, score_record
from scorecard.engine._run import score_run
from scorecard.fast import _fastpath as fastpath
from tests.conftest import PYTHON_ONLY
from tests.engine.test_run import NIGHTLIES, broken_folder, described, serial_records

__all__ = ["broken_folder"]  # the fixture, shared


def failed(audit: Any) -> list[Any]:
    """The failed findings of a record's audit."""
    return [item for item in (audit or {}).get("findings", []) if item["status"] == "failed"]


def same_detail(detail: RecordDetail, record: dict[str, Any]) -> None:
    """The detail is what the record holds: reasons, failed findings, failure and source; its
    evidence is where the record was read and its failing dimensions' reasons."""
    assert detail[:5] == record_detail(record)[:5]
    reasons, findings, _, failure, source, evidence = detail
    assert evidence is not None
    assert (evidence.file, evidence.line) == (record["source"]["file"], record["source"]["line"])
    failing = [
        (name, reason)
        for name, dimension in record["scorecard"]["dimensions"].items()
        if dimension["passed"] is False
        for reason in dimension["reasons"]
    ]
    assert [(name, text) for name, text, _ in evidence.reasons] == failing
    assert reasons == tuple(
        tuple(dimension["reasons"]) for dimension in record["scorecard"]["dimensions"].values()
    )
    assert [code for code, *_ in findings] == [item["code"] for item in failed(record["audit"])]
    if record["failure"] is None:
        assert failure is None
    else:
        assert failure == f"{record['failure']['code']}: {record['failure']['message']}"
    assert source == f"{record['source']['file']}:{record['source']['line']}"


def ok(items: list[Any]) -> list[tuple[Any, RecordDetail | None]]:
    """``items``, checked to hold no error."""
    assert not any(isinstance(item, InputError) for item in items)
    return items


def shown(record: dict[str, Any]) -> bool:
    """Whether a verdict shows the run: its effective gate failed, or its audit failed."""
    return record["gatePassed"] is False or bool(failed(record["audit"]))


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("every", [False, True])
def test_detail_is_the_records_for_the_runs_shown(
    catalog: Catalog, workers: int, every: bool
) -> None:
    """Rows are the rows view's; detail comes with the gate-failed runs and those with failed
    findings (``every``: all runs) and holds what their records hold."""
    paths = [str(folder) for folder in NIGHTLIES[:2]]
    records = serial_records(paths, catalog)
    run = score_run(paths, catalog=catalog, workers=workers, chunk_bytes=30_000)
    items = ok(list(run.detailed_rows(every=every)))
    rows = list(score_run(paths, catalog=catalog).rows())
    assert [described(row) for row, _ in items] == [described(row) for row in rows]
    with_detail = 0
    for (_, detail), record in zip(items, records, strict=True):
        assert isinstance(record, dict)
        assert (detail is not None) == (every or shown(record))
        if detail is not None:
            with_detail += 1
            same_detail(detail, record)
    assert 10 < with_detail <= len(records)


@pytest.mark.parametrize("chunk_bytes", [1, 50_000])
def test_declined_and_bad_lines_are_the_general_paths_in_their_place(
    catalog: Catalog, broken_folder: Path, chunk_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Errors are located and in order, as the records view gives them; a line the C code
    declines (under ``SCORECARD_ENGINE=python``, every line) takes the general path, whose
    record gives the detail."""
    generally: list[int | None] = []

    def counting(record: Any, **options: Any) -> Any:
        generally.append(getattr(record, "line", None))
        return score_record(record, **options)

    monkeypatch.setattr(_detail, "score_record", counting)
    expected = serial_records([str(broken_folder)], catalog)
    run = score_run([broken_folder], catalog=catalog, chunk_bytes=chunk_bytes)
    items = list(run.detailed_rows(every=True))
    assert len(items) == len(expected)
    for item, record in zip(items, expected, strict=True):
        if isinstance(item, InputError):
            assert described(item) == record
        else:
            assert isinstance(record, dict)
            assert item[1] is not None
            same_detail(item[1], record)
    assert sum(isinstance(item, InputError) for item in items) == 3
    # the line that is not JSON, the bad observation, the broken .json file: no plain line;
    # under SCORECARD_ENGINE=python every line of a.jsonl, b.json and c.jsonl
    every_line = [*range(1, 7), *range(8, 43), 1, *range(1, 21)]
    assert generally == (every_line if PYTHON_ONLY else [4, 6, 1])
    assert run.summary.rejected == 3


def test_an_audit_gating_policy_gives_the_records_detail(catalog: Catalog) -> None:
    """With auditGate a failed finding fails the row's gate (in C as in the general path); the
    detail still is the record's."""
    policy = Policy(audit_gate=True)
    paths = [str(NIGHTLIES[3])]
    records = serial_records(paths, catalog)  # default policy: the same findings, other gates
    items = ok(list(score_run(paths, catalog=catalog, policy=policy).detailed_rows()))
    assert any(detail is not None and detail[2] for _, detail in items)  # the findings gated
    for (_, detail), record in zip(items, records, strict=True):
        assert isinstance(record, dict)
        if detail is not None:
            assert detail[1] == record_detail(record)[1]


@pytest.mark.parametrize("compiled", [True, False])
def test_the_detail_is_the_records_under_an_audit_gating_policy(
    catalog: Catalog, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every run's detail, C or Python, is its record's under the same policy: whether failed
    findings gate is the policy's, also for a run without any."""
    if not compiled:
        monkeypatch.setattr(fastpath, "_fastscore", None)
    policy = Policy(audit_gate=True)
    paths = [str(NIGHTLIES[3])]
    records = [
        record.record_json()
        for record in score_paths_serially(paths, catalog=catalog, policy=policy)
        if not isinstance(record, InputError)
    ]
    items = ok(list(score_run(paths, catalog=catalog, policy=policy).detailed_rows(every=True)))
    assert [detail[:5] for _, detail in items if detail is not None] == [
        record_detail(record)[:5] for record in records
    ]
    assert len(items) == len(records)


def test_the_evidence_is_the_same_on_both_engines(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each shown run's evidence (where it was read, each failing reason's contract) is the
    same whether C or Python scored the line."""
    paths = [str(NIGHTLIES[3])]
    compiled = ok(list(score_run(paths, catalog=catalog).detailed_rows()))
    monkeypatch.setattr(fastpath, "_fastscore", None)
    general = ok(list(score_run(paths, catalog=catalog).detailed_rows()))
    found = [detail[5] for _, detail in compiled if detail is not None]
    assert found == [detail[5] for _, detail in general if detail is not None]
    reasons = [reason for evidence in found if evidence for reason in evidence.reasons]
    assert reasons  # the night has failing runs
    assert all(contract.pointer.startswith("/") for _, _, contract in reasons)
