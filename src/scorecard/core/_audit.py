"""PURE case-assertion audit: what the reference scorer never checks (SCORING.md section 4).

For every assertion a case declares, and for the provider's membership in the case's
providers, one or more findings: a stable ``code``, the assertion's path in the case, the
observation field as a JSON Pointer, ``expected``, ``actual`` and a status:

* ``passed``: the evidence satisfies the assertion;
* ``failed``: the evidence contradicts it;
* ``not_observed``: the observation carries no evidence for it, which is not a failure.

The audit is reported beside the scorecard and never changes the eight reference dimensions.
Unscoreable runs (infrastructure failures, skipped) are not audited: their evidence is not the
candidate's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from scorecard.contract import ObservationDict, redact

if TYPE_CHECKING:
    from scorecard.contract import CaseAssertions, WorkflowCase

__all__ = [
    "CHECKS",
    "MARKER_MISSING",
    "METRICS_ATTEMPTS",
    "AuditSummary",
    "Check",
    "Finding",
    "audit_observation",
    "marker_hints",
    "summarize_findings",
]

Status = Literal["passed", "failed", "not_observed"]


class Finding(NamedTuple):
    """One assertion checked against one observation (a tuple: cheap to make by the dozen)."""

    code: str
    """Stable machine-readable name, e.g. ``run_status_mismatch``."""
    assertion: str
    """JSON Pointer of the assertion in the case, e.g. ``/assertions/runStatus``."""
    pointer: str
    """JSON Pointer of the evidence in the observation."""
    status: Status
    expected: Any
    actual: Any
    hint: str = ""
    """What to look at or change, when known."""

    def to_json(self) -> dict[str, Any]:
        """Wire form; observed values are written by the agent, so secrets are redacted."""
        return {
            "code": self.code,
            "status": self.status,
            "assertion": self.assertion,
            "pointer": self.pointer,
            "expected": _redacted(self.expected),
            "actual": _redacted(self.actual),
            "hint": redact(self.hint),
        }


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    return value


@dataclass(frozen=True)
class AuditSummary:
    """Counts of a run's findings."""

    passed: int
    failed: int
    not_observed: int


def summarize_findings(findings: Sequence[Finding]) -> AuditSummary:
    """How many findings passed, failed and were not observed."""
    statuses = [finding.status for finding in findings]
    return AuditSummary(
        statuses.count("passed"), statuses.count("failed"), statuses.count("not_observed")
    )


class Check(NamedTuple):
    """What every finding of one kind of check says besides its evidence (the compiled
    records path writes findings from these too, ``scorecard.fast``)."""

    code: str
    assertion: str
    """JSON Pointer of the assertion in the case."""
    pointer: str
    """JSON Pointer of the evidence in the observation (an item's index is appended)."""
    hint: str
    """The hint of a failed finding."""


#: Every check of the audit, by the name of what it checks (the case's assertion, or
#: ``providers``); each finding's code, pointers and hint come from here.
CHECKS: dict[str, Check] = {
    "issueStatus": Check(
        "issue_status_mismatch",
        "/assertions/issueStatus",
        "/lifecycle/issueStatus",
        "the issue did not end in the state the case requires",
    ),
    "runStatus": Check(
        "run_status_mismatch",
        "/assertions/runStatus",
        "/lifecycle/runStatus",
        "the run did not settle as the case requires",
    ),
    "semanticDisposition": Check(
        "semantic_disposition_mismatch",
        "/assertions/semanticDisposition",
        "/lifecycle/semanticDisposition",
        "the runner settled on a different semantic disposition",
    ),
    "maxAttempts": Check(
        "attempts_exceeded",
        "/assertions/maxAttempts",
        "/lifecycle/attempts",
        "recovery retried more often than the case allows",
    ),
    "maxRuns": Check(
        "runs_exceeded",
        "/assertions/maxRuns",
        "/lifecycle/runs",
        "the case took more runs than allowed; look for duplicate wakes",
    ),
    "recoveryOwner": Check(
        "recovery_owner_mismatch",
        "/assertions/recoveryOwner",
        "/lifecycle/recoveryOwner",
        "recovery was owned by someone the case does not expect",
    ),
    "commentCount": Check(
        "comment_count_mismatch",
        "/assertions/commentCount",
        "/presentation/commentCount",
        "the agent posted a different number of comments",
    ),
    "responseSource": Check(
        "response_source_mismatch",
        "/assertions/responseSource",
        "/presentation/responseSource",
        "the final response came from the wrong source",
    ),
    "orderedMarkers": Check(
        "ordered_markers_out_of_order", "/assertions/orderedMarkers", "/presentation/markers", ""
    ),
    "requiredPrpEventTypes": Check(
        "required_prp_event_missing",
        "/assertions/requiredPrpEventTypes",
        "/observedPrpEventTypes",
        "the runner never emitted this required PRP event type",
    ),
    "forbiddenPrpEventTypes": Check(
        "forbidden_prp_event_observed",
        "/assertions/forbiddenPrpEventTypes",
        "/observedPrpEventTypes",
        "the runner emitted an event type this case forbids",
    ),
    "requiredActivityFamilies": Check(
        "required_activity_family_missing",
        "/assertions/requiredActivityFamilies",
        "/presentation/activityFamilies",
        "the presentation never rendered this activity family",
    ),
    "artifactDigests": Check(
        "artifact_digest_missing",
        "/assertions/artifactDigests",
        "/artifactDigests",
        "the run did not produce this artifact (or it changed)",
    ),
    "requiredOperationIds": Check(
        "required_operation_missing",
        "/assertions/requiredOperationIds",
        "/base/observedCalls",
        "the agent never called this operation",
    ),
    "trace/digestVerified": Check(
        "trace_digest_unverified",
        "/assertions/trace/digestVerified",
        "/traceLineage/digestVerified",
        "provider trace frame digests or byte lengths did not verify",
    ),
    "trace/ordered": Check(
        "trace_frames_unordered",
        "/assertions/trace/ordered",
        "/traceLineage/ordered",
        "provider trace frames or debug sequence are not strictly ordered",
    ),
    "providers": Check(
        "provider_not_in_case", "/providers", "/provider", "this case does not run on this provider"
    ),
}

#: Where ``maxAttempts`` finds the attempts when the lifecycle does not count them.
METRICS_ATTEMPTS = "/metrics/attempts"
#: The code of a required marker never shown (``orderedMarkers``).
MARKER_MISSING = "ordered_marker_missing"


def marker_hints(required: Sequence[str], marker: str) -> tuple[str, str]:
    """The hints of ``marker`` (one of ``required``) shown out of order and never shown."""
    before = required[required.index(marker) - 1] if required.index(marker) else None
    return (
        f"marker {marker!r} appears before {before!r}; the presentation must show them in the "
        "case's order",
        f"marker {marker!r} was never shown",
    )


def _equal(check: Check, expected: Any, actual: Any, pointer: str | None = None) -> Finding:
    if actual is None:
        status: Status = "not_observed"
    else:
        status = "passed" if actual == expected else "failed"
    hint = check.hint if status == "failed" else ""
    return Finding(
        check.code, check.assertion, pointer or check.pointer, status, expected, actual, hint
    )


def _at_most(check: Check, bound: int, actual: int | None, pointer: str | None = None) -> Finding:
    if actual is None:
        status: Status = "not_observed"
    else:
        status = "passed" if actual <= bound else "failed"
    hint = check.hint if status == "failed" else ""
    return Finding(
        check.code, check.assertion, pointer or check.pointer, status, f"<= {bound}", actual, hint
    )


def _members(
    check: Check, required: Sequence[str], observed: Sequence[str] | None
) -> list[Finding]:
    """One finding per required item: present in ``observed`` or not."""
    code, assertion, pointer, hint = check
    findings = []
    for item in required:
        if observed is None:
            findings.append(Finding(code, assertion, pointer, "not_observed", item, None))
        elif item in observed:
            where = f"{pointer}/{observed.index(item)}"
            findings.append(Finding(code, assertion, where, "passed", item, item))
        else:
            findings.append(Finding(code, assertion, pointer, "failed", item, None, hint))
    return findings


def _ordered_markers(required: Sequence[str], shown: Sequence[str] | None) -> list[Finding]:
    """The required markers must appear in ``shown`` as an ordered subsequence."""
    code, assertion, pointer, _ = CHECKS["orderedMarkers"]
    if shown is None:
        return [Finding(code, assertion, pointer, "not_observed", list(required), None)]
    position = 0
    for marker in required:
        later = [index for index in range(position, len(shown)) if shown[index] == marker]
        if later:
            position = later[0] + 1
            continue
        out_of_order, missing = marker_hints(required, marker)
        if marker in shown:
            index = list(shown).index(marker)
            return [
                Finding(
                    code,
                    assertion,
                    f"{pointer}/{index}",
                    "failed",
                    list(required),
                    list(shown),
                    out_of_order,
                )
            ]
        return [
            Finding(
                MARKER_MISSING, assertion, pointer, "failed", list(required), list(shown), missing
            )
        ]
    return [Finding(code, assertion, pointer, "passed", list(required), list(shown))]


def _forbidden_events(forbidden: Sequence[str], observed: Sequence[str]) -> list[Finding]:
    code, assertion, pointer, hint = CHECKS["forbiddenPrpEventTypes"]
    findings: list[Finding] = []
    for event_type in forbidden:
        positions = [index for index, seen in enumerate(observed) if seen == event_type]
        if positions:
            findings.extend(
                Finding(
                    code,
                    assertion,
                    f"{pointer}/{index}",
                    "failed",
                    f"not {event_type}",
                    event_type,
                    hint,
                )
                for index in positions
            )
        else:
            findings.append(Finding(code, assertion, pointer, "passed", f"not {event_type}", None))
    return findings


def _status_findings(assertions: CaseAssertions, observation: ObservationDict) -> list[Finding]:
    lifecycle = observation["lifecycle"]
    presentation = observation["presentation"]
    findings: list[Finding] = []
    if assertions.issue_status is not None:
        findings.append(
            _equal(CHECKS["issueStatus"], assertions.issue_status, lifecycle.get("issueStatus"))
        )
    if assertions.run_status is not None:
        findings.append(
            _equal(CHECKS["runStatus"], assertions.run_status, lifecycle.get("runStatus"))
        )
    if assertions.semantic_disposition is not None:
        findings.append(
            _equal(
                CHECKS["semanticDisposition"],
                assertions.semantic_disposition,
                lifecycle.get("semanticDisposition"),
            )
        )
    if assertions.max_attempts is not None:
        counted = lifecycle.get("attempts")
        findings.append(
            _at_most(CHECKS["maxAttempts"], assertions.max_attempts, counted)
            if counted is not None
            else _at_most(
                CHECKS["maxAttempts"],
                assertions.max_attempts,
                observation["metrics"]["attempts"],
                METRICS_ATTEMPTS,
            )
        )
    if assertions.max_runs is not None:
        findings.append(_at_most(CHECKS["maxRuns"], assertions.max_runs, lifecycle.get("runs")))
    if assertions.recovery_owner is not None:
        findings.append(
            _equal(
                CHECKS["recoveryOwner"], assertions.recovery_owner, lifecycle.get("recoveryOwner")
            )
        )
    if assertions.comment_count is not None:
        findings.append(
            _equal(
                CHECKS["commentCount"], assertions.comment_count, presentation.get("commentCount")
            )
        )
    if assertions.response_source is not None:
        findings.append(
            _equal(
                CHECKS["responseSource"],
                assertions.response_source,
                presentation.get("responseSource"),
            )
        )
    return findings


def _trace_findings(case: WorkflowCase, observation: ObservationDict) -> list[Finding]:
    trace = case.assertions.trace
    lineage = observation["traceLineage"]
    findings: list[Finding] = []
    if trace is not None and trace.digest_verified is not None:
        findings.append(
            _equal(CHECKS["trace/digestVerified"], trace.digest_verified, lineage["digestVerified"])
        )
    if trace is not None and trace.ordered is not None:
        findings.append(_equal(CHECKS["trace/ordered"], trace.ordered, lineage["ordered"]))
    return findings


def audit_observation(case: WorkflowCase, observation: ObservationDict) -> list[Finding]:
    """Every assertion of ``case`` checked against ``observation``, in assertion order."""
    if observation["classification"] in ("infrastructure_failure", "skipped"):
        return []
    assertions = case.assertions
    presentation = observation["presentation"]
    findings = _status_findings(assertions, observation)
    if assertions.ordered_markers:
        findings.extend(_ordered_markers(assertions.ordered_markers, presentation.get("markers")))
    if assertions.required_prp_event_types:
        findings.extend(
            _members(
                CHECKS["requiredPrpEventTypes"],
                assertions.required_prp_event_types,
                observation["observedPrpEventTypes"],
            )
        )
    if assertions.forbidden_prp_event_types:
        findings.extend(
            _forbidden_events(
                assertions.forbidden_prp_event_types, observation["observedPrpEventTypes"]
            )
        )
    if assertions.required_activity_families:
        findings.extend(
            _members(
                CHECKS["requiredActivityFamilies"],
                assertions.required_activity_families,
                presentation.get("activityFamilies"),
            )
        )
    if assertions.artifact_digests:
        findings.extend(
            _members(
                CHECKS["artifactDigests"],
                assertions.artifact_digests,
                observation["artifactDigests"],
            )
        )
    if assertions.required_operation_ids:
        findings.extend(
            _members(
                CHECKS["requiredOperationIds"],
                assertions.required_operation_ids,
                observation["base"]["observedCalls"],
            )
        )
    findings.extend(_trace_findings(case, observation))
    code, assertion, pointer, hint = CHECKS["providers"]
    allowed = observation["provider"] in case.providers
    findings.append(
        Finding(
            code,
            assertion,
            pointer,
            "passed" if allowed else "failed",
            list(case.providers),
            observation["provider"],
            "" if allowed else hint,
        )
    )
    return findings
