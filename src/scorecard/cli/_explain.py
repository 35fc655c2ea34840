"""``scorecard explain PATH...``: why runs lost points, field by field."""

from __future__ import annotations

import contextlib
import enum
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from scorecard.contract import InputError

from ._campaign import input_paths
from ._common import (
    EXIT_BAD_INPUT,
    BundleIdOption,
    CandidatesOption,
    CaseIdsOption,
    CasesOption,
    ErrorsOption,
    PolicyOption,
    WorkersOption,
    check_known,
    check_outputs,
    load_catalog_and_policy,
    print_errors,
    worker_count,
    write_errors,
)
from ._compare import is_parquet_input

if TYPE_CHECKING:
    from scorecard.core import ScoredRecord


class ExplainFormat(enum.StrEnum):
    """How explanations are written."""

    text = "text"
    json = "json"


def _failure(record: ScoredRecord) -> dict[str, Any] | None:
    """The observation's failure (code, category, message; secret-shaped text redacted)."""
    from scorecard.contract import redact

    failure = record.observation.get("failure")
    if not failure:
        return None
    return {
        "code": failure.get("code"),
        "category": failure.get("category"),
        "retryable": failure.get("retryable"),
        "message": redact(str(failure.get("message", ""))),
    }


def _text(explanation: dict[str, Any]) -> str:
    from scorecard.contract import printable
    from scorecard.core import render_explanation

    text = render_explanation(explanation)
    failure = explanation.get("failure")
    if failure is None:
        return text
    lines = text.split("\n")
    shown = f"  failure {failure['code']} ({failure['category']}): {failure['message']}"
    lines.insert(2, printable(shown))
    return "\n".join(lines)


def explain(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="Observation files or folders (as for `score`), or -; stdin when none is given.",
            show_default=False,
        ),
    ] = None,
    case_id: CaseIdsOption = None,
    candidate: CandidatesOption = None,
    bundle: Annotated[
        str | None,
        typer.Option("--bundle", help="Only runs of this bundle.", show_default=False),
    ] = None,
    failing_only: Annotated[
        bool, typer.Option("--failing-only", help="Only runs that did not pass.")
    ] = False,
    output_format: Annotated[
        ExplainFormat | None,
        typer.Option(
            "--format",
            help="text for people, json for tools. Default: json for an --out name ending in "
            ".json, else text.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write here (atomically) instead of stdout.")
    ] = None,
    errors_file: ErrorsOption = None,
    policy_file: PolicyOption = None,
    bundle_id: BundleIdOption = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
) -> None:
    """Show each matching run's scorecard, failing dimensions with the fields behind every
    reason (JSON Pointers), the case-assertion audit, and an infrastructure failure's code and
    message.

    Exit status: 0 when the explanations were written, 2 on a rejected record or an unknown
    --candidate, --case-id or --bundle (the error lists the known ones).
    """
    check_outputs({"--out": out, "--errors": errors_file}, paths or [])
    from scorecard.contract import js_json
    from scorecard.core import explain_record
    from scorecard.engine import atomic_writer, score_run

    given = input_paths(paths)
    scored = next((path for path in given if is_parquet_input(path)), None)
    if scored is not None:
        raise InputError(
            "explain reads observations; Parquet holds scores but no reasons, "
            "pointers or audit findings (explain the observations it was scored from)",
            rule="not_observations",
            source=scored,
        )
    if output_format is None:
        json_out = out is not None and out.suffix.lower() == ".json"
        output_format = ExplainFormat.json if json_out else ExplainFormat.text
    catalog, policy = load_catalog_and_policy(cases, policy_file)
    errors: list[InputError] = []
    records: list[ScoredRecord] = []
    run = score_run(
        given, catalog=catalog, policy=policy, workers=worker_count(workers), bundle_id=bundle_id
    )
    for result in run.records():
        if isinstance(result, InputError):
            errors.append(result)
        else:
            records.append(result)
    print_errors(errors)
    write_errors(errors_file, errors)
    if errors:
        raise typer.Exit(EXIT_BAD_INPUT)
    cards = [record.scorecard for record in records]
    check_known(
        "candidate", candidate or [], sorted({c.candidate_id for c in cards}), option="--candidate"
    )
    check_known("case", case_id or [], sorted({c.case_id for c in cards}), option="--case-id")
    check_known(
        "bundle",
        [bundle] if bundle else [],
        sorted({c.bundle_id for c in cards}),
        option="--bundle",
    )
    explanations = []
    for record, card in zip(records, cards, strict=True):
        if case_id and card.case_id not in case_id:
            continue
        if candidate and card.candidate_id not in candidate:
            continue
        if bundle is not None and card.bundle_id != bundle:
            continue
        if failing_only and card.overall.passed is not False:
            continue
        explanation = explain_record(record, catalog)
        failure = _failure(record)
        if failure is not None:
            explanation["failure"] = failure
        explanations.append(explanation)
    with contextlib.ExitStack() as stack:
        stream: IO[str] = stack.enter_context(atomic_writer(out)) if out is not None else sys.stdout
        if output_format is ExplainFormat.json:
            stream.write(js_json(explanations, 2) + "\n")
        else:
            for explanation in explanations:
                stream.write(_text(explanation) + "\n")


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("explain")(explain)
