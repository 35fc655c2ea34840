"""scorecard: turn paperclip agent-runner evaluation runs into scorecards people can trust.

The public API is re-exported here and pinned by ``tests/test_public_api.py``. Importing
``scorecard`` stays light: no pandas, matplotlib or typer until a function needs them.
"""

from __future__ import annotations

from .bundles import BundleInfo, CampaignManifest, eval_bundle_id, parse_manifest
from .catalog import Catalog, load_catalog
from .errors import (
    CaseError,
    InputError,
    ManifestError,
    ObservationError,
    PolicyError,
    ScorecardError,
)
from .io import load_policy, read_records
from .models import (
    CASE_IDS,
    DIMENSIONS,
    GATE_DIMENSIONS,
    ScorecardV1,
    ScorecardV2,
    WorkflowCase,
    WorkflowObservation,
)
from .pipeline import RunSummary, ScoredRecord, score_paths, score_records
from .policy import Policy
from .scoring import score_observation
from .validation import validate_observation

__version__ = "0.1.0"

__all__ = [
    "CASE_IDS",
    "DIMENSIONS",
    "GATE_DIMENSIONS",
    "BundleInfo",
    "CampaignManifest",
    "CaseError",
    "Catalog",
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
