"""``scorecard compare PATH...``: a campaign's newest bundle against the one before, candidates
side by side, or a candidate over time (``scorecard.api.compare``)."""

from __future__ import annotations

import contextlib
import enum
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer

from scorecard.contract import InputError

from ._common import (
    BundleIdsOption,
    CasesOption,
    ErrorsOption,
    OutOption,
    PolicyOption,
    SeedOption,
    StoreOption,
    WorkersOption,
    check_outputs,
    library_errors,
    paths_or_store,
)

if TYPE_CHECKING:
    from scorecard.api import Comparison

__all__ = ["compare", "register"]

#: The gate's default drop tolerance (``GateRules.tolerance``), spelt here so that ``--help``
#: does not load the gate and pandas.
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


#: ``--out`` extensions and the format each implies when ``--format`` is not given.
_OUT_FORMATS = {".json": CompareFormat.json, ".csv": CompareFormat.csv, ".txt": CompareFormat.table}


def _out_format(chosen: CompareFormat | None, out: Path | None) -> CompareFormat:
    if chosen is not None:
        return chosen
    if out is None or out.suffix.lower() not in (*_OUT_FORMATS, ".jsonl", ".parquet"):
        return CompareFormat.table
    if out.suffix.lower() in _OUT_FORMATS:
        return _OUT_FORMATS[out.suffix.lower()]
    raise InputError(
        f"compare writes a table (.txt), JSON (.json) or CSV (.csv), not {out.suffix}; give "
        "--format or another --out name",
        rule="bad_output",
        source="--out",
    )


@contextlib.contextmanager
def file_progress(paths: list[str]) -> Iterator[Callable[[str], None] | None]:
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


PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        help="Scored-records files (.jsonl written by `score --format records`), Parquet, or "
        "observation files and folders (scored on the fly); stdin when none is given. Bundles "
        "are ordered as the inputs first mention them (a folder's bundles by name): "
        "`compare A/ B/` judges B against A.",
        show_default=False,
    ),
]
BaselineOption = Annotated[
    str | None,
    typer.Option(
        "--baseline",
        help="The bundle to judge against: a bundle id of the inputs, or a path (read as one "
        "more input). Default: the bundle before the current one.",
        show_default=False,
    ),
]
BundleOption = Annotated[
    str | None,
    typer.Option(
        "--bundle",
        help="Show this bundle's candidates side by side; with --baseline, the bundle judged "
        "(default: the last one).",
        show_default=False,
    ),
]
ByOption = Annotated[
    GroupBy | None,
    typer.Option(
        "--by",
        help="Show one bundle's candidates or providers side by side instead.",
        show_default=False,
    ),
]
ChosenOption = Annotated[
    list[str] | None,
    typer.Option(
        "--candidate",
        help="Show one bundle's candidates side by side: only these; from two on, each one "
        "after the first is compared, paired by case, with the first. Repeat the option.",
        show_default=False,
    ),
]
AcrossOption = Annotated[
    str | None,
    typer.Option(
        "--across-bundles",
        help="Follow this candidate across bundles, each bundle compared with the previous.",
        show_default=False,
    ),
]
FormatOption = Annotated[
    CompareFormat | None,
    typer.Option(
        "--format",
        help="table for people; json or csv for tools. Default: from the --out extension "
        "(.json, .csv), else table.",
        show_default=False,
    ),
]
ToleranceOption = Annotated[
    float | None,
    typer.Option(
        "--tolerance",
        min=0.0,
        help="Mean overall differences within +/- this are not called better or worse "
        f"(default: the policy's gate tolerance, else {DEFAULT_TOLERANCE:g}, as the gate).",
        show_default=False,
    ),
]
GateOption = Annotated[
    bool,
    typer.Option(
        "--gate/--no-gate",
        help="Show the gate's status of each candidate (its checks on the same runs).",
    ),
]

StoreSchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="With --store: read the store's nights into the campaign frame on the Dask "
        "cluster at this address (tcp://host:8786; local: a cluster on this machine), a task "
        "per night; the comparison is the same. Needs scorecard[distributed].",
        show_default=False,
    ),
]


def compare(
    paths: PathsArgument = None,
    baseline: BaselineOption = None,
    bundle: BundleOption = None,
    by: ByOption = None,
    candidates: ChosenOption = None,
    across_bundles: AcrossOption = None,
    output_format: FormatOption = None,
    seed: SeedOption = 0,
    tolerance: ToleranceOption = None,
    gate: GateOption = True,
    out: OutOption = None,
    bundle_ids: BundleIdsOption = None,
    errors_file: ErrorsOption = None,
    cases: CasesOption = None,
    policy_file: PolicyOption = None,
    workers: WorkersOption = None,
    store: StoreOption = None,
    scheduler: StoreSchedulerOption = None,
) -> None:
    """Judge the newest bundle of a campaign against the one before it (every candidate, paired
    by case: a verdict per metric, the gate's status, and every candidate's trend over the
    bundles); or show one bundle's candidates side by side (--candidate, --by); or follow one
    candidate across bundles (--across-bundles).

    Exit status: 0 when the comparison was written (whatever it says), 2 on bad input."""
    check_outputs({"--out": out, "--errors": errors_file}, paths or [])
    from scorecard.api import compare as compare_campaign

    given = paths_or_store(paths, store)
    with library_errors(errors_file=errors_file), file_progress(given) as on_file:
        written = _out_format(output_format, out)
        found = compare_campaign(
            given,
            baseline=baseline,
            bundle=bundle,
            by=None if by is None else by.value,
            candidates=candidates or [],
            across_bundles=across_bundles,
            gate=gate,
            seed=seed,
            tolerance=tolerance,
            policy=policy_file,
            cases=cases,
            workers=workers,
            store=store,
            scheduler=scheduler,
            bundle_ids=bundle_ids or [],
            on_file=on_file,
        )
    for note in found.notes:
        sys.stderr.write(f"note: {note}\n")
    _write(found, written, out)


def _write(found: Comparison, written: CompareFormat, out: Path | None) -> None:
    """The view in its format, to ``out`` (atomically) or stdout; only JSON carries the receipt
    (a table or CSV never asks for it, so the view's payload is not digested)."""
    from scorecard.engine import atomic_writer
    from scorecard.report import render_view, view_csv, view_json

    with contextlib.ExitStack() as stack:
        stream: IO[str] = stack.enter_context(atomic_writer(out)) if out is not None else sys.stdout
        if written is CompareFormat.json:
            stream.write(view_json(found.view, found.receipt))
        elif written is CompareFormat.csv:
            stream.write(view_csv(found.view))
        else:
            render_view(found.view, stream)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("compare")(compare)
