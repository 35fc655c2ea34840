"""``scorecard gate CURRENT [--baseline BASELINE ...]``: the regression gate for CI.

Exit status: 0 pass, 1 fail, 2 bad input or usage, 3 inconclusive (1 with
``--fail-on-inconclusive``). Exactly one verdict line goes to stdout and agrees with the status.
"""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._common import (
    EXIT_FAILED,
    EXIT_OK,
    BundleIdOption,
    CasesOption,
    SeedOption,
    WorkersOption,
    check_outputs,
    library_errors,
)

if TYPE_CHECKING:
    from scorecard.api import Judgement

__all__ = ["EXIT_INCONCLUSIVE", "gate", "register"]

EXIT_INCONCLUSIVE = 3
_BAD_INPUT_LINE = "gate: ERROR - bad input, nothing judged (see stderr)"


class GateFormat(enum.StrEnum):
    """What ``gate`` prints on stdout."""

    line = "line"
    json = "json"


CurrentArgument = Annotated[
    str,
    typer.Argument(
        help="The bundle under test: an observation (bundle) folder, a scored-records file "
        "(`scorecard score --format records`) or Parquet. One bundle.",
        show_default=False,
    ),
]
BaselineOption = Annotated[
    list[str] | None,
    typer.Option(
        "--baseline",
        help="A bundle to compare against (same forms). Repeat it to pool several nights (or a "
        "fixed approved baseline) per candidate and case. Without it only the safety, "
        "infrastructure and audit rules apply.",
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
BaselineBundleIdOption = Annotated[
    str | None,
    typer.Option(
        "--baseline-bundle-id",
        help="Use this bundle id for the baseline's records (one --baseline only).",
    ),
]


def gate(
    current: CurrentArgument,
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
) -> None:
    """Judge a bundle for CI: safety gate, and paired regressions against a baseline.

    Exit status: 0 pass, 1 fail, 2 bad input or usage, 3 inconclusive (1 with
    --fail-on-inconclusive). Prints one verdict line; appends the markdown summary to
    $GITHUB_STEP_SUMMARY when that is set."""
    from scorecard.api import GateReports, judge, write_gate_reports

    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    reports = GateReports(
        markdown=markdown,
        pr_comment=pr_comment,
        junit=junit,
        junit_runs=junit_runs,
        json=json_file,
        html=html,
        step_summary=Path(summary) if summary else None,
    )
    with library_errors(stdout_line=_BAD_INPUT_LINE):
        reports = reports.linked_to(site_url)  # a bad address is refused before any reading
        check_outputs(reports.paths(), [current, *(baseline or [])])
        judgement = judge(
            current,
            baseline or [],
            policy=policy_file,
            tolerance=tolerance,
            fail_on_inconclusive=fail_on_inconclusive,
            seed=seed,
            bundle_id=bundle_id,
            baseline_bundle_id=baseline_bundle_id,
            cases=cases,
            workers=workers,
            every_detail=junit_runs is not None,  # only the per-run JUnit shows every run
        )
        for note in judgement.notes:
            sys.stderr.write(f"note: {note}\n")
    with library_errors():  # judged: a report that cannot be written is no bad input
        for warning in write_gate_reports(judgement, reports):
            sys.stderr.write(f"warning: {warning}\n")
    raise typer.Exit(_verdict(judgement, output_format))


def _verdict(judgement: Judgement, output_format: GateFormat) -> int:
    """Print the verdict (the line, or the result as JSON with the line on stderr) and return
    the exit status it means."""
    if output_format is GateFormat.json:
        from scorecard.report import render_gate_json

        sys.stdout.write(render_gate_json(judgement.result))
        sys.stderr.write(judgement.line + "\n")  # the verdict still reaches the log
    else:
        sys.stdout.write(judgement.line + "\n")
    if judgement.result.verdict == "pass":
        return EXIT_OK
    return EXIT_FAILED if judgement.failed else EXIT_INCONCLUSIVE


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("gate")(gate)
