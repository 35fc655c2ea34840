"""scorecard: turn paperclip agent-runner evaluation runs into scorecards people can trust.

The public API is re-exported here and pinned by ``tests/test_public_api.py``. Importing
``scorecard`` is light: each name loads its module on first use (PEP 562), so the CLI's
``--help`` and scripts that need one function do not pay for pydantic models, pandas or
matplotlib they never touch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> module that defines it.
_EXPORTS = {
    "BundleInfo": "bundles",
    "CampaignManifest": "bundles",
    "eval_bundle_id": "bundles",
    "parse_manifest": "bundles",
    "Catalog": "catalog",
    "load_catalog": "catalog",
    "CaseError": "errors",
    "InputError": "errors",
    "ManifestError": "errors",
    "ObservationError": "errors",
    "PolicyError": "errors",
    "ScorecardError": "errors",
    "load_policy": "io",
    "read_records": "io",
    "CASE_IDS": "models",
    "DIMENSIONS": "models",
    "GATE_DIMENSIONS": "models",
    "ScorecardV1": "models",
    "ScorecardV2": "models",
    "WorkflowCase": "models",
    "WorkflowObservation": "models",
    "RunSummary": "pipeline",
    "ScoredRecord": "pipeline",
    "score_paths": "pipeline",
    "score_records": "pipeline",
    "Policy": "policy",
    "score_observation": "scoring",
    "validate_observation": "validation",
}

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scorecard' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"scorecard.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
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
