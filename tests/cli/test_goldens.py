"""`scorecard score` writes the same bytes, in every format, as before the package was restructured.

``tests/golden/score-digests.json`` holds the sha256 of each format's output over the sample
campaign (``observations/``), as written by commit f421075, the last one before the package was
split into subpackages. A digest is used instead of the outputs themselves (several MiB); on a
mismatch, run the same command on that commit and ``diff`` the two outputs. Parquet is compared
by its rows (the file's bytes also name the pyarrow version that wrote it).

``table-120`` is the one exception, changed on purpose: since the table chooses its layout by
width (issue 16), at 120 columns it is the compact layout (no vertical rules, one table per
bundle, no id cut), whose text is reviewed in ``tests/golden/score-120.txt``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from tests.conftest import ROOT

DIGESTS: dict[str, str] = json.loads((ROOT / "tests" / "golden" / "score-digests.json").read_text())

RUNS = {
    "jsonl": ["--format", "jsonl", "--workers", "1"],
    "jsonl-2-workers": ["--format", "jsonl", "--workers", "2"],
    "json": ["--format", "json", "--workers", "1"],
    "records": ["--format", "records", "--workers", "1"],
    "audit": ["--format", "audit", "--workers", "1"],
    "table-120": ["--format", "table", "--workers", "1"],
}


def _score(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "scorecard", "score", "observations/", *args],
        cwd=ROOT,
        capture_output=True,
        env=env,
        check=False,
    )


def _plain(value: Any) -> Any:
    """A Parquet cell as JSON can spell it (NaN as null, as the record's JSON has it)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


@pytest.mark.parametrize("name", sorted(RUNS))
def test_each_format_writes_the_recorded_bytes(name: str) -> None:
    """The output of one format over the samples has the digest recorded before the move."""
    done = _score(*RUNS[name])
    assert done.returncode == 0, done.stderr.decode()
    assert hashlib.sha256(done.stdout).hexdigest() == DIGESTS[name]


def test_parquet_holds_the_recorded_rows(tmp_path: Path) -> None:
    """The Parquet output's schema and rows have the digest recorded before the move."""
    target = tmp_path / "scored.parquet"
    done = _score("--out", str(target), "--workers", "1")
    assert done.returncode == 0, done.stderr.decode()
    table = pq.read_table(target)
    rows = [{key: _plain(value) for key, value in row.items()} for row in table.to_pylist()]
    text = json.dumps({"schema": str(table.schema), "rows": rows}, sort_keys=True)
    assert hashlib.sha256(text.encode()).hexdigest() == DIGESTS["parquet-rows"]
