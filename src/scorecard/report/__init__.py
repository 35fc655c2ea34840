"""Renderings for people and CI: terminal tables, comparison views, the gate's verdict line,
markdown summary, pull-request comment, JUnit XML, HTML report and the static report site. Untrusted text is escaped in one place
(``_escape``).

Names load on first use (PEP 562): ``scorecard score --format table`` loads the terminal table,
not the comparison views' pandas or the HTML report's plots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorecard.contract import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "BundleView": "_compare",
    "CampaignView": "_compare",
    "GateStatus": "_compare",
    "TrendView": "_compare",
    "bundle_view": "_compare",
    "campaign_view": "_compare",
    "render_view": "_compare",
    "trend_view": "_compare",
    "view_csv": "_compare",
    "view_document": "_compare",
    "view_json": "_compare",
    "verdict_line": "_dispatch",
    "gate_document": "_gate_json",
    "render_gate_json": "_gate_json",
    "PlotFailure": "_html",
    "plot_images": "_html",
    "render_html": "_html",
    "render_junit": "_junit",
    "render_junit_runs": "_junit",
    "write_junit_runs": "_junit",
    "render_markdown": "_markdown",
    "rows_csv": "_table_text",
    "rows_json_lines": "_table_text",
    "rows_table": "_table_text",
    "render_pr_comment": "_pr_comment",
    "HISTORY_SCHEMA": "_history",
    "history_csv": "_history",
    "history_json": "_history",
    "render_history": "_history",
    "PackedRecord": "_site_data",
    "keep_for_site": "_site_data",
    "site_keeper": "_site_data",
    "SitePages": "_site",
    "build_site": "_site",
    "site_listing": "_site",
    "site_pages": "_site",
    "write_site": "_site",
    "run_page_path": "_site_paths",
    "scorecard_table": "_terminal",
}

__all__ = [
    "HISTORY_SCHEMA",
    "BundleView",
    "CampaignView",
    "GateStatus",
    "PackedRecord",
    "PlotFailure",
    "SitePages",
    "TrendView",
    "build_site",
    "bundle_view",
    "campaign_view",
    "gate_document",
    "history_csv",
    "history_json",
    "keep_for_site",
    "plot_images",
    "render_gate_json",
    "render_history",
    "render_html",
    "render_junit",
    "render_junit_runs",
    "render_markdown",
    "render_pr_comment",
    "render_view",
    "rows_csv",
    "rows_json_lines",
    "rows_table",
    "run_page_path",
    "scorecard_table",
    "site_keeper",
    "site_listing",
    "site_pages",
    "trend_view",
    "verdict_line",
    "view_csv",
    "view_document",
    "view_json",
    "write_junit_runs",
    "write_site",
]

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, base=__name__)


if TYPE_CHECKING:
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
        view_document,
        view_json,
    )
    from ._dispatch import verdict_line
    from ._gate_json import gate_document, render_gate_json
    from ._history import HISTORY_SCHEMA, history_csv, history_json, render_history
    from ._html import PlotFailure, plot_images, render_html
    from ._junit import render_junit, render_junit_runs, write_junit_runs
    from ._markdown import render_markdown
    from ._pr_comment import render_pr_comment
    from ._site import SitePages, build_site, site_listing, site_pages, write_site
    from ._site_data import PackedRecord, keep_for_site, site_keeper
    from ._site_paths import run_page_path
    from ._table_text import rows_csv, rows_json_lines, rows_table
    from ._terminal import scorecard_table
