"""Plots of scored records: the only matplotlib in scorecard (``docs/plots.md``).

Every ``plot_*`` function takes a :func:`~scorecard.aggregate.records_frame` frame (or, for the
paired plot, a :class:`~scorecard.aggregate.PairedComparison`) and optional axes, draws
with numbers from the aggregation layer, and returns the :class:`~matplotlib.figure.Figure`. It
never shows the figure and never changes matplotlib's global state (no pyplot, no ``rcParams``).
Panels without data say why ("no scoreable runs", "no cost data") instead of staying empty.

:func:`draw_plot` is what ``scorecard plot KIND`` calls: it picks the rows and, for the paired
plot, the two candidates, then calls the right ``plot_*`` function.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from matplotlib.figure import Figure

from scorecard.aggregate import (
    ComparisonSettings,
    PairedComparison,
    compare_bundles,
    compare_candidates,
    observed_categories,
    summary_frame,
)
from scorecard.contract import InputError

from ._base import bundle_rows, select_candidates
from ._cost import plot_provider_comparison, plot_quality_vs_cost
from ._quality import plot_dimension_heatmap, plot_overall_scores, plot_paired_differences
from ._reliability import plot_pass_k, plot_trends

__all__ = [
    "PLOT_KINDS",
    "draw_plot",
    "paired_comparison",
    "plot_dimension_heatmap",
    "plot_overall_scores",
    "plot_paired_differences",
    "plot_pass_k",
    "plot_provider_comparison",
    "plot_quality_vs_cost",
    "plot_trends",
]

#: The kinds ``scorecard plot`` draws, in the order ``scorecard plot all`` writes them.
PLOT_KINDS = ("heatmap", "overall", "paired", "passk", "cost", "trends", "providers")


def paired_comparison(
    frame: pd.DataFrame,
    *,
    bundle: str | None = None,
    candidates: Sequence[str] = (),
    seed: int = 0,
) -> PairedComparison:
    """Candidate B minus candidate A in one bundle (default: newest), paired by case.

    ``candidates`` is ``(A, B)``. When empty: the leader by mean overall score against the
    runner-up (is the leader really ahead?); with fewer than two scoreable candidates, the first
    two candidates; with a single candidate, that candidate against itself in the previous
    bundle. One candidate in one bundle, or any other number of ``candidates``, is bad input.
    """
    rows, chosen = bundle_rows(frame, bundle)
    settings = ComparisonSettings(seed=seed)
    if len(candidates) == 2:
        return compare_candidates(rows, candidates[1], candidates[0], settings, bundle=chosen)
    if candidates:
        raise InputError(
            "the paired plot compares two candidates: give --candidate twice (A, then B)",
            rule="conflicting_options",
        )
    present = observed_categories(rows["candidate"])
    if chosen is not None and len(present) >= 2:
        table = summary_frame(rows, ("candidate",), seed=seed)
        means = dict(zip(table["candidate"].astype(str), table["mean_overall"], strict=True))
        ranked = sorted(
            (name for name in present if not math.isnan(means[name])), key=lambda n: -means[n]
        )
        if len(ranked) >= 2:
            current, baseline = ranked[:2]
        else:
            baseline, current = present[:2]
        return compare_candidates(rows, current, baseline, settings, bundle=chosen)
    if chosen is not None and len(present) == 1:
        mine = frame.loc[(frame["candidate"] == present[0]).to_numpy()]
        bundles = observed_categories(mine["bundle"])
        earlier = bundles[: bundles.index(chosen)]
        if earlier:
            return compare_bundles(frame, present[0], chosen, earlier[-1], settings)
    raise InputError(
        "the paired plot needs two sides: two candidates, or one candidate in two bundles",
        rule="no_pair",
    )


def draw_plot(
    kind: str,
    frame: pd.DataFrame,
    *,
    bundle: str | None = None,
    candidates: Sequence[str] = (),
    seed: int = 0,
    pass_at_k: bool = False,
) -> Figure:
    """The figure of one of :data:`PLOT_KINDS`, for the candidates given (all when empty).

    ``bundle`` picks the bundle of the one-bundle plots (default: the newest); trends always
    span every bundle. The paired plot compares the two ``candidates`` (see
    :func:`paired_comparison`). Unknown kinds, bundles or candidates raise :class:`InputError`.
    """
    if kind == "paired":
        return plot_paired_differences(
            paired_comparison(frame, bundle=bundle, candidates=candidates, seed=seed)
        )
    rows = select_candidates(frame, candidates)
    if kind == "heatmap":
        return plot_dimension_heatmap(rows, bundle=bundle)
    if kind == "overall":
        return plot_overall_scores(rows, bundle=bundle, seed=seed)
    if kind == "passk":
        return plot_pass_k(rows, bundle=bundle, pass_at_k=pass_at_k)
    if kind == "cost":
        return plot_quality_vs_cost(rows, bundle=bundle)
    if kind == "trends":
        return plot_trends(rows, seed=seed)
    if kind == "providers":
        return plot_provider_comparison(rows, bundle=bundle, seed=seed)
    raise InputError(
        f"unknown plot kind {kind!r} (known: {', '.join(PLOT_KINDS)})", rule="unknown_plot"
    )
