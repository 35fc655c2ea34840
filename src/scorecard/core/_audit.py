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

__all__ = ["AuditSummary", "Finding", "audit_observation", "summarize_findings"]

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


def _equal(
    code: str, assertion: str, pointer: str, expected: Any, actual: Any, hint: str
) -> Finding:
    if actual is None:
        status: Status = "not_observed"
    else:
        status = "passed" if actual == expected else "failed"
    return Finding(
        code, assertion, pointer, status, expected, actual, hint if status == "failed" else ""
    )


def _at_most(
    code: str, assertion: str, pointer: str, bound: int, actual: int | None, hint: str
) -> Finding:
    if actual is None:
        status: Status = "not_observed"
    else:
        status = "passed" if actual <= bound else "failed"
    return Finding(
        code, assertion, pointer, status, f"<= {bound}", actual, hint if status == "failed" else ""
    )


def _members(
    code: str,
    assertion: str,
    pointer: str,
    required: Sequence[str],
    observed: Sequence[str] | None,
    hint: str,
) -> list[Finding]:
    """One finding per required item: present in ``observed`` or not."""
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
    assertion = "/assertions/orderedMarkers"
    pointer = "/presentation/markers"
    if shown is None:
        return [
            Finding(
                "ordered_markers_out_of_order",
                assertion,
                pointer,
                "not_observed",
                list(required),
                None,
            )
        ]
    position = 0
    for marker in required:
        later = [index for index in range(position, len(shown)) if shown[index] == marker]
        if later:
            position = later[0] + 1
            continue
        if marker in shown:
            index = list(shown).index(marker)
            before = required[required.index(marker) - 1] if required.index(marker) else None
            return [
                Finding(
                    "ordered_markers_out_of_order",
                    assertion,
                    f"{pointer}/{index}",
                    "failed",
                    list(required),
                    list(shown),
                    f"marker {marker!r} appears before {before!r}; the presentation must show "
                    "them in the case's order",
                )
            ]
        return [
            Finding(
                "ordered_marker_missing",
                assertion,
                pointer,
                "failed",
                list(required),
                list(shown),
                f"marker {marker!r} was never shown",
            )
        ]
    return [
        Finding(
            "ordered_markers_out_of_order",
            assertion,
            pointer,
            "passed",
            list(required),
            list(shown),
        )
    ]


def _forbidden_events(forbidden: Sequence[str], observed: Sequence[str]) -> list[Finding]:
    assertion = "/assertions/forbiddenPrpEventTypes"
    findings: list[Finding] = []
    for event_type in forbidden:
        positions = [index for index, seen in enumerate(observed) if seen == event_type]
        if positions:
            findings.extend(
                Finding(
                    "forbidden_prp_event_observed",
                    assertion,
                    f"/observedPrpEventTypes/{index}",
                    "failed",
                    f"not {event_type}",
                    event_type,
                    "the runner emitted an event type this case forbids",
                )
                for index in positions
            )
        else:
            findings.append(
                Finding(
                    "forbidden_prp_event_observed",
                    assertion,
                    "/observedPrpEventTypes",
                    "passed",
                    f"not {event_type}",
                    None,
                )
            )
    return findings


def _status_findings(assertions: CaseAssertions, observation: ObservationDict) -> list[Finding]:
    lifecycle = observation["lifecycle"]
    presentation = observation["presentation"]
    findings: list[Finding] = []
    if assertions.issue_status is not None:
        findings.append(
            _equal(
                "issue_status_mismatch",
                "/assertions/issueStatus",
                "/lifecycle/issueStatus",
                assertions.issue_status,
                lifecycle.get("issueStatus"),
                "the issue did not end in the state the case requires",
            )
        )
    if assertions.run_status is not None:
        findings.append(
            _equal(
                "run_status_mismatch",
                "/assertions/runStatus",
                "/lifecycle/runStatus",
                assertions.run_status,
                lifecycle.get("runStatus"),
                "the run did not settle as the case requires",
            )
        )
    if assertions.semantic_disposition is not None:
        findings.append(
            _equal(
                "semantic_disposition_mismatch",
                "/assertions/semanticDisposition",
                "/lifecycle/semanticDisposition",
                assertions.semantic_disposition,
                lifecycle.get("semanticDisposition"),
                "the runner settled on a different semantic disposition",
            )
        )
    if assertions.max_attempts is not None:
        lifecycle_attempts = lifecycle.get("attempts")
        attempts_pointer = (
            "/lifecycle/attempts" if lifecycle_attempts is not None else "/metrics/attempts"
        )
        attempts = (
            lifecycle_attempts
            if lifecycle_attempts is not None
            else observation["metrics"]["attempts"]
        )
        findings.append(
            _at_most(
                "attempts_exceeded",
                "/assertions/maxAttempts",
                attempts_pointer,
                assertions.max_attempts,
                attempts,
                "recovery retried more often than the case allows",
            )
        )
    if assertions.max_runs is not None:
        findings.append(
            _at_most(
                "runs_exceeded",
                "/assertions/maxRuns",
                "/lifecycle/runs",
                assertions.max_runs,
                lifecycle.get("runs"),
                "the case took more runs than allowed; look for duplicate wakes",
            )
        )
    if assertions.recovery_owner is not None:
        findings.append(
            _equal(
                "recovery_owner_mismatch",
                "/assertions/recoveryOwner",
                "/lifecycle/recoveryOwner",
                assertions.recovery_owner,
                lifecycle.get("recoveryOwner"),
                "recovery was owned by someone the case does not expect",
            )
        )
    if assertions.comment_count is not None:
        findings.append(
            _equal(
                "comment_count_mismatch",
                "/assertions/commentCount",
                "/presentation/commentCount",
                assertions.comment_count,
                presentation.get("commentCount"),
                "the agent posted a different number of comments",
            )
        )
    if assertions.response_source is not None:
        findings.append(
            _equal(
                "response_source_mismatch",
                "/assertions/responseSource",
                "/presentation/responseSource",
                assertions.response_source,
                presentation.get("responseSource"),
                "the final response came from the wrong source",
            )
        )
    return findings


def _trace_findings(case: WorkflowCase, observation: ObservationDict) -> list[Finding]:
    trace = case.assertions.trace
    lineage = observation["traceLineage"]
    findings: list[Finding] = []
    if trace is not None and trace.digest_verified is not None:
        findings.append(
            _equal(
                "trace_digest_unverified",
                "/assertions/trace/digestVerified",
                "/traceLineage/digestVerified",
                trace.digest_verified,
                lineage["digestVerified"],
                "provider trace frame digests or byte lengths did not verify",
            )
        )
    if trace is not None and trace.ordered is not None:
        findings.append(
            _equal(
                "trace_frames_unordered",
                "/assertions/trace/ordered",
                "/traceLineage/ordered",
                trace.ordered,
                lineage["ordered"],
                "provider trace frames or debug sequence are not strictly ordered",
            )
        )
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
                "required_prp_event_missing",
                "/assertions/requiredPrpEventTypes",
                "/observedPrpEventTypes",
                assertions.required_prp_event_types,
                observation["observedPrpEventTypes"],
                "the runner never emitted this required PRP event type",
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
                "required_activity_family_missing",
                "/assertions/requiredActivityFamilies",
                "/presentation/activityFamilies",
                assertions.required_activity_families,
                presentation.get("activityFamilies"),
                "the presentation never rendered this activity family",
            )
        )
    if assertions.artifact_digests:
        findings.extend(
            _members(
                "artifact_digest_missing",
                "/assertions/artifactDigests",
                "/artifactDigests",
                assertions.artifact_digests,
                observation["artifactDigests"],
                "the run did not produce this artifact (or it changed)",
            )
        )
    if assertions.required_operation_ids:
        findings.extend(
            _members(
                "required_operation_missing",
                "/assertions/requiredOperationIds",
                "/base/observedCalls",
                assertions.required_operation_ids,
                observation["base"]["observedCalls"],
                "the agent never called this operation",
            )
        )
    findings.extend(_trace_findings(case, observation))
    findings.append(
        Finding(
            "provider_not_in_case",
            "/providers",
            "/provider",
            "passed" if observation["provider"] in case.providers else "failed",
            list(case.providers),
            observation["provider"],
            ""
            if observation["provider"] in case.providers
            else "this case does not run on this provider",
        )
    )
    return findings
