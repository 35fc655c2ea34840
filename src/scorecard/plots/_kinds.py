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
from ._quality import (
    plot_bundle_changes,
    plot_dimension_heatmap,
    plot_overall_scores,
    plot_paired_differences,
)
from ._reliability import plot_pass_k, plot_trends

__all__ = [
    "PLOT_KINDS",
    "draw_plot",
    "paired_comparison",
    "plot_bundle_changes",
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

    ``candidates`` is ``(A, B)``; one candidate is compared with itself in the bundle before
    (the baseline). When empty: the leader by mean overall score against the runner-up (is the
    leader really ahead?); with fewer than two scoreable candidates, the first two candidates;
    with a single candidate, that candidate against itself in the previous bundle. One
    candidate in one bundle, or more than two ``candidates``, is bad input.
    """
    chosen = chosen_bundle(analysis, bundle)
    if len(candidates) == 2 and chosen is not None:
        return analysis.candidate_comparison(chosen, candidates[1], candidates[0])
    if len(candidates) == 1 and chosen is not None:
        earlier = analysis.previous_bundle(chosen)
        if earlier is None:
            raise InputError(
                f"the paired plot of one candidate compares it with the bundle before "
                f"{chosen!r}, and there is none; give a second --candidate to compare two "
                "candidates in one bundle",
                rule="no_pair",
            )
        return analysis.comparison(candidates[0], earlier, chosen)
    if candidates:
        raise InputError(
            "the paired plot compares one candidate with the bundle before, or two candidates "
            "(A, then B): give --candidate once or twice",
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
    gate_failed: Sequence[str] | None = None,
) -> Figure:
    """The figure of one of :data:`PLOT_KINDS`, for the candidates given (all when empty).

    ``bundle`` picks the bundle of the one-bundle plots (default: the newest); trends always
    span every bundle. The paired plot shows what regressed by default (every candidate against
    itself in the bundle before: :func:`plot_bundle_changes`; with one bundle, the leader
    against the runner-up), one candidate against the bundle before, or two candidates (see
    :func:`paired_comparison`). ``gate_failed`` names the candidates the gate fails, the only
    ones the overall plot marks (None: every candidate with a gate failure). Unknown kinds, bundles or candidates raise :class:`InputError`.
    Every number drawn is read from ``analysis``; choosing candidates changes none of them.
    """
    shown = analysis.restricted(candidates)
    if kind == "paired":
        chosen = chosen_bundle(shown, bundle)
        before = shown.previous_bundle(chosen) if chosen is not None else None
        # What regressed: every candidate against the bundle before (one shared candidate gets
        # its own detailed comparison below).
        several = before is not None and len(shown.family(before, chosen or "")) > 1
        if not candidates and several:
            return plot_bundle_changes(shown, bundle=chosen)
        return plot_paired_differences(
            paired_comparison(shown, bundle=bundle, candidates=candidates)
        )
    if kind == "heatmap":
        return plot_dimension_heatmap(shown, bundle=bundle)
    if kind == "overall":
        return plot_overall_scores(shown, bundle=bundle, gate_failed=gate_failed)
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
