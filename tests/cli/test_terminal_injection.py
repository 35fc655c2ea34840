"""Producer text never reaches a terminal raw: ids, reasons and file names are shown escaped.

An id holding ESC, a CSI sequence, BEL, U+202E or a newline must come out of the table, explain
and the error lines as visible escapes, whatever else the text holds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from scorecard.cli._app import app
from scorecard.contract import printable

#: Characters a terminal acts on or hides (C0, DEL, C1, bidi and zero-width controls, separators).
_RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
HOSTILE = [
    "\ud800",
    "\x1b[31m",
    "\x1b]0;pwned\x07",
    "\x07",
    "\u202e",
    "\n",
    "\r",
    "\x9b2J",
    "\u200b",
    "\t",
]


def _raw_characters(text: str) -> list[str]:
    """Control characters in ``text`` other than the newlines that end its own lines."""
    return _RAW.findall(text)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain-id", "plain-id"),
        ("a\x1b[31mb", "a\\x1b[31mb"),
        ("\u202eevil", "\\u202eevil"),
        ("two\nlines", "two\\nlines"),
        ("密钥-é", "密钥-é"),
        ("cand\ud800x", "cand\\ud800x"),
    ],
)
def test_printable_spells_controls_and_keeps_the_rest(text: str, shown: str) -> None:
    """Controls become escapes; CJK, accents and ordinary punctuation stay."""
    assert printable(text) == shown


def _write(tmp_path: Path, observation: dict[str, Any], candidate: str) -> Path:
    document = json.loads(json.dumps(observation))
    document["candidateId"] = candidate
    document["failure"] = None
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(document, ensure_ascii=True) + "\n", encoding="utf-8")
    return path


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=3), st.sampled_from(["", "id-"]))
def test_hostile_candidate_ids_are_escaped_in_table_and_explain(
    tmp_path: Path, observation: dict[str, Any], pieces: list[str], prefix: str
) -> None:
    """Whatever controls a candidate id holds, table and explain show none of them raw."""
    candidate = prefix + "cand" + "".join(pieces) + "x"
    path = _write(tmp_path, observation, candidate)
    runner = CliRunner()
    for args in (["score", str(path), "--format", "table"], ["explain", str(path)]):
        result = runner.invoke(app, args)
        assert _raw_characters(result.stdout) == [], args
        assert _raw_characters(result.stderr) == [], args
        if result.exit_code == 0:
            assert printable(candidate)[:12] in result.stdout.replace("\n", ""), args


def test_a_file_name_with_controls_is_escaped_in_error_lines(tmp_path: Path) -> None:
    """A broken file named with ESC and a newline gives one inert error line."""
    path = tmp_path / "runs\x1b[2J\nforged: line.jsonl"
    path.write_text("{not json\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["score", str(path), "--format", "jsonl"])
    assert result.exit_code == 2
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error_lines) == 1
    assert "\\x1b[2J\\nforged: line.jsonl" in error_lines[0]
    assert _raw_characters(result.stderr) == []
