"""The public API is pinned: names may be added deliberately, never lost by accident."""

from __future__ import annotations

import subprocess
import sys

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
