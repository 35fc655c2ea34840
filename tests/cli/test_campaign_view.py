"""Issue 16's friction points, each through the command line as a new user meets it.

compare over a whole campaign (several bundles, two folders, --baseline), one policy file for
every command, --bundle-id wherever bundles are formed, the same option names, output formats
from the --out extension, stdin without `-`, unknown ids as errors with a suggestion, options
matched exactly, explain on an infrastructure failure, and the paired plot of one candidate.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from scorecard.cli._app import app
from tests.aggregate.test_frames import make_record, write_records
from tests.conftest import ROOT

SAMPLES = ROOT / "observations"
OLD, PREVIOUS, NEWEST = "campaign-2026-11-01", "campaign-2026-11-15", "campaign-2026-11-22"


def invoke(*args: str | Path, stdin: str | None = None) -> Result:
    """``scorecard ARGS`` in-process (stdin is never a terminal here)."""
    return CliRunner().invoke(app, [str(arg) for arg in args], input=stdin or "")


def compare_json(*args: str | Path) -> dict[str, Any]:
    result = invoke("compare", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


@pytest.fixture(scope="module")
def campaign_json() -> dict[str, Any]:
    """`compare observations/ --format json`: the newest bundle against the one before."""
    return compare_json(SAMPLES)


# --- 1. compare whole campaigns -------------------------------------------------------------


def test_compare_of_a_campaign_exits_0_and_names_opencode_glm_worse() -> None:
    """The sample campaign's regression: opencode-glm in 2026-11-22, against 2026-11-15."""
    result = invoke("compare", SAMPLES)
    assert result.exit_code == 0, result.output
    assert f"candidates in {NEWEST} against {PREVIOUS}" in result.stdout
    # Not codex-luna: its one-sided drop against 2026-11-15 alone (0.986 -> 0.857, that night its
    # best) has Holm p 0.023, above the gate's family-wise 0.01, and no two-sided verdict is worse.
    assert f"worse in {NEWEST} than in {PREVIOUS}: opencode-glm\n" in result.stdout
    assert "opencode-glm: gate: 3 new hard-gate failures (hard_invariants)" in result.stdout


def test_campaign_json_holds_every_candidate_paired_per_metric(
    campaign_json: dict[str, Any],
) -> None:
    """Every candidate of both bundles (then the pooled comparison), for each metric, with the
    current bundle against the previous one; opencode-glm listed as worse."""
    assert (campaign_json["view"], campaign_json["current"], campaign_json["baseline"]) == (
        "campaign",
        NEWEST,
        PREVIOUS,
    )
    assert campaign_json["worse"] == ["opencode-glm"]
    assert campaign_json["gate"]["opencode-glm"]["status"] == "fail"
    assert set(campaign_json["comparisons"]) == {"mean_overall", "pass_rate", "gate_pass_rate"}
    for comparisons in campaign_json["comparisons"].values():
        labels = [item["current"]["candidate"] for item in comparisons]
        assert len(labels) == 8
        assert labels[-1] == "(all candidates)"
        assert {item["current"]["bundle"] for item in comparisons} == {NEWEST}
        assert {item["baseline"]["bundle"] for item in comparisons} == {PREVIOUS}


def test_the_trends_table_spans_every_candidate_and_bundle(campaign_json: dict[str, Any]) -> None:
    """7 candidates x 4 bundles, with mean overall and pass rate, in bundle order."""
    trends = campaign_json["trends"]
    assert len(trends) == 28
    assert campaign_json["bundles"] == [OLD, "campaign-2026-11-08", PREVIOUS, NEWEST]
    glm = {row["bundle"]: row for row in trends if row["candidate"] == "opencode-glm"}
    assert list(glm) == campaign_json["bundles"]
    # The newest bundle's mean minus the previous one is the paired comparison's size order:
    # opencode-glm dropped (0.81 -> 0.45 in the sample campaign).
    assert glm[NEWEST]["mean_overall"] < glm[PREVIOUS]["mean_overall"] - 0.3
    assert 0 <= glm[NEWEST]["pass_rate"] <= 1


def test_the_csv_is_one_row_per_compared_candidate(tmp_path: Path) -> None:
    """--out X.csv writes CSV (no --format needed): one row per candidate, pooled last."""
    target = tmp_path / "campaign.csv"
    result = invoke("compare", SAMPLES, "--out", target)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert [row["candidate"] for row in rows][-1] == "(all candidates)"
    assert len(rows) == 8
    glm = next(row for row in rows if row["candidate"] == "opencode-glm")
    assert (glm["baseline_bundle"], glm["current_bundle"], glm["worse"]) == (
        PREVIOUS,
        NEWEST,
        "True",
    )
    assert glm["gate"] == "fail"


def test_bundle_alone_shows_that_bundle_and_with_baseline_judges_it() -> None:
    """`--bundle X` shows X side by side (the first bundle too); with --baseline it is judged."""
    document = compare_json(SAMPLES, "--bundle", OLD)
    assert (document["view"], document["bundle"]) == ("bundle", OLD)
    document = compare_json(SAMPLES, "--bundle", PREVIOUS, "--baseline", OLD)
    assert (document["view"], document["baseline"], document["current"]) == (
        "campaign",
        OLD,
        PREVIOUS,
    )


def test_two_folders_compare_the_second_against_the_first() -> None:
    """`compare A/ B/`: B is judged against A (the order given), not newest by name."""
    document = compare_json(SAMPLES / "2026-11-08-nightly", SAMPLES / "2026-11-22-nightly")
    assert (document["baseline"], document["current"]) == ("campaign-2026-11-08", NEWEST)
    reverse = compare_json(SAMPLES / "2026-11-22-nightly", SAMPLES / "2026-11-08-nightly")
    assert (reverse["baseline"], reverse["current"]) == (NEWEST, "campaign-2026-11-08")


def test_baseline_names_any_bundle_by_id_or_by_path() -> None:
    """--baseline BUNDLE_ID picks a bundle that is not the one just before; a path works too."""
    by_id = compare_json(SAMPLES, "--baseline", OLD)
    assert (by_id["baseline"], by_id["current"]) == (OLD, NEWEST)
    baselines = {item["baseline"]["bundle"] for item in by_id["comparisons"]["mean_overall"]}
    assert baselines == {OLD}
    by_path = compare_json(
        SAMPLES / "2026-11-22-nightly", "--baseline", SAMPLES / "2026-11-01-nightly"
    )
    assert (by_path["baseline"], by_path["current"]) == (OLD, NEWEST)
    same = [item["overall"] for item in by_id["comparisons"]["mean_overall"]]
    assert same == [item["overall"] for item in by_path["comparisons"]["mean_overall"]]


def test_a_baseline_path_that_is_also_an_input_is_refused() -> None:
    """Read twice, its runs would count twice: exit 2, asking for the bundle id."""
    old, new = SAMPLES / "2026-11-15-nightly", SAMPLES / "2026-11-22-nightly"
    result = invoke("compare", old, new, "--baseline", old)
    assert result.exit_code == 2
    assert "give its bundle id" in result.stderr


def test_an_unknown_baseline_is_an_error_listing_the_bundles() -> None:
    result = invoke("compare", SAMPLES, "--baseline", "campaign-2026-11-2")
    assert result.exit_code == 2
    assert "did you mean" in result.stderr
    assert f"(known: {OLD}, campaign-2026-11-08, {PREVIOUS}, {NEWEST})" in result.stderr


def test_control_characters_in_ids_are_shown_escaped(tmp_path: Path) -> None:
    """A candidate id holding ESC and a bidi override is spelt with escapes in every table."""
    hostile = "evil\x1b[31m\u202e"
    records = [
        make_record(name, case, bundle=bundle)
        for bundle in ("b1", "b2")
        for name in (hostile, "plain")
        for case in ("final-response", "rich-activity")
    ]
    path = write_records(tmp_path / "records.jsonl", records)
    for width in ("80", "160"):
        result = CliRunner().invoke(app, ["compare", str(path)], env={"COLUMNS": width})
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.stdout
        assert "\u202e" not in result.stdout
        assert "evil\\x1b[31m\\u202e" in result.stdout


# --- 4. one policy file, the same options, bundle ids, formats, stdin, exact names --------


def _policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["score", "explain", "compare", "plot"])
def test_one_policy_file_with_a_gate_section_serves_every_command(
    tmp_path: Path, command: str
) -> None:
    """`gate:` is not an unknown key for score, explain, compare or plot."""
    policy = _policy(
        tmp_path, "weights: {semantic_outcome: 0.3}\ngate:\n  drop: {tolerance: 0.1}\n"
    )
    args: list[str | Path] = [command]
    if command == "plot":
        args += ["overall", "--out", tmp_path / "overall.png"]
    args += [SAMPLES / "2026-11-22-nightly", "--policy", policy]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert "unknown policy key" not in result.stderr


def test_a_typo_in_the_gate_section_is_caught_by_every_command(tmp_path: Path) -> None:
    """score checks the gate section as the gate does: the same pointer, exit 2."""
    policy = _policy(tmp_path, "gate:\n  drop: {tolerence: 0.1}\n")
    for command in ("score", "compare", "gate"):
        result = invoke(command, SAMPLES / "2026-11-22-nightly", "--policy", policy)
        assert result.exit_code == 2, command
        assert "/gate/drop/tolerence" in result.stderr, command


def test_compare_reads_the_gate_sections_settings(tmp_path: Path) -> None:
    """The policy's gate tolerance is compare's (so both read a comparison alike);
    --tolerance still wins."""
    policy = _policy(tmp_path, "gate:\n  drop: {tolerance: 0.2, resamples: 2000}\n")
    document = compare_json(SAMPLES, "--policy", policy)
    assert (document["settings"]["tolerance"], document["settings"]["resamples"]) == (0.2, 2000)
    document = compare_json(SAMPLES, "--policy", policy, "--tolerance", "0.01")
    assert document["settings"]["tolerance"] == 0.01


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """Two folders of sample observations without bundle.json (one bundle per candidate)."""
    found = []
    for name, source in (("old", "2026-11-15-nightly"), ("new", "2026-11-22-nightly")):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(SAMPLES / source / "observations.jsonl", folder / "observations.jsonl")
        found.append(folder)
    return found[0], found[1]


def test_bundle_id_names_each_folders_bundle_in_compare(folders: tuple[Path, Path]) -> None:
    """Without --bundle-id a folder without bundle.json is one bundle per candidate; with one
    --bundle-id per PATH each folder is one bundle."""
    document = compare_json(*folders, "--bundle-id", "before", "--bundle-id", "after")
    assert document["bundles"] == ["before", "after"]
    assert (document["baseline"], document["current"]) == ("before", "after")
    assert document["worse"] == ["opencode-glm"]  # as in the campaign view
    wrong = invoke("compare", *folders, "--bundle-id", "a", "--bundle-id", "b", "--bundle-id", "c")
    assert wrong.exit_code == 2
    assert "one per PATH" in wrong.stderr


def test_bundle_id_in_plot_explain_and_gate(folders: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = folders
    result = invoke(
        "plot", "paired", old, new, "--bundle-id", "before", "--bundle-id", "after",
        "--candidate", "opencode-glm", "--out", tmp_path / "paired.png",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    result = invoke("explain", new, "--bundle-id", "after", "--format", "json")
    assert {item["bundleId"] for item in json.loads(result.stdout)} == {"after"}
    target = tmp_path / "gate.json"
    result = invoke(
        "gate", new, "--baseline", old, "--bundle-id", "after",
        "--baseline-bundle-id", "before", "--json", target,
    )  # fmt: skip
    assert result.exit_code == 1, result.output  # opencode-glm's new hard-gate failures
    document = json.loads(target.read_text(encoding="utf-8"))
    assert (document["current_bundle"], document["baseline_bundle"]) == ("after", "before")


@pytest.mark.parametrize(
    ("command", "option"),
    [
        ("score", "--bundle-i"),
        ("explain", "--bundl"),
        ("explain", "--candidat"),
        ("compare", "--baselin"),
        ("compare", "--bundle-i"),
        ("plot", "--bundle-i"),
        ("gate", "--bundle-i"),
    ],
)
def test_options_are_matched_exactly_never_by_prefix(command: str, option: str) -> None:
    """A shortened or mistyped option is an error, never taken as the longer one."""
    args = [command, *(["overall"] if command == "plot" else [])]
    result = invoke(*args, SAMPLES / "2026-11-22-nightly", option, "x")
    assert result.exit_code == 2
    assert "No such option" in result.output


def test_explain_bundle_selects_runs_and_is_not_the_bundle_id() -> None:
    """`--bundle` on explain selects a bundle (it does not relabel every run); unknown: exit 2."""
    result = invoke("explain", SAMPLES, "--bundle", NEWEST, "--format", "json")
    assert {item["bundleId"] for item in json.loads(result.stdout)} == {NEWEST}
    result = invoke("explain", SAMPLES, "--bundle", "campaign-2026-11-23")
    assert result.exit_code == 2
    assert f"did you mean {NEWEST!r}" in result.stderr


@pytest.mark.parametrize(
    ("suffix", "check"),
    [
        (".json", lambda text: json.loads(text)[0]["schema"]),
        (".jsonl", lambda text: json.loads(text.splitlines()[0])["schema"]),
    ],
)
def test_score_infers_the_format_from_the_out_extension(
    tmp_path: Path, suffix: str, check: Any
) -> None:
    """--out x.json is a JSON array, --out x.jsonl JSON Lines (no --format)."""
    target = tmp_path / f"scored{suffix}"
    result = invoke("score", SAMPLES / "2026-11-22-nightly", "--out", target)
    assert result.exit_code == 0, result.output
    assert check(target.read_text(encoding="utf-8")) == "paperclip.runner.eval-scorecard.v2"


def test_score_refuses_an_extension_it_cannot_write(tmp_path: Path) -> None:
    result = invoke("score", SAMPLES / "2026-11-22-nightly", "--out", tmp_path / "x.csv")
    assert result.exit_code == 2
    assert "not CSV" in result.stderr
    assert not (tmp_path / "x.csv").exists()


def test_compare_and_explain_infer_json_from_out(tmp_path: Path) -> None:
    target = tmp_path / "campaign.json"
    assert invoke("compare", SAMPLES, "--out", target).exit_code == 0
    assert json.loads(target.read_text(encoding="utf-8"))["view"] == "campaign"
    target = tmp_path / "explain.json"
    assert invoke("explain", SAMPLES / "2026-11-22-nightly", "--out", target).exit_code == 0
    assert json.loads(target.read_text(encoding="utf-8"))[0]["bundleId"] == NEWEST


def test_stdin_is_read_when_no_path_is_given() -> None:
    """`cat f | scorecard score` (and explain, compare): no `-` needed."""
    text = (SAMPLES / "2026-11-22-nightly" / "observations.jsonl").read_text(encoding="utf-8")
    head = "\n".join(text.splitlines()[:5]) + "\n"
    result = invoke("score", "--format", "jsonl", stdin=head)
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 5
    result = invoke("explain", "--format", "json", stdin=head)
    assert len(json.loads(result.stdout)) == 5
    result = invoke("compare", "--format", "json", stdin=text)
    assert result.exit_code == 0, result.output


def test_compare_writes_rejected_records_to_errors(tmp_path: Path) -> None:
    """--errors is compare's too: the rejected record as one JSON line, exit 2."""
    bad = tmp_path / "bad.jsonl"
    lines = (SAMPLES / "2026-11-22-nightly" / "observations.jsonl").read_text().splitlines()
    bad.write_text(lines[0] + "\n" + lines[1].replace('"caseId"', '"caseID"') + "\n")
    errors = tmp_path / "errors.jsonl"
    result = invoke("compare", bad, "--errors", errors)
    assert result.exit_code == 2
    [record] = [json.loads(line) for line in errors.read_text().splitlines()]
    assert record["line"] == 2


# --- unknown ids, did you mean --------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "suggestion", "known"),
    [
        ("--candidate", "opencode-glmm", "opencode-glm", "acpx-claude-sonnet, acpx-codex-sol"),
        ("--case-id", "final-respons", "final-response", "cancellation-permissions"),
    ],
)
def test_explain_unknown_ids_are_errors_with_a_suggestion(
    option: str, value: str, suggestion: str, known: str
) -> None:
    """Not an empty output and exit 0: exit 2, the closest id, and the known ones."""
    result = invoke("explain", SAMPLES / "2026-11-22-nightly", option, value)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"did you mean {suggestion!r}?" in result.stderr
    assert known in result.stderr


@pytest.mark.parametrize("command", ["compare", "plot"])
def test_unknown_candidates_in_compare_and_plot_suggest_the_closest(
    command: str, tmp_path: Path
) -> None:
    args: list[str | Path] = [command]
    if command == "plot":
        args += ["overall", "--out", tmp_path / "o.png"]
    result = invoke(*args, SAMPLES / "2026-11-22-nightly", "--candidate", "codex-lune")
    assert result.exit_code == 2
    assert "did you mean 'codex-luna'?" in result.stderr
    assert "opencode-kimi" in result.stderr


def test_explain_shows_an_infrastructure_failures_code_and_message() -> None:
    """The run's failure code, category and message, in the text and in the JSON."""
    args: list[str | Path] = [SAMPLES / "2026-11-22-nightly", "--candidate", "opencode-kimi"]
    result = invoke("explain", *args, "--case-id", "governed-interaction")
    assert result.exit_code == 0
    assert (
        "  failure provider_unavailable (provider): upstream provider returned HTTP 502 Bad "
        "Gateway" in result.stdout.splitlines()
    )
    document = json.loads(
        invoke("explain", *args, "--case-id", "governed-interaction", "--format", "json").stdout
    )
    [failed] = [item for item in document if item["classification"] == "infrastructure_failure"]
    assert failed["failure"]["code"] == "provider_unavailable"
    assert failed["failure"]["message"] == "upstream provider returned HTTP 502 Bad Gateway"


# --- 5. plots that answer the question ------------------------------------------------------


def test_plot_paired_of_one_candidate_draws_it_against_the_bundle_before(tmp_path: Path) -> None:
    """`plot paired observations/ --candidate opencode-glm` exits 0 and writes the image."""
    target = tmp_path / "paired.png"
    result = invoke("plot", "paired", SAMPLES, "--candidate", "opencode-glm", "--out", target)
    assert result.exit_code == 0, result.output
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Not silently the newest bundle: the note says which, and how to choose.
    assert f"note: plotting bundle {NEWEST}, the last of 4 (choose: --bundle" in result.stderr


def test_plot_all_writes_every_plot_of_the_campaign(tmp_path: Path) -> None:
    """The default paired plot (what regressed) and the gate-aware overall plot draw too."""
    result = invoke("plot", "all", SAMPLES, "--out", tmp_path / "plots", "--format", "svg")
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in (tmp_path / "plots").iterdir()) == sorted(
        f"{name}.svg"
        for name in ("heatmap", "overall", "paired", "passk", "cost", "trends", "providers")
    )


def test_a_paired_drop_is_named_worse_and_marked_in_the_trends(tmp_path: Path) -> None:
    """base falls from 1.0 to 0.5 on all eight cases while new stays: base's paired verdict is
    worse (exact sign-flip p = 2/256, Holm over base, new and pooled), the trends mark it, and
    the summary line names it with the reason; new is not named."""
    cases = ("final-response", "rich-activity", "verification-policy", "governed-interaction",
             "steering-causality", "planning-lifecycle", "review-lifecycle", "delegation-return")  # fmt: skip
    records = [
        make_record(name, case, repetition, bundle=bundle, overall=score, passed=score == 1.0)
        for bundle, scores in (("b1", {"base": 1.0, "new": 1.0}), ("b2", {"base": 0.5, "new": 1.0}))
        for name, score in scores.items()
        for case in cases
        for repetition in (1, 2)
    ]
    path = write_records(tmp_path / "records.jsonl", records)
    document = compare_json(path)
    assert document["worse"] == ["base"]
    [base] = [
        c for c in document["comparisons"]["mean_overall"] if c["current"]["candidate"] == "base"
    ]
    assert base["verdict"] == "worse"
    assert base["overall"]["difference"] == -0.5
    marks = {(row["candidate"], row["bundle"]): row["verdict"] for row in document["trends"]}
    assert marks[("base", "b2")] == "worse"
    assert marks[("new", "b2")] == "inconclusive"
    text = invoke("compare", path).stdout
    assert "worse in b2 than in b1: base\n" in text
    assert "  base: mean overall " in text
    assert "│ ▼ 0.500   0% │" in text
