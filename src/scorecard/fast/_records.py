"""What the C scorer needs to write a whole ``scorecard.record.v1`` line (``--format records``).

A record is the scorecard line plus the observation's facts and its audit (``docs/records.md``).
The C code writes it from texts made here, once per case or bundle, by the Python definitions
themselves: each audit finding that does not pass is :meth:`~scorecard.core.Finding.to_json`
written by :func:`~scorecard.contract.js_json`, with holes where the evidence and an index go
(:data:`_EVIDENCE`, :data:`_INDEX`), cut at the holes; the C code writes the evidence there
(redacted and quoted by ``reason_json``, as ``to_json`` redacts it) and the index. So codes, pointers, hints and expected
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

# Characters no finding's constant text holds, which JSON.stringify writes as they are: where
# the evidence goes (``actual``, which ``to_json`` writes quoted) and where an index goes (in a
# pointer).
_EVIDENCE = "\ue000"
_INDEX = "\ue001"

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


def _pieces(finding: Finding, holes: int) -> tuple[str, ...]:
    """The finding's text cut at its ``holes`` holes (evidence, index), in order."""
    pieces = tuple(_text(finding).replace(json_string(_EVIDENCE), _INDEX).split(_INDEX))
    if len(pieces) != holes + 1:
        raise ValueError("a finding's text with its holes elsewhere")
    return pieces


def _equal(name: str, expected: Any, kind: int = _EQUAL, bound_text: Any = None) -> tuple[Any, ...]:
    code, assertion, pointer, hint = CHECKS[name]
    shown = expected if bound_text is None else bound_text
    failed = Finding(code, assertion, pointer, "failed", shown, _EVIDENCE, hint)
    absent = Finding(code, assertion, pointer, "not_observed", shown, None)
    return (kind, _WHERE[name], expected, *_pieces(failed, 1), _text(absent))


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
        late = Finding(
            code,
            assertion,
            f"{pointer}/{_INDEX}",
            "failed",
            list(required),
            _EVIDENCE,
            out_of_order,
        )
        never = Finding(
            MARKER_MISSING, assertion, pointer, "failed", list(required), _EVIDENCE, missing
        )
        per_marker.append((*_pieces(late, 2), *_pieces(never, 1)))
    return (_MARKERS, required, _text(absent), tuple(per_marker))


def _forbidden(forbidden: tuple[str, ...]) -> tuple[Any, ...]:
    code, assertion, pointer, hint = CHECKS["forbiddenPrpEventTypes"]
    pieces = tuple(
        _pieces(
            Finding(
                code,
                assertion,
                f"{pointer}/{_INDEX}",
                "failed",
                f"not {event_type}",
                event_type,
                hint,
            ),
            1,
        )
        for event_type in forbidden
    )
    return (_FORBIDDEN, forbidden, pieces)


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
        counted = _pieces(Finding(code, assertion, pointer, "failed", bound, _EVIDENCE, hint), 1)
        metered = _pieces(
            Finding(code, assertion, METRICS_ATTEMPTS, "failed", bound, _EVIDENCE, hint), 1
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
    other = Finding(code, assertion, pointer, "failed", list(providers), _EVIDENCE, hint)
    checks.append((_PROVIDER, providers, *_pieces(other, 1)))
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
