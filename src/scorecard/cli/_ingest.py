"""``scorecard ingest PATH... --store STORE``: score bundles once and keep each in the campaign
store (``scorecard.api.ingest``, ``docs/store.md``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ._common import (
    EXIT_BAD_INPUT,
    BundleIdOption,
    CasesOption,
    ErrorsOption,
    PolicyOption,
    WorkersOption,
    input_paths,
    library_errors,
    print_errors,
    write_errors,
)

PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        help="Observation files or folders (as for `score`): each bundle found is one unit.",
        show_default=False,
    ),
]
IngestStoreOption = Annotated[
    Path,
    typer.Option(
        "--store",
        help="The store's folder (made, with --policy and --cases, when it holds no store).",
        show_default=False,
    ),
]
ReplaceOption = Annotated[
    bool, typer.Option("--replace", help="Replace a bundle that changed under the same id.")
]
KeepRejectedOption = Annotated[
    bool,
    typer.Option(
        "--keep-rejected",
        help="Keep a bundle with rejected records: its scored runs, and the rejects' errors.",
    ),
]
NightOption = Annotated[
    str | None,
    typer.Option(
        "--night",
        help="The night (YYYY-MM-DD) of bundles whose manifest states none.",
        show_default=False,
    ),
]


def ingest(
    store: IngestStoreOption,
    paths: PathsArgument = None,
    replace: ReplaceOption = False,
    keep_rejected: KeepRejectedOption = False,
    night: NightOption = None,
    bundle_id: BundleIdOption = None,
    errors_file: ErrorsOption = None,
    policy_file: PolicyOption = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
) -> None:
    """Score each bundle under PATH... once and add it to the store as one unit: its runs,
    scorecards, findings, failures and observations. The same bundle again is unchanged; a
    changed one is refused unless --replace. One line per bundle on stdout.

    Exit status: 0 when every bundle landed or was there, 2 when one was refused or bad input."""
    from scorecard.api import ingest as ingest_bundles

    given = input_paths(paths)
    with library_errors():
        report = ingest_bundles(
            given,
            store,
            policy=policy_file,
            cases=cases,
            workers=workers,
            replace=replace,
            bundle_id=bundle_id,
            night=night,
            keep_rejected=keep_rejected,
        )
    errors = [*report.errors, *(error for bundle in report.bundles for error in bundle.errors)]
    for outcome in report.bundles:
        runs = f" ({outcome.entry.runs} runs)" if outcome.entry is not None else ""
        sys.stdout.write(f"{outcome.status} {outcome.id}{runs}\n")
    print_errors(errors)
    write_errors(errors_file, errors)
    sys.stderr.write(report.summary.line() + "\n")
    if not report.ok:
        raise typer.Exit(EXIT_BAD_INPUT)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("ingest")(ingest)
