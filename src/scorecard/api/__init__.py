"""What each command does, as one library call: what the command line can do, Python can do.

Each function takes paths (observation files and folders, scored-records files, Parquet) and
the settings a command takes (a policy file, a case catalog, workers, a seed), and returns data
(a view, a verdict, figures, a site's files) or writes what it was asked to; bad input raises a
located :class:`~scorecard.contract.ScorecardError` (several at once: ``InputErrors``). The
command line (``scorecard.cli``) parses, calls one of these, renders and picks the exit code.

::

    score(paths, out=...)                    -> Scored            scorecards, records, Parquet
    explain(paths, ...)                      -> list[dict]        why runs lost points
    compare(paths, ...)                      -> Comparison        campaign, bundle or trend view
    judge(current, baselines, ...)           -> Judgement         the CI gate's verdict
    write_gate_reports(judgement, reports)                        markdown, JUnit, JSON, HTML
    draw_plots(kinds, paths, ...) / plot(kind, out, paths, ...)   figures, images
    history(paths, ...)                      -> History           nights and the flakiness ledger
    report_site(paths, out=...) / view_site(paths, on_ready=...)  the static report site, written or served
    build_report(paths, ...) -> ReportSite / write_report(files, out)   its files (and rejected records), written
    ingest(paths, store) / query(store, sql) / add_label / approve_baseline   the campaign store
    verify(output, ...)                      -> Verification      an output's receipt checked

Every call that reads runs also takes ``store=`` (a campaign store's folder or ``Store``)
instead of paths: the numbers are the same as the same folders give, byte for byte.

Names load on first use (PEP 562): ``import scorecard.api`` imports no pandas or matplotlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorecard.contract import lazy_exports

_EXPORTS = {
    "NO_POLICY": "_inputs",
    "Campaign": "_inputs",
    "PathLike": "_inputs",
    "PolicySource": "_inputs",
    "check_known": "_inputs",
    "load_campaign": "_inputs",
    "policy_file": "_inputs",
    "OUTPUT_FORMATS": "_score",
    "OutputFormat": "_score",
    "Scored": "_score",
    "output_format_for": "_score",
    "score": "_score",
    "LOCAL": "_distributed",
    "SPLIT_BYTES": "_distributed",
    "score_on_cluster": "_distributed",
    "bundle_id": "_bundle_id",
    "explain": "_explain",
    "explanation_text": "_explain",
    "DEFAULT_TOLERANCE": "_compare",
    "Comparison": "_compare",
    "compare": "_compare",
    "GateReports": "_gate",
    "History": "_history",
    "history": "_history",
    "Judgement": "_gate",
    "judge": "_gate",
    "write_gate_reports": "_gate",
    "IMAGE_FORMATS": "_plot",
    "PLOT_NAMES": "_plot",
    "PlotErrors": "_plot",
    "Plots": "_plot",
    "draw_plots": "_plot",
    "plot": "_plot",
    "SITE_RECEIPT": "_report",
    "ReportSite": "_report",
    "WrittenReport": "_report",
    "build_report": "_report",
    "check_site_folder": "_report",
    "report_site": "_report",
    "view_site": "_report",
    "serve_folder": "_report",
    "write_report": "_report",
    "Verification": "_verify",
    "verify": "_verify",
    "add_label": "_store",
    "approve_baseline": "_store",
    "baseline_bundles": "_store",
    "ingest": "_store",
    "open_campaign_store": "_store",
    "query": "_store",
    "remove_labels": "_store",
    "store_campaign": "_store",
    "store_labels": "_store",
}

__all__ = [
    "DEFAULT_TOLERANCE",
    "IMAGE_FORMATS",
    "LOCAL",
    "NO_POLICY",
    "OUTPUT_FORMATS",
    "PLOT_NAMES",
    "SITE_RECEIPT",
    "SPLIT_BYTES",
    "Campaign",
    "Comparison",
    "GateReports",
    "History",
    "Judgement",
    "OutputFormat",
    "PathLike",
    "PlotErrors",
    "Plots",
    "PolicySource",
    "ReportSite",
    "Scored",
    "Verification",
    "WrittenReport",
    "add_label",
    "approve_baseline",
    "baseline_bundles",
    "build_report",
    "bundle_id",
    "check_known",
    "check_site_folder",
    "compare",
    "draw_plots",
    "explain",
    "explanation_text",
    "history",
    "ingest",
    "judge",
    "load_campaign",
    "open_campaign_store",
    "output_format_for",
    "plot",
    "policy_file",
    "query",
    "remove_labels",
    "report_site",
    "score",
    "score_on_cluster",
    "serve_folder",
    "store_campaign",
    "store_labels",
    "verify",
    "view_site",
    "write_gate_reports",
    "write_report",
]

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, base=__name__)

if TYPE_CHECKING:
    from ._bundle_id import bundle_id
    from ._compare import DEFAULT_TOLERANCE, Comparison, compare
    from ._distributed import LOCAL, SPLIT_BYTES, score_on_cluster
    from ._explain import explain, explanation_text
    from ._gate import GateReports, Judgement, judge, write_gate_reports
    from ._history import History, history
    from ._inputs import (
        NO_POLICY,
        Campaign,
        PathLike,
        PolicySource,
        check_known,
        load_campaign,
        policy_file,
    )
    from ._plot import IMAGE_FORMATS, PLOT_NAMES, PlotErrors, Plots, draw_plots, plot
    from ._report import (
        SITE_RECEIPT,
        ReportSite,
        WrittenReport,
        build_report,
        check_site_folder,
        report_site,
        serve_folder,
        view_site,
        write_report,
    )
    from ._score import OUTPUT_FORMATS, OutputFormat, Scored, output_format_for, score
    from ._store import (
        add_label,
        approve_baseline,
        baseline_bundles,
        ingest,
        open_campaign_store,
        query,
        remove_labels,
        store_campaign,
        store_labels,
    )
    from ._verify import Verification, verify
