"""``scorecard compare PATH...``: candidates or providers side by side, or a candidate over time."""

from __future__ import annotations

import contextlib
import enum
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Annotated

import typer

from scorecard.contract import InputError

from ._common import (
    EXIT_BAD_INPUT,
    CasesOption,
    PolicyOption,
    WorkersOption,
    check_outputs,
    print_errors,
    worker_count,
)

#: The gate's default drop tolerance (``GateRules.tolerance``): compare and plot use it too, so
#: the same comparison gets the same verdict in every view. A literal, not an import, so that
#: ``--help`` does not load the gate and pandas.
DEFAULT_TOLERANCE = 0.05


class GroupBy(enum.StrEnum):
    """What the side-by-side view groups by."""

    candidate = "candidate"
    provider = "provider"


class CompareFormat(enum.StrEnum):
    """How the comparison is written."""

    table = "table"
    json = "json"
    csv = "csv"


@contextlib.contextmanager
def _progress(paths: list[str]) -> Iterator[Callable[[str], None] | None]:
    """A progress bar over input files on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    from scorecard.engine import count_input_files

    with Progress(console=Console(file=sys.stderr), transient=True) as progress:
        task = progress.add_task("reading", total=count_input_files(paths))

        def advance(_: str) -> None:
            progress.advance(task)

        yield advance


def compare(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Scored-records files (.jsonl written by `score --format records`) or "
            "observation files and folders (scored on the fly).",
            show_default=False,
        ),
    ],
    by: Annotated[
        GroupBy, typer.Option("--by", help="Group the side-by-side view by candidate or provider.")
    ] = GroupBy.candidate,
    bundle: Annotated[
        str | None,
        typer.Option("--bundle", help="The bundle to show (needed when the records hold several)."),
    ] = None,
    candidates: Annotated[
        list[str] | None,
        typer.Option(
            "--candidate",
            help="Show only these candidates; from two on, each one after the first is compared, "
            "paired by case, with the first (the baseline). Repeat the option.",
        ),
    ] = None,
    across_bundles: Annotated[
        str | None,
        typer.Option(
            "--across-bundles",
            help="Follow this candidate across bundles (in the order the inputs first mention "
            "them), each bundle compared with the previous one.",
        ),
    ] = None,
    output_format: Annotated[
        CompareFormat, typer.Option("--format", help="table for people; json or csv for tools.")
    ] = CompareFormat.table,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="Seed of the bootstrap resampling.")
    ] = 0,
    tolerance: Annotated[
        float,
        typer.Option(
            "--tolerance",
            min=0.0,
            help="Mean overall differences within +/- this are not called better or worse "
            "(default: the gate's tolerance, so both read a comparison alike).",
        ),
    ] = DEFAULT_TOLERANCE,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write here (atomically) instead of stdout.")
    ] = None,
    cases: CasesOption = None,
    policy_file: PolicyOption = None,
    workers: WorkersOption = None,
) -> None:
    """Compare candidates (or providers) of one bundle with intervals, or one candidate across
    bundles with paired verdicts (better / worse / inconclusive).

    Exit status: 0 when the comparison was written, 2 on bad input (any rejected record, an
    unknown candidate or bundle, several bundles without --bundle).
    """
    check_outputs({"--out": out}, paths)
    from scorecard.aggregate import ComparisonSettings, analyze_campaign, records_frame
    from scorecard.contract import load_catalog
    from scorecard.engine import atomic_writer, load_policy, load_records
    from scorecard.report import bundle_view, render_view, trend_view, view_csv, view_json

    chosen = list(candidates or [])
    try:
        if across_bundles is not None and (chosen or bundle is not None):
            raise InputError(
                "--across-bundles follows one candidate over every bundle; drop --candidate "
                "and --bundle",
                rule="conflicting_options",
            )
        if len(set(chosen)) != len(chosen):
            raise InputError("a --candidate is given twice", rule="conflicting_options")
        catalog = load_catalog(cases)
        policy = load_policy(policy_file) if policy_file else None
        with _progress(paths) as on_file:
            loaded = load_records(
                paths,
                catalog=catalog,
                policy=policy,
                on_file=on_file,
                workers=worker_count(workers),
            )
        if loaded.errors:
            print_errors(loaded.errors)
            raise typer.Exit(EXIT_BAD_INPUT)
        if not loaded.rows:
            raise InputError("no scored records found in the inputs", rule="no_records")
        frame = records_frame(loaded, bundle_order=loaded.bundle_order)
        analysis = analyze_campaign(frame, ComparisonSettings(seed=seed, tolerance=tolerance))
        view = (
            trend_view(analysis, across_bundles)
            if across_bundles is not None
            else bundle_view(analysis, bundle=bundle, by=by.value, candidates=chosen)
        )
    except InputError as error:
        print_errors([error])
        raise typer.Exit(EXIT_BAD_INPUT) from None
    with contextlib.ExitStack() as stack:
        stream: IO[str] = stack.enter_context(atomic_writer(out)) if out is not None else sys.stdout
        if output_format is CompareFormat.json:
            stream.write(view_json(view))
        elif output_format is CompareFormat.csv:
            stream.write(view_csv(view))
        else:
            render_view(view, stream)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("compare")(compare)
