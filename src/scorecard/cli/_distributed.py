"""``scorecard score-dask PATH... --scheduler ADDRESS``: score on a Dask cluster into a dataset
(``scorecard.api.score_on_cluster``). Dask is an optional extra, imported only when the command
runs, so ``scorecard --help`` stays fast and works without it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ._common import (
    EXIT_BAD_INPUT,
    BundleIdOption,
    CasesOption,
    PolicyOption,
    library_errors,
    print_errors,
    print_warnings,
)

#: Mirrors scorecard.api.SPLIT_BYTES (and the engine's) without importing it at CLI start.
_SPLIT_BYTES = 64 * 1024 * 1024

PathsArgument = Annotated[
    list[str],
    typer.Argument(
        help="Observation files (.json, .jsonl) and folders, on a file system every worker sees "
        "at the same path (stdin cannot be used).",
        show_default=False,
    ),
]
SchedulerOption = Annotated[
    str,
    typer.Option(
        "--scheduler",
        help="Dask scheduler address (tcp://host:8786), or local to start a cluster of "
        "processes on this machine.",
        show_default=False,
    ),
]
DatasetOption = Annotated[
    Path,
    typer.Option(
        "--out",
        help="Dataset folder to write (atomically): one bundle=<id> partition per bundle, the "
        "rows of `score --out X.parquet --partition-by-bundle`.",
        show_default=False,
    ),
]
ScorecardsOption = Annotated[
    Path | None,
    typer.Option("--scorecards", help="Also write the v2 scorecards here as JSON Lines."),
]
DaskErrorsOption = Annotated[
    Path | None, typer.Option("--errors", help="Write one JSON line per rejected record here.")
]
SplitOption = Annotated[
    int,
    typer.Option(
        "--split-bytes",
        min=1,
        help="Cut .jsonl files into ranges of about this many bytes, one task each.",
    ),
]


def score_dask(
    paths: PathsArgument,
    scheduler: SchedulerOption,
    out: DatasetOption,
    scorecards: ScorecardsOption = None,
    policy_file: PolicyOption = None,
    cases: CasesOption = None,
    bundle_id: BundleIdOption = None,
    errors_file: DaskErrorsOption = None,
    split_bytes: SplitOption = _SPLIT_BYTES,
) -> None:
    """Score observations on a Dask cluster into a bundle-partitioned Parquet dataset.

    The dataset, scorecards, errors and summary are those of `scorecard score` on one machine
    (docs/distributed.md).

    Exit status: 0 when every record was scored, 2 when any was rejected or an argument is bad
    (the good records are still written). A one-line summary goes to stderr.
    """
    from scorecard.api import score_on_cluster

    with library_errors():
        run = score_on_cluster(
            paths,
            scheduler=scheduler,
            out=out,
            scorecards=scorecards,
            errors_out=errors_file,
            policy=policy_file,
            cases=cases,
            bundle_id=bundle_id,
            split_bytes=split_bytes,
        )
    print_errors(run.errors)
    print_warnings(run.summary.warnings())
    sys.stderr.write(run.summary.line() + "\n")
    if run.summary.rejected:
        raise typer.Exit(EXIT_BAD_INPUT)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("score-dask")(score_dask)
