"""Cost and provider plots: quality against cost with the Pareto frontier, candidates by provider."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox

from scorecard.aggregate import CampaignAnalysis

from ._base import (
    NO_COST_DATA,
    NO_SCOREABLE_RUNS,
    OKABE_ITO,
    bundle_table,
    candidate_styles,
    chosen_bundle,
    figure_and_axes,
    figure_and_panels,
    in_bundle,
    note_below,
    point_labels,
    show_message,
)

__all__ = ["plot_provider_comparison", "plot_quality_vs_cost"]

Spot = tuple[
    tuple[float, float],
    Literal["left", "center", "right"],
    Literal["bottom", "center", "top"],
]
#: Where a point's label may go (offset in points, alignment), tried in this order.
_LABEL_SPOTS: tuple[Spot, ...] = (
    ((7, 5), "left", "bottom"),
    ((7, -5), "left", "top"),
    ((-7, 5), "right", "bottom"),
    ((-7, -5), "right", "top"),
    ((0, 9), "center", "bottom"),
    ((0, -9), "center", "top"),
    ((12, 0), "left", "center"),
    ((-12, 0), "right", "center"),
)


def _overlap(box: Bbox, others: Sequence[Bbox]) -> float:
    total = 0.0
    for other in others:
        width = min(box.x1, other.x1) - max(box.x0, other.x0)
        height = min(box.y1, other.y1) - max(box.y0, other.y0)
        if width > 0 and height > 0:
            total += width * height
    return total


def _move(label: Annotation, spot: Spot) -> None:
    offset, horizontal, vertical = spot
    label.set_position(offset)
    label.set_horizontalalignment(horizontal)
    label.set_verticalalignment(vertical)


def _place_labels(figure: Figure, axes: Axes, labels: Sequence[Annotation]) -> None:
    """Move each label to the first spot that overlaps no point, no earlier label and stays
    inside the panel (else to the spot that overlaps least)."""
    get_renderer = getattr(figure.canvas, "get_renderer", None)
    if get_renderer is None:
        return  # a canvas that cannot measure text: keep the first spot
    figure.draw_without_rendering()  # settle the layout so pixel positions are final
    renderer = get_renderer()
    panel = axes.get_window_extent(renderer)
    points = [
        Bbox.from_extents(x - 6, y - 6, x + 6, y + 6)
        for x, y in (axes.transData.transform(label.xy) for label in labels)
    ]
    placed: list[Bbox] = []
    for label in labels:
        choices: list[tuple[float, int, Bbox]] = []
        for index, spot in enumerate(_LABEL_SPOTS):
            _move(label, spot)
            box = label.get_window_extent(renderer)
            outside = box.width * box.height - _overlap(box, [panel])
            choices.append((_overlap(box, points + placed) + 4 * outside, index, box))
            if choices[-1][0] == 0:
                break
        _, index, box = min(choices, key=lambda choice: (choice[0], choice[1]))
        _move(label, _LABEL_SPOTS[index])
        placed.append(box)


def plot_quality_vs_cost(
    analysis: CampaignAnalysis, *, bundle: str | None = None, ax: Axes | None = None
) -> Figure:
    """Mean overall score against mean cost per run, per candidate in one bundle (default:
    newest), points labelled, the Pareto frontier (no one cheaper and better) drawn; candidates
    without cost or quality are named in a note under the panel. The frontier is the bundle's,
    judged among all its candidates."""
    chosen = chosen_bundle(analysis, bundle)
    summary = bundle_table(analysis.candidates.summary, chosen)
    figure, axes = figure_and_axes(ax, (9.5, 6.2))
    axes.set_title(f"Quality against cost{in_bundle(chosen)}")
    axes.set_xlabel("mean cost per run (USD)")
    axes.set_ylabel("mean overall score (0-1)")
    if not summary["scoreable"].any():
        show_message(axes, NO_SCOREABLE_RUNS)
        return figure
    table = bundle_table(analysis.candidates.costs, chosen)
    quality = table["mean_overall"].to_numpy(dtype=np.float64)
    cost = table["cost_usd_mean"].to_numpy(dtype=np.float64)
    names = [str(name) for name in table["candidate"]]
    notes = []
    if np.isnan(cost).any():
        notes.append(
            "no cost data: "
            + ", ".join(n for n, c in zip(names, cost, strict=True) if math.isnan(c))
        )
    if np.isnan(quality).any():
        unscored = (n for n, q in zip(names, quality, strict=True) if math.isnan(q))
        notes.append(f"{NO_SCOREABLE_RUNS}: " + ", ".join(unscored))
    if notes:
        note_below(axes, "Left out (" + "; ".join(notes) + ").")
    known = ~(np.isnan(quality) | np.isnan(cost))
    if not known.any():
        show_message(axes, NO_COST_DATA)
        return figure
    styles = candidate_styles(analysis.frame)
    frontier = table["pareto"].to_numpy(dtype=bool)
    labels: list[Annotation] = []
    for index in np.flatnonzero(known):
        colour, marker = styles[names[index]]
        axes.scatter(
            cost[index],
            quality[index],
            s=70,
            marker=marker,
            color=colour if frontier[index] else "white",
            edgecolors=colour,
            linewidths=1.8,
            zorder=3,
        )
        labels.append(
            axes.annotate(
                names[index],
                (cost[index], quality[index]),
                xytext=_LABEL_SPOTS[0][0],
                textcoords="offset points",
                fontsize=9,
                color="#222222",
            )
        )
    order = np.flatnonzero(frontier)[np.argsort(cost[frontier], kind="stable")]
    axes.plot(cost[order], quality[order], color="#555555", linestyle="--", linewidth=1.2, zorder=2)
    top = float(np.nanmax(cost[known]))
    axes.set_xlim(-0.04 * max(top, 0.01), max(top, 0.01) * 1.18)
    bottom = float(np.nanmin(quality[known]))
    axes.set_ylim(max(-0.02, bottom - 0.12), 1.03)
    axes.grid(color="#E5E5E5", linewidth=0.8)
    axes.set_axisbelow(True)
    axes.legend(
        handles=[
            Line2D([], [], color="#555555", linestyle="--", label="Pareto frontier"),
            Line2D(
                [], [], color="#555555", marker="o", linestyle="", label="on the frontier (filled)"
            ),
            Line2D(
                [],
                [],
                color="#555555",
                marker="o",
                markerfacecolor="white",
                linestyle="",
                label="beaten on quality and cost (hollow)",
            ),
        ],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        fontsize=9,
    )
    point_labels(labels)
    _place_labels(figure, axes, labels)
    return figure


def _with_providers(analysis: CampaignAnalysis, table: pd.DataFrame, bundle: str) -> pd.DataFrame:
    """The candidate rows of ``bundle`` with each candidate's provider, grouped by provider."""
    frame = analysis.frame
    rows = frame.loc[(frame["bundle"] == bundle).to_numpy(), ["candidate", "provider"]]
    # A candidate runs on one provider; should a bundle mix, its first provider names it.
    provider = rows.drop_duplicates("candidate").set_index("candidate")["provider"]
    named = table.assign(provider=[str(provider[name]) for name in table["candidate"]])
    return named.sort_values(["provider", "candidate"], kind="stable").reset_index(drop=True)


def plot_provider_comparison(
    analysis: CampaignAnalysis, *, bundle: str | None = None, ax: Sequence[Axes] | None = None
) -> Figure:
    """Candidates grouped by provider in one bundle (default: newest): mean overall score and
    pass rate as bars with intervals, each provider's pooled value over all its runs as a
    dashed line across its group. ``ax``: two axes (left: mean overall, right: pass rate)."""
    chosen = chosen_bundle(analysis, bundle)
    confidence = analysis.settings.confidence
    table = bundle_table(analysis.candidates.summary, chosen)
    if chosen is not None:
        table = _with_providers(analysis, table, chosen)
    providers = list(dict.fromkeys(str(name) for name in table.get("provider", [])))
    height = 2.6 + 0.42 * max(len(table), 1) + 0.3 * len(providers)
    figure, (left, right) = figure_and_panels(ax, (11.5, height), rows=1, columns=2, share="y")
    figure.suptitle(f"Candidates by provider{in_bundle(chosen)}")
    left.set_title(f"Mean overall score ({confidence:.0%} bootstrap interval)", fontsize=10)
    left.set_xlabel("mean overall score (0-1)")
    left.set_ylabel("candidate, grouped by provider")
    right.set_title(f"Pass rate ({confidence:.0%} Wilson interval)", fontsize=10)
    right.set_xlabel("pass rate (0-1)")
    if not table["scoreable"].any():
        for panel in (left, right):
            show_message(panel, NO_SCOREABLE_RUNS)
        return figure
    pooled = bundle_table(analysis.providers.summary, chosen)
    colours = {name: OKABE_ITO[index % len(OKABE_ITO)] for index, name in enumerate(providers)}
    positions: list[float] = []
    spans: dict[str, tuple[float, float]] = {}
    place = 0.0
    for provider in providers:
        count = int((table["provider"] == provider).sum())
        spans[provider] = (place, place + count - 1)
        positions += [place + step for step in range(count)]
        place += count + 0.6
    for panel, column in ((left, "mean_overall"), (right, "pass_rate")):
        for position, row in zip(positions, table.itertuples(index=False), strict=True):
            value = float(getattr(row, column))
            if math.isnan(value):
                panel.text(0.01, position, NO_SCOREABLE_RUNS, va="center", fontsize=9)
                continue
            low, high = float(getattr(row, f"{column}_low")), float(getattr(row, f"{column}_high"))
            panel.barh(
                position,
                value,
                height=0.7,
                color=colours[str(row.provider)],
                xerr=[[value - low], [high - value]],
                error_kw={"ecolor": "#333333", "capsize": 3, "elinewidth": 1.0},
            )
        for provider, (first, last) in spans.items():
            value = float(pooled.loc[(pooled["provider"] == provider).to_numpy(), column].iloc[0])
            if not math.isnan(value):
                panel.vlines(value, first - 0.45, last + 0.45, colors="black", linestyles="--")
        panel.set_xlim(0.0, 1.02)
        panel.grid(axis="x", color="#E5E5E5", linewidth=0.8)
        panel.set_axisbelow(True)
    left.set_yticks(positions, [str(name) for name in table["candidate"]])
    left.set_ylim(max(positions) + 0.6, -0.6)  # first provider on top
    right.legend(
        handles=[
            *(Patch(color=colours[name], label=name) for name in providers),
            Line2D([], [], color="black", linestyle="--", label="provider, all its runs"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        fontsize=9,
        title="provider",
        title_fontsize=9,
        alignment="left",
    )
    return figure
