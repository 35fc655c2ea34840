"""``gate --format json``: the result on stdout, as --json writes it, with the same exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NIGHTS = ROOT / "observations"


def gate(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scorecard", "gate", *map(str, args), "--workers", "1"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


def test_format_json_prints_what_json_writes_and_keeps_the_exit_status(tmp_path: Path) -> None:
    for current, baseline, status in [
        ("2026-11-22-nightly", "2026-11-15-nightly", 1),  # opencode-glm fails
        ("2026-11-15-nightly", "2026-11-08-nightly", 0),
    ]:
        written = tmp_path / f"{current}.json"
        line = gate(NIGHTS / current, "--baseline", NIGHTS / baseline, "--json", written)
        printed = gate(NIGHTS / current, "--baseline", NIGHTS / baseline, "--format", "json")
        assert (line.returncode, printed.returncode) == (status, status)
        assert printed.stdout == written.read_text(encoding="utf-8")
        document = json.loads(printed.stdout)
        assert document["schema"] == "scorecard.gate.v1"
        assert document["verdict"] == ("fail" if status else "pass")
        assert line.stdout.startswith("gate: ")
        assert printed.stderr.strip().endswith(line.stdout.strip())  # the verdict on stderr


def test_an_unknown_format_is_a_usage_error() -> None:
    result = gate(NIGHTS / "2026-11-15-nightly", "--format", "yaml")
    assert result.returncode == 2
    assert "--format" in result.stderr


def test_each_json_failure_says_where_and_why_with_the_output_contract() -> None:
    """opencode-glm's final-response run 2 of 2026-11-22 (sample line 42) fails on a forbidden
    call: its failure names the file and line, and the reason its pointer, expected, observed
    and the observation schema's $id."""
    printed = gate(NIGHTS / "2026-11-22-nightly", "--format", "json")
    document = json.loads(printed.stdout)
    (failure,) = [
        item
        for item in document["failures"]
        if (item["candidate"], item["case"], item["repetition"])
        == ("opencode-glm", "final-response", 2)
    ]
    assert failure["source"] == {
        "file": str(NIGHTS / "2026-11-22-nightly" / "observations.jsonl"),
        "line": 42,
        "index": None,
    }
    assert {
        "dimension": "hard_invariants",
        "reason": "forbidden call(s) invoked: checkout_task",
        "pointer": "/base/observedCalls/0",
        "expected": failure["reasons"][0]["expected"],
        "observed": "checkout_task",
        "assertion": None,
        "schema": "https://paperclip.dev/schemas/runner-workflow-observation.v1.schema.json",
    } in failure["reasons"]
    assert failure["reasons"][0]["expected"].startswith("no call of /base/forbiddenCalls (")
    codes = {finding["code"]: finding for finding in failure["findings"]}
    assert codes["required_prp_event_missing"]["assertion"] == "/assertions/requiredPrpEventTypes"
