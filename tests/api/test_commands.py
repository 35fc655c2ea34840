"""Each command is one library call: the same scenario through the command line and through
``scorecard.api`` gives the same result, byte for byte where the command writes bytes."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from scorecard import api
from scorecard.cli._app import app
from scorecard.contract import InputError, InputErrors
from scorecard.report import render_gate_json, render_markdown, view_json
from tests.conftest import ROOT

SAMPLES = ROOT / "observations"
NIGHTS = sorted(SAMPLES.iterdir())


def invoke(*args: str | Path) -> Result:
    """``scorecard ARGS`` in-process, on one worker."""
    return CliRunner().invoke(app, [str(arg) for arg in args], input="")


def test_score_writes_what_the_command_writes(tmp_path: Path) -> None:
    """`score NIGHT --format records` and ``api.score`` write the same bytes and counts."""
    by_command = tmp_path / "command.jsonl"
    result = invoke("score", NIGHTS[0], "--format", "records", "--out", by_command)
    assert result.exit_code == 0, result.output
    stream = io.StringIO()
    scored = api.score([NIGHTS[0]], out=stream, output_format="records", workers=1)
    assert stream.getvalue() == by_command.read_text(encoding="utf-8")
    assert scored.errors == []
    assert f"{scored.summary.line()}\n" in result.stderr


def test_score_keeps_every_rejected_record_and_writes_the_good_ones(tmp_path: Path) -> None:
    """A rejected record is returned located, as the command lists it, and the rest is written."""
    lines = (NIGHTS[0] / "observations.jsonl").read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "runs.jsonl"
    broken.write_text("\n".join([lines[0], '{"schema": 1}', lines[1]]) + "\n", encoding="utf-8")
    stream = io.StringIO()
    scored = api.score([broken], out=stream, output_format="jsonl", workers=1)
    assert [(error.line, error.pointer) for error in scored.errors] == [(2, "/schema")]
    assert len(stream.getvalue().splitlines()) == 2
    result = invoke("score", broken, "--format", "jsonl")
    assert result.exit_code == 2
    assert result.stdout == stream.getvalue()
    assert f"error: {scored.errors[0]}" in result.stderr


def test_explain_gives_the_explanations_the_command_prints() -> None:
    arguments = ("--candidate", "opencode-glm", "--failing-only")
    result = invoke("explain", NIGHTS[-1], *arguments, "--format", "json")
    assert result.exit_code == 0, result.output
    found = api.explain([NIGHTS[-1]], candidates=["opencode-glm"], failing_only=True, workers=1)
    assert json.loads(result.stdout) == found
    assert found, "the regressed candidate has failing runs to explain"


def test_compare_gives_the_view_the_command_renders() -> None:
    result = invoke("compare", SAMPLES, "--format", "json")
    assert result.exit_code == 0, result.output
    found = api.compare([SAMPLES], workers=1)
    assert result.stdout == view_json(found.view, found.receipt)
    assert json.loads(result.stdout)["worse"] == ["opencode-glm"]


def test_compare_across_bundles_and_side_by_side_are_the_commands_views() -> None:
    for options, arguments in (
        ({"across_bundles": "opencode-glm"}, ("--across-bundles", "opencode-glm")),
        (
            {"bundle": "campaign-2026-11-15", "by": "provider"},
            ("--bundle", "campaign-2026-11-15", "--by", "provider"),
        ),
    ):
        result = invoke("compare", SAMPLES, *arguments, "--format", "json")
        assert result.exit_code == 0, result.output
        found = api.compare([SAMPLES], workers=1, **options)  # type: ignore[arg-type]
        assert result.stdout == view_json(found.view, found.receipt)


def test_judge_gives_the_verdict_the_command_writes(tmp_path: Path) -> None:
    """The gate of 2026-11-22 against 2026-11-15: the same JSON, markdown and exit status."""
    markdown, written = tmp_path / "summary.md", tmp_path / "gate.json"
    result = invoke(
        "gate", NIGHTS[-1], "--baseline", NIGHTS[-2], "--json", written, "--markdown", markdown
    )
    judgement = api.judge(NIGHTS[-1], [NIGHTS[-2]], workers=1)
    assert (result.exit_code, judgement.result.verdict, judgement.failed) == (1, "fail", True)
    assert result.stdout == judgement.line + "\n"
    assert written.read_text(encoding="utf-8") == render_gate_json(judgement.result)
    assert markdown.read_text(encoding="utf-8") == render_markdown(judgement.result, judgement.line)


def test_write_gate_reports_writes_what_the_command_writes(tmp_path: Path) -> None:
    by_command, by_library = tmp_path / "command", tmp_path / "library"
    by_command.mkdir()
    by_library.mkdir()
    names = ("summary.md", "junit.xml", "runs.xml", "gate.json")
    result = invoke(
        "gate", NIGHTS[-1], "--baseline", NIGHTS[-2], "--markdown", by_command / names[0],
        "--junit", by_command / names[1], "--junit-runs", by_command / names[2],
        "--json", by_command / names[3],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    judgement = api.judge(NIGHTS[-1], [NIGHTS[-2]], workers=1, every_detail=True)
    markdown, junit, junit_runs, written = (by_library / name for name in names)
    reports = api.GateReports(markdown=markdown, junit=junit, junit_runs=junit_runs, json=written)
    assert api.write_gate_reports(judgement, reports) == []
    for name in names:
        assert (by_library / name).read_bytes() == (by_command / name).read_bytes(), name


def test_judge_raises_every_rejected_record_located(tmp_path: Path) -> None:
    night = tmp_path / "night"
    night.mkdir()
    lines = (NIGHTS[-1] / "observations.jsonl").read_text(encoding="utf-8").splitlines()
    (night / "runs.jsonl").write_text("\n".join([*lines[:3], "{", "[]"]) + "\n", encoding="utf-8")
    with pytest.raises(InputErrors) as raised:
        api.judge(night, workers=1)
    assert [error.line for error in raised.value.errors] == [4, 5]
    result = invoke("gate", night)
    assert result.exit_code == 2
    assert result.stdout == "gate: ERROR - bad input, nothing judged (see stderr)\n"
    for error in raised.value.errors:
        assert f"error: {error}" in result.stderr


def test_plot_writes_the_images_the_command_writes(tmp_path: Path) -> None:
    by_command, by_library = tmp_path / "command.png", tmp_path / "library.png"
    result = invoke("plot", "heatmap", SAMPLES, "--out", by_command)
    assert result.exit_code == 0, result.output
    drawn = api.plot("heatmap", by_library, [SAMPLES], workers=1)
    assert by_library.read_bytes() == by_command.read_bytes()
    assert [f"note: {note}" for note in drawn.notes] == [
        line for line in result.stderr.splitlines() if line.startswith("note: ")
    ]


def test_draw_plots_gives_figures_and_errors_in_the_order_asked() -> None:
    """Whatever order the plots are drawn in, the figures come back in the order of the kinds
    asked for, and a plot that cannot be drawn (one candidate in one bundle: nothing to pair)
    is an error, beside the others' figures in their order."""
    kinds = ["trends", "passk", "paired", "heatmap"]
    plots = api.draw_plots(kinds, [SAMPLES], workers=1)
    assert list(plots.figures) == kinds
    with pytest.raises(api.PlotErrors) as raised:
        api.draw_plots(
            ["passk", "paired", "heatmap"], [NIGHTS[0]], candidates=["codex-luna"], workers=1
        )
    assert list(raised.value.figures) == ["passk", "heatmap"]
    assert [error.rule for error in raised.value.errors] == ["no_pair"]


def test_a_bundle_no_manifest_gives_is_refused_before_any_scoring(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``report --current``, ``plot --bundle``, ``compare --bundle`` / ``--baseline``,
    ``explain --bundle`` of a bundle the observation folders' manifests do not give: the error, with the bundles they
    do give, and nothing scored (the scoring would fail this test)."""
    import scorecard.engine

    def no_scoring(*args: object, **kwargs: object) -> None:
        raise AssertionError("scored before the bundle id was checked")

    monkeypatch.setattr(scorecard.engine, "score_run", no_scoring)
    monkeypatch.setattr(scorecard.engine, "load_records", no_scoring)
    with pytest.raises(InputError, match=r"no bundle 'nightly-x' among the inputs \(they hold"):
        api.build_report(NIGHTS[-2:], current="nightly-x", workers=1)
    with pytest.raises(InputErrors) as plotted:
        api.draw_plots(["heatmap"], NIGHTS, bundle="nightly-x", workers=1)
    with pytest.raises(InputErrors) as compared:
        api.compare(NIGHTS, bundle="nightly-x", baseline="nightly-y", workers=1)
    with pytest.raises(InputErrors) as explained:
        api.explain(NIGHTS[-1:], bundle="nightly-x", workers=1)
    assert [(error.source, error.rule) for error in plotted.value.errors] == [
        ("--bundle", "unknown_bundle")
    ]
    assert [(error.source, error.rule) for error in compared.value.errors] == [
        ("--bundle", "unknown_bundle"),
        ("--baseline", "unknown_bundle"),
    ]
    assert [(error.source, error.rule) for error in explained.value.errors] == [
        ("--bundle", "unknown_bundle")
    ]
    with pytest.raises(InputErrors) as named:  # ids given one per path are the bundles
        api.draw_plots(["heatmap"], NIGHTS[:2], bundle="c", bundle_ids=["a", "b"], workers=1)
    assert [error.rule for error in named.value.errors] == ["unknown_bundle"]
    with pytest.raises(InputError, match="one per PATH"):  # a usage error stays the reading's
        api.draw_plots(["heatmap"], NIGHTS[:2], bundle="z", bundle_ids=list("abc"), workers=1)
    records = tmp_path / "records.jsonl"  # a scored input: its own error, not the bundle's
    records.write_text(json.dumps({"schema": "scorecard.record.v1"}) + "\n")
    with pytest.raises(InputErrors) as refused:
        api.build_report([records], current="nightly-x", workers=1)
    assert [error.rule for error in refused.value.errors] == ["scored_input"]
    monkeypatch.undo()
    scored = api.load_campaign(NIGHTS, workers=1).bundle_order
    assert len(scored) == len(NIGHTS)
    for error in [*plotted.value.errors, *compared.value.errors]:
        assert all(bundle in error.message for bundle in scored)


def test_unknown_ids_are_input_errors_with_the_closest_known_one() -> None:
    with pytest.raises(InputErrors) as raised:
        api.compare([SAMPLES], candidates=["opencode-gml", "nobody"], workers=1)
    messages = [error.message for error in raised.value.errors]
    assert "did you mean 'opencode-glm'?" in messages[0]
    assert [error.rule for error in raised.value.errors] == ["unknown_candidate"] * 2
    result = invoke("compare", SAMPLES, "--candidate", "opencode-gml", "--candidate", "nobody")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"error: {error}" for error in raised.value.errors]


def test_report_builds_the_files_the_command_writes(tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = invoke("report", NIGHTS[-2], NIGHTS[-1], "--out", site)
    assert result.exit_code == 0, result.output
    files = api.build_report([NIGHTS[-2], NIGHTS[-1]], workers=1).files
    written = {
        str(path.relative_to(site)): path.read_bytes() for path in site.rglob("*") if path.is_file()
    }
    assert {name: data for name, data in written.items() if name in files} == files
    assert result.stdout == f"{site / 'index.html'}\n"


def test_report_site_writes_the_folder_the_command_writes(tmp_path: Path) -> None:
    by_command, by_library = tmp_path / "command", tmp_path / "library"
    result = invoke("report", NIGHTS[-2], NIGHTS[-1], "--out", by_command)
    assert result.exit_code == 0, result.output
    report = api.report_site([NIGHTS[-2], NIGHTS[-1]], out=by_library, workers=1)
    pages, files, written_count = report.pages, report.files, report.written
    assert report.rejected == ()
    written = {
        side: {
            path.relative_to(side).as_posix(): path.read_bytes()
            for path in sorted(side.rglob("*"))
            if path.is_file()
        }
        for side in (by_command, by_library)
    }
    assert written[by_command] == written[by_library]
    assert pages == sum(1 for name in written[by_library] if name.endswith(".html")) > 3
    assert files == written_count == len(written[by_library])  # a new folder: every file written
    assert result.stderr == f"wrote {pages} pages to {by_command}\n"


def test_report_site_refuses_a_folder_holding_an_input_before_reading(tmp_path: Path) -> None:
    night = tmp_path / "night"
    shutil.copytree(NIGHTS[-1], night)
    with pytest.raises(InputError) as raised:
        api.report_site([night], out=tmp_path)
    assert (raised.value.rule, raised.value.source) == ("bad_output", "--out")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["night"]


def test_bundle_id_is_the_manifests_id() -> None:
    manifest = NIGHTS[0] / "bundle.json"
    result = invoke("bundle-id", manifest)
    assert (result.exit_code, result.stdout) == (0, api.bundle_id(manifest) + "\n")
    assert api.bundle_id(str(manifest)) == "campaign-2026-11-01"


def test_a_missing_manifest_is_a_located_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        api.bundle_id(tmp_path / "bundle.json")
    assert (raised.value.rule, raised.value.source) == ("unreadable", str(tmp_path / "bundle.json"))


def test_policy_may_be_a_path_text_or_read_file(tmp_path: Path) -> None:
    """A policy is a ``str`` path, a ``Path`` or a ``PolicyFile`` read once; anything else is a
    TypeError at the boundary."""
    written = tmp_path / "policy.yaml"
    written.write_text("gate:\n  drop:\n    tolerance: 0.1\n", encoding="utf-8")
    read = api.policy_file(written)
    assert read.gate == {"tolerance": 0.1}
    assert api.policy_file(str(written)) == read
    assert api.policy_file(read) is read
    with pytest.raises(TypeError, match="policy must be a path"):
        api.policy_file({"gate": {}})  # type: ignore[arg-type]


def test_history_is_the_ledger_the_command_writes(tmp_path: Path) -> None:
    """`history --format json` writes what ``api.history`` finds; the CSV holds the same
    ledger; a candidate x case's strip has one letter a night."""
    from scorecard.report import history_csv, history_json

    found = api.history([SAMPLES], candidates=["opencode-glm"], workers=1)
    written = tmp_path / "history.json"
    result = invoke("history", SAMPLES, "--candidate", "opencode-glm", "--out", written)
    assert result.exit_code == 0, result.output
    assert written.read_text(encoding="utf-8") == history_json(found)
    result = invoke("history", SAMPLES, "--candidate", "opencode-glm", "--format", "csv")
    assert result.stdout == history_csv(found)
    assert len(found.ledger) == 12  # one row a case
    assert all(len(row["strip"]) == len(found.bundles) == 4 for row in found.ledger)
    assert {night["candidate"] for night in found.nights} == {"opencode-glm"}


def test_history_names_an_unknown_case_with_the_closest_one() -> None:
    with pytest.raises(InputErrors) as raised:
        api.history([SAMPLES], case_ids=["restart-recovry"], workers=1)
    assert "did you mean 'restart-recovery'?" in raised.value.errors[0].message
