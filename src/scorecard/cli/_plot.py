"""``scorecard plot KIND PATH... --out FILE``: draw one plot of scored runs, or ``all`` of them
(``scorecard.api.plot``)."""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Annotated

import typer

from ._common import (
    EXIT_BAD_INPUT,
    BundleIdsOption,
    CasesOption,
    ErrorsOption,
    PolicyOption,
    SeedOption,
    StoreOption,
    WorkersOption,
    check_outputs,
    library_errors,
    paths_or_store,
    print_errors,
)


class PlotKind(enum.StrEnum):
    """Which plot to draw (``docs/plots.md``; the same names as ``scorecard.api.PLOT_NAMES``)."""

    heatmap = "heatmap"
    overall = "overall"
    paired = "paired"
    passk = "passk"
    cost = "cost"
    trends = "trends"
    providers = "providers"
    all = "all"


class ImageFormat(enum.StrEnum):
    """Image formats ``scorecard plot all`` can write."""

    png = "png"
    svg = "svg"


KindArgument = Annotated[
    PlotKind, typer.Argument(help="The plot to draw, or `all` to write every plot into a folder.")
]
PlotOutOption = Annotated[
    Path,
    typer.Option(
        "--out",
        help="The image to write (.png or .svg), or the folder for `all`. Written atomically.",
        show_default=False,
    ),
]
PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        help="Scored-records files (.jsonl written by `score --format records`) or observation "
        "files and folders (scored on the fly); stdin when none is given.",
        show_default=False,
    ),
]
PlotCandidatesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--candidate",
        help="Plot only these candidates (repeat the option). The paired plot: one candidate "
        "against itself in the bundle before; two: the second minus the first (default: every "
        "candidate against the bundle before, i.e. what regressed).",
    ),
]
BundleOption = Annotated[
    str | None,
    typer.Option("--bundle", help="The bundle to plot (default: the newest; trends use all)."),
]
PassAtKOption = Annotated[
    bool, typer.Option("--pass-at-k", help="Add pass@k (dashed) to the pass^k plot.")
]
ImageFormatOption = Annotated[
    ImageFormat, typer.Option("--format", help="Image format of `plot all`.")
]


def plot(
    kind: KindArgument,
    out: PlotOutOption,
    paths: PathsArgument = None,
    candidates: PlotCandidatesOption = None,
    bundle: BundleOption = None,
    seed: SeedOption = 0,
    pass_at_k: PassAtKOption = False,
    image_format: ImageFormatOption = ImageFormat.png,
    bundle_ids: BundleIdsOption = None,
    errors_file: ErrorsOption = None,
    cases: CasesOption = None,
    policy_file: PolicyOption = None,
    workers: WorkersOption = None,
    store: StoreOption = None,
) -> None:
    """Plot scored runs: dimension heatmap, overall scores, paired differences, pass^k, quality
    against cost, trends across bundles, candidates by provider.

    Exit status: 0 when every plot was written, 2 on bad input (a rejected record, no records,
    an unknown bundle or candidate, a bad --out). `plot all` writes the plots it can draw.
    """
    folders = ["--out"] if kind is PlotKind.all else []
    check_outputs({"--out": out, "--errors": errors_file}, paths or [], folders=folders)
    from scorecard.api import PlotErrors, Plots
    from scorecard.api import plot as draw

    def written(path: Path) -> None:
        sys.stderr.write(f"wrote {path}\n")

    given = paths_or_store(paths, store)
    drawn: Plots | PlotErrors
    with library_errors(errors_file=errors_file):
        try:
            drawn = draw(
                kind.value,
                out,
                given,
                image_format=image_format.value,
                on_written=written,
                bundle=bundle,
                candidates=candidates or [],
                pass_at_k=pass_at_k,
                seed=seed,
                policy=policy_file,
                cases=cases,
                workers=workers,
                store=store,
                bundle_ids=bundle_ids or [],
            )
        except PlotErrors as partial:  # the others were written; these are not input errors
            drawn = partial
            print_errors(partial.errors)
    for note in drawn.notes:
        sys.stderr.write(f"note: {note}\n")
    if isinstance(drawn, PlotErrors):
        raise typer.Exit(EXIT_BAD_INPUT)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("plot")(plot)
