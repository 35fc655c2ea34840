"""Reliability plots: pass^k curves per candidate, and candidates across bundles (trends)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from scorecard.aggregate import CampaignAnalysis, observed_categories

from ._base import (
    NO_SCOREABLE_RUNS,
    bundle_table,
    candidate_styles,
    chosen_bundle,
    error_bar,
    figure_and_axes,
    figure_and_panels,
    in_bundle,
    note_below,
    show_message,
)

__all__ = ["EVERY_K_UP_TO", "plot_pass_k", "plot_trends"]

EVERY_K_UP_TO = 20
"""pass^k marks every k up to this many repetitions of a case; beyond, k = 1 and some ten round
whole numbers (hundreds of ticks cannot be read, and each is a handful of matplotlib objects)."""


def _dodge(count: int, spread: float) -> list[float]:
    """Horizontal offsets that keep ``count`` series at one x from hiding each other."""
    if count < 2:
        return [0.0] * count
    return list(np.linspace(-spread / 2, spread / 2, count))


def _outside_legend(axes: Axes, handles: Sequence[Line2D] | None = None) -> None:
    axes.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        fontsize=9,
        title="candidate",
        title_fontsize=9,
        alignment="left",
    )


def plot_pass_k(
    analysis: CampaignAnalysis,
    *,
    bundle: str | None = None,
    pass_at_k: bool = False,
    ax: Axes | None = None,
) -> Figure:
    """pass^k (all of k repetitions of a case pass) for k = 1..n per candidate in one bundle
    (default: newest), averaged over the cases with at least k scoreable repetitions; with
    ``pass_at_k`` also pass@k (at least one of k passes) as dashed lines."""
    chosen = chosen_bundle(analysis, bundle)
    summary = bundle_table(analysis.candidates.summary, chosen)
    figure, axes = figure_and_axes(ax, (9.5, 5.0))
    what = (
        "pass^k (solid) and pass@k (dashed)" if pass_at_k else "pass^k: all k runs of a case pass"
    )
    axes.set_title(f"{what}{in_bundle(chosen)}")
    axes.set_xlabel("k (repetitions of a case)")
    axes.set_ylabel("share of cases (0-1)")
    if not summary["scoreable"].any():
        show_message(axes, NO_SCOREABLE_RUNS)
        return figure
    table = bundle_table(analysis.candidates.reliability, chosen)
    styles = candidate_styles(analysis.frame)
    candidates = observed_categories(table["candidate"])
    largest = int(table["k"].max())
    # A marker on every k up to EVERY_K_UP_TO; beyond, on some ten of them (a line of hundreds
    # of markers is a smear).
    every = 1 if largest <= EVERY_K_UP_TO else largest // 10
    handles: list[Line2D] = []
    for offset, candidate in zip(_dodge(len(candidates), 0.24), candidates, strict=True):
        part = table.loc[(table["candidate"] == candidate).to_numpy()]
        colour, marker = styles[candidate]
        k = part["k"].to_numpy(dtype=np.float64) + offset
        (line,) = axes.plot(
            k,
            part["pass_hat_k"],
            color=colour,
            marker=marker,
            markevery=every,
            linewidth=1.8,
            label=candidate,
        )
        handles.append(line)
        if pass_at_k:
            axes.plot(
                k,
                part["pass_at_k"],
                color=colour,
                marker=marker,
                markevery=every,
                linestyle="--",
                linewidth=1.2,
            )
    if pass_at_k:
        handles += [
            Line2D([], [], color="#555555", linestyle="-", label="pass^k: all k pass"),
            Line2D([], [], color="#555555", linestyle="--", label="pass@k: one of k passes"),
        ]
    if largest <= EVERY_K_UP_TO:
        axes.set_xticks(range(1, largest + 1))
    else:  # k = 1 (the pass rate), then some ten round whole numbers up to the largest
        rounded = MaxNLocator(nbins=10, integer=True).tick_values(1, largest)
        axes.set_xticks([1, *(int(k) for k in rounded if 1 < k <= largest)])
    axes.set_xlim(0.6, largest + 0.4)
    axes.set_ylim(-0.04, 1.04)
    axes.grid(color="#E5E5E5", linewidth=0.8)
    axes.set_axisbelow(True)
    _outside_legend(axes, handles)
    note_below(axes, "Each point averages the cases with at least k scoreable repetitions.")
    return figure


def plot_trends(analysis: CampaignAnalysis, *, ax: Sequence[Axes] | None = None) -> Figure:
    """Each candidate across bundles in bundle order: mean overall score (bootstrap interval over
    cases) in the top panel and pass rate (Wilson interval) in the bottom one. ``ax``: two axes."""
    frame = analysis.frame
    seed, confidence = analysis.settings.seed, analysis.settings.confidence
    figure, (top, bottom) = figure_and_panels(ax, (10.5, 7.5), rows=2, columns=1, share="x")
    figure.suptitle("Candidates across bundles (in bundle order)")
    top.set_title(f"Mean overall score ({confidence:.0%} bootstrap interval, seed {seed})")
    top.set_ylabel("mean overall score (0-1)")
    bottom.set_title(f"Pass rate ({confidence:.0%} Wilson interval)")
    bottom.set_ylabel("pass rate (0-1)")
    bottom.set_xlabel("bundle")
    if not frame["scoreable"].any():
        for panel in (top, bottom):
            show_message(panel, NO_SCOREABLE_RUNS)
        return figure
    bundles = observed_categories(frame["bundle"])
    place = {name: index for index, name in enumerate(bundles)}
    table = analysis.candidates.summary
    styles = candidate_styles(frame)
    candidates = observed_categories(table["candidate"])
    for offset, candidate in zip(_dodge(len(candidates), 0.3), candidates, strict=True):
        part = table.loc[(table["candidate"] == candidate).to_numpy()]
        part = part.loc[part["scoreable"].to_numpy() > 0]
        colour, marker = styles[candidate]
        x = np.array([place[str(name)] for name in part["bundle"]], dtype=np.float64) + offset
        for panel, column in ((top, "mean_overall"), (bottom, "pass_rate")):
            value = part[column].to_numpy(dtype=np.float64)
            panel.errorbar(
                x,
                value,
                yerr=error_bar(value, part[f"{column}_low"], part[f"{column}_high"]),
                color=colour,
                marker=marker,
                markersize=5,
                linewidth=1.6,
                elinewidth=0.9,
                capsize=2,
                alpha=0.9,
                label=candidate,
            )
    for panel in (top, bottom):
        panel.set_ylim(-0.04, 1.04)
        panel.grid(axis="y", color="#E5E5E5", linewidth=0.8)
        panel.set_axisbelow(True)
    bottom.set_xticks(range(len(bundles)), bundles, rotation=20 if len(bundles) > 4 else 0)
    bottom.set_xlim(-0.5, len(bundles) - 0.5)
    _outside_legend(top)
    return figure
