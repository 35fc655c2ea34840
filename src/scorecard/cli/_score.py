"""``scorecard score PATH...``: score observations into v2 scorecards (``scorecard.api.score``)."""

from __future__ import annotations

import contextlib
import enum
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer

from ._common import (
    EXIT_BAD_INPUT,
    BundleIdOption,
    CasesOption,
    PolicyOption,
    WorkersOption,
    check_outputs,
    input_paths,
    library_errors,
    print_errors,
    print_warnings,
)


class OutputFormat(enum.StrEnum):
    """How scorecards are written (the names of ``scorecard.api.OUTPUT_FORMATS``)."""

    jsonl = "jsonl"
    json = "json"
    table = "table"
    records = "records"
    audit = "audit"


PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        help="Observation files (.json: one or an array; .jsonl: one per line), folders "
        "(searched recursively; bundles found by their bundle.json), or - for JSON Lines on "
        "stdin (also read when no path is given and stdin is not a terminal).",
        show_default=False,
    ),
]
FormatOption = Annotated[
    OutputFormat | None,
    typer.Option(
        "--format",
        help="jsonl: one v2 scorecard per line; json: an array; table: for people; records: "
        "scorecards with the facts aggregation needs; audit: case-assertion findings per run. "
        "Default: from the --out extension (.json, .jsonl, .txt; .parquet writes records as "
        "columns), else table on a terminal, jsonl otherwise.",
        show_default=False,
    ),
]
ScoreOutOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="Write here (atomically) instead of stdout. A .parquet name writes the scored "
        "records as columns (docs/records.md).",
    ),
]
ScoreErrorsOption = Annotated[
    Path | None, typer.Option("--errors", help="Write one JSON line per rejected record here.")
]
PartitionOption = Annotated[
    bool,
    typer.Option(
        "--partition-by-bundle",
        help="With --out X.parquet: write a dataset folder with one bundle=<id> partition per "
        "bundle.",
    ),
]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="Score on the Dask cluster at this address (tcp://host:8786; local: a cluster on "
        "this machine) into the --out X.parquet dataset, partitioned by bundle "
        "(docs/distributed.md). Needs scorecard[distributed].",
        show_default=False,
    ),
]


def score(
    paths: PathsArgument = None,
    policy_file: PolicyOption = None,
    bundle_id: BundleIdOption = None,
    output_format: FormatOption = None,
    out: ScoreOutOption = None,
    errors_file: ScoreErrorsOption = None,
    cases: CasesOption = None,
    partition_by_bundle: PartitionOption = False,
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
) -> None:
    """Score observations into eight-dimension v2 scorecards.

    Exit status: 0 when every record was scored, 2 when any was rejected or an argument is bad
    (the good records are still written). A one-line summary goes to stderr.
    """
    dataset = ["--out"] if partition_by_bundle or scheduler is not None else []
    check_outputs({"--out": out, "--errors": errors_file}, paths or [], folders=dataset)
    given = input_paths(paths)
    from scorecard.api import score as score_runs

    chosen = None if output_format is None else output_format.value
    if chosen is None and out is None:
        chosen = "table" if sys.stdout.isatty() else "jsonl"
    with library_errors(), _progress(_progress_wanted(out)) as tick:
        scored = score_runs(
            given,
            out=sys.stdout if out is None else out,
            output_format=chosen,
            errors_out=errors_file,
            policy=policy_file,
            cases=cases,
            bundle_id=bundle_id,
            workers=workers,
            partition_by_bundle=partition_by_bundle,
            scheduler=scheduler,
            on_progress=tick,
        )
    print_errors(scored.errors)
    print_warnings(scored.summary.warnings())
    sys.stderr.write(scored.summary.line() + "\n")
    if scored.summary.rejected:
        raise typer.Exit(EXIT_BAD_INPUT)


def _progress_wanted(out: Path | None) -> bool:
    """A live count when stderr is a terminal and the output goes elsewhere (a file, a pipe)."""
    return sys.stderr.isatty() and (out is not None or not sys.stdout.isatty())


@contextlib.contextmanager
def _progress(wanted: bool) -> Iterator[Callable[[int], None] | None]:
    """A transient count of records read so far on stderr, with the elapsed time."""
    if not wanted:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (
        SpinnerColumn(),
        TextColumn("scoring: {task.completed:,} records"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as progress:
        task = progress.add_task("scoring", total=None)

        def tick(count: int) -> None:
            progress.update(task, completed=count)

        yield tick


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("score")(score)
