"""Typed views of validated wire data (camelCase JSON), for the fast paths.

The pydantic models in :mod:`scorecard.contract._models` define and validate the contracts. Once a document
has passed them (strict mode: no coercion, so the document itself *is* the validated value), the
scorer and the audit read the plain parsed JSON through these ``TypedDict`` views: no copies, no
model objects, and mypy still checks every key. Open objects may carry more keys than listed.

Each view lists every field of its model, with the same key, presence and kind of value:
``tests/contract/test_mirrors.py`` checks them against the models, as it checks the recogniser's
structs (``core/_recognize.py``) and the fields the C fast path reads.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

__all__ = [
    "BaseDict",
    "BudgetDict",
    "CheckDict",
    "DimensionDict",
    "EfficiencyDict",
    "EvidenceDict",
    "FailureDict",
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


class WireEventDict(TypedDict):
    """A PRP wire event."""

    schema: NotRequired[str]
    schemaVersion: NotRequired[int]
    sourceEventId: NotRequired[str]
    sourceSeq: NotRequired[int]
    sourceInstanceId: NotRequired[str]
    sourceKind: NotRequired[str]
    priority: NotRequired[int]
    emittedAt: NotRequired[str]
    eventType: str
    runId: NotRequired[str]
    normalizedSessionId: NotRequired[str]
    turnId: NotRequired[str]
    itemId: NotRequired[str]
    payload: NotRequired[dict[str, Any]]


class TraceDict(TypedDict):
    """``base.trace``."""

    runId: NotRequired[str]
    sessionId: NotRequired[str]
    turnId: NotRequired[str]
    itemId: NotRequired[str]
    receiptIds: list[str]
    terminalPresent: bool
    wireEvents: NotRequired[list[WireEventDict]]


class StatePairDict(TypedDict):
    """Expected and observed values (final state, authorisation)."""

    expected: str
    observed: str


class EfficiencyDict(TypedDict, total=False):
    """``base.efficiency``."""

    latencyMs: float
    totalTokens: float
    costUsd: float
    attempts: float


class BudgetDict(TypedDict, total=False):
    """``base.budget``."""

    maxLatencyMs: float
    maxTotalTokens: float
    maxCostUsd: float
    maxAttempts: float


class BaseDict(TypedDict):
    """``base``: the v1 evaluation observation."""

    caseId: str
    provenance: NotRequired[dict[str, Any]]
    controlPlaneOwned: bool
    expectedCalls: list[str]
    observedCalls: list[str]
    forbiddenCalls: list[str]
    finalState: StatePairDict
    authorization: StatePairDict
    trace: TraceDict
    efficiency: NotRequired[EfficiencyDict]
    budget: NotRequired[BudgetDict]


class CheckDict(TypedDict):
    """One evidence check."""

    id: str
    passed: bool
    reason: NotRequired[str]
    evidenceIds: NotRequired[list[str]]


class EvidenceDict(TypedDict):
    """Evidence checks (``continuation``; lifecycle and presentation add their fields)."""

    checks: list[CheckDict]


class LifecycleDict(EvidenceDict):
    """``lifecycle``."""

    issueStatus: NotRequired[str]
    runStatus: NotRequired[str]
    attempts: NotRequired[int]
    runs: NotRequired[int]
    semanticDisposition: NotRequired[str]
    recoveryOwner: NotRequired[str]


class PresentationDict(EvidenceDict):
    """``presentation``."""

    commentCount: NotRequired[int]
    responseSource: NotRequired[str]
    markers: NotRequired[list[str]]
    activityFamilies: NotRequired[list[str]]


class TraceLineageDict(TypedDict):
    """``traceLineage``."""

    capture: Literal["on", "off"]
    frameCount: int
    byteCount: int
    digestVerified: bool
    ordered: bool
    dispositions: list[str]
    lineage: list[str]
    traceRef: NotRequired[str]


class MetricsDict(TypedDict):
    """``metrics``."""

    attempts: int
    toolCount: int
    timeToFirstVisibleProgressMs: NotRequired[float]
    settlementMs: NotRequired[float]
    totalTokens: NotRequired[float]
    costUsd: NotRequired[float]


class FailureDict(TypedDict):
    """``failure``."""

    code: str
    category: str
    retryable: bool
    message: str


class ObservationDict(TypedDict):
    """A validated ``workflow-observation.v1`` document."""

    schema: str
    caseId: str
    candidateId: str
    provider: str
    classification: str
    base: BaseDict
    lifecycle: LifecycleDict
    continuation: EvidenceDict
    presentation: PresentationDict
    traceLineage: TraceLineageDict
    metrics: MetricsDict
    observedPrpEventTypes: list[str]
    artifactDigests: list[str]
    failure: NotRequired[FailureDict]


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
