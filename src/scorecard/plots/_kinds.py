"""Plots of scored records: the only matplotlib in scorecard (``docs/plots.md``).

Every ``plot_*`` function takes a :class:`~scorecard.aggregate.CampaignAnalysis` (the paired
plot: one of its :class:`~scorecard.aggregate.PairedComparison`) and optional axes, draws the
analysis's numbers without computing any, and returns the :class:`~matplotlib.figure.Figure`. It
never shows the figure and never changes matplotlib's global state (no pyplot, no ``rcParams``).
Panels without data say why ("no scoreable runs", "no cost data") instead of staying empty.

:func:`draw_plot` is what ``scorecard plot KIND`` calls: it picks the rows and, for the paired
plot, the two candidates, then calls the right ``plot_*`` function.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.figure import Figure

from scorecard.aggregate import CampaignAnalysis, PairedComparison
from scorecard.contract import InputError

from ._base import bundle_table, chosen_bundle
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
    analysis: CampaignAnalysis, *, bundle: str | None = None, candidates: Sequence[str] = ()
) -> PairedComparison:
    """Candidate B minus candidate A in one bundle (default: newest), paired by case, as the
    analysis computed it (adjusted within its family: every candidate of the bundle against A).

    ``candidates`` is ``(A, B)``. When empty: the leader by mean overall score against the
    runner-up (is the leader really ahead?); with fewer than two scoreable candidates, the first
    two candidates; with a single candidate, that candidate against itself in the previous
    bundle. One candidate in one bundle, or any other number of ``candidates``, is bad input.
    """
    chosen = chosen_bundle(analysis, bundle)
    if len(candidates) == 2 and chosen is not None:
        return analysis.candidate_comparison(chosen, candidates[1], candidates[0])
    if candidates:
        raise InputError(
            "the paired plot compares two candidates: give --candidate twice (A, then B)",
            rule="conflicting_options",
        )
    table = bundle_table(analysis.candidates.summary, chosen)
    present = [str(name) for name in table["candidate"]]
    if chosen is not None and len(present) >= 2:
        means = dict(zip(present, table["mean_overall"], strict=True))
        ranked = sorted(
            (name for name in present if not math.isnan(means[name])), key=lambda n: -means[n]
        )
        if len(ranked) >= 2:
            current, baseline = ranked[:2]
        else:
            baseline, current = present[:2]
        return analysis.candidate_comparison(chosen, current, baseline)
    if chosen is not None and len(present) == 1:
        earlier = analysis.previous_bundle(chosen)
        if earlier is not None:
            family = analysis.family(earlier, chosen)
            if present[0] in family:
                return family[present[0]]
    raise InputError(
        "the paired plot needs two sides: two candidates, or one candidate in two consecutive "
        "bundles",
        rule="no_pair",
    )


def draw_plot(
    kind: str,
    analysis: CampaignAnalysis,
    *,
    bundle: str | None = None,
    candidates: Sequence[str] = (),
    pass_at_k: bool = False,
) -> Figure:
    """The figure of one of :data:`PLOT_KINDS`, for the candidates given (all when empty).

    ``bundle`` picks the bundle of the one-bundle plots (default: the newest); trends always
    span every bundle. The paired plot compares the two ``candidates`` (see
    :func:`paired_comparison`). Unknown kinds, bundles or candidates raise :class:`InputError`.
    Every number drawn is read from ``analysis``; choosing candidates changes none of them.
    """
    shown = analysis.restricted(candidates)
    if kind == "paired":
        return plot_paired_differences(
            paired_comparison(shown, bundle=bundle, candidates=candidates)
        )
    if kind == "heatmap":
        return plot_dimension_heatmap(shown, bundle=bundle)
    if kind == "overall":
        return plot_overall_scores(shown, bundle=bundle)
    if kind == "passk":
        return plot_pass_k(shown, bundle=bundle, pass_at_k=pass_at_k)
    if kind == "cost":
        return plot_quality_vs_cost(shown, bundle=bundle)
    if kind == "trends":
        return plot_trends(shown)
    if kind == "providers":
        return plot_provider_comparison(shown, bundle=bundle)
    raise InputError(
        f"unknown plot kind {kind!r} (known: {', '.join(PLOT_KINDS)})", rule="unknown_plot"
    )
