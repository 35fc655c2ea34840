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
