"""``scorecard plot KIND PATH... --out FILE``: draw one plot of scored runs, or ``all`` of them."""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scorecard.contract import InputError

from ._campaign import comparison_settings, gate_statuses, input_paths, rules_from
from ._common import (
    BundleIdsOption,
    CasesOption,
    ErrorsOption,
    PolicyOption,
    WorkersOption,
    check_known,
    check_outputs,
    worker_count,
)
from ._compare import load_campaign
from ._exit_codes import failure

if TYPE_CHECKING:
    from matplotlib.figure import Figure  # noqa: TID251  (a type only; no import at run time)


class PlotKind(enum.StrEnum):
    """Which plot to draw (``docs/plots.md``)."""

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


def _save(figure: Figure, path: Path, image_format: str) -> None:
    from scorecard.engine import atomic_binary_writer
    from scorecard.plots import save_figure

    with atomic_binary_writer(path) as stream:
        save_figure(figure, stream, image_format)
    sys.stderr.write(f"wrote {path}\n")


def _image_format(out: Path) -> str:
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in {item.value for item in ImageFormat}:
        raise InputError(
            f"--out must end in .png or .svg (got {out.name!r}); `plot all` takes a folder",
            rule="bad_output",
        )
    return suffix


def plot(
    kind: Annotated[
        PlotKind,
        typer.Argument(help="The plot to draw, or `all` to write every plot into a folder."),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="The image to write (.png or .svg), or the folder for `all`. Written atomically.",
            show_default=False,
        ),
    ],
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="Scored-records files (.jsonl written by `score --format records`) or "
            "observation files and folders (scored on the fly); stdin when none is given.",
            show_default=False,
        ),
    ] = None,
    candidates: Annotated[
        list[str] | None,
        typer.Option(
            "--candidate",
            help="Plot only these candidates (repeat the option). The paired plot: one candidate "
            "against itself in the bundle before; two: the second minus the first (default: "
            "every candidate against the bundle before, i.e. what regressed).",
        ),
    ] = None,
    bundle: Annotated[
        str | None,
        typer.Option("--bundle", help="The bundle to plot (default: the newest; trends use all)."),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="Seed of the bootstrap resampling.")
    ] = 0,
    pass_at_k: Annotated[
        bool, typer.Option("--pass-at-k", help="Add pass@k (dashed) to the pass^k plot.")
    ] = False,
    image_format: Annotated[
        ImageFormat, typer.Option("--format", help="Image format of `plot all`.")
    ] = ImageFormat.png,
    bundle_ids: BundleIdsOption = None,
    errors_file: ErrorsOption = None,
    cases: CasesOption = None,
    policy_file: PolicyOption = None,
    workers: WorkersOption = None,
) -> None:
    """Plot scored runs: dimension heatmap, overall scores, paired differences, pass^k, quality
    against cost, trends across bundles, candidates by provider.

    Exit status: 0 when every plot was written, 2 on bad input (a rejected record, no records,
    an unknown bundle or candidate, a bad --out). `plot all` writes the plots it can draw.
    """
    check_outputs(
        {"--out": out, "--errors": errors_file},
        paths or [],
        folders=["--out"] if kind is PlotKind.all else [],
    )
    from scorecard.aggregate import analyze_campaign, observed_categories
    from scorecard.plots import PLOT_KINDS, draw_plot

    given = input_paths(paths)
    chosen = list(candidates or [])
    gate_failed: list[str] | None = None
    image = _image_format(out) if kind is not PlotKind.all else image_format.value
    if kind is PlotKind.all and out.exists() and not out.is_dir():
        raise InputError(
            f"--out {out} is a file; `plot all` writes into a folder", rule="bad_output"
        )
    policy, rules = rules_from(policy_file)
    loaded = load_campaign(
        given,
        cases=cases,
        policy=policy,
        workers=worker_count(workers),
        bundle_ids=list(bundle_ids or []),
        errors_file=errors_file,
    )
    settings = comparison_settings(rules, seed=seed, tolerance=None)
    analysis = analyze_campaign(loaded.frame, settings)
    bundles = list(analysis.bundles)
    if bundle is not None:  # an unknown bundle is one clear error, not seven
        check_known("bundle", [bundle], bundles, option="--bundle")
    known = observed_categories(loaded.frame["candidate"])
    check_known("candidate", chosen, known, option="--candidate")
    current = bundle or bundles[-1]
    if bundle is None and len(bundles) > 1 and kind is not PlotKind.trends:
        sys.stderr.write(
            f"note: plotting bundle {current}, the last of {len(bundles)} (choose: --bundle; "
            "trends span them all)\n"
        )
    before = analysis.previous_bundle(current)
    if before is not None and kind in (PlotKind.overall, PlotKind.all):
        # Gate failures matter where the gate fails a candidate (new ones, by default).
        statuses = gate_statuses(loaded.frame, before, current, rules, seed)
        gate_failed = [name for name, item in statuses.items() if item.status == "fail"]
    kinds = PLOT_KINDS if kind is PlotKind.all else (kind.value,)
    failed: list[InputError] = []
    for name in kinds:
        target = out / f"{name}.{image}" if kind is PlotKind.all else out
        try:
            figure = draw_plot(
                name,
                analysis,
                bundle=bundle,
                candidates=chosen,
                pass_at_k=pass_at_k,
                gate_failed=gate_failed,
            )
        except InputError as error:
            failed.append(error)
            continue
        _save(figure, target, image)
    if failed:
        raise failure(failed)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("plot")(plot)
