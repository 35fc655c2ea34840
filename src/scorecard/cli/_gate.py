"""``scorecard gate CURRENT [--baseline BASELINE ...]``: the regression gate for CI.

Exit status: 0 pass, 1 fail, 2 bad input or usage, 3 inconclusive (1 with
``--fail-on-inconclusive``). Exactly one verdict line goes to stdout and agrees with the status
(with ``--judge-valid`` and rejected records, 2 unless it fails: the line says how many).
"""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    BundleIdOption,
    CasesOption,
    SeedOption,
    StoreOption,
    WorkersOption,
    check_outputs,
    library_errors,
    print_errors,
)

if TYPE_CHECKING:
    from scorecard.api import GateReports, Judgement

__all__ = ["EXIT_INCONCLUSIVE", "gate", "register"]

EXIT_INCONCLUSIVE = 3
_BAD_INPUT_LINE = "gate: ERROR - bad input, nothing judged (see stderr)"


class GateFormat(enum.StrEnum):
    """What ``gate`` prints on stdout."""

    line = "line"
    json = "json"


CurrentArgument = Annotated[
    str | None,
    typer.Argument(
        help="The bundle under test: an observation (bundle) folder, a scored-records file "
        "(`scorecard score --format records`) or Parquet. One bundle. With --store: its id "
        "(default: the newest night).",
        show_default=False,
    ),
]
CurrentOption = Annotated[
    str | None,
    typer.Option(
        "--current",
        help="With --store: the bundle judged (default: the newest night).",
        show_default=False,
    ),
]
BaselineOption = Annotated[
    list[str] | None,
    typer.Option(
        "--baseline",
        help="A bundle to compare against (same forms). Repeat it to pool several nights (or a "
        "fixed approved baseline) per candidate and case. Without it only the safety, "
        "infrastructure and audit rules apply. With --store: last:N (the N nights before), "
        "approved, previous, or bundle ids (ID,ID).",
    ),
]
GatePolicyOption = Annotated[
    Path | None,
    typer.Option(
        "--policy",
        help="YAML/JSON file with a `gate` section (rules) and optionally weights, thresholds "
        "and auditGate for scoring observations (docs/gate.md).",
    ),
]
ToleranceOption = Annotated[
    float | None,
    typer.Option(
        "--tolerance",
        min=0.0,
        max=1.0,
        help="Drops within this (score or rate units) do not fail. [default: 0.05]",
        show_default=False,
    ),
]
InconclusiveOption = Annotated[
    bool, typer.Option("--fail-on-inconclusive", help="Exit 1 instead of 3 when inconclusive.")
]
MarkdownOption = Annotated[
    Path | None, typer.Option("--markdown", help="Write the markdown summary here.")
]
PrCommentOption = Annotated[
    Path | None,
    typer.Option(
        "--pr-comment",
        help="Write a pull-request comment here (markdown, at most 64,000 bytes, first line "
        "<!-- scorecard-gate --> to find and update it by).",
    ),
]
JunitOption = Annotated[
    Path | None,
    typer.Option(
        "--junit",
        help="Write JUnit XML here: one test case per gate check (candidate x rule), red "
        "exactly when the gate fails on it; inconclusive checks are skipped.",
    ),
]
JunitRunsOption = Annotated[
    Path | None,
    typer.Option(
        "--junit-runs",
        help="Write the per-run JUnit XML here (one test case per run of the current bundle: "
        "it judges runs, so a healthy night has failures).",
    ),
]
JsonOption = Annotated[
    Path | None,
    typer.Option("--json", help="Write the gate result as JSON (scorecard.gate.v1) here."),
]
HtmlOption = Annotated[
    Path | None, typer.Option("--html", help="Write the self-contained HTML report here.")
]
FormatOption = Annotated[
    GateFormat,
    typer.Option(
        "--format",
        help="What stdout gets: the verdict line, or the result as JSON (scorecard.gate.v1, "
        "what --json writes). The exit status is the same.",
    ),
]
SiteUrlOption = Annotated[
    str | None,
    typer.Option(
        "--site-url",
        help="Where `scorecard report` publishes its site (an address or a relative path, e.g. "
        "the CI artifact's): the markdown and JUnit link each gate-failed run to its page there.",
    ),
]
JudgeValidOption = Annotated[
    bool,
    typer.Option(
        "--judge-valid",
        help="Judge the valid records when some are rejected (each listed on stderr and in the "
        "reports' notes) instead of judging nothing. Exit 1 when the verdict fails, else 2.",
    ),
]
BaselineBundleIdOption = Annotated[
    str | None,
    typer.Option(
        "--baseline-bundle-id",
        help="Use this bundle id for the baseline's records (one --baseline only).",
    ),
]


def gate(
    current: CurrentArgument = None,
    baseline: BaselineOption = None,
    policy_file: GatePolicyOption = None,
    tolerance: ToleranceOption = None,
    fail_on_inconclusive: InconclusiveOption = False,
    markdown: MarkdownOption = None,
    pr_comment: PrCommentOption = None,
    junit: JunitOption = None,
    junit_runs: JunitRunsOption = None,
    json_file: JsonOption = None,
    html: HtmlOption = None,
    output_format: FormatOption = GateFormat.line,
    site_url: SiteUrlOption = None,
    seed: SeedOption = 0,
    bundle_id: BundleIdOption = None,
    baseline_bundle_id: BaselineBundleIdOption = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
    store: StoreOption = None,
    current_id: CurrentOption = None,
    judge_valid: JudgeValidOption = False,
) -> None:
    """Judge a bundle for CI: safety gate, and paired regressions against a baseline.

    Exit status: 0 pass, 1 fail, 2 bad input or usage (with --judge-valid: records rejected
    and the verdict not a fail), 3 inconclusive (1 with --fail-on-inconclusive). Prints one
    verdict line; appends the markdown summary to $GITHUB_STEP_SUMMARY when that is set."""
    from scorecard.api import judge, write_gate_reports

    reports = _reports(markdown, pr_comment, junit, junit_runs, json_file, html)
    with library_errors(stdout_line=_BAD_INPUT_LINE):
        reports = reports.linked_to(site_url)  # a bad address is refused before any reading
        check_outputs(reports.paths(), [] if store else [current or "", *(baseline or [])])
        judgement = judge(
            current_id or current,
            baseline or [],
            store=store,
            policy=policy_file,
            tolerance=tolerance,
            fail_on_inconclusive=fail_on_inconclusive,
            seed=seed,
            bundle_id=bundle_id,
            baseline_bundle_id=baseline_bundle_id,
            cases=cases,
            workers=workers,
            every_detail=junit_runs is not None,  # only the per-run JUnit shows every run
            judge_valid=judge_valid,
        )
        print_errors(judgement.rejected)
        for note in judgement.notes:
            sys.stderr.write(f"note: {note}\n")
    with library_errors():  # judged: a report that cannot be written is no bad input
        for warning in write_gate_reports(judgement, reports):
            sys.stderr.write(f"warning: {warning}\n")
    raise typer.Exit(_verdict(judgement, output_format))


def _reports(*paths: Path | None) -> GateReports:
    """The reports asked for (markdown, PR comment, JUnit, per-run JUnit, JSON, HTML), and the
    CI job summary when ``$GITHUB_STEP_SUMMARY`` names one."""
    from scorecard.api import GateReports

    markdown, pr_comment, junit, junit_runs, json_file, html = paths
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    return GateReports(
        markdown=markdown,
        pr_comment=pr_comment,
        junit=junit,
        junit_runs=junit_runs,
        json=json_file,
        html=html,
        step_summary=Path(summary) if summary else None,
    )


def _verdict(judgement: Judgement, output_format: GateFormat) -> int:
    """Print the verdict (the line, or the result as JSON with the line on stderr) and return
    the exit status it means."""
    if output_format is GateFormat.json:
        from scorecard.report import render_gate_json

        sys.stdout.write(render_gate_json(judgement.result))
        sys.stderr.write(judgement.line + "\n")  # the verdict still reaches the log
    else:
        sys.stdout.write(judgement.line + "\n")
    if judgement.failed:
        return EXIT_FAILED
    if judgement.rejected:  # judged on part of the input (--judge-valid): not a clean verdict
        return EXIT_BAD_INPUT
    return EXIT_OK if judgement.judged.verdict == "pass" else EXIT_INCONCLUSIVE


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("gate")(gate)
