"""What the C scorer needs to write a whole ``scorecard.record.v1`` line (``--format records``).

A record is the scorecard line plus the observation's facts and its audit (``docs/records.md``).
The C code writes it from texts made here, once per case or bundle, by the Python definitions
themselves: each audit finding that does not pass is :meth:`~scorecard.core.Finding.to_json`
written by :func:`~scorecard.contract.js_json`, with a hole where the evidence goes
(:data:`_HOLE`), cut in two at the hole; the C code writes the evidence there (redacted and
quoted by ``reason_json``, as ``to_json`` redacts it). So codes, pointers, hints and expected
values are spelt by the Python path, and the C code only decides which findings a line has, in
the order :func:`~scorecard.core.audit_observation` lists them (``src/fastscore/record.c``).
``tests/fast/test_records.py`` compares every line with the general path's.
"""

from __future__ import annotations

from typing import Any

from scorecard.contract import RECORD_SCHEMA, js_json
from scorecard.core import (
    CHECKS,
    MARKER_MISSING,
    METRICS_ATTEMPTS,
    Finding,
    json_string,
    marker_hints,
)

__all__ = ["record_checks", "record_heads", "roster_labels", "source_head"]

# A character no finding's constant text holds, which JSON.stringify writes as it is: where the
# evidence goes.
_HOLE = "\ue000"

# What a check reads (``WHERE_*`` in ``src/fastscore/record.c``).
_WHERE = {
    "issueStatus": 0,
    "runStatus": 1,
    "semanticDisposition": 2,
    "maxRuns": 3,
    "recoveryOwner": 4,
    "commentCount": 5,
    "responseSource": 6,
    "trace/digestVerified": 7,
    "trace/ordered": 8,
    "requiredPrpEventTypes": 9,
    "requiredActivityFamilies": 10,
    "artifactDigests": 11,
    "requiredOperationIds": 12,
}

# Kinds of check (``CHECK_*`` in ``src/fastscore/record.c``).
_EQUAL, _AT_MOST, _ATTEMPTS, _MARKERS, _MEMBERS, _FORBIDDEN, _PROVIDER = range(7)


def _text(finding: Finding) -> str:
    return js_json(finding.to_json())


def _cut(finding: Finding) -> tuple[str, ...]:
    """The finding's text cut at each hole."""
    parts = tuple(_text(finding).split(_HOLE))
    if len(parts) < 2:
        raise ValueError("a finding's text without its hole")
    return parts


def _evidence_cut(finding: Finding) -> tuple[str, str]:
    """The finding's text before and after its evidence (``actual``, the hole quoted)."""
    head, tail = _text(finding).split(json_string(_HOLE))
    return head, tail


def _equal(name: str, expected: Any, kind: int = _EQUAL, bound_text: Any = None) -> tuple[Any, ...]:
    code, assertion, pointer, hint = CHECKS[name]
    shown = expected if bound_text is None else bound_text
    failed = Finding(code, assertion, pointer, "failed", shown, _HOLE, hint)
    absent = Finding(code, assertion, pointer, "not_observed", shown, None)
    return (kind, _WHERE[name], expected, *_evidence_cut(failed), _text(absent))


def _members(name: str, required: tuple[str, ...]) -> tuple[Any, ...]:
    code, assertion, pointer, hint = CHECKS[name]
    failed = tuple(
        _text(Finding(code, assertion, pointer, "failed", item, None, hint)) for item in required
    )
    absent = tuple(
        _text(Finding(code, assertion, pointer, "not_observed", item, None)) for item in required
    )
    return (_MEMBERS, _WHERE[name], required, failed, absent)


def _markers(required: tuple[str, ...]) -> tuple[Any, ...]:
    code, assertion, pointer, _ = CHECKS["orderedMarkers"]
    absent = Finding(code, assertion, pointer, "not_observed", list(required), None)
    per_marker = []
    for marker in required:
        out_of_order, missing = marker_hints(required, marker)
        index_hole = f"{pointer}/{_HOLE}"
        late = Finding(code, assertion, index_hole, "failed", list(required), _HOLE, out_of_order)
        head, rest = _cut(late)[0], _HOLE.join(_cut(late)[1:])
        middle, tail = rest.split(json_string(_HOLE))
        never = Finding(
            MARKER_MISSING, assertion, pointer, "failed", list(required), _HOLE, missing
        )
        per_marker.append((head, middle, tail, *_evidence_cut(never)))
    return (_MARKERS, required, _text(absent), tuple(per_marker))


def _forbidden(forbidden: tuple[str, ...]) -> tuple[Any, ...]:
    code, assertion, pointer, hint = CHECKS["forbiddenPrpEventTypes"]
    pieces = []
    for event_type in forbidden:
        seen = Finding(
            code, assertion, f"{pointer}/{_HOLE}", "failed", f"not {event_type}", event_type, hint
        )
        head, tail = _cut(seen)
        pieces.append((head, tail))
    return (_FORBIDDEN, forbidden, tuple(pieces))


def record_checks(plan: tuple[Any, ...]) -> tuple[tuple[Any, ...], ...]:
    """The audit of a case as the C code runs it for records, made from its case plan
    (:func:`scorecard.fast.case_plan`: no validated case needed): one entry per check that
    :func:`~scorecard.core.audit_observation` makes for the case, in its order."""
    (
        _,
        _,
        _,
        _,
        issue_status,
        run_status,
        semantic_disposition,
        max_attempts,
        max_runs,
        recovery_owner,
        comment_count,
        response_source,
        ordered_markers,
        required_events,
        forbidden_events,
        activity_families,
        artifact_digests,
        operation_ids,
        digest_verified,
        ordered,
        providers,
    ) = plan
    checks: list[tuple[Any, ...]] = []
    for name, expected in (
        ("issueStatus", issue_status),
        ("runStatus", run_status),
        ("semanticDisposition", semantic_disposition),
    ):
        if expected is not None:
            checks.append(_equal(name, expected))
    if max_attempts is not None:
        code, assertion, pointer, hint = CHECKS["maxAttempts"]
        bound = f"<= {max_attempts}"
        counted = _evidence_cut(Finding(code, assertion, pointer, "failed", bound, _HOLE, hint))
        metered = _evidence_cut(
            Finding(code, assertion, METRICS_ATTEMPTS, "failed", bound, _HOLE, hint)
        )
        checks.append((_ATTEMPTS, max_attempts, counted[0], metered[0], counted[1]))
    if max_runs is not None:
        checks.append(_equal("maxRuns", max_runs, _AT_MOST, f"<= {max_runs}"))
    for name, expected in (
        ("recoveryOwner", recovery_owner),
        ("commentCount", comment_count),
        ("responseSource", response_source),
    ):
        if expected is not None:
            checks.append(_equal(name, expected))
    if ordered_markers:
        checks.append(_markers(ordered_markers))
    if required_events:
        checks.append(_members("requiredPrpEventTypes", required_events))
    if forbidden_events:
        checks.append(_forbidden(forbidden_events))
    for name, required in (
        ("requiredActivityFamilies", activity_families),
        ("artifactDigests", artifact_digests),
        ("requiredOperationIds", operation_ids),
    ):
        if required:
            checks.append(_members(name, required))
    for name, expected in (("trace/digestVerified", digest_verified), ("trace/ordered", ordered)):
        if expected is not None:
            checks.append(_equal(name, expected))
    code, assertion, pointer, hint = CHECKS["providers"]
    other = Finding(code, assertion, pointer, "failed", list(providers), _HOLE, hint)
    checks.append((_PROVIDER, providers, *_evidence_cut(other)))
    return tuple(checks)


def record_heads(bundle_id: str, case_ids: list[str]) -> dict[str, str]:
    """Each case's record start for one bundle: ``{"schema":...,"candidateId":``."""
    bundle = json_string(bundle_id)
    return {
        case_id: f'{{"schema":{json_string(RECORD_SCHEMA)},"bundleId":{bundle},'
        f'"caseId":{json_string(case_id)},"candidateId":'
        for case_id in case_ids
    }


def roster_labels(labels: dict[str, tuple[str | None, str | None]]) -> dict[str, str]:
    """Each rostered candidate's ``"model":...,"tier":...,`` (a candidate not in the roster has
    ``null`` for both)."""
    return {
        candidate: f'"model":{_optional(model)},"tier":{_optional(tier)},'
        for candidate, (model, tier) in labels.items()
    }


def _optional(text: str | None) -> str:
    return "null" if text is None else json_string(text)


def source_head(source: str, array: bool) -> str:
    """A record's ``"source":{"file":...,"line":`` (JSON Lines: the line follows) or
    ``..."line":null,"index":`` (a ``.json`` array: the index follows); ``source`` is the name
    as outputs write it."""
    head = f'"source":{{"file":{json_string(source)},"line":'
    return head + 'null,"index":' if array else head
