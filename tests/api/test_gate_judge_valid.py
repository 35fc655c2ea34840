"""``judge(..., judge_valid=True)`` and ``gate --judge-valid``: a night with rejected records is
judged on its valid ones, the rejected ones listed; without the option nothing is judged.

The verdict expected is the one ``judge`` reaches on the same folder before the bad lines were
added (another input, not the code under test's own output), and the locations are the lines
written here."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from scorecard import api
from scorecard.cli._app import app
from scorecard.contract import InputErrors
from scorecard.report import render_gate_json
from tests.conftest import ROOT

NIGHTS = ROOT / "observations"
KEY = "sk-" + "z0x9c8v7" * 4
BAD_LINES = ['{"schema": "nope"}', json.dumps({"schema": 3, "token": KEY})]


def copied(night: str, tmp_path: Path) -> Path:
    folder = tmp_path / night
    shutil.copytree(NIGHTS / night, folder)
    return folder


def spoil(folder: Path) -> Path:
    """Append the bad lines to the night's runs; returns the runs file."""
    runs = folder / "observations.jsonl"
    with runs.open("a", encoding="utf-8") as stream:
        stream.write("\n".join(BAD_LINES) + "\n")
    return runs


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(arg) for arg in args], input="")


def test_the_valid_records_get_the_clean_nights_verdict(tmp_path: Path) -> None:
    """Every outcome is the one of the night without the bad lines; the rejected records are
    located at those lines, and the result's note names them (redacted)."""
    current = copied("2026-11-22-nightly", tmp_path)
    baseline = NIGHTS / "2026-11-15-nightly"
    clean = api.judge(current, [baseline], workers=1)
    count = len((current / "observations.jsonl").read_text(encoding="utf-8").splitlines())
    runs = spoil(current)
    with pytest.raises(InputErrors):
        api.judge(current, [baseline], workers=1)
    judged = api.judge(current, [baseline], workers=1, judge_valid=True)
    assert [(error.source, error.line) for error in judged.rejected] == [
        (str(runs), count + 1),
        (str(runs), count + 2),
    ]
    assert judged.line == f"{clean.line} (2 input records rejected, not judged)"
    assert render_gate_json(
        dataclasses.replace(judged.result, receipt=None, notes=())
    ) == render_gate_json(dataclasses.replace(clean.result, receipt=None, notes=()))
    [note] = [note for note in judged.result.notes if "rejected by validation" in note]
    assert note.startswith("2 input records rejected by validation were not judged")
    assert f"{runs}:{count + 1} /schema" in note
    assert KEY not in note


def test_a_side_with_no_valid_record_still_raises(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(BAD_LINES) + "\n", encoding="utf-8")
    with pytest.raises(InputErrors) as raised:
        api.judge(bad, [], workers=1, judge_valid=True)
    assert [error.line for error in raised.value.errors] == [1, 2]


def test_a_verdict_on_the_valid_records_verifies(tmp_path: Path) -> None:
    """The receipt says the valid records were judged, so ``verify`` reaches the same verdict."""
    current = copied("2026-11-15-nightly", tmp_path)
    spoil(current)
    judged = api.judge(current, [NIGHTS / "2026-11-08-nightly"], workers=1, judge_valid=True)
    assert judged.result.receipt is not None
    assert judged.result.receipt.sources["judgeValid"] is True
    out = tmp_path / "gate.json"
    api.write_gate_reports(judged, api.GateReports(json=out))
    assert api.verify(out, workers=1).difference is None


def test_gate_judge_valid_exits_2_on_a_pass_and_1_on_a_fail(tmp_path: Path) -> None:
    """A pass on part of the input is no clean pass (2, the rejections on stderr); a fail is a
    fail (1); without the option nothing is judged (2)."""
    passing = copied("2026-11-15-nightly", tmp_path)
    runs = spoil(passing)
    baseline = NIGHTS / "2026-11-08-nightly"
    refused = invoke("gate", passing, "--baseline", baseline, "--workers", "1")
    assert refused.exit_code == 2
    assert refused.stdout == "gate: ERROR - bad input, nothing judged (see stderr)\n"
    judged = invoke("gate", passing, "--baseline", baseline, "--workers", "1", "--judge-valid")
    assert judged.exit_code == 2, judged.output
    assert judged.stdout.startswith("gate: PASS")
    assert judged.stdout.endswith("(2 input records rejected, not judged)\n")
    assert f"error: {runs}:" in judged.stderr
    failing = copied("2026-11-22-nightly", tmp_path)
    spoil(failing)
    judged = invoke(
        "gate", failing, "--baseline", NIGHTS / "2026-11-15-nightly", "--workers", "1",
        "--judge-valid",
    )  # fmt: skip
    assert judged.exit_code == 1, judged.output
    assert judged.stdout.startswith("gate: FAIL")
