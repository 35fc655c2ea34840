"""scorecard: turn paperclip agent-runner evaluation runs into scorecards people can trust.

The public API is re-exported here and pinned by ``tests/test_public_api.py``. Importing
``scorecard`` is light: each name loads its module on first use (PEP 562), so the CLI's
``--help`` and scripts that need one function do not pay for pydantic models, pandas or
matplotlib they never touch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorecard.contract import lazy_exports

__version__ = "0.1.0"

#: Public name -> module that defines it.
_EXPORTS = {
    "BundleInfo": "contract",
    "CampaignManifest": "contract",
    "eval_bundle_id": "contract",
    "parse_manifest": "contract",
    "Catalog": "contract",
    "load_catalog": "contract",
    "CaseError": "contract",
    "CatalogError": "contract",
    "InputError": "contract",
    "ManifestError": "contract",
    "ObservationError": "contract",
    "OutputError": "contract",
    "PolicyError": "contract",
    "ScorecardError": "contract",
    "StoreError": "contract",
    "load_policy": "engine",
    "read_records": "engine",
    "CASE_IDS": "contract",
    "DIMENSIONS": "contract",
    "GATE_DIMENSIONS": "contract",
    "ScorecardV1": "contract",
    "ScorecardV2": "contract",
    "WorkflowCase": "contract",
    "WorkflowObservation": "contract",
    "RunSummary": "engine",
    "ScoredRecord": "core",
    "score_paths": "engine",
    "score_records": "engine",
    "Policy": "contract",
    "score_observation": "core",
    "validate_observation": "core",
    "open_store": "store",
}

__all__ = [
    "CASE_IDS",
    "DIMENSIONS",
    "GATE_DIMENSIONS",
    "BundleInfo",
    "CampaignManifest",
    "CaseError",
    "Catalog",
    "CatalogError",
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


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, base="scorecard")


if TYPE_CHECKING:
    from scorecard.contract import (
        CASE_IDS,
        DIMENSIONS,
        GATE_DIMENSIONS,
        BundleInfo,
        CampaignManifest,
        CaseError,
        Catalog,
        CatalogError,
        InputError,
        ManifestError,
        ObservationError,
        OutputError,
        Policy,
        PolicyError,
        ScorecardError,
        ScorecardV1,
        ScorecardV2,
        StoreError,
        WorkflowCase,
        WorkflowObservation,
        eval_bundle_id,
        load_catalog,
        parse_manifest,
    )
    from scorecard.core import ScoredRecord, score_observation, validate_observation
    from scorecard.engine import RunSummary, load_policy, read_records, score_paths, score_records
    from scorecard.store import open_store
