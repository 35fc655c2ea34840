"""The public API is pinned: names may be added deliberately, never lost by accident.

Each subpackage's ``__init__`` is its API; the modules inside it are private (a leading
underscore), except the optional heavy backends, which are public submodules imported on demand.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import scorecard

PUBLIC = [
    "BundleInfo",
    "CASE_IDS",
    "CampaignManifest",
    "CaseError",
    "Catalog",
    "DIMENSIONS",
    "GATE_DIMENSIONS",
    "InputError",
    "ManifestError",
    "ObservationError",
    "Policy",
    "PolicyError",
    "RunSummary",
    "ScorecardError",
    "ScorecardV1",
    "ScorecardV2",
    "ScoredRecord",
    "WorkflowCase",
    "WorkflowObservation",
    "__version__",
    "eval_bundle_id",
    "load_catalog",
    "load_policy",
    "parse_manifest",
    "read_records",
    "score_observation",
    "score_paths",
    "score_records",
    "validate_observation",
]


def test_the_exported_names_are_the_pinned_ones() -> None:
    """`scorecard.__all__` is exactly the pinned list."""
    assert sorted(scorecard.__all__) == sorted(PUBLIC)


@pytest.mark.parametrize("name", PUBLIC)
def test_every_exported_name_resolves(name: str) -> None:
    """Each public name loads (lazily) and is defined where it claims."""
    value = getattr(scorecard, name)
    assert value is not None
    if hasattr(value, "__module__") and name != "__version__" and callable(value):
        assert value.__module__.startswith("scorecard.")


def test_an_unknown_name_is_an_attribute_error() -> None:
    """Misspelt names fail like any module attribute."""
    with pytest.raises(AttributeError, match="no attribute 'scroe_paths'"):
        _ = scorecard.scroe_paths


def test_importing_the_package_is_light() -> None:
    """`import scorecard` loads neither pydantic, pandas nor matplotlib."""
    code = (
        "import sys, scorecard; "
        "print(sorted(m for m in ('pydantic', 'pandas', 'matplotlib') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


#: Each subpackage's ``__all__``: what the other packages (and users) may import from it.
PACKAGES = {
    "scorecard.api": [
        "Campaign",
        "Comparison",
        "DEFAULT_TOLERANCE",
        "GateReports",
        "IMAGE_FORMATS",
        "Judgement",
        "LOCAL",
        "NO_POLICY",
        "OUTPUT_FORMATS",
        "OutputFormat",
        "PLOT_NAMES",
        "PathLike",
        "PlotErrors",
        "Plots",
        "PolicySource",
        "SPLIT_BYTES",
        "Scored",
        "build_report",
        "bundle_id",
        "check_known",
        "check_site_folder",
        "compare",
        "draw_plots",
        "explain",
        "explanation_text",
        "judge",
        "load_campaign",
        "output_format_for",
        "plot",
        "policy_file",
        "score",
        "score_on_cluster",
        "serve_folder",
        "write_gate_reports",
        "write_report",
    ],
    "scorecard.aggregate": [
        "Alert",
        "CampaignAnalysis",
        "ComparisonSettings",
        "Difference",
        "DropStatistic",
        "DropTest",
        "Exclusions",
        "GroupTables",
        "METRICS",
        "Metric",
        "OUTCOMES",
        "Outcome",
        "POOLED",
        "PairedComparison",
        "Side",
        "adjust_family",
        "alerts",
        "analyze_campaign",
        "bound_text",
        "column_values",
        "compare_across_bundles",
        "compare_bundles",
        "compare_candidates",
        "compare_paired",
        "compare_to_baseline",
        "cost_frame",
        "dimension_frame",
        "history_frames",
        "observed_categories",
        "pair_analysis",
        "records_frame",
        "reference_p95",
        "reliability_frame",
        "report_aggregate",
        "rows_frame",
        "select_rows",
        "stack_frames",
        "summary_frame",
        "trend_frame",
    ],
    "scorecard.cli": [
        "app",
        "main",
    ],
    "scorecard.contract": [
        "BaseDict",
        "BundleInfo",
        "CAMPAIGN_SCHEMA",
        "CASE_IDS",
        "CLASSIFICATIONS",
        "CampaignManifest",
        "CandidateBudget",
        "CandidateSpec",
        "CaseAssertions",
        "CaseError",
        "CaseFiles",
        "Catalog",
        "CheckDict",
        "Classification",
        "Column",
        "ColumnKind",
        "DEFAULT_WEIGHTS",
        "DIMENSIONS",
        "DimensionDict",
        "DimensionName",
        "GATE_DIMENSIONS",
        "GATE_METRICS",
        "GATE_SAFETY_DIMENSIONS",
        "GateMetric",
        "INTEGRAL_FLOATS",
        "InputError",
        "InputErrors",
        "MANIFEST_NAME",
        "METRIC_KEYS",
        "ManifestError",
        "NOT_PLAIN",
        "OBSERVATION_SCHEMA",
        "ObservationDict",
        "ObservationError",
        "OutputError",
        "Policy",
        "PolicyError",
        "PolicyErrors",
        "PolicyFile",
        "RECORD_KEYS",
        "RECORD_SCHEMA",
        "ROW_COLUMNS",
        "ROW_FIELDS",
        "Row",
        "SCORECARD_V2_SCHEMA",
        "SCORING_KEYS",
        "ScorecardDict",
        "ScorecardError",
        "ScorecardV1",
        "ScorecardV2",
        "Stopped",
        "Takes",
        "TraceAssertion",
        "TraceDict",
        "TraceLineageDict",
        "WireEventDict",
        "WorkflowCase",
        "WorkflowObservation",
        "arguments",
        "close_field_name",
        "csv_cell",
        "did_you_mean",
        "eval_bundle_id",
        "find_secret",
        "folder_bundle_id",
        "format_js_number",
        "gate_settings",
        "install_stop_handlers",
        "join",
        "js_json",
        "js_string",
        "json_type_name",
        "lazy_exports",
        "load_catalog",
        "manifest_json",
        "matches_reference_secret",
        "parse_json_document",
        "parse_manifest",
        "parse_plain_json",
        "parse_policy_file",
        "parse_yaml",
        "pointer_from_location",
        "printable",
        "raise_if_stopped",
        "read_case_files",
        "record_row",
        "redact",
        "row_of",
        "scoring_policy",
        "shortened",
        "stop_requested",
        "stops_deferred",
        "structural_error",
        "written_name",
        "xml_characters",
    ],
    "scorecard.core": [
        "AuditSummary",
        "Finding",
        "METRIC_KEYS",
        "NOT_PLAIN_ERRORS",
        "Notice",
        "OBSERVATION_DECODER",
        "RECORD_SCHEMA",
        "ScoredRecord",
        "Tally",
        "UNSCOREABLE_REASON",
        "accept_observation",
        "audit_observation",
        "dimension_json",
        "explain_record",
        "identifier_secret",
        "json_scalar",
        "json_string",
        "reason_json",
        "record_line",
        "render_explanation",
        "score_observation",
        "score_wire",
        "scorecard_line",
        "summarize_findings",
        "validate_observation",
    ],
    "scorecard.engine": [
        "CLASSIFICATIONS",
        "LoadedRecords",
        "ROW_FIELDS",
        "RecordDetail",
        "Row",
        "RunSummary",
        "ScoringRun",
        "atomic_binary_writer",
        "atomic_folder",
        "atomic_writer",
        "check_bundle_id",
        "collection_paused",
        "count_input_files",
        "default_workers",
        "empty_input_notices",
        "is_records_file",
        "is_special_file",
        "load_policy",
        "load_records",
        "output_problems",
        "read_json_lines",
        "read_policy_file",
        "read_records",
        "record_detail",
        "record_row",
        "score_paths",
        "score_records",
        "score_rows_parallel",
        "score_run",
        "score_text",
        "scored_row",
        "scoring_catalog",
        "scoring_policy",
    ],
    "scorecard.fast": [
        "Counts",
        "FastScorer",
        "Piece",
        "RowPiece",
        "case_plans",
        "fast_scorer",
        "known_plans",
        "reuse_freed_memory",
    ],
    "scorecard.gate": [
        "ALL_CANDIDATES",
        "DROP_STATISTIC_LABELS",
        "Estimate",
        "GateCheck",
        "GateResult",
        "GateRules",
        "GateSide",
        "METRIC_LABELS",
        "MetricComparison",
        "RuleOutcome",
        "RunFacts",
        "combined_frame",
        "evaluate_gate",
        "frame_side",
        "gate_policy",
        "gate_side",
        "pool_sides",
        "row_facts",
        "rows_side",
        "run_facts",
    ],
    "scorecard.plots": [
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
    ],
    "scorecard.report": [
        "BundleView",
        "CampaignView",
        "GateStatus",
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
    ],
}

#: Public submodules: optional, heavy backends a user imports by name.
PUBLIC_SUBMODULES = {
    "scorecard.aggregate.distributed",
    "scorecard.engine.distributed",
    "scorecard.engine.parquet",
}

PACKAGE_ROOT = Path(scorecard.__file__).resolve().parent


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_each_package_exports_the_pinned_names(package: str) -> None:
    """A subpackage's ``__all__`` is its pinned list, and every name in it resolves."""
    module = importlib.import_module(package)
    assert sorted(module.__all__) == PACKAGES[package]
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_modules_inside_packages_are_private() -> None:
    """Every module below a subpackage is private, except the pinned public submodules."""
    public = {
        ".".join(("scorecard", *path.relative_to(PACKAGE_ROOT).with_suffix("").parts))
        for path in PACKAGE_ROOT.glob("*/*.py")
        if not path.name.startswith("_") and path.parent.name != "simulate"
    }
    assert public == PUBLIC_SUBMODULES
