"""Renderings for people and CI: terminal tables, comparison views, the gate's verdict line,
markdown summary, JUnit XML, HTML report and the static report site. Untrusted text is escaped in one place
(``_escape``).
"""

from ._compare import (
    BundleView,
    CampaignView,
    GateStatus,
    TrendView,
    bundle_view,
    campaign_view,
    render_view,
    trend_view,
    view_csv,
    view_json,
)
from ._dispatch import verdict_line
from ._gate_json import render_gate_json
from ._html import PlotFailure, plot_images, render_html
from ._junit import render_junit, render_junit_runs, write_junit_runs
from ._markdown import render_markdown
from ._site import build_site, write_site
from ._site_paths import run_page_path
from ._terminal import scorecard_table

__all__ = [
    "BundleView",
    "CampaignView",
    "GateStatus",
    "PlotFailure",
    "TrendView",
    "build_site",
    "bundle_view",
    "campaign_view",
    "plot_images",
    "render_gate_json",
    "render_html",
    "render_junit",
    "render_junit_runs",
    "render_markdown",
    "render_view",
    "run_page_path",
    "scorecard_table",
    "trend_view",
    "verdict_line",
    "view_csv",
    "view_json",
    "write_junit_runs",
    "write_site",
]
