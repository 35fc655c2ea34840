"""The single definition of each contract: wire models, typed views, policy, catalog, bundles,
errors, and their text forms (strict JSON and YAML, JavaScript number spelling, JSON Pointers,
secret redaction). Everything else imports these; this package imports nothing of scorecard.
"""

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
from ._policy import DEFAULT_WEIGHTS, Policy
from ._printable import printable
from ._secrets import find_secret, matches_reference_secret, redact
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

__all__ = [
    "CAMPAIGN_SCHEMA",
    "CASE_IDS",
    "DEFAULT_WEIGHTS",
    "DIMENSIONS",
    "GATE_DIMENSIONS",
    "MANIFEST_NAME",
    "NOT_PLAIN",
    "OBSERVATION_SCHEMA",
    "SCORECARD_V2_SCHEMA",
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
    "DimensionDict",
    "DimensionName",
    "InputError",
    "ManifestError",
    "ObservationDict",
    "ObservationError",
    "Policy",
    "PolicyError",
    "ScorecardDict",
    "ScorecardError",
    "ScorecardV1",
    "ScorecardV2",
    "TraceAssertion",
    "TraceDict",
    "TraceLineageDict",
    "WireEventDict",
    "WorkflowCase",
    "WorkflowObservation",
    "eval_bundle_id",
    "find_secret",
    "folder_bundle_id",
    "format_js_number",
    "join",
    "js_json",
    "js_string",
    "load_catalog",
    "manifest_json",
    "matches_reference_secret",
    "parse_json_document",
    "parse_manifest",
    "parse_plain_json",
    "parse_yaml",
    "pointer_from_location",
    "printable",
    "redact",
    "structural_error",
]
