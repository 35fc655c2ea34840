"""A fast recogniser of plainly valid observations, so most records skip model construction.

``is_plainly_valid(document)`` returns True only when the pydantic models would accept the
document *and* it has no unknown fields. Anything else (an error, an extra field, an unusual
number) returns False and the caller falls back to the models, which then give the exact,
located error or the unknown-field notices. The recogniser may be conservative, never lenient:
``tests/test_recognize.py`` checks that everything it accepts the models accept too.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["is_plainly_valid"]

_SAFE_INT = 2**53

_TOP = frozenset(
    {
        "schema",
        "caseId",
        "candidateId",
        "provider",
        "classification",
        "base",
        "lifecycle",
        "continuation",
        "presentation",
        "traceLineage",
        "metrics",
        "observedPrpEventTypes",
        "artifactDigests",
        "failure",
    }
)
_CLASSIFICATIONS = frozenset(
    {"completed", "candidate_failure", "infrastructure_failure", "skipped"}
)
_BASE = frozenset(
    {
        "caseId",
        "provenance",
        "controlPlaneOwned",
        "expectedCalls",
        "observedCalls",
        "forbiddenCalls",
        "finalState",
        "authorization",
        "trace",
        "efficiency",
        "budget",
    }
)
_STATES = frozenset({"unchanged", "mutated"})
_AUTHORIZATIONS = frozenset({"allowed", "denied", "absent"})
_TRACE = frozenset(
    {"runId", "sessionId", "turnId", "itemId", "receiptIds", "terminalPresent", "wireEvents"}
)
_EVENT_STRINGS = (
    "schema",
    "sourceEventId",
    "sourceInstanceId",
    "sourceKind",
    "emittedAt",
    "runId",
    "normalizedSessionId",
    "turnId",
    "itemId",
)
_EVENT_INTS = ("schemaVersion", "sourceSeq", "priority")
_EVENT = frozenset({*_EVENT_STRINGS, *_EVENT_INTS, "eventType", "payload"})
_EFFICIENCY = frozenset({"latencyMs", "totalTokens", "costUsd", "attempts"})
_BUDGET = frozenset({"maxLatencyMs", "maxTotalTokens", "maxCostUsd", "maxAttempts"})
_CHECK = frozenset({"id", "passed", "reason", "evidenceIds"})
_LIFECYCLE_STRINGS = ("issueStatus", "runStatus", "semanticDisposition", "recoveryOwner")
_LIFECYCLE = frozenset({"checks", *_LIFECYCLE_STRINGS, "attempts", "runs"})
_PRESENTATION = frozenset(
    {"checks", "commentCount", "responseSource", "markers", "activityFamilies"}
)
_LINEAGE = frozenset(
    {
        "capture",
        "frameCount",
        "byteCount",
        "digestVerified",
        "ordered",
        "dispositions",
        "lineage",
        "traceRef",
    }
)
_METRIC_NUMBERS = ("timeToFirstVisibleProgressMs", "settlementMs", "totalTokens", "costUsd")
_METRICS = frozenset({"attempts", "toolCount", *_METRIC_NUMBERS})
_FAILURE = frozenset({"code", "category", "retryable", "message"})
_CAPTURES = frozenset({"on", "off"})
_CATEGORIES = frozenset({"candidate", "provider", "qualification", "orchestration"})


def _number(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    return kind is int and -_SAFE_INT <= value <= _SAFE_INT


def _member(value: Any, allowed: frozenset[str]) -> bool:
    return type(value) is str and value in allowed


def _count(value: Any) -> bool:
    return type(value) is int and 0 <= value <= _SAFE_INT


def _strings(value: Any) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _object(value: Any, keys: frozenset[str]) -> bool:
    return type(value) is dict and keys.issuperset(value)


def _optional_strings(document: dict[str, Any], names: tuple[str, ...]) -> bool:
    return all(type(document[name]) is str for name in names if name in document)


def _numbers(document: dict[str, Any]) -> bool:
    return all(_number(value) for value in document.values())


def _checks(value: Any) -> bool:
    if type(value) is not list:
        return False
    for check in value:
        if not _object(check, _CHECK):
            return False
        check_id = check.get("id")
        if type(check_id) is not str or not check_id or type(check.get("passed")) is not bool:
            return False
        if "reason" in check and type(check["reason"]) is not str:
            return False
        if "evidenceIds" in check and not _strings(check["evidenceIds"]):
            return False
    return True


def _pair(value: Any, allowed: frozenset[str]) -> bool:
    return (
        type(value) is dict
        and len(value) == 2
        and _member(value.get("expected"), allowed)
        and _member(value.get("observed"), allowed)
    )


def _event(event: Any) -> bool:
    if not _object(event, _EVENT) or type(event.get("eventType")) is not str:
        return False
    if not _optional_strings(event, _EVENT_STRINGS):
        return False
    if not all(type(event[name]) is int for name in _EVENT_INTS if name in event):
        return False
    return "payload" not in event or type(event["payload"]) is dict


def _trace(trace: Any) -> bool:
    if not _object(trace, _TRACE):
        return False
    if not _strings(trace.get("receiptIds")) or type(trace.get("terminalPresent")) is not bool:
        return False
    if not _optional_strings(trace, ("runId", "sessionId", "turnId", "itemId")):
        return False
    events = trace.get("wireEvents")
    return (events is None and "wireEvents" not in trace) or (
        type(events) is list and all(_event(event) for event in events)
    )


def _base(base: Any) -> bool:
    if not _object(base, _BASE) or type(base.get("caseId")) is not str:
        return False
    if type(base.get("controlPlaneOwned")) is not bool:
        return False
    if not all(
        _strings(base.get(name)) for name in ("expectedCalls", "observedCalls", "forbiddenCalls")
    ):
        return False
    if not _pair(base.get("finalState"), _STATES) or not _pair(
        base.get("authorization"), _AUTHORIZATIONS
    ):
        return False
    if not _trace(base.get("trace")):
        return False
    if "provenance" in base and type(base["provenance"]) is not dict:
        return False
    if "efficiency" in base and not (
        _object(base["efficiency"], _EFFICIENCY) and _numbers(base["efficiency"])
    ):
        return False
    return "budget" not in base or (_object(base["budget"], _BUDGET) and _numbers(base["budget"]))


def _lifecycle(lifecycle: Any) -> bool:
    return (
        _object(lifecycle, _LIFECYCLE)
        and _checks(lifecycle.get("checks"))
        and _optional_strings(lifecycle, _LIFECYCLE_STRINGS)
        and all(_count(lifecycle[name]) for name in ("attempts", "runs") if name in lifecycle)
    )


def _presentation(presentation: Any) -> bool:
    return (
        _object(presentation, _PRESENTATION)
        and _checks(presentation.get("checks"))
        and ("commentCount" not in presentation or _count(presentation["commentCount"]))
        and ("responseSource" not in presentation or type(presentation["responseSource"]) is str)
        and all(
            _strings(presentation[name])
            for name in ("markers", "activityFamilies")
            if name in presentation
        )
    )


def _lineage(lineage: Any) -> bool:
    return (
        _object(lineage, _LINEAGE)
        and _member(lineage.get("capture"), _CAPTURES)
        and _count(lineage.get("frameCount"))
        and _count(lineage.get("byteCount"))
        and type(lineage.get("digestVerified")) is bool
        and type(lineage.get("ordered")) is bool
        and _strings(lineage.get("dispositions"))
        and _strings(lineage.get("lineage"))
        and ("traceRef" not in lineage or type(lineage["traceRef"]) is str)
    )


def _metrics(metrics: Any) -> bool:
    return (
        _object(metrics, _METRICS)
        and _count(metrics.get("attempts"))
        and _count(metrics.get("toolCount"))
        and all(
            _number(metrics[name]) and metrics[name] >= 0
            for name in _METRIC_NUMBERS
            if name in metrics
        )
    )


def _failure(failure: Any) -> bool:
    return (
        _object(failure, _FAILURE)
        and type(failure.get("code")) is str
        and failure["code"] != ""
        and _member(failure.get("category"), _CATEGORIES)
        and type(failure.get("retryable")) is bool
        and type(failure.get("message")) is str
    )


def is_plainly_valid(document: Any) -> bool:
    """True when the models accept ``document`` and it carries no unknown field."""
    return (
        _object(document, _TOP)
        and document.get("schema") == "paperclip.runner.workflow-observation.v1"
        and type(document.get("caseId")) is str
        and type(document.get("candidateId")) is str
        and type(document.get("provider")) is str
        and _member(document.get("classification"), _CLASSIFICATIONS)
        and _base(document.get("base"))
        and _lifecycle(document.get("lifecycle"))
        and _object(document.get("continuation"), frozenset({"checks"}))
        and _checks(document["continuation"].get("checks"))
        and _presentation(document.get("presentation"))
        and _lineage(document.get("traceLineage"))
        and _metrics(document.get("metrics"))
        and _strings(document.get("observedPrpEventTypes"))
        and _strings(document.get("artifactDigests"))
        and ("failure" not in document or _failure(document["failure"]))
    )
