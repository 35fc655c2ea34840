"""``scorecard explain PATH...``: why runs lost points, field by field (``scorecard.api.explain``)."""

from __future__ import annotations

import contextlib
import enum
import sys
from typing import IO, Annotated

import typer

from ._common import (
    BundleIdOption,
    CandidatesOption,
    CaseIdsOption,
    CasesOption,
    ErrorsOption,
    OutOption,
    PolicyOption,
    StoreOption,
    WorkersOption,
    check_outputs,
    library_errors,
    paths_or_store,
)


class ExplainFormat(enum.StrEnum):
    """How explanations are written."""

    text = "text"
    json = "json"


PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        help="Observation files or folders (as for `score`), or -; stdin when none is given.",
        show_default=False,
    ),
]
BundleOption = Annotated[
    str | None, typer.Option("--bundle", help="Only runs of this bundle.", show_default=False)
]
FailingOnlyOption = Annotated[
    bool, typer.Option("--failing-only", help="Only runs that did not pass.")
]
FormatOption = Annotated[
    ExplainFormat | None,
    typer.Option(
        "--format",
        help="text for people, json for tools. Default: json for an --out name ending in "
        ".json, else text.",
        show_default=False,
    ),
]


def explain(
    paths: PathsArgument = None,
    case_id: CaseIdsOption = None,
    candidate: CandidatesOption = None,
    bundle: BundleOption = None,
    failing_only: FailingOnlyOption = False,
    output_format: FormatOption = None,
    out: OutOption = None,
    errors_file: ErrorsOption = None,
    policy_file: PolicyOption = None,
    bundle_id: BundleIdOption = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
    store: StoreOption = None,
) -> None:
    """Show each matching run's scorecard, failing dimensions with the fields behind every
    reason (JSON Pointers), the case-assertion audit, and an infrastructure failure's code and
    message.

    Exit status: 0 when the explanations were written, 2 on a rejected record or an unknown
    --candidate, --case-id or --bundle (the error lists the known ones).
    """
    check_outputs({"--out": out, "--errors": errors_file}, paths or [])
    from scorecard.api import explain as explain_runs
    from scorecard.api import explanation_text
    from scorecard.contract import js_json
    from scorecard.engine import atomic_writer

    given = paths_or_store(paths, store)
    if output_format is None:
        json_out = out is not None and out.suffix.lower() == ".json"
        output_format = ExplainFormat.json if json_out else ExplainFormat.text
    with library_errors(errors_file=errors_file):
        explanations = explain_runs(
            given,
            case_ids=case_id or [],
            candidates=candidate or [],
            bundle=bundle,
            failing_only=failing_only,
            policy=policy_file,
            bundle_id=bundle_id,
            cases=cases,
            workers=workers,
            store=store,
        )
    with contextlib.ExitStack() as stack:
        stream: IO[str] = stack.enter_context(atomic_writer(out)) if out is not None else sys.stdout
        if output_format is ExplainFormat.json:
            stream.write(js_json(explanations, 2) + "\n")
        else:
            for explanation in explanations:
                stream.write(explanation_text(explanation) + "\n")


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("explain")(explain)
