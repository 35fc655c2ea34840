"""Errors and warnings a person can act on: each names the place (file, line, JSON Pointer),
what was wrong in the schema's words, and a hint, read here from the message itself."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from scorecard.contract import Policy
from scorecard.engine import score_run
from tests.conftest import ROOT


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m scorecard ARGS`, output as text."""
    return subprocess.run(
        [sys.executable, "-m", "scorecard", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def compact(document: Any) -> str:
    return json.dumps(document, separators=(",", ":"))


def with_typo(observation: dict[str, Any]) -> dict[str, Any]:
    """``observation`` with its comment count under a miscased key."""
    typo = copy.deepcopy(observation)
    typo["presentation"]["commentcount"] = typo["presentation"].pop("commentCount", 1)
    return typo


# --- unknown fields ------------------------------------------------------------------------------


def test_an_unknown_field_is_a_warning_naming_its_place_and_the_field_it_meant(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """A typo in an optional field is kept and scored, and stderr names the file, line,
    pointer and the field it most likely meant; the exit status stays 0."""
    path = tmp_path / "runs.jsonl"
    path.write_text(compact(observation) + "\n" + compact(with_typo(observation)) + "\n")
    done = run("score", str(path), "--format", "jsonl")
    assert done.returncode == 0
    assert (
        f"warning: {path}:2 /presentation/commentcount: unknown field kept (not read); "
        "did you mean commentCount? (commentCount is absent) [unknown_field]"
    ) in done.stderr.splitlines()
    assert done.stderr.splitlines()[-1].endswith("unknown fields kept 1")


def test_the_same_unknown_field_in_many_records_is_one_warning_with_its_count(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """A producer that misspells a field everywhere gets one line, at its first record."""
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([observation, with_typo(observation), with_typo(observation)]))
    done = run("score", str(path), "--format", "jsonl")
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: {path}[1] /1/presentation/commentcount: unknown field kept (not read); "
        "did you mean commentCount? (commentCount is absent) (in 2 records) [unknown_field]"
    ]


def test_unknown_fields_keep_their_lines_on_any_number_of_workers(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """Chunks numbered by workers that do not know where they start still name the line."""
    path = tmp_path / "runs.jsonl"
    lines = [compact(observation)] * 300 + [compact(with_typo(observation))]
    path.write_text("\n".join(lines) + "\n")
    for workers in (1, 2):
        run_ = score_run([path], policy=Policy(), workers=workers, chunk_bytes=20_000)
        assert sum(1 for _ in run_.text()) > 0
        (notice,) = run_.summary.first_notices.values()
        assert (notice.source, notice.line, notice.pointer) == (
            str(path),
            301,
            "/presentation/commentcount",
        )


def test_scores_do_not_change_with_an_unknown_field(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """A warning, not an error: the scorecard is the one the record scores without it."""
    plain = tmp_path / "plain.jsonl"
    plain.write_text(compact(observation) + "\n")
    extra = copy.deepcopy(observation)
    extra["runnerBuild"] = "2026.11"
    extended = tmp_path / "extended.jsonl"
    extended.write_text(compact(extra) + "\n")
    first = run("score", str(plain), "--format", "jsonl")
    second = run("score", str(extended), "--format", "jsonl")
    assert first.stdout == second.stdout


# --- wrong types -------------------------------------------------------------------------------


def test_a_number_sent_as_a_string_names_the_type_seen_and_every_problem(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """Each wrongly typed field is named with its pointer, the type expected and the JSON type
    seen; the value itself (it may be a secret) is never quoted."""
    secret = "sk-live0123456789abcdefghij"
    observation["base"]["efficiency"] = {"latencyMs": "1500"}
    observation["metrics"]["attempts"] = secret
    path = tmp_path / "runs.jsonl"
    path.write_text(compact(observation) + "\n")
    done = run("score", str(path), "--format", "jsonl")
    assert done.returncode == 2
    assert (
        f"error: {path}:1 /base/efficiency/latencyMs: observation field: expected a number, got "
        "a string; also: /metrics/attempts: expected an integer, got a string [wrong_type]"
    ) in done.stderr.splitlines()
    assert secret not in done.stderr
    assert "1500" not in done.stderr


def test_null_boolean_array_and_object_are_named_as_json_types(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """Every JSON type has its name in the message; a missing field is hinted by the
    misspelt key beside it."""
    observation["metrics"]["toolCount"] = True
    observation["metrics"]["attempts"] = [1]
    observation["base"]["efficiency"] = {"costUsd": {"usd": 1}}
    observation["traceLinage"] = observation.pop("traceLineage")
    path = tmp_path / "runs.jsonl"
    path.write_text(compact(observation) + "\n")
    errors = run("score", str(path), "--errors", str(tmp_path / "e.jsonl"))
    assert errors.returncode == 2
    (record,) = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text().splitlines()]
    message = record["message"]
    assert "/traceLineage: required field is missing (did you write it as traceLinage?)" in message
    assert "/metrics/attempts: expected an integer, got an array" in message
    assert "/metrics/toolCount: expected an integer, got a boolean" in message
    assert record["pointer"] == "/base/efficiency/costUsd"
    assert message.startswith("observation field: expected a number, got an object; also: ")


# --- JSON Schema integers ----------------------------------------------------------------------


def test_an_integral_float_is_an_integer_and_scores_as_one(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """`attempts: 1.0` and `frameCount: 0.0` are integers (JSON Schema 2020-12): the record is
    scored, and every output equals the one of the same record written with integer literals."""
    (tmp_path / "ints").mkdir()
    (tmp_path / "floats").mkdir()
    (tmp_path / "ints" / "runs.jsonl").write_text(compact(observation) + "\n")
    text = compact(observation)
    metrics = compact(observation["metrics"])
    lineage = compact(observation["traceLineage"])
    floats_metrics = metrics.replace(
        f'"attempts":{observation["metrics"]["attempts"]}',
        f'"attempts":{float(observation["metrics"]["attempts"])}',
    )
    floats_lineage = lineage.replace(
        f'"frameCount":{observation["traceLineage"]["frameCount"]}',
        f'"frameCount":{float(observation["traceLineage"]["frameCount"])}',
    )
    assert floats_metrics != metrics
    assert floats_lineage != lineage
    floats = text.replace(metrics, floats_metrics).replace(lineage, floats_lineage)
    (tmp_path / "floats" / "runs.jsonl").write_text(floats + "\n")
    for output_format in ("jsonl", "records", "audit"):
        args = ("score", "runs.jsonl", "--format", output_format, "--bundle-id", "b")
        expected = run(*args, cwd=tmp_path / "ints")
        got = run(*args, cwd=tmp_path / "floats")
        assert got.returncode == 0, got.stderr
        assert got.stdout == expected.stdout


def test_a_fractional_number_is_still_not_an_integer(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """1.5 attempts is rejected, naming what was seen."""
    observation["metrics"]["attempts"] = 1.5
    path = tmp_path / "runs.jsonl"
    path.write_text(compact(observation) + "\n")
    done = run("score", str(path))
    assert done.returncode == 2
    assert (
        f"error: {path}:1 /metrics/attempts: observation field: expected an integer, got a "
        "number with a fractional part [wrong_type]"
    ) in done.stderr.splitlines()


# --- policy files ------------------------------------------------------------------------------


def test_every_policy_problem_is_one_line_of_one_run(tmp_path: Path) -> None:
    """`--policy` with three problems prints three located lines, each with its hint, exit 2."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "weights:\n  semantic_outcom: 0.3\ngate:\n  drop:\n    tolerence: 0.1\nauditgate: true\n"
    )
    done = run("score", str(ROOT / "observations"), "--policy", str(policy))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: {policy}:2 /weights/semantic_outcom: unknown dimension 'semantic_outcom'; "
        "did you mean semantic_outcome? [policy_unknown_dimension]",
        f"error: {policy}:5 /gate/drop/tolerence: unknown gate setting; did you mean "
        "drop/tolerance? [gate_policy_unknown_key]",
        f"error: {policy}:6 /auditgate: unknown policy key; did you mean auditGate? (expected "
        "weights, thresholds, auditGate and/or gate) [policy_unknown_key]",
    ]


# --- wrapped documents -------------------------------------------------------------------------


def test_a_json_file_wrapping_observations_is_explained(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """`{"observations": [...]}` is not called an unsupported schema: the error points at the
    array, counts it and says what to give instead."""
    path = tmp_path / "runs.json"
    path.write_text(json.dumps({"run": "nightly", "observations": [observation] * 3}))
    done = run("score", str(path))
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"error: {path} /observations: this document wraps 3 observation(s) under /observations; "
        "give the array itself (a .json file), or JSON Lines (one observation per line) "
        "[wrapped_observations]"
    )


def test_an_envelope_one_object_deeper_is_found_too(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """`{"data": {"items": [...]}}`-like envelopes are named by the pointer of the array."""
    path = tmp_path / "runs.jsonl"
    path.write_text(compact({"data": {"items": [observation]}}) + "\n" + compact([observation]))
    done = run("score", str(path), "--errors", str(tmp_path / "errors.jsonl"))
    records = [json.loads(line) for line in (tmp_path / "errors.jsonl").read_text().splitlines()]
    assert [(r["line"], r["pointer"], r["rule"]) for r in records] == [
        (1, "/data/items", "wrapped_observations"),
        (2, "", "wrapped_observations"),
    ]
    assert "wraps 1 observation(s) under /data/items" in records[0]["message"]
    assert "JSON Lines takes one observation per line" in records[1]["message"]
    assert done.returncode == 2


def test_another_contract_is_still_an_unsupported_schema(tmp_path: Path) -> None:
    """An object holding no observations keeps the schema error."""
    path = tmp_path / "bundle.jsonl"
    path.write_text(compact({"schema": "paperclip.runner.eval-bundle.v1", "runs": [1, 2]}) + "\n")
    done = run("score", str(path))
    assert "[unsupported_schema]" in done.stderr


# --- empty input -------------------------------------------------------------------------------


def test_an_empty_input_is_one_warning_per_path_and_exit_zero(tmp_path: Path) -> None:
    """An empty file, an empty folder, a folder of other files and `[]` are each named."""
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "nothing").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("hello")
    (tmp_path / "array.json").write_text("[]")
    paths = ("empty.jsonl", "nothing", "notes", "array.json")
    done = run("score", *paths, "--format", "jsonl", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "warning: empty.jsonl: this file holds no observation: nothing was scored [empty_input]",
        "warning: nothing: no observation file (*.json, *.jsonl) in this folder: nothing was "
        "scored [empty_input]",
        "warning: notes: no observation file (*.json, *.jsonl) in this folder: nothing was "
        "scored [empty_input]",
        "warning: array.json: this file holds no observation: nothing was scored [empty_input]",
        "scored 0, rejected 0, gate failures 0, unscoreable 0, bundles 0, failed audit findings 0",
    ]


def test_an_input_with_records_beside_an_empty_one_is_not_warned_about(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """The warning is for a run that read nothing: scoring something is the usual case."""
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "runs.jsonl").write_text(compact(observation) + "\n")
    done = run("score", "empty.jsonl", "runs.jsonl", cwd=tmp_path)
    assert "warning" not in done.stderr


def test_notices_are_records_shaped_like_errors(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """From Python, the kept notices are --errors-shaped records marked as warnings."""
    path = tmp_path / "runs.jsonl"
    path.write_text(compact(with_typo(observation)) + "\n")
    run_ = score_run([path], policy=Policy())
    assert sum(1 for _ in run_.text()) == 1
    assert run_.summary.notice_records() == [
        {
            "source": str(path),
            "line": 1,
            "index": None,
            "pointer": "/presentation/commentcount",
            "rule": "unknown_field",
            "message": "unknown field kept (not read); did you mean commentCount? "
            "(commentCount is absent)",
            "level": "warning",
            "count": 1,
        }
    ]
