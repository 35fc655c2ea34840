"""A compiled recogniser of plainly valid observations, so most records skip model construction.

``is_plainly_valid(document)`` returns True only when the pydantic models would accept the
document *and* it has no unknown fields. Anything else (an error, an extra field, an unusual
number) returns False and the caller falls back to the models, which then give the exact,
located error or the unknown-field notices. The recogniser may be conservative, never lenient:
``tests/core/test_recognize.py`` checks that everything it accepts the models accept too.

The shape below is the observation contract restated as closed :mod:`msgspec` structs, which
check a parsed document in compiled code instead of a hand-written Python walk;
``tests/contract/test_mirrors.py`` checks they have the models' fields, presence and constraints. It is a *recogniser*, not a second model layer: the structs it builds are discarded,
the pydantic models stay the definition, and nothing but this module sees msgspec types.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

__all__ = [
    "NOT_PLAIN_ERRORS",
    "OBSERVATION_DECODER",
    "PlainObservation",
    "is_plainly_valid",
]

_SAFE = 2**53
# Numbers JavaScript holds exactly; larger integers go to the models (and their error).
_Count = Annotated[int, Meta(ge=0, le=_SAFE)]
_LARGEST = sys.float_info.max
# Bounds keep infinities out (NaN fails every comparison); the parsers never make them, callers of
# the Python API might.
_Number = (
    Annotated[int, Meta(ge=-_SAFE, le=_SAFE)] | Annotated[float, Meta(ge=-_LARGEST, le=_LARGEST)]
)
_NonNegative = _Count | Annotated[float, Meta(ge=0, le=_LARGEST)]
_NonEmpty = Annotated[str, Meta(min_length=1)]
_State = Literal["unchanged", "mutated"]
_Authorization = Literal["allowed", "denied", "absent"]


class _Closed(Struct, forbid_unknown_fields=True, gc=False):
    """An object with exactly the listed fields; absent optional fields stay ``UNSET``.

    Fields are listed in the order runners write them (the simulator's order, which follows the
    upstream schema where it has one); the decoder reads them in any order.
    ``gc=False``: parsed JSON holds no cycles, and untracked structs cost less to make.
    """


class _Check(_Closed):
    id: _NonEmpty
    passed: bool
    reason: str | UnsetType = UNSET
    evidenceIds: list[str] | UnsetType = UNSET


class _WireEvent(_Closed):
    eventType: str
    schema: str | UnsetType = UNSET
    sourceEventId: str | UnsetType = UNSET
    sourceInstanceId: str | UnsetType = UNSET
    sourceKind: str | UnsetType = UNSET
    emittedAt: str | UnsetType = UNSET
    runId: str | UnsetType = UNSET
    normalizedSessionId: str | UnsetType = UNSET
    turnId: str | UnsetType = UNSET
    itemId: str | UnsetType = UNSET
    schemaVersion: int | UnsetType = UNSET
    sourceSeq: int | UnsetType = UNSET
    priority: int | UnsetType = UNSET
    payload: dict[str, Any] | UnsetType = UNSET


class _Trace(_Closed, kw_only=True):
    runId: str | UnsetType = UNSET
    sessionId: str | UnsetType = UNSET
    turnId: str | UnsetType = UNSET
    itemId: str | UnsetType = UNSET
    receiptIds: list[str]
    terminalPresent: bool
    wireEvents: list[_WireEvent] | UnsetType = UNSET


class _FinalState(_Closed):
    expected: _State
    observed: _State


class _Authorization_(_Closed):
    expected: _Authorization
    observed: _Authorization


class _Efficiency(_Closed):
    latencyMs: _Number | UnsetType = UNSET
    totalTokens: _Number | UnsetType = UNSET
    costUsd: _Number | UnsetType = UNSET
    attempts: _Number | UnsetType = UNSET


class _Budget(_Closed):
    maxLatencyMs: _Number | UnsetType = UNSET
    maxTotalTokens: _Number | UnsetType = UNSET
    maxCostUsd: _Number | UnsetType = UNSET
    maxAttempts: _Number | UnsetType = UNSET


class _Base(_Closed, kw_only=True):
    caseId: str
    provenance: dict[str, Any] | UnsetType = UNSET
    controlPlaneOwned: bool
    expectedCalls: list[str]
    observedCalls: list[str]
    forbiddenCalls: list[str]
    finalState: _FinalState
    authorization: _Authorization_
    trace: _Trace
    efficiency: _Efficiency | UnsetType = UNSET
    budget: _Budget | UnsetType = UNSET


class _Lifecycle(_Closed):
    checks: list[_Check]
    issueStatus: str | UnsetType = UNSET
    runStatus: str | UnsetType = UNSET
    attempts: _Count | UnsetType = UNSET
    runs: _Count | UnsetType = UNSET
    semanticDisposition: str | UnsetType = UNSET
    recoveryOwner: str | UnsetType = UNSET


class _Continuation(_Closed):
    checks: list[_Check]


class _Presentation(_Closed):
    checks: list[_Check]
    commentCount: _Count | UnsetType = UNSET
    responseSource: str | UnsetType = UNSET
    markers: list[str] | UnsetType = UNSET
    activityFamilies: list[str] | UnsetType = UNSET


class _TraceLineage(_Closed):
    capture: Literal["on", "off"]
    frameCount: _Count
    byteCount: _Count
    digestVerified: bool
    ordered: bool
    dispositions: list[str]
    lineage: list[str]
    traceRef: str | UnsetType = UNSET


class _Metrics(_Closed):
    attempts: _Count
    toolCount: _Count
    timeToFirstVisibleProgressMs: _NonNegative | UnsetType = UNSET
    settlementMs: _NonNegative | UnsetType = UNSET
    totalTokens: _NonNegative | UnsetType = UNSET
    costUsd: _NonNegative | UnsetType = UNSET


class _Failure(_Closed):
    code: _NonEmpty
    category: Literal["candidate", "provider", "qualification", "orchestration"]
    retryable: bool
    message: str


class _Observation(_Closed):
    schema: Literal["paperclip.runner.workflow-observation.v1"]
    caseId: str
    candidateId: str
    provider: str
    classification: Literal["completed", "candidate_failure", "infrastructure_failure", "skipped"]
    base: _Base
    lifecycle: _Lifecycle
    continuation: _Continuation
    presentation: _Presentation
    traceLineage: _TraceLineage
    metrics: _Metrics
    observedPrpEventTypes: list[str]
    artifactDigests: list[str]
    failure: _Failure | UnsetType = UNSET


def is_plainly_valid(document: Any, *, parsed_json: bool = False) -> bool:
    """True when the models accept ``document`` and it carries no unknown field.

    ``parsed_json=True`` promises that ``document`` holds only what a JSON parser returns (dict,
    list, str, int, float, bool, None), as every document the readers produce does. Without that
    promise the exact types are checked first: msgspec would convert a tuple or a set where a
    list is expected, which the strict models refuse.
    """
    if not parsed_json and not _json_types_only(document):
        return False
    try:
        msgspec.convert(document, _Observation, strict=True)
    except (msgspec.ValidationError, RecursionError):
        return False
    return True


PlainObservation = _Observation
"""A plainly valid observation as :data:`OBSERVATION_DECODER` returns it (read-only use)."""
OBSERVATION_DECODER = msgspec.json.Decoder(_Observation)
"""Parses and recognises a line in one pass (the typed decode of a plain observation)."""
NOT_PLAIN_ERRORS = (msgspec.DecodeError, UnicodeError, RecursionError)
"""What the decoder raises for a line that is not plainly valid.

The fast path decodes a line only after its scanner (``src/fastscore/strict.c``) found none of
what the strict parser refuses (repeated keys, inexact or non-finite numbers, lone surrogates,
invalid UTF-8); the typed decode then checks what :func:`is_plainly_valid` checks, in any key
order, whitespace and escaping.
"""


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _json_types_only(value: Any) -> bool:
    try:
        return _only_json_types(value)
    except RecursionError:
        return False


def _only_json_types(value: Any) -> bool:
    kind = type(value)
    if kind is dict:
        return all(type(key) is str and _only_json_types(item) for key, item in value.items())
    if kind is list:
        return all(_only_json_types(item) for item in value)
    return kind in _SCALARS
