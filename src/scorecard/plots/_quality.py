"""Quality plots: the dimension heatmap, mean overall per candidate, and paired differences."""

from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from scorecard.aggregate import POOLED, CampaignAnalysis, Difference, PairedComparison
from scorecard.contract import DIMENSIONS, GATE_DIMENSIONS

from ._base import (
    NO_SCOREABLE_RUNS,
    VERDICT_COLOURS,
    bundle_table,
    chosen_bundle,
    error_bar,
    figure_and_axes,
    in_bundle,
    show_message,
)

__all__ = [
    "plot_bundle_changes",
    "plot_dimension_heatmap",
    "plot_overall_scores",
    "plot_paired_differences",
]

_GATE_MARK = "*"
_PLAIN = "#0072B2"
_GATE_FAILED = "#D55E00"


def _dimension_label(name: str, *, wrap: bool) -> str:
    label = name.replace("_", "\n" if wrap else " ")
    return label + _GATE_MARK if name in GATE_DIMENSIONS else label


def plot_dimension_heatmap(
    analysis: CampaignAnalysis, *, bundle: str | None = None, ax: Axes | None = None
) -> Figure:
    """Candidates by dimensions: mean score over scoreable runs in one bundle (default: newest),
    each cell annotated, on a fixed 0-1 colour-blind-safe scale (cividis)."""
    chosen = chosen_bundle(analysis, bundle)
    summary = bundle_table(analysis.candidates.summary, chosen)
    candidates = [str(name) for name in summary["candidate"]]
    figure, axes = figure_and_axes(ax, (10.0, 2.6 + 0.42 * max(len(candidates), 1)))
    axes.set_title(f"Mean score per dimension{in_bundle(chosen)}")
    axes.set_xlabel(f"dimension ({_GATE_MARK} gate dimension)")
    axes.set_ylabel("candidate")
    if not summary["scoreable"].any():
        show_message(axes, NO_SCOREABLE_RUNS)
        return figure
    table = bundle_table(analysis.candidates.dimensions, chosen)
    means = {
        (str(candidate), str(dimension)): float(mean)
        for candidate, dimension, mean in zip(
            table["candidate"], table["dimension"], table["mean"], strict=True
        )
    }
    grid = np.array([[means[(name, dim)] for dim in DIMENSIONS] for name in candidates])
    palette = colormaps["cividis"].with_extremes(bad="#DDDDDD")
    # The scale starts at 0.5 (lower when a mean is lower) so that close high scores differ.
    floor = min(0.5, math.floor(float(np.nanmin(grid)) * 10) / 10)
    image = axes.imshow(
        np.ma.masked_invalid(grid), cmap=palette, vmin=floor, vmax=1.0, aspect="auto"
    )
    for (row, column), value in np.ndenumerate(grid):
        if math.isnan(value):
            text, colour = "n/a", "#333333"
        else:
            red, green, blue, _ = palette((value - floor) / (1.0 - floor))
            light = 0.299 * red + 0.587 * green + 0.114 * blue > 0.5
            text, colour = f"{value:.2f}", "black" if light else "white"
        axes.text(column, row, text, ha="center", va="center", fontsize=9, color=colour)
    axes.set_xticks(range(len(DIMENSIONS)), [_dimension_label(d, wrap=True) for d in DIMENSIONS])
    axes.set_yticks(range(len(candidates)), candidates)
    axes.tick_params(axis="x", labelsize=8.5)
    colorbar = figure.colorbar(image, ax=axes, fraction=0.04, pad=0.02)
    colorbar.set_label(f"mean score (0-1; colour scale from {floor:g})")
    return figure


def plot_overall_scores(
    analysis: CampaignAnalysis,
    *,
    bundle: str | None = None,
    ax: Axes | None = None,
    gate_failed: Collection[str] | None = None,
) -> Figure:
    """Mean overall score per candidate in one bundle (default: newest), best on top, with the
    case-cluster bootstrap interval.

    Gate failures are marked where they matter: with ``gate_failed`` (the candidates the gate
    fails, e.g. for new gate failures against the previous bundle) only those get the distinct
    marker; without it (no baseline: every gate failure fails the gate) every candidate with a
    gate failure does. The count of gate failures is written beside every candidate."""
    chosen = chosen_bundle(analysis, bundle)
    table = bundle_table(analysis.candidates.summary, chosen)
    seed, confidence = analysis.settings.seed, analysis.settings.confidence
    count = len(table)
    figure, axes = figure_and_axes(ax, (9.0, 2.4 + 0.42 * max(count, 1)))
    axes.set_title(f"Mean overall score with {confidence:.0%} interval{in_bundle(chosen)}")
    axes.set_xlabel(f"mean overall score (0-1); interval: bootstrap over cases, seed {seed}")
    axes.set_ylabel("candidate")
    if not table["scoreable"].any():
        show_message(axes, NO_SCOREABLE_RUNS)
        return figure
    # Unscoreable candidates sink to the bottom; the best mean is drawn on top.
    table = table.assign(_key=table["mean_overall"].fillna(-1.0)).sort_values(
        ["_key", "candidate"], ascending=[True, False], kind="stable"
    )
    margin = blended_transform_factory(axes.transAxes, axes.transData)
    columns = ("mean_overall", "mean_overall_low", "mean_overall_high", "scoreable", "gate_passed")
    values = table[list(columns)].to_numpy(dtype=np.float64)
    names = [str(name) for name in table["candidate"]]
    for position, (mean, low, high, scoreable, gate_passed) in enumerate(values):
        if math.isnan(mean):
            axes.text(0.01, position, NO_SCOREABLE_RUNS, transform=margin, va="center", fontsize=9)
            continue
        failures = int(scoreable - gate_passed)
        name = names[position]
        marked = bool(failures) if gate_failed is None else name in gate_failed
        axes.errorbar(
            mean,
            position,
            xerr=error_bar(mean, low, high),
            fmt="X" if marked else "o",
            markersize=9 if marked else 7,
            color=_GATE_FAILED if marked else _PLAIN,
            ecolor="#555555",
            capsize=4,
        )
        gates = f", {failures} gate failure{'s' if failures != 1 else ''}" if failures else ""
        axes.text(
            1.02,
            position,
            f"{mean:.3f} ({int(scoreable)} scored runs{gates})",
            transform=margin,
            va="center",
            fontsize=8.5,
            color=_GATE_FAILED if marked else "#333333",
        )
    axes.set_yticks(range(len(table)), [str(name) for name in table["candidate"]])
    axes.set_ylim(-0.6, len(table) - 0.4)
    axes.set_xlim(-0.02, 1.02)
    axes.grid(axis="x", color="#E5E5E5", linewidth=0.8)
    axes.set_axisbelow(True)
    axes.legend(
        handles=[
            Line2D(
                [],
                [],
                color=_PLAIN,
                marker="o",
                linestyle="",
                label="every run passed the gates"
                if gate_failed is None
                else "the gate does not fail it",
            ),
            Line2D(
                [],
                [],
                color=_GATE_FAILED,
                marker="X",
                markersize=9,
                linestyle="",
                label="some run failed a gate dimension"
                if gate_failed is None
                else "the gate fails it (e.g. new gate failures)",
            ),
        ],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.12),
        ncols=2,
        frameon=False,
        fontsize=9,
    )
    return figure


def _mark(difference: Difference, alpha: float) -> str:
    """How a dimension reads on the verdict's rule (interval clear of zero, adjusted p < alpha)."""
    if difference.p_adjusted < alpha and difference.low > 0:
        return "better"
    if difference.p_adjusted < alpha and difference.high < 0:
        return "worse"
    return "inconclusive"


def _side_names(comparison: PairedComparison) -> tuple[str, str, str]:
    current, baseline = comparison.current, comparison.baseline
    if current.bundle == baseline.bundle:
        return current.candidate, baseline.candidate, f" in {current.bundle}"
    if current.candidate == baseline.candidate:
        return current.bundle, baseline.bundle, f" for {current.candidate}"
    return current.label, baseline.label, ""


def plot_paired_differences(comparison: PairedComparison, *, ax: Axes | None = None) -> Figure:
    """Forest plot of a paired comparison: B (current) minus A (baseline) per dimension and
    overall, with bootstrap intervals, a zero line and the verdicts marked."""
    figure, axes = figure_and_axes(ax, (10.5, 5.6))
    current, baseline, where = _side_names(comparison)
    paired = len(comparison.paired_cases)
    settings = comparison.settings
    axes.set_title(
        f"{current} minus {baseline}{where}\n"
        f"paired by case ({paired} of {comparison.cases} cases); "
        f"verdict: {comparison.verdict.upper()}",
        fontsize=11,
    )
    axes.set_xlabel(
        f"difference in mean score (B - A, score units); "
        f"{settings.confidence:.0%} paired bootstrap interval"
    )
    axes.set_ylabel("statistic")
    if not paired:
        show_message(axes, "no paired cases: no case has scoreable runs on both sides")
        return figure
    differences = [comparison.overall, *comparison.dimensions]
    marks = [comparison.verdict, *(_mark(item, settings.alpha) for item in comparison.dimensions)]
    positions = list(range(len(differences) - 1, -1, -1))  # overall on top
    margin = blended_transform_factory(axes.transAxes, axes.transData)
    for item, mark, position in zip(differences, marks, positions, strict=True):
        colour = VERDICT_COLOURS[mark]
        if math.isnan(item.difference):
            axes.text(0.5, position, "n/a", transform=margin, ha="center", va="center")
            continue
        axes.errorbar(
            item.difference,
            position,
            xerr=error_bar(item.difference, item.low, item.high),
            fmt="D" if item.statistic == "overall" else "o",
            markersize=8 if item.statistic == "overall" else 6,
            color=colour,
            ecolor=colour,
            elinewidth=2.2 if item.statistic == "overall" else 1.4,
            capsize=3,
        )
        axes.text(
            1.02,
            position,
            f"{item.difference:+.3f} [{item.low:+.3f}, {item.high:+.3f}]  p={item.p_adjusted:.3g}",
            transform=margin,
            va="center",
            fontsize=8.5,
            color=colour if mark != "inconclusive" else "#333333",
            fontweight="bold" if item.statistic == "overall" else "normal",
        )
    axes.axvline(0.0, color="black", linewidth=1.0, linestyle="--", zorder=1.5)
    if settings.tolerance > 0:
        axes.axvspan(-settings.tolerance, settings.tolerance, color="#EEEEEE", zorder=-1)
    axes.axhline(positions[0] - 0.5, color="#BBBBBB", linewidth=0.8)
    labels = [
        "overall",
        *(_dimension_label(item.statistic, wrap=False) for item in differences[1:]),
    ]
    axes.set_yticks(positions, labels)
    axes.set_ylim(-0.6, len(differences) - 0.4)
    spread = [abs(value) for item in differences for value in (item.low, item.high)]
    reach = max([value for value in spread if not math.isnan(value)] + [0.05]) * 1.15
    axes.set_xlim(-reach, reach)
    axes.grid(axis="x", color="#E5E5E5", linewidth=0.8)
    axes.set_axisbelow(True)
    axes.legend(
        handles=[
            Line2D([], [], color=VERDICT_COLOURS[name], marker="o", linestyle="", label=label)
            for name, label in (
                ("better", "better: interval above 0, Holm p < alpha"),
                ("worse", "worse: interval below 0, Holm p < alpha"),
                ("inconclusive", "inconclusive"),
            )
        ],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.14),
        ncols=3,
        frameon=False,
        fontsize=9,
    )
    return figure


def plot_bundle_changes(
    analysis: CampaignAnalysis,
    *,
    bundle: str | None = None,
    baseline: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """What regressed: every candidate in ``bundle`` (default: newest) minus itself in the
    bundle before it, paired by case, mean overall with its interval, coloured by its verdict
    (the family of that bundle pair, as the gate and ``compare`` read it); worst on top."""
    chosen = chosen_bundle(analysis, bundle)
    before = baseline or (analysis.previous_bundle(chosen) if chosen is not None else None)
    family = analysis.family(before, chosen) if chosen is not None and before else {}
    comparisons = sorted(
        family.values(),
        key=lambda c: (c.current.candidate != POOLED, -_or_inf(c.overall.difference)),
    )
    figure, axes = figure_and_axes(ax, (10.0, 2.4 + 0.42 * max(len(comparisons), 1)))
    axes.set_title(
        f"Change in mean overall score: {chosen} minus {before}, per candidate"
        if family
        else "Change in mean overall score per candidate"
    )
    settings = analysis.settings
    axes.set_xlabel(
        f"difference in mean overall (paired by case); {settings.confidence:.0%} paired "
        f"bootstrap interval; Holm within the bundle pair"
    )
    axes.set_ylabel("candidate")
    if not comparisons:
        show_message(axes, "no candidate ran in both bundles")
        return figure
    margin = blended_transform_factory(axes.transAxes, axes.transData)
    # Pooled at the bottom, then from the largest gain up to the largest drop, drawn on top.
    for position, comparison in enumerate(comparisons):
        overall = comparison.overall
        colour = VERDICT_COLOURS[comparison.verdict]
        if math.isnan(overall.difference):
            axes.text(0.5, position, "no paired cases", transform=margin, ha="center", va="center")
            continue
        axes.errorbar(
            overall.difference,
            position,
            xerr=error_bar(overall.difference, overall.low, overall.high),
            fmt="D" if comparison.current.candidate == POOLED else "o",
            markersize=7,
            color=colour,
            ecolor=colour,
            capsize=3,
        )
        axes.text(
            1.02,
            position,
            f"{overall.difference:+.3f} [{overall.low:+.3f}, {overall.high:+.3f}]  "
            f"{comparison.verdict}",
            transform=margin,
            va="center",
            fontsize=8.5,
            color=colour if comparison.verdict != "inconclusive" else "#333333",
        )
    axes.axvline(0.0, color="black", linewidth=1.0, linestyle="--", zorder=1.5)
    if settings.tolerance > 0:
        axes.axvspan(-settings.tolerance, settings.tolerance, color="#EEEEEE", zorder=-1)
    axes.set_yticks(
        range(len(comparisons)), [comparison.current.candidate for comparison in comparisons]
    )
    axes.set_ylim(-0.6, len(comparisons) - 0.4)
    spread = [
        abs(value)
        for comparison in comparisons
        for value in (comparison.overall.low, comparison.overall.high)
        if not math.isnan(value)
    ]
    reach = max([*spread, 0.05]) * 1.15
    axes.set_xlim(-reach, reach)
    axes.grid(axis="x", color="#E5E5E5", linewidth=0.8)
    axes.set_axisbelow(True)
    axes.legend(
        handles=[
            Line2D([], [], color=VERDICT_COLOURS[name], marker="o", linestyle="", label=name)
            for name in ("better", "worse", "inconclusive")
        ],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.14),
        ncols=3,
        frameon=False,
        fontsize=9,
    )
    return figure


def _or_inf(value: float) -> float:
    return math.inf if math.isnan(value) else value
