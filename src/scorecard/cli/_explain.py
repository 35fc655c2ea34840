"""``scorecard explain PATH...``: why runs lost points, field by field."""

from __future__ import annotations

import enum
import sys
from typing import Annotated

import typer

from scorecard.contract import InputError

from ._common import (
    EXIT_BAD_INPUT,
    BundleIdOption,
    CasesOption,
    PolicyOption,
    WorkersOption,
    load_catalog_and_policy,
    print_errors,
    worker_count,
)


class ExplainFormat(enum.StrEnum):
    """How explanations are written."""

    text = "text"
    json = "json"


def explain(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Observation files or folders (as for `score`), or -.", show_default=False
        ),
    ],
    case_id: Annotated[
        list[str] | None, typer.Option("--case-id", help="Only these cases (repeatable).")
    ] = None,
    candidate: Annotated[
        list[str] | None, typer.Option("--candidate", help="Only these candidates (repeatable).")
    ] = None,
    failing_only: Annotated[
        bool, typer.Option("--failing-only", help="Only runs that did not pass.")
    ] = False,
    output_format: Annotated[
        ExplainFormat, typer.Option("--format", help="text for people, json for tools.")
    ] = ExplainFormat.text,
    policy_file: PolicyOption = None,
    bundle_id: BundleIdOption = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
) -> None:
    """Show each matching run's scorecard, failing dimensions with the fields behind every
    reason (JSON Pointers), and the case-assertion audit."""
    from scorecard.contract import js_json
    from scorecard.core import explain_record, render_explanation
    from scorecard.engine import score_run

    catalog, policy = load_catalog_and_policy(cases, policy_file)
    errors: list[InputError] = []
    explanations = []
    run = score_run(
        paths, catalog=catalog, policy=policy, workers=worker_count(workers), bundle_id=bundle_id
    )
    for result in run.records():
        if isinstance(result, InputError):
            errors.append(result)
            continue
        card = result.scorecard
        if case_id and card.case_id not in case_id:
            continue
        if candidate and card.candidate_id not in candidate:
            continue
        if failing_only and card.overall.passed is not False:
            continue
        explanation = explain_record(result, catalog)
        if output_format is ExplainFormat.json:
            explanations.append(explanation)
        else:
            sys.stdout.write(render_explanation(explanation) + "\n")
    if output_format is ExplainFormat.json:
        sys.stdout.write(js_json(explanations, 2) + "\n")
    print_errors(errors)
    if errors:
        raise typer.Exit(EXIT_BAD_INPUT)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("explain")(explain)
