"""The only matplotlib: plot functions take the campaign analysis and return a Figure."""

from ._base import save_figure, select_candidates
from ._kinds import (
    PLOT_KINDS,
    draw_plot,
    paired_comparison,
    plot_bundle_changes,
    plot_dimension_heatmap,
    plot_overall_scores,
    plot_paired_differences,
    plot_pass_k,
    plot_provider_comparison,
    plot_quality_vs_cost,
    plot_trends,
)

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
    "save_figure",
    "select_candidates",
]
