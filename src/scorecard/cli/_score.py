"""``scorecard score PATH...``: score observations into v2 scorecards."""

from __future__ import annotations

import contextlib
import enum
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer

from scorecard.contract import InputError

from ._campaign import input_paths
from ._common import (
    EXIT_BAD_INPUT,
    BundleIdOption,
    CasesOption,
    PolicyOption,
    WorkersOption,
    check_outputs,
    load_catalog_and_policy,
    print_errors,
    worker_count,
)

if TYPE_CHECKING:
    from scorecard.core import ScoredRecord
    from scorecard.engine import Row

# Must match scorecard.engine._pipeline.STREAMING_FORMATS (kept here so --help imports nothing heavy).
_STREAMING = ("jsonl", "records", "audit")


class OutputFormat(enum.StrEnum):
    """How scorecards are written."""

    jsonl = "jsonl"
    json = "json"
    table = "table"
    records = "records"
    audit = "audit"


def score(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="Observation files (.json: one or an array; .jsonl: one per line), folders "
            "(searched recursively; bundles found by their bundle.json), or - for JSON Lines "
            "on stdin (also read when no path is given and stdin is not a terminal).",
            show_default=False,
        ),
    ] = None,
    policy_file: PolicyOption = None,
    bundle_id: BundleIdOption = None,
    output_format: Annotated[
        OutputFormat | None,
        typer.Option(
            "--format",
            help="jsonl: one v2 scorecard per line; json: an array; table: for people; "
            "records: scorecards with the facts aggregation needs; audit: case-assertion "
            "findings per run. Default: from the --out extension (.json, .jsonl, .txt; "
            ".parquet writes records as columns), else table on a terminal, jsonl otherwise.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write here (atomically) instead of stdout. A .parquet name writes the scored "
            "records as columns (docs/records.md).",
        ),
    ] = None,
    errors_file: Annotated[
        Path | None,
        typer.Option("--errors", help="Write one JSON line per rejected record here."),
    ] = None,
    cases: CasesOption = None,
    partition_by_bundle: Annotated[
        bool,
        typer.Option(
            "--partition-by-bundle",
            help="With --out X.parquet: write a dataset folder with one bundle=<id> partition "
            "per bundle.",
        ),
    ] = False,
    workers: WorkersOption = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            help="Score on the Dask cluster at this address (tcp://host:8786; local: a cluster "
            "on this machine) into the --out X.parquet dataset, partitioned by bundle "
            "(docs/distributed.md). Needs scorecard[distributed].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Score observations into eight-dimension v2 scorecards.

    Exit status: 0 when every record was scored, 2 when any was rejected or an argument is bad
    (the good records are still written). A one-line summary goes to stderr.
    """
    dataset = ["--out"] if partition_by_bundle or scheduler is not None else []
    check_outputs({"--out": out, "--errors": errors_file}, paths or [], folders=dataset)
    paths = input_paths(paths)
    if scheduler is not None:
        if out is None or out.suffix != ".parquet":
            raise InputError("needs --out DATASET.parquet", rule="usage", source="--scheduler")
        from ._distributed import run_on_scheduler

        run_on_scheduler(
            paths,
            scheduler=scheduler,
            out=out,
            policy_file=policy_file,
            cases=cases,
            bundle_id=bundle_id,
            errors_file=errors_file,
        )
        return
    from scorecard.engine import atomic_writer, score_run

    catalog, policy = load_catalog_and_policy(cases, policy_file)
    parquet = out is not None and out.suffix == ".parquet"
    if parquet:
        output_format = OutputFormat.records  # rows: the facts records carry
    elif partition_by_bundle:
        raise InputError("needs --out FILE.parquet", rule="usage", source="--partition-by-bundle")
    if output_format is None and out is not None:
        output_format = _out_format(out)
    if output_format is None:
        interactive = out is None and sys.stdout.isatty()
        output_format = OutputFormat.table if interactive else OutputFormat.jsonl
    run = score_run(
        paths, catalog=catalog, policy=policy, workers=worker_count(workers), bundle_id=bundle_id
    )
    summary = run.summary
    errors: list[InputError] = []
    results: Iterator[ScoredRecord | str | Row | InputError]
    # Parquet is written from rows, the streaming formats from text; the table and the JSON
    # array need the records themselves.
    if parquet:
        results = run.rows()
    elif output_format.value in _STREAMING:
        results = run.text(output_format.value)
    else:
        results = run.records()
    with contextlib.ExitStack() as stack:
        error_stream = (
            stack.enter_context(atomic_writer(errors_file)) if errors_file is not None else None
        )

        tick = stack.enter_context(_progress()) if _progress_wanted(out) else None

        def accepted() -> Iterator[ScoredRecord | str | Row]:
            shown = 0
            for result in results:
                # Results are records, rows or pieces of text: count what the summary counted.
                done = summary.scored + summary.rejected
                if tick is not None and done - shown >= _PROGRESS_EVERY:
                    tick(done)
                    shown = done
                if isinstance(result, InputError):
                    errors.append(result)
                    if error_stream is not None:
                        error_stream.write(
                            json.dumps(result.to_record(), ensure_ascii=False) + "\n"
                        )
                else:
                    yield result

        if parquet:
            assert out is not None
            _write_parquet(accepted(), out, partition_by_bundle=partition_by_bundle)
        else:
            stream: IO[str] = (
                stack.enter_context(atomic_writer(out)) if out is not None else sys.stdout
            )
            _write_text(accepted(), stream, output_format)
    print_errors(errors)
    sys.stderr.write(summary.line() + "\n")
    if summary.rejected:
        raise typer.Exit(EXIT_BAD_INPUT)  # the rejected records' code; the good ones are written


_PROGRESS_EVERY = 1000

#: ``--out`` extensions and the format each implies when ``--format`` is not given.
_OUT_FORMATS = {
    ".json": OutputFormat.json,
    ".jsonl": OutputFormat.jsonl,
    ".txt": OutputFormat.table,
}


def _out_format(out: Path) -> OutputFormat | None:
    """The format an ``--out`` name implies (None: the default); ``.csv`` is refused."""
    suffix = out.suffix.lower()
    if suffix == ".csv":
        raise InputError(
            "score writes JSON Lines (.jsonl), JSON (.json), a table (.txt) or Parquet "
            "(.parquet), not CSV; `scorecard compare --out X.csv` writes CSV tables",
            rule="bad_output",
            source="--out",
        )
    return _OUT_FORMATS.get(suffix)


def _progress_wanted(out: Path | None) -> bool:
    """A live count when stderr is a terminal and the output goes elsewhere (a file, a pipe)."""
    return sys.stderr.isatty() and (out is not None or not sys.stdout.isatty())


@contextlib.contextmanager
def _progress() -> Iterator[Callable[[int], None]]:
    """A transient count of records read so far on stderr, with the elapsed time."""
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


def _write_text(
    results: Iterator[ScoredRecord | str | Row], stream: IO[str], output_format: OutputFormat
) -> None:
    from scorecard.contract import js_json
    from scorecard.core import ScoredRecord

    if output_format.value in _STREAMING:
        for result in results:
            if not isinstance(result, str):
                raise TypeError("streaming formats are written from rendered text")
            stream.write(result)
        return
    records = [result for result in results if isinstance(result, ScoredRecord)]
    if output_format is OutputFormat.json:
        stream.write(js_json([record.scorecard_json() for record in records], 2) + "\n")
    else:
        from scorecard.report import scorecard_table

        scorecard_table(records, stream)


def _write_parquet(
    results: Iterator[ScoredRecord | str | Row], out: Path, *, partition_by_bundle: bool
) -> None:
    from scorecard.engine.parquet import write_parquet

    def rows() -> Iterator[Row]:
        # Rows come ready from the chunk scorers (ScoringRun.rows).
        for result in results:
            if not isinstance(result, tuple):
                raise TypeError("Parquet is written from aggregation rows")
            yield result

    write_parquet(rows(), out, partition_by_bundle=partition_by_bundle)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("score")(score)
