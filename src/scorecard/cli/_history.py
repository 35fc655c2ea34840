"""``scorecard history PATH...``: per candidate and case, each night's outcome and the flakiness
ledger (``scorecard.api.history``)."""

from __future__ import annotations

import contextlib
import enum
import sys
from typing import IO, Annotated

import typer

from ._common import (
    BundleIdsOption,
    CandidatesOption,
    CaseIdsOption,
    CasesOption,
    ErrorsOption,
    OutOption,
    PolicyOption,
    WorkersOption,
    check_outputs,
    input_paths,
    library_errors,
)


class HistoryFormat(enum.StrEnum):
    """How the history is written."""

    table = "table"
    json = "json"
    csv = "csv"


PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        help="The campaign's nights: observation folders, scored-records files or Parquet, in "
        "night order (a folder's bundles by name); stdin when none is given.",
        show_default=False,
    ),
]
FormatOption = Annotated[
    HistoryFormat | None,
    typer.Option(
        "--format",
        help="table for people; json (every night and the ledger) or csv (the ledger) for tools. "
        "Default: from the --out extension, else table.",
        show_default=False,
    ),
]


def history(
    paths: PathsArgument = None,
    candidate: CandidatesOption = None,
    case_id: CaseIdsOption = None,
    output_format: FormatOption = None,
    out: OutOption = None,
    bundle_ids: BundleIdsOption = None,
    errors_file: ErrorsOption = None,
    cases: CasesOption = None,
    policy_file: PolicyOption = None,
    workers: WorkersOption = None,
) -> None:
    """Show, per candidate and case, the outcome of each night (passed, failed, gate failed, not
    scored), how often it flips between nights (with a 95% interval) and its first and last
    failure: which cases are flaky, which broke when.

    Exit status: 0 when the history was written, 2 on bad input."""
    check_outputs({"--out": out, "--errors": errors_file}, paths or [])
    from scorecard.api import history as campaign_history
    from scorecard.engine import atomic_writer
    from scorecard.report import history_csv, history_json, render_history

    given = input_paths(paths)
    suffix = "" if out is None else out.suffix.lower().lstrip(".")
    chosen = output_format or HistoryFormat(suffix if suffix in ("json", "csv") else "table")
    with library_errors(errors_file=errors_file):
        found = campaign_history(
            given,
            candidates=candidate or [],
            case_ids=case_id or [],
            policy=policy_file,
            cases=cases,
            workers=workers,
            bundle_ids=bundle_ids or [],
        )
    with contextlib.ExitStack() as stack:
        stream: IO[str] = stack.enter_context(atomic_writer(out)) if out is not None else sys.stdout
        if chosen is HistoryFormat.json:
            stream.write(history_json(found))
        elif chosen is HistoryFormat.csv:
            stream.write(history_csv(found))
        else:
            render_history(found, stream)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("history")(history)
