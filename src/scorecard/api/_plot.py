"""``plot``: the campaign's plots drawn from the one analysis, as figures or written images."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from scorecard.contract import InputError, InputErrors, Takes, arguments

from ._compare import comparison_settings, gate_statuses
from ._inputs import (
    Campaign,
    PathLike,
    PolicySource,
    check_bundles_before_scoring,
    check_known,
    gate_rules_of,
    load_campaign,
    policy_file,
)
from ._store import open_campaign_store, store_campaign

if TYPE_CHECKING:
    from matplotlib.figure import Figure  # noqa: TID251  (a type only; no import at run time)

    from scorecard.store import Store

__all__ = ["IMAGE_FORMATS", "PLOT_NAMES", "PlotErrors", "Plots", "draw_plots", "plot"]

PLOT_NAMES = ("heatmap", "overall", "paired", "passk", "cost", "trends", "providers")
"""Every plot, in the order ``plot all`` draws them (``docs/plots.md``)."""
IMAGE_FORMATS = ("png", "svg")
"""The image formats plots are written in."""


@dataclass(frozen=True)
class Plots:
    """The figures :func:`draw_plots` drew, by plot name, and notes for the reader."""

    figures: dict[str, Figure]
    notes: list[str] = field(default_factory=list)


@arguments(
    kinds=Takes.texts,
    paths=Takes.paths,
    bundle=Takes.optional_text,
    candidates=Takes.texts,
    seed=Takes.seed,
    policy=Takes.policy_source,
    cases=Takes.optional_path,
    workers=Takes.workers,
    bundle_ids=Takes.texts,
)
def draw_plots(
    kinds: Sequence[str],
    paths: Sequence[PathLike] = (),
    *,
    bundle: str | None = None,
    candidates: Sequence[str] = (),
    pass_at_k: bool = False,
    seed: int = 0,
    policy: PolicySource = None,
    cases: PathLike | None = None,
    workers: int | None = None,
    bundle_ids: Sequence[str] = (),
    on_file: Callable[[str], None] | None = None,
    campaign: Campaign | None = None,
    store: PathLike | Store | None = None,
) -> Plots:
    """Draw the plots named in ``kinds`` (:data:`PLOT_NAMES`) of ``paths`` or ``campaign``:
    ``bundle`` (default: the newest; trends span every bundle), ``candidates`` only. Every plot
    reads the one analysis; a plot that cannot be drawn of these runs (nothing to pair, one
    bundle for trends) raises with the others' errors in :class:`InputErrors`."""
    from scorecard.aggregate import analyze_campaign, observed_categories
    from scorecard.plots import draw_plot

    unknown = [kind for kind in kinds if kind not in PLOT_NAMES]
    if unknown:
        raise InputError(
            f"unknown plot {unknown[0]!r}; expected one of {', '.join(PLOT_NAMES)}",
            rule="unknown_plot",
        )
    settings = policy_file(policy)
    rules = gate_rules_of(settings)
    if store is not None:
        campaign = store_campaign(open_campaign_store(store, policy=settings))
    if campaign is None:
        check_bundles_before_scoring(paths, bundle_ids, [("--bundle", bundle)])
        campaign = load_campaign(
            paths,
            cases=cases,
            policy=settings.policy,
            workers=workers,
            bundle_ids=bundle_ids,
            on_file=on_file,
        )
    analysis = analyze_campaign(
        campaign.frame, comparison_settings(rules, seed=seed, tolerance=None)
    )
    bundles = list(analysis.bundles)
    if bundle is not None:  # an unknown bundle is one clear error, not seven
        check_known("bundle", [bundle], bundles, option="--bundle")
    check_known(
        "candidate",
        list(candidates),
        observed_categories(campaign.frame["candidate"]),
        option="--candidate",
    )
    current = bundle or bundles[-1]
    notes = []
    if bundle is None and len(bundles) > 1 and list(kinds) != ["trends"]:
        notes.append(
            f"plotting bundle {current}, the last of {len(bundles)} (choose: --bundle; trends "
            "span them all)"
        )
    before = analysis.previous_bundle(current)
    gate_failed = None
    if before is not None and "overall" in kinds:
        # Gate failures matter where the gate fails a candidate (new ones, by default).
        statuses = gate_statuses(campaign.frame, before, current, rules, seed)
        gate_failed = [name for name, item in statuses.items() if item.status == "fail"]
    drawn: dict[str, Figure | InputError] = {}
    # The paired plot keeps its comparisons' columns in the analysis (tens of MiB for a large
    # campaign): drawn last, the other plots' transients are not added to them.
    for name in sorted(kinds, key=lambda name: name == "paired"):
        try:
            drawn[name] = draw_plot(
                name,
                analysis,
                bundle=bundle,
                candidates=list(candidates),
                pass_at_k=pass_at_k,
                gate_failed=gate_failed,
            )
        except InputError as error:
            drawn[name] = error
    figures = {name: item for name in kinds if not isinstance(item := drawn[name], InputError)}
    failed = [item for name in kinds if isinstance(item := drawn[name], InputError)]
    if failed:
        raise PlotErrors(failed, figures, notes)
    return Plots(figures, notes)


class PlotErrors(InputErrors):
    """Some plots could not be drawn: ``errors`` says why, ``figures`` holds the others."""

    def __init__(
        self, errors: Sequence[InputError], figures: dict[str, Figure], notes: list[str]
    ) -> None:
        super().__init__(errors)
        self.figures = figures
        self.notes = notes


@arguments(
    kind=Takes.text,
    out=Takes.path,
    paths=Takes.paths,
    image_format=Takes.text,
    bundle=Takes.optional_text,
    candidates=Takes.texts,
    seed=Takes.seed,
    policy=Takes.policy_source,
    cases=Takes.optional_path,
    workers=Takes.workers,
    bundle_ids=Takes.texts,
)
def plot(
    kind: str,
    out: PathLike,
    paths: Sequence[PathLike] = (),
    *,
    image_format: str = "png",
    on_written: Callable[[Path], None] | None = None,
    bundle: str | None = None,
    candidates: Sequence[str] = (),
    pass_at_k: bool = False,
    seed: int = 0,
    policy: PolicySource = None,
    cases: PathLike | None = None,
    workers: int | None = None,
    bundle_ids: Sequence[str] = (),
    on_file: Callable[[str], None] | None = None,
    campaign: Campaign | None = None,
    store: PathLike | Store | None = None,
) -> Plots:
    """Draw ``kind`` (a plot name, or ``all``) of ``paths`` (or ``campaign``) into ``out`` (an
    image file; for ``all``, a folder of ``<name>.<image_format>`` files), each written
    atomically; the other options are :func:`draw_plots`'. ``plot all`` writes every plot it
    can draw, then raises the others' errors (:class:`PlotErrors`)."""
    from scorecard.engine import atomic_binary_writer
    from scorecard.plots import save_figure

    target = Path(out)
    if kind == "all":
        if image_format not in IMAGE_FORMATS:
            raise InputError(f"--format must be png or svg, not {image_format!r}", rule="usage")
        if target.exists() and not target.is_dir():
            raise InputError(
                f"--out {target} is a file; `plot all` writes into a folder", rule="bad_output"
            )
    else:
        image_format = target.suffix.lower().lstrip(".")
        if image_format not in IMAGE_FORMATS:
            raise InputError(
                f"--out must end in .png or .svg (got {target.name!r}); `plot all` takes a folder",
                rule="bad_output",
            )
    kinds = PLOT_NAMES if kind == "all" else (kind,)
    failed: PlotErrors | None = None
    try:
        drawn = draw_plots(
            kinds,
            paths,
            bundle=bundle,
            candidates=candidates,
            pass_at_k=pass_at_k,
            seed=seed,
            policy=policy,
            cases=cases,
            workers=workers,
            bundle_ids=bundle_ids,
            on_file=on_file,
            campaign=campaign,
            store=store,
        )
    except PlotErrors as partial:
        failed = partial
        drawn = Plots(partial.figures, partial.notes)
    for name, figure in drawn.figures.items():
        path = target / f"{name}.{image_format}" if kind == "all" else target
        with atomic_binary_writer(path) as stream:
            save_figure(figure, stream, image_format)
        if on_written is not None:
            on_written(path)
    if failed is not None:
        raise failed
    return drawn
