"""Hostile inputs: a bad element of a ``.json`` array loses only itself, and a lone surrogate
anywhere is a located rejection in every command, never a crash.

The cases are generated here (kinds of bad element x positions x array sizes; surrogate code
points x fields x commands); pytest's parametrised ids count them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scorecard.cli._app import app
from tests.conftest import ROOT

SAMPLE = ROOT / "observations" / "2026-11-01-nightly"
GOOD = [json.loads(line) for line in (SAMPLE / "observations.jsonl").read_text().splitlines()[:6]]


def _bad_element(kind: str, good: dict[str, Any]) -> str:
    """The text of one array element that breaks a rule of ``kind``."""
    text = json.dumps(good)
    if kind == "duplicate_key":
        return '{"caseId": "final-response", ' + text[1:]
    if kind == "nan":
        return '{"latency": NaN, ' + text[1:]
    if kind == "infinity":
        return text[:-1] + ', "x": [1, -Infinity]}'
    if kind == "surrogate":
        return text.replace(f'"{good["candidateId"]}"', '"cand\\udc00x"', 1)
    if kind == "contract":
        return text.replace('"provider": ', '"provider": 5, "was": ', 1)
    if kind == "not_object":
        return "[1, 2]"
    raise ValueError(kind)


KINDS = {
    "duplicate_key": ("duplicate_key", "/caseId"),
    "nan": ("non_finite_number", "/latency"),
    "infinity": ("non_finite_number", "/x/1"),
    "surrogate": ("lone_surrogate", "/candidateId"),
    "contract": ("wrong_type", "/provider"),
    "not_object": (None, ""),
}


def _array_cases() -> list[tuple[str, int, int, str]]:
    generator = random.Random(17)
    cases = []
    for kind in KINDS:
        for _ in range(5):
            size = generator.randint(1, 6)
            cases.append((kind, size, generator.randrange(size), generator.choice(["", "\n  "])))
    return cases


@pytest.mark.parametrize(("kind", "size", "bad", "space"), _array_cases())
def test_one_bad_array_element_loses_only_itself(
    tmp_path: Path, kind: str, size: int, bad: int, space: str
) -> None:
    """Every good element is scored; the bad one is reported with its index and a pointer into
    the file (``/<index>/...``)."""
    elements = [json.dumps(GOOD[i]) for i in range(size)]
    elements[bad] = _bad_element(kind, GOOD[bad])
    path = tmp_path / "runs.json"
    path.write_text("[" + space + ("," + space).join(elements) + space + "]", encoding="utf-8")
    errors = tmp_path / "errors.jsonl"
    result = CliRunner().invoke(
        app, ["score", str(path), "--format", "jsonl", "--workers", "1", "--errors", str(errors)]
    )
    assert result.exit_code == 2, result.output
    cards = [json.loads(line) for line in result.stdout.splitlines()]
    expected = [GOOD[i]["candidateId"] for i in range(size) if i != bad]
    assert [card["candidateId"] for card in cards] == expected
    [error] = [json.loads(line) for line in errors.read_text().splitlines()]
    rule, pointer = KINDS[kind]
    assert error["index"] == bad
    assert error["pointer"].startswith(f"/{bad}")
    if rule is not None:
        assert (error["rule"], error["pointer"]) == (rule, f"/{bad}{pointer}")


def test_a_syntax_error_in_an_array_is_one_file_error(tmp_path: Path) -> None:
    """Where elements cannot be told apart, the file is one located error (no guessing)."""
    path = tmp_path / "runs.json"
    path.write_text("[" + json.dumps(GOOD[0]) + ", {oops}]", encoding="utf-8")
    errors = tmp_path / "errors.jsonl"
    result = CliRunner().invoke(app, ["score", str(path), "--errors", str(errors)])
    assert result.exit_code == 2
    [error] = [json.loads(line) for line in errors.read_text().splitlines()]
    assert (error["rule"], error["index"]) == ("malformed_json", None)


def _surrogate_line(field: str, code: int) -> str:
    """A valid observation with a lone surrogate escape ``\\u<code>`` placed at ``field``."""
    document = json.loads(json.dumps(GOOD[0]))
    marker = "SURROGATE-MARKER"
    if field == "candidateId":
        document["candidateId"] = f"cand{marker}x"
    elif field == "reason":
        document["lifecycle"]["checks"][0] = {"id": "x", "passed": False, "reason": marker}
    elif field == "key":
        document["metrics"][f"k{marker}"] = 1
    elif field == "failure":
        document["failure"] = {
            "code": "c",
            "category": "candidate",
            "retryable": False,
            "message": marker,
        }
    return json.dumps(document).replace(marker, f"\\u{code:04x}")


FIELDS = {
    "candidateId": "/candidateId",
    "reason": "/lifecycle/checks/0/reason",
    "key": None,
    "failure": "/failure/message",
}


def _commands(folder: Path, out: Path) -> dict[str, list[str]]:
    return {
        "table": ["score", str(folder), "--format", "table"],
        "jsonl": ["score", str(folder), "--format", "jsonl"],
        "parquet": ["score", str(folder), "--out", str(out / "x.parquet")],
        "explain": ["explain", str(folder)],
        "compare": ["compare", str(folder)],
        "compare-csv": ["compare", str(folder), "--format", "csv"],
        "gate": ["gate", str(folder)],
        "plot": ["plot", "overall", str(folder), "--out", str(out / "x.svg")],
    }


def _surrogate_cases() -> list[tuple[str, int, str]]:
    generator = random.Random(3)
    cases = []
    commands = list(_commands(Path(), Path()))
    for field in FIELDS:
        for command in commands:
            code = generator.choice(
                [0xD800, 0xDBFF, 0xDC00, 0xDFFF, generator.randint(0xD800, 0xDFFF)]
            )
            cases.append((field, code, command))
    return cases


@pytest.mark.parametrize(("field", "code", "command"), _surrogate_cases())
def test_a_lone_surrogate_is_a_located_rejection_in_every_command(
    tmp_path: Path, field: str, code: int, command: str
) -> None:
    """No traceback; the record is rejected naming the field; the good records still count."""
    folder = tmp_path / "bundle"
    folder.mkdir()
    (folder / "bundle.json").write_bytes((SAMPLE / "bundle.json").read_bytes())
    good = [json.dumps(document) for document in GOOD]
    lines = [*good[:3], _surrogate_line(field, code), *good[3:]]
    (folder / "runs.jsonl").write_text("\n".join(lines) + "\n", encoding="ascii")
    out = tmp_path / "out"
    out.mkdir()
    args = _commands(folder, out)[command]
    result = CliRunner().invoke(app, [*args, "--workers", "1"] if command != "gate" else args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.stderr
    assert "[lone_surrogate]" in result.stderr
    assert f"runs.jsonl:4 {FIELDS[field] or '/metrics/k'}" in result.stderr
    for text in (result.stdout, result.stderr):
        assert not any(0xD800 <= ord(character) <= 0xDFFF for character in text)
