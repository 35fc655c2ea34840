"""``scorecard compare PATH...``: a campaign's newest bundle against the one before, candidates
side by side, or a candidate over time."""

from __future__ import annotations

import contextlib
import enum
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from scorecard.contract import InputError

if TYPE_CHECKING:
    from scorecard.report import BundleView, CampaignView, TrendView

from ._campaign import (
    DEFAULT_TOLERANCE,
    comparison_settings,
    gate_statuses,
    input_paths,
    load_inputs,
    rules_from,
)
from ._common import (
    BundleIdsOption,
    CasesOption,
    ErrorsOption,
    PolicyOption,
    WorkersOption,
    check_known,
    check_outputs,
    worker_count,
    write_errors,
)
from ._exit_codes import failure

__all__ = [
    "DEFAULT_TOLERANCE",
    "CampaignInputs",
    "compare",
    "is_parquet_input",
    "load_campaign",
    "register",
]


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
        list[str] | None,
        typer.Argument(
            help="Scored-records files (.jsonl written by `score --format records`), Parquet, or "
            "observation files and folders (scored on the fly); stdin when none is given. "
            "Bundles are ordered as the inputs first mention them (a folder's bundles by name): "
            "`compare A/ B/` judges B against A.",
            show_default=False,
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            help="The bundle to judge against: a bundle id of the inputs, or a path (read as "
            "one more input). Default: the bundle before the current one.",
            show_default=False,
        ),
    ] = None,
    bundle: Annotated[
        str | None,
        typer.Option(
            "--bundle",
            help="Show this bundle's candidates side by side; with --baseline, the bundle "
            "judged (default: the last one).",
            show_default=False,
        ),
    ] = None,
    by: Annotated[
        GroupBy | None,
        typer.Option(
            "--by",
            help="Show one bundle's candidates or providers side by side instead.",
            show_default=False,
        ),
    ] = None,
    candidates: Annotated[
        list[str] | None,
        typer.Option(
            "--candidate",
            help="Show one bundle's candidates side by side: only these; from two on, each one "
            "after the first is compared, paired by case, with the first. Repeat the option.",
            show_default=False,
        ),
    ] = None,
    across_bundles: Annotated[
        str | None,
        typer.Option(
            "--across-bundles",
            help="Follow this candidate across bundles, each bundle compared with the previous.",
            show_default=False,
        ),
    ] = None,
    output_format: Annotated[
        CompareFormat | None,
        typer.Option(
            "--format",
            help="table for people; json or csv for tools. Default: from the --out extension "
            "(.json, .csv), else table.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="Seed of the bootstrap resampling.")
    ] = 0,
    tolerance: Annotated[
        float | None,
        typer.Option(
            "--tolerance",
            min=0.0,
            help="Mean overall differences within +/- this are not called better or worse "
            f"(default: the policy's gate tolerance, else {DEFAULT_TOLERANCE:g}, as the gate).",
            show_default=False,
        ),
    ] = None,
    gate: Annotated[
        bool,
        typer.Option(
            "--gate/--no-gate",
            help="Show the gate's status of each candidate (its checks on the same runs).",
        ),
    ] = True,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write here (atomically) instead of stdout.")
    ] = None,
    bundle_ids: BundleIdsOption = None,
    errors_file: ErrorsOption = None,
    cases: CasesOption = None,
    policy_file: PolicyOption = None,
    workers: WorkersOption = None,
) -> None:
    """Judge the newest bundle of a campaign against the one before it (every candidate, paired
    by case: a verdict per metric, the gate's status, and every candidate's trend over the
    bundles); or show one bundle's candidates side by side (--candidate, --by); or follow one
    candidate across bundles (--across-bundles).

    Exit status: 0 when the comparison was written (whatever it says), 2 on bad input (any
    rejected record, an unknown candidate or bundle, conflicting options).
    """
    check_outputs({"--out": out, "--errors": errors_file}, paths or [])
    from scorecard.aggregate import analyze_campaign, observed_categories
    from scorecard.engine import atomic_writer
    from scorecard.report import (
        bundle_view,
        campaign_view,
        render_view,
        trend_view,
        view_csv,
        view_json,
    )

    given = input_paths(paths)
    chosen = list(candidates or [])
    written = _out_format(output_format, out)
    side_by_side = bool(chosen) or by is not None or (bundle is not None and not baseline)
    if across_bundles is not None and (side_by_side or bundle is not None or baseline):
        raise InputError(
            "--across-bundles follows one candidate over every bundle; drop --candidate, "
            "--by, --bundle and --baseline",
            rule="conflicting_options",
        )
    if side_by_side and baseline is not None:
        raise InputError(
            "--baseline judges a bundle against another; --candidate and --by compare "
            "within one bundle",
            rule="conflicting_options",
        )
    if len(set(chosen)) != len(chosen):
        raise InputError("a --candidate is given twice", rule="conflicting_options")
    policy, rules = rules_from(policy_file)
    baseline_path = baseline is not None and Path(baseline).exists()
    if baseline_path and any(
        Path(path).resolve() == Path(baseline or "").resolve() for path in given
    ):
        raise InputError(
            "--baseline names a path that is also an input; give its bundle id instead "
            "(or leave it out: the bundle before the current one is the default)",
            rule="conflicting_options",
            source="--baseline",
        )
    inputs = [baseline, *given] if baseline_path and baseline is not None else given
    ids = list(bundle_ids or [])
    with _progress(inputs) as on_file:
        loaded = load_campaign(
            inputs,
            cases=cases,
            policy=policy,
            workers=worker_count(workers),
            bundle_ids=(["", *ids] if baseline_path and len(ids) > 1 else ids),
            errors_file=errors_file,
            on_file=on_file,
        )
    settings = comparison_settings(rules, seed=seed, tolerance=tolerance)
    analysis = analyze_campaign(loaded.frame, settings)
    known_candidates = observed_categories(loaded.frame["candidate"])
    check_known("candidate", chosen, known_candidates, option="--candidate")
    if across_bundles is not None:
        check_known("candidate", [across_bundles], known_candidates, option="--across-bundles")
    bundles = list(analysis.bundles)
    if bundle is not None:
        check_known("bundle", [bundle], bundles, option="--bundle")
    if baseline_path:
        baseline = _bundle_of(loaded)
    elif baseline is not None:
        check_known("bundle", [baseline], bundles, option="--baseline")
    view: BundleView | TrendView | CampaignView
    if across_bundles is not None:
        view = trend_view(analysis, across_bundles)
    elif side_by_side or (len(bundles) == 1 and baseline is None):
        shown = bundle
        if shown is None and len(bundles) > 1:
            shown = bundles[-1]
            sys.stderr.write(f"note: showing bundle {shown}, the last one (choose: --bundle)\n")
        view = bundle_view(
            analysis, bundle=shown, by=(by or GroupBy.candidate).value, candidates=chosen
        )
    else:
        current = bundle or bundles[-1]
        before = baseline or analysis.previous_bundle(current)
        statuses = (
            gate_statuses(loaded.frame, before, current, rules, seed)
            if gate and before is not None
            else {}
        )
        view = campaign_view(analysis, current=current, baseline=before, gate=statuses)
    with contextlib.ExitStack() as stack:
        stream: IO[str] = stack.enter_context(atomic_writer(out)) if out is not None else sys.stdout
        if written is CompareFormat.json:
            stream.write(view_json(view))
        elif written is CompareFormat.csv:
            stream.write(view_csv(view))
        else:
            render_view(view, stream)


def _bundle_of(loaded: CampaignInputs) -> str:
    """The bundle of the ``--baseline`` path: read first, its bundle is the first one."""
    return loaded.bundle_order[0]


@dataclass(frozen=True)
class CampaignInputs:
    """What compare and plot read from their inputs: one records frame and what views ask."""

    frame: Any
    """The records frame (:func:`scorecard.aggregate.records_frame`), bundles in first-seen
    order."""
    bundle_order: list[str]
    """Bundle ids in the order the inputs first hold them."""


def is_parquet_input(path: str) -> bool:
    """Whether ``load_records`` reads ``path`` as Parquet: the name, and a file or dataset
    folder there."""
    return Path(path).suffix == ".parquet" and Path(path).exists()


def load_campaign(
    paths: list[str],
    *,
    cases: Path | None,
    policy: object | None,
    workers: int,
    bundle_ids: list[str],
    errors_file: Path | None,
    on_file: Callable[[str], None] | None = None,
) -> CampaignInputs:
    """The frame of ``paths`` as :func:`load_inputs` reads them (the same errors).
    Parquet inputs alone (no ``--bundle-id``) are read column by column through Arrow, never
    as Python rows; the frame is the same. Every view (the gate's statuses too) reads the
    frame."""
    from scorecard.aggregate import records_frame

    if bundle_ids or not all(is_parquet_input(path) for path in paths):
        loaded = load_inputs(
            paths,
            cases=cases,
            policy=policy,
            workers=workers,
            bundle_ids=bundle_ids,
            errors_file=errors_file,
            on_file=on_file,
        )
        frame = records_frame(loaded, bundle_order=loaded.bundle_order)
        return CampaignInputs(frame, loaded.bundle_order)
    if cases is not None:
        from scorecard.engine import scoring_catalog

        scoring_catalog(cases)  # a bad --cases is the error it is for any input
    frame, order = _parquet_frame(paths, errors_file)
    for path in paths:
        if on_file is not None:
            on_file(path)
    return CampaignInputs(frame, order)


def _parquet_frame(paths: list[str], errors_file: Path | None) -> tuple[Any, list[str]]:
    """The records frame of Parquet inputs through Arrow and their bundles in first-seen
    order; an input :func:`load_inputs` would reject is rejected the same way (exit 2)."""
    from scorecard.aggregate import records_frame
    from scorecard.engine.parquet import parquet_bundle_order, parquet_input_error

    errors = [error for error in map(parquet_input_error, paths) if error is not None]
    if errors:
        write_errors(errors_file, errors)
        raise failure(errors)
    order = list(dict.fromkeys(bundle for path in paths for bundle in parquet_bundle_order(path)))
    frame = records_frame([Path(path) for path in paths], bundle_order=order)
    if not len(frame):
        raise InputError("no scored records found in the inputs", rule="no_records")
    return frame, order


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("compare")(compare)
