"""The single definition of each contract: wire models, typed views, the scored record and its
row, policy, catalog, bundles, errors, and their text forms (strict JSON and YAML, JavaScript
number spelling, JSON Pointers, secret redaction). Everything else imports these; this package imports nothing of scorecard.

Names load on first use (PEP 562), so ``from scorecard.contract import InputError`` (every CLI
command does it) costs the exception tree, not pydantic, YAML and msgspec.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public name -> the private module that defines it.
_EXPORTS = {
    "BundleInfo": "_bundles",
    "CAMPAIGN_SCHEMA": "_bundles",
    "CampaignManifest": "_bundles",
    "CandidateBudget": "_bundles",
    "CandidateSpec": "_bundles",
    "MANIFEST_NAME": "_bundles",
    "eval_bundle_id": "_bundles",
    "folder_bundle_id": "_bundles",
    "manifest_json": "_bundles",
    "parse_manifest": "_bundles",
    "Catalog": "_catalog",
    "load_catalog": "_catalog",
    "CaseError": "_errors",
    "InputError": "_errors",
    "ManifestError": "_errors",
    "ObservationError": "_errors",
    "OutputError": "_errors",
    "PolicyError": "_errors",
    "ScorecardError": "_errors",
    "format_js_number": "_jsformat",
    "js_json": "_jsformat",
    "js_string": "_jsformat",
    "NOT_PLAIN": "_json",
    "parse_json_document": "_json",
    "parse_plain_json": "_json",
    "CASE_IDS": "_models",
    "CaseAssertions": "_models",
    "Classification": "_models",
    "DIMENSIONS": "_models",
    "DimensionName": "_models",
    "GATE_DIMENSIONS": "_models",
    "OBSERVATION_SCHEMA": "_models",
    "SCORECARD_V2_SCHEMA": "_models",
    "ScorecardV1": "_models",
    "ScorecardV2": "_models",
    "TraceAssertion": "_models",
    "WorkflowCase": "_models",
    "WorkflowObservation": "_models",
    "join": "_pointer",
    "pointer_from_location": "_pointer",
    "DEFAULT_WEIGHTS": "_policy",
    "Policy": "_policy",
    "PolicyFile": "_policy",
    "SCORING_KEYS": "_policy",
    "parse_policy_file": "_policy",
    "scoring_policy": "_policy",
    "printable": "_printable",
    "csv_cell": "_printable",
    "xml_characters": "_printable",
    "written_name": "_printable",
    "CLASSIFICATIONS": "_record",
    "Column": "_record",
    "ColumnKind": "_record",
    "METRIC_KEYS": "_record",
    "RECORD_KEYS": "_record",
    "RECORD_SCHEMA": "_record",
    "ROW_COLUMNS": "_record",
    "ROW_FIELDS": "_record",
    "Row": "_record",
    "record_row": "_record",
    "row_of": "_record",
    "find_secret": "_secrets",
    "matches_reference_secret": "_secrets",
    "redact": "_secrets",
    "Stopped": "_stops",
    "install_stop_handlers": "_stops",
    "raise_if_stopped": "_stops",
    "stop_requested": "_stops",
    "stops_deferred": "_stops",
    "structural_error": "_structure",
    "BaseDict": "_wire",
    "CheckDict": "_wire",
    "DimensionDict": "_wire",
    "ObservationDict": "_wire",
    "ScorecardDict": "_wire",
    "TraceDict": "_wire",
    "TraceLineageDict": "_wire",
    "WireEventDict": "_wire",
    "parse_yaml": "_yaml",
}

__all__ = [
    "CAMPAIGN_SCHEMA",
    "CASE_IDS",
    "CLASSIFICATIONS",
    "DEFAULT_WEIGHTS",
    "DIMENSIONS",
    "GATE_DIMENSIONS",
    "MANIFEST_NAME",
    "METRIC_KEYS",
    "NOT_PLAIN",
    "OBSERVATION_SCHEMA",
    "RECORD_KEYS",
    "RECORD_SCHEMA",
    "ROW_COLUMNS",
    "ROW_FIELDS",
    "SCORECARD_V2_SCHEMA",
    "SCORING_KEYS",
    "BaseDict",
    "BundleInfo",
    "CampaignManifest",
    "CandidateBudget",
    "CandidateSpec",
    "CaseAssertions",
    "CaseError",
    "Catalog",
    "CheckDict",
    "Classification",
    "Column",
    "ColumnKind",
    "DimensionDict",
    "DimensionName",
    "InputError",
    "ManifestError",
    "ObservationDict",
    "ObservationError",
    "OutputError",
    "Policy",
    "PolicyError",
    "PolicyFile",
    "Row",
    "ScorecardDict",
    "ScorecardError",
    "ScorecardV1",
    "ScorecardV2",
    "Stopped",
    "TraceAssertion",
    "TraceDict",
    "TraceLineageDict",
    "WireEventDict",
    "WorkflowCase",
    "WorkflowObservation",
    "csv_cell",
    "eval_bundle_id",
    "find_secret",
    "folder_bundle_id",
    "format_js_number",
    "install_stop_handlers",
    "join",
    "js_json",
    "js_string",
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
    "record_row",
    "redact",
    "row_of",
    "scoring_policy",
    "stop_requested",
    "stops_deferred",
    "structural_error",
    "written_name",
    "xml_characters",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scorecard.contract' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from ._bundles import (
        CAMPAIGN_SCHEMA,
        MANIFEST_NAME,
        BundleInfo,
        CampaignManifest,
        CandidateBudget,
        CandidateSpec,
        eval_bundle_id,
        folder_bundle_id,
        manifest_json,
        parse_manifest,
    )
    from ._catalog import Catalog, load_catalog
    from ._errors import (
        CaseError,
        InputError,
        ManifestError,
        ObservationError,
        OutputError,
        PolicyError,
        ScorecardError,
    )
    from ._jsformat import format_js_number, js_json, js_string
    from ._json import NOT_PLAIN, parse_json_document, parse_plain_json
    from ._models import (
        CASE_IDS,
        DIMENSIONS,
        GATE_DIMENSIONS,
        OBSERVATION_SCHEMA,
        SCORECARD_V2_SCHEMA,
        CaseAssertions,
        Classification,
        DimensionName,
        ScorecardV1,
        ScorecardV2,
        TraceAssertion,
        WorkflowCase,
        WorkflowObservation,
    )
    from ._pointer import join, pointer_from_location
    from ._policy import (
        DEFAULT_WEIGHTS,
        SCORING_KEYS,
        Policy,
        PolicyFile,
        parse_policy_file,
        scoring_policy,
    )
    from ._printable import csv_cell, printable, written_name, xml_characters
    from ._record import (
        CLASSIFICATIONS,
        METRIC_KEYS,
        RECORD_KEYS,
        RECORD_SCHEMA,
        ROW_COLUMNS,
        ROW_FIELDS,
        Column,
        ColumnKind,
        Row,
        record_row,
        row_of,
    )
    from ._secrets import find_secret, matches_reference_secret, redact
    from ._stops import (
        Stopped,
        install_stop_handlers,
        raise_if_stopped,
        stop_requested,
        stops_deferred,
    )
    from ._structure import structural_error
    from ._wire import (
        BaseDict,
        CheckDict,
        DimensionDict,
        ObservationDict,
        ScorecardDict,
        TraceDict,
        TraceLineageDict,
        WireEventDict,
    )
    from ._yaml import parse_yaml
