"""``ScoringRun.stored_blocks``: every run as a campaign store keeps it, equal to what the general
path's scored records hold, for any worker count and with the C extension off."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError
from scorecard.contract._policy import Policy
from scorecard.core import ScoredRecord, record_line
from scorecard.engine import StoredRun, stored_record
from scorecard.engine._pipeline import score_paths_serially
from scorecard.engine._rows import scored_row
from scorecard.engine._run import score_run
from scorecard.fast import _fastpath as fastpath
from tests.engine.test_run import NIGHTLIES, broken_folder, described

__all__ = ["broken_folder"]  # the fixture, shared


def expected_runs(paths: list[str], catalog: Catalog, policy: Policy) -> list[str]:
    """What the general path's records hold of each run, as :class:`StoredRun` s (described),
    and its errors: the definition the view is held to."""
    found: list[str] = []
    for result in score_paths_serially(paths, catalog=catalog, policy=policy):
        if isinstance(result, InputError):
            found.append(described(result))
            continue
        record = result.record_json()
        failed = [item for item in record["audit"]["findings"] if item["status"] == "failed"]
        failed_json = [f.to_json() for f in result.findings if f.status == "failed"]
        assert [item["code"] for item in failed] == [item["code"] for item in failed_json]
        stored = StoredRun(
            scored_row(result),
            result.render("jsonl"),
            json.dumps(failed_json, ensure_ascii=False, separators=(",", ":"))
            if failed_json
            else None,
            None
            if record["failure"] is None
            else json.dumps(record["failure"], ensure_ascii=False, separators=(",", ":")),
            line_of(result),
            record["source"]["file"],
            record["source"]["line"],
            record["source"]["index"],
        )
        found.append(repr(stored))
    return found


def line_of(record: ScoredRecord) -> bytes:
    """The observation as a store keeps it: its line as given, or compact JSON (a ``.json``)."""
    if record.line is None:
        return json.dumps(record.observation, ensure_ascii=False, separators=(",", ":")).encode()
    with open(record.source, "rb") as stream:
        lines = stream.read().split(b"\n")
    return lines[record.line - 1].rstrip(b"\r").removeprefix(b"\xef\xbb\xbf")


def stored(
    paths: list[str], catalog: Catalog, policy: Policy, **options: Any
) -> tuple[list[str], Any]:
    """The runs (described), then the errors, each in input order, and the run's summary."""
    run = score_run(paths, catalog=catalog, policy=policy, **options)
    blocks = list(run.stored_blocks())
    runs = [repr(item) for block in blocks for item in block.runs()]
    errors = [described(error) for block in blocks for error in block.errors]
    return runs + errors, run.summary


def in_kinds(items: list[str]) -> list[str]:
    """``items`` (runs and errors, interleaved) as :func:`stored` gives them: runs first."""
    return [item for item in items if item.startswith("StoredRun")] + [
        item for item in items if not item.startswith("StoredRun")
    ]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("audit_gate", [False, True])
def test_stored_runs_are_what_the_records_hold(
    catalog: Catalog,
    compiled: bool,
    workers: int,
    audit_gate: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rows, scorecard lines, failed findings, failures, lines and sources of the sample nights
    (infrastructure failures, gate failures, audit findings among them) are the records'."""
    if not compiled:
        monkeypatch.setattr(fastpath, "_fastscore", None)
    policy = Policy(audit_gate=audit_gate)
    paths = [str(folder) for folder in NIGHTLIES]
    expected = in_kinds(expected_runs(paths, catalog, policy))
    items, summary = stored(paths, catalog, policy, workers=workers, chunk_bytes=40_000)
    assert expected == items
    assert summary.scored == len(items)
    runs = [item for item in items if "StoredRun" in item]
    assert any('\'{"code"' in item for item in runs)  # failures
    assert any('\'[{"code"' in item for item in runs)  # failed findings


@pytest.mark.parametrize("chunk_bytes", [1, 50_000])
def test_declined_and_bad_lines_are_the_general_paths_in_their_place(
    catalog: Catalog, broken_folder: Path, chunk_bytes: int
) -> None:
    """Errors are located and in order; a line the C code declines (spaces), and a ``.json``
    file's records, are kept as the general path has them."""
    (broken_folder / "one.json").write_text(
        json.dumps([json.loads(line) for line in _lines(NIGHTLIES[1])[:2]], indent=1),
        encoding="utf-8",
    )
    paths = [str(broken_folder)]
    policy = Policy()
    items, summary = stored(paths, catalog, policy, chunk_bytes=chunk_bytes)
    assert in_kinds(expected_runs(paths, catalog, policy)) == items
    assert summary.rejected == 3
    assert any(
        "source_line=None, source_index=1)" in item for item in items
    )  # an element of a .json array


def _lines(folder: Path) -> list[str]:
    return (folder / "observations.jsonl").read_text(encoding="utf-8").splitlines()


def test_only_the_bundles_asked_for_are_read(catalog: Catalog, tmp_path: Path) -> None:
    """``bundles`` picks the files of those bundles; a broken manifest elsewhere is still
    reported."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bundle.json").write_text("{", encoding="utf-8")
    (broken / "x.jsonl").write_text(_lines(NIGHTLIES[0])[0] + "\n", encoding="utf-8")
    paths = [str(NIGHTLIES[0]), str(NIGHTLIES[1]), str(tmp_path)]
    run = score_run(paths, catalog=catalog)
    blocks = list(run.stored_blocks(bundles={"campaign-2026-11-08"}))
    runs = [item for block in blocks for item in block.runs()]
    errors = [error for block in blocks for error in block.errors]
    assert {item.row[0] for item in runs} == {"campaign-2026-11-08"}
    assert len(runs) == len(_lines(NIGHTLIES[1]))
    assert [error.rule for error in errors] == ["malformed_json"]


def test_a_kept_observation_scores_again_into_its_record(catalog: Catalog) -> None:
    """``stored_record`` of a stored run gives the record ``score --format records`` writes."""
    paths = [str(NIGHTLIES[3])]
    records = [
        result
        for result in score_paths_serially(paths, catalog=catalog)
        if isinstance(result, ScoredRecord)
    ]
    runs = [
        item for block in score_run(paths, catalog=catalog).stored_blocks() for item in block.runs()
    ]
    assert len(runs) == len(records)
    for run, record in zip(runs, records, strict=True):
        assert isinstance(run, StoredRun)
        again = stored_record(
            run.observation,
            source=run.source_file,
            line=run.source_line,
            index=run.source_index,
            repetition=run.row[6],
            bundle=record.bundle,
            catalog=catalog,
            policy=Policy(),
        )
        assert isinstance(again, ScoredRecord)
        assert record_line(record) == record_line(again)
