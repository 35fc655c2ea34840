"""`scorecard compare` through the typer app: views, formats, determinism, errors, exit codes."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from scorecard.cli._app import app
from scorecard.contract._catalog import Catalog
from scorecard.contract._models import CASE_IDS
from scorecard.core._record import ScoredRecord
from scorecard.engine._pipeline import score_paths_serially
from tests.aggregate.test_frames import make_record, write_records
from tests.conftest import without_receipt

EIGHT = CASE_IDS[:8]


def invoke(*args: str | Path) -> Result:
    """Run ``scorecard ARGS`` in-process."""
    return CliRunner().invoke(app, [str(arg) for arg in args])


def _bundle(bundle: str, base: float, new: float) -> list[dict[str, Any]]:
    """Candidates base and new on eight cases, two repetitions each, at fixed overall scores."""
    return [
        make_record(candidate, case, repetition, bundle=bundle, overall=score, passed=score == 1.0)
        for candidate, score in (("base", base), ("new", new))
        for case in EIGHT
        for repetition in (1, 2)
    ]


@pytest.fixture
def nightly(tmp_path: Path) -> dict[str, Path]:
    """Records files of two bundles: in b1 new beats base everywhere; in b2 they tie."""
    return {
        "b1": write_records(tmp_path / "b1.jsonl", _bundle("b1", 0.5, 1.0)),
        "b2": write_records(tmp_path / "b2.jsonl", _bundle("b2", 1.0, 1.0)),
    }


def test_one_bundle_shows_candidates_side_by_side_with_intervals(nightly: dict[str, Path]) -> None:
    """0 of 16 and 16 of 16 passed: Wilson bounds 3.8415/19.8415 and 16/19.8415. base's 16
    runs all pass the gate at 0.5: its mean-overall interval is 0.5 x the gate-pass rate drawn
    from Beta(16.5, 1), whose 2.5% quantile is 0.025^(1/16.5) = 0.7997, so 0.400 bounds it
    below (read from 2000 seeded draws: within 0.01 of it); 16 of 16 does not prove that no run
    could fail the gate."""
    result = invoke("compare", nightly["b1"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "candidates in bundle b1 [95% intervals]" in lines[0]
    base = next(line for line in lines if line.startswith("│ base "))
    new = next(line for line in lines if line.startswith("│ new "))
    assert "0.000 [0.000, 0.194]" in base
    assert "1.000 [0.806, 1.000]" in new
    bounds = re.search(r"0\.500 \[(0\.\d{3}), 0\.500\]", base)
    assert bounds is not None, base
    assert float(bounds.group(1)) == pytest.approx(0.5 * 0.025 ** (1 / 16.5), abs=0.01)


def test_two_candidates_get_a_paired_verdict(nightly: dict[str, Path]) -> None:
    """--candidate base --candidate new: new is judged against base, case by case."""
    result = invoke("compare", nightly["b1"], "--candidate", "base", "--candidate", "new")
    assert result.exit_code == 0
    assert "paired by case against base" in result.stdout
    assert "new@b1 vs base@b1: better" in result.stdout
    assert "paired 8 of 8 cases" in result.stdout


def test_json_is_deterministic_and_carries_the_verdict(nightly: dict[str, Path]) -> None:
    """Two runs give the same bytes; the document holds groups, settings and comparisons."""
    args = ("compare", nightly["b1"], "--candidate", "base", "--candidate", "new")
    first = invoke(*args, "--format", "json", "--seed", "7")
    second = invoke(*args, "--format", "json", "--seed", "7")
    assert first.exit_code == 0
    assert first.stdout == second.stdout
    document = json.loads(first.stdout)
    assert (document["schema"], document["view"], document["bundle"]) == (
        "scorecard.compare.v1",
        "bundle",
        "b1",
    )
    assert document["settings"]["seed"] == 7
    assert [group["candidate"] for group in document["groups"]] == ["base", "new"]
    assert [group["passed"] for group in document["groups"]] == [0, 16]
    comparison = document["comparisons"][0]
    assert (comparison["current"]["candidate"], comparison["verdict"]) == ("new", "better")
    assert comparison["overall"]["p_value"] == 2 / 256


def test_csv_has_one_row_per_group(nightly: dict[str, Path]) -> None:
    """CSV: a header of documented columns and one line per candidate."""
    result = invoke("compare", nightly["b1"], "--format", "csv")
    assert result.exit_code == 0
    header, *rows = result.stdout.splitlines()
    assert header.split(",")[:6] == [
        "candidate",
        "executions",
        "scoreable",
        "passed",
        "pass_rate",
        "pass_rate_low",
    ]
    assert [row.split(",")[:4] for row in rows] == [
        ["base", "16", "16", "0"],
        ["new", "16", "16", "16"],
    ]


def test_providers_can_be_shown_side_by_side(nightly: dict[str, Path]) -> None:
    """--by provider groups the bundle's rows by provider."""
    result = invoke("compare", nightly["b1"], "--by", "provider", "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert [(group["provider"], group["executions"]) for group in document["groups"]] == [
        ("codex", 32)
    ]


def test_across_bundles_follows_the_input_order(nightly: dict[str, Path]) -> None:
    """Bundles are ordered as the inputs first mention them: b2 first, then b1 against it."""
    result = invoke(
        "compare", nightly["b2"], nightly["b1"], "--across-bundles", "base", "--format", "json"
    )
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert [row["bundle"] for row in document["bundles"]] == ["b2", "b1"]
    comparison = document["comparisons"][0]
    assert (comparison["current"]["bundle"], comparison["baseline"]["bundle"]) == ("b1", "b2")
    assert (comparison["overall"]["difference"], comparison["verdict"]) == (-0.5, "worse")


def test_across_bundles_csv_adds_the_comparison_columns(nightly: dict[str, Path]) -> None:
    """The trend CSV has a row per bundle; the first has no previous bundle to compare with."""
    result = invoke(
        "compare", nightly["b1"], nightly["b2"], "--across-bundles", "new", "--format", "csv"
    )
    assert result.exit_code == 0
    header, first, second = result.stdout.splitlines()
    columns = header.split(",")
    assert columns[0] == "bundle"
    assert columns[-3:] == ["p_value", "p_adjusted", "verdict"]
    assert first.split(",")[-1] == ""
    assert second.split(",")[columns.index("previous_bundle")] == "b1"


def test_observation_folders_are_scored_on_the_fly(
    tmp_path: Path,
    observation: dict[str, Any],
    write_jsonl: Callable[..., Path],
    catalog: Catalog,
) -> None:
    """A folder of observations and the records scored from it give the same JSON."""
    documents = []
    for candidate in ("cand-a", "cand-b"):
        for case in EIGHT:
            document = copy.deepcopy(observation)
            document.update(candidateId=candidate, caseId=case)
            document["base"]["caseId"] = case
            documents.append(document)
    folder = write_jsonl(documents, "nightly/observations.jsonl").parent
    scored = list(score_paths_serially([str(folder)], catalog=catalog))
    assert all(isinstance(item, ScoredRecord) for item in scored)
    records = write_records(
        tmp_path / "records.jsonl",
        [item.record_json() for item in scored if isinstance(item, ScoredRecord)],
    )
    from_folder = invoke("compare", folder, "--format", "json")
    from_records = invoke("compare", records, "--format", "json")
    assert from_folder.exit_code == 0
    assert without_receipt(from_folder.stdout) == without_receipt(from_records.stdout)
    assert json.loads(from_folder.stdout)["bundle"] == "local-nightly"


def test_out_writes_the_file_instead_of_stdout(nightly: dict[str, Path], tmp_path: Path) -> None:
    """--out FILE: the output goes to the file, nothing to stdout."""
    target = tmp_path / "reports" / "compare.json"
    result = invoke("compare", nightly["b1"], "--format", "json", "--out", target)
    assert result.exit_code == 0
    assert result.stdout == ""
    assert json.loads(target.read_text(encoding="utf-8"))["bundle"] == "b1"


@pytest.mark.parametrize(
    ("extra", "rule"),
    [
        (("--baseline", "b3"), "unknown_bundle"),
        (("--bundle", "b3"), "unknown_bundle"),
        (("--bundle", "b1", "--candidate", "base", "--candidate", "ghost"), "unknown_candidate"),
        (("--across-bundles", "ghost"), "unknown_candidate"),
        (("--across-bundles", "base", "--candidate", "new"), "conflicting_options"),
        (("--bundle", "b1", "--by", "provider", "--candidate", "new"), "candidates_need"),
        (("--bundle", "b1", "--candidate", "new", "--candidate", "new"), "conflicting_options"),
    ],
)
def test_bad_selections_exit_2_with_one_error_line(
    nightly: dict[str, Path], extra: tuple[str, ...], rule: str
) -> None:
    """Each bad selection is one `error:` line naming its rule, and exit status 2."""
    result = invoke("compare", nightly["b1"], nightly["b2"], *extra)
    assert result.exit_code == 2
    errors = result.stderr.splitlines()
    assert len(errors) == 1
    assert errors[0].startswith("error: ")
    assert rule in errors[0]


def test_a_bad_record_is_reported_with_file_and_line(tmp_path: Path) -> None:
    """A malformed record line stops the comparison: exit 2 and a located error."""
    bad = make_record(repetition=2)
    bad["repetition"] = "two"
    path = write_records(tmp_path / "records.jsonl", [make_record(), bad])
    result = invoke("compare", path)
    assert result.exit_code == 2
    assert (
        result.stderr == f"error: {path}:2 /repetition: must be a positive integer [record_field]\n"
    )


def test_missing_inputs_and_empty_inputs_exit_2(tmp_path: Path) -> None:
    """A path that does not exist, or inputs without any record, are bad input."""
    missing = invoke("compare", tmp_path / "nowhere")
    assert missing.exit_code == 2
    assert "not_found" in missing.stderr
    (tmp_path / "empty").mkdir()
    empty = invoke("compare", tmp_path / "empty")
    assert empty.exit_code == 2
    assert "no_records" in empty.stderr


def test_a_negative_seed_is_a_usage_error(nightly: dict[str, Path]) -> None:
    """Seeds are non-negative; typer rejects the rest with exit 2."""
    assert invoke("compare", nightly["b1"], "--seed", "-1").exit_code == 2


def test_the_command_is_listed_and_imports_no_pandas_until_run() -> None:
    """`scorecard --help` lists compare; importing the command module leaves pandas unloaded."""
    assert "compare" in invoke("--help").stdout
    probe = "import sys, scorecard.cli._compare; print('pandas' in sys.modules)"
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "False"


SAMPLES = Path(__file__).resolve().parents[2] / "observations"


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="sample bundles not generated")
def test_the_sample_bundles_compare_across_bundles() -> None:
    """The sample campaign: every candidate is compared bundle after bundle, in folder order."""
    bundles = sorted(path for path in SAMPLES.iterdir() if path.is_dir())
    first = invoke("compare", bundles[0], "--format", "json")
    assert first.exit_code == 0
    candidate = json.loads(first.stdout)["groups"][0]["candidate"]
    result = invoke("compare", *bundles, "--across-bundles", candidate, "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert len(document["bundles"]) == len(bundles)
    assert len(document["comparisons"]) == len(bundles) - 1
    assert {item["verdict"] for item in document["comparisons"]} <= {
        "better",
        "worse",
        "inconclusive",
    }
