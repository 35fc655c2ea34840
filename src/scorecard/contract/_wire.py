"""Typed views of validated wire data (camelCase JSON), for the fast paths.

The pydantic models in :mod:`scorecard.contract._models` define and validate the contracts. Once a document
has passed them (strict mode: no coercion, so the document itself *is* the validated value), the
scorer and the audit read the plain parsed JSON through these ``TypedDict`` views: no copies, no
model objects, and mypy still checks every key. Open objects may carry more keys than listed.

The observation's views are generated from its models (``contract/_observation_views.py``, by
``dev/generate_contract.py``) and re-exported here. The scorecard's views below are what the
scorer builds; ``tests/contract/test_scorecard_views.py`` compares them with the scorecard
models that read scorecards back.
"""

from __future__ import annotations

from typing import TypedDict

from ._observation_views import (
    AuthorizationDict,
    BaseDict,
    BudgetDict,
    CheckDict,
    EfficiencyDict,
    EvidenceDict,
    FailureDict,
    FinalStateDict,
    LifecycleDict,
    MetricsDict,
    ObservationDict,
    PresentationDict,
    TraceDict,
    TraceLineageDict,
    WireEventDict,
)

__all__ = [
    "AuthorizationDict",
    "BaseDict",
    "BudgetDict",
    "CheckDict",
    "DimensionDict",
    "EfficiencyDict",
    "EvidenceDict",
    "FailureDict",
    "FinalStateDict",
    "LifecycleDict",
    "MetricsDict",
    "ObservationDict",
    "OverallDict",
    "PresentationDict",
    "ScorecardDict",
    "TraceDict",
    "TraceLineageDict",
    "WireEventDict",
]


class DimensionDict(TypedDict):
    """One dimension of a v2 scorecard."""

    dimension: str
    score: float | None
    passed: bool | None
    gate: bool
    weight: float
    reasons: list[str]


class OverallDict(TypedDict):
    """``overall`` of a v2 scorecard."""

    score: float | None
    gatePassed: bool | None
    passed: bool | None


class ScorecardDict(TypedDict):
    """A v2 scorecard as JSON data, keys in contract order."""

    schema: str
    bundleId: str
    caseId: str
    candidateId: str
    classification: str
    dimensions: dict[str, DimensionDict]
    overall: OverallDict
