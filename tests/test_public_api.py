"""The public API is pinned: names may be added deliberately, never lost by accident.

Each subpackage's ``__init__`` is its API; the modules inside it are private (a leading
underscore), except the optional heavy backends, which are public submodules imported on demand.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import scorecard
from tests.conftest import load_script

PUBLIC = [
    "BundleInfo",
    "CASE_IDS",
    "CampaignManifest",
    "CaseError",
    "Catalog",
    "CatalogError",
    "DIMENSIONS",
    "GATE_DIMENSIONS",
    "InputError",
    "ManifestError",
    "ObservationError",
    "OutputError",
    "Policy",
    "PolicyError",
    "RunSummary",
    "ScorecardError",
    "ScorecardV1",
    "ScorecardV2",
    "ScoredRecord",
    "StoreError",
    "WorkflowCase",
    "WorkflowObservation",
    "__version__",
    "eval_bundle_id",
    "load_catalog",
    "load_policy",
    "open_store",
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
        "History",
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
        "ReportSite",
        "SITE_RECEIPT",
        "SPLIT_BYTES",
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
    ],
    "scorecard.aggregate": [
        "Alert",
        "COUNT_COLUMNS",
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
        "column_codes",
        "column_values",
        "compare_across_bundles",
        "compare_bundles",
        "compare_candidates",
        "compare_paired",
        "compare_to_baseline",
        "cost_frame",
        "dimension_frame",
        "flag_array",
        "held_labels",
        "history_frames",
        "nights_history",
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
        "CatalogError",
        "CheckDict",
        "Classification",
        "Column",
        "ColumnKind",
        "DEFAULT_WEIGHTS",
        "DIMENSIONS",
        "DimensionDict",
        "DimensionName",
        "EVIDENCE_KEYS",
        "Evidence",
        "FramedDigest",
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
        "OBSERVATION_SCHEMA_ID",
        "ObservationDict",
        "ObservationError",
        "OutputError",
        "Policy",
        "PolicyError",
        "PolicyErrors",
        "PolicyFile",
        "RECEIPT_METADATA_KEY",
        "RECEIPT_SCHEMA",
        "RECORD_KEYS",
        "RECORD_SCHEMA",
        "ROW_COLUMNS",
        "ROW_FIELDS",
        "Receipt",
        "ReceiptDifference",
        "ReceiptInput",
        "Row",
        "RowsDigest",
        "SCORECARD_V2_SCHEMA",
        "SCORING_KEYS",
        "ScorecardDict",
        "ScorecardError",
        "ScorecardV1",
        "ScorecardV2",
        "Stopped",
        "StoreError",
        "Takes",
        "TraceAssertion",
        "TraceDict",
        "TraceLineageDict",
        "WireEventDict",
        "WorkflowCase",
        "WorkflowObservation",
        "arguments",
        "canonical_json",
        "close_field_name",
        "csv_cell",
        "did_you_mean",
        "engine_note",
        "eval_bundle_id",
        "find_secret",
        "first_difference",
        "folder_bundle_id",
        "format_js_number",
        "gate_settings",
        "input_difference",
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
        "payload_digest",
        "pointer_from_location",
        "policy_digest_of",
        "printable",
        "raise_if_stopped",
        "read_case_files",
        "read_receipt",
        "receipt_line",
        "record_row",
        "redact",
        "row_of",
        "scoring_policy",
        "shortened",
        "site_payload_digest",
        "stop_requested",
        "stops_deferred",
        "structural_error",
        "written_name",
        "xml_characters",
    ],
    "scorecard.core": [
        "AuditSummary",
        "CHECKS",
        "Check",
        "Finding",
        "MARKER_MISSING",
        "METRICS_ATTEMPTS",
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
        "explain_failing",
        "explain_record",
        "failing_dimensions",
        "failing_of",
        "failing_reasons",
        "identifier_secret",
        "json_scalar",
        "json_string",
        "marker_hints",
        "reason_evidence",
        "reason_json",
        "record_failure",
        "record_line",
        "render_explanation",
        "score_observation",
        "score_wire",
        "scorecard_line",
        "scored_wire",
        "summarize_findings",
        "validate_observation",
    ],
    "scorecard.engine": [
        "Background",
        "BundleFiles",
        "CLASSIFICATIONS",
        "Keep",
        "LoadedRecords",
        "PackedDocuments",
        "ROW_FIELDS",
        "RecordDetail",
        "Row",
        "RunEvidence",
        "RunSummary",
        "ScoringRun",
        "StoredBlock",
        "StoredRun",
        "atomic_binary_writer",
        "atomic_folder",
        "atomic_writer",
        "bundle_files",
        "check_bundle_id",
        "collection_paused",
        "count_input_files",
        "default_workers",
        "empty_input_notices",
        "failure_text",
        "file_state",
        "forked_map",
        "in_background",
        "input_bundles",
        "input_digest",
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
        "run_evidence",
        "score_paths",
        "score_records",
        "score_rows_parallel",
        "score_run",
        "score_text",
        "scored_row",
        "scoring_catalog",
        "scoring_policy",
        "source_text",
        "stored_record",
    ],
    "scorecard.fast": [
        "Counts",
        "FastScorer",
        "Piece",
        "REPETITION_PLACEHOLDER",
        "RecordPiece",
        "RowPiece",
        "case_plans",
        "count_newlines",
        "engine_in_use",
        "fast_scorer",
        "known_plans",
        "number_records",
        "reuse_freed_memory",
    ],
    "scorecard.gate": [
        "ALL_CANDIDATES",
        "CaseFinding",
        "DROP_STATISTIC_LABELS",
        "DimensionDrop",
        "Estimate",
        "GateCheck",
        "GateFailure",
        "GateResult",
        "GateRules",
        "GateSide",
        "METRIC_LABELS",
        "MetricComparison",
        "ResidualDrop",
        "RuleOutcome",
        "RunFacts",
        "SharedShift",
        "combined_frame",
        "evaluate_gate",
        "findings_side",
        "frame_side",
        "gate_policy",
        "gate_side",
        "numbered_facts",
        "pool_sides",
        "row_facts",
        "rows_side",
        "run_facts",
        "scored_facts",
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
        "HISTORY_SCHEMA",
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
    ],
    "scorecard.store": [
        "BundleEntry",
        "BundleOutcome",
        "IngestReport",
        "LABELS_SCHEMA",
        "Label",
        "Labels",
        "RunDetail",
        "STORE_SCHEMA",
        "Store",
        "open_store",
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


API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"
GENERATOR = API_PAGE.parents[1] / "dev" / "api_reference.py"


def _generator() -> Any:
    return load_script(GENERATOR)


def test_the_api_reference_covers_every_public_module() -> None:
    """docs/api.md is made from the top level, every pinned package and every public submodule."""
    documented = set(_generator().PACKAGES)
    assert documented == {"scorecard", "scorecard.simulate", *PACKAGES, *PUBLIC_SUBMODULES}


def names_on_the_api_page(text: str) -> dict[str, list[str]]:
    """Each ``## package`` section's names: described (``### `name` ``) or pointed elsewhere."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line.removeprefix("## "), [])
        elif (match := re.match(r"^(?:### |- )`([^`]+)`", line)) and (
            line.startswith("### ") or ": see " in line
        ):
            current.append(match.group(1))
    return sections


def test_the_api_reference_lists_exactly_the_pinned_names() -> None:
    """The generated page names, per package, exactly the names pinned above."""
    sections = names_on_the_api_page(API_PAGE.read_text(encoding="utf-8"))
    assert sorted(sections["scorecard"]) == sorted(PUBLIC)
    for package, names in PACKAGES.items():
        assert sorted(sections[package]) == names, package


def test_the_api_reference_is_current() -> None:
    """docs/api.md is what dev/api_reference.py writes now: a changed public signature,
    docstring summary or name must come with the regenerated page (run the script)."""
    # In a child process: the page imports every public module, the C extension's too, which
    # the suite's pass without the extension refuses in this process.
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")


def test_a_changed_signature_makes_the_page_stale() -> None:
    """The page shows signatures: rendering a function with one more parameter changes its text."""
    generator = _generator()

    def load(path: str, *, strict: bool = False) -> None:
        """Load."""

    def load_changed(path: str, *, strict: bool = False, limit: int = 0) -> None:
        """Load."""

    assert generator.describe("load", load) == [
        "### `load`",
        "",
        "```python",
        "load(path: str, *, strict: bool = False) -> None",
        "```",
        "",
        "Load.",
        "",
    ]
    assert generator.describe("load", load_changed) != generator.describe("load", load)
