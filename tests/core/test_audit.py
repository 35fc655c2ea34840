"""Case-assertion audit: every declared assertion checked, located, three-valued."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scorecard.contract._catalog import Catalog
from scorecard.contract._models import CASE_IDS, WorkflowCase
from scorecard.core._audit import audit_observation, summarize_findings
from scorecard.core._validation import accept_observation


def conforming(case: WorkflowCase, template: dict[str, Any]) -> dict[str, Any]:
    """An observation of ``case`` whose evidence satisfies every assertion."""
    a = case.assertions
    observation = copy.deepcopy(template)
    observation["caseId"] = case.id
    observation["provider"] = case.providers[0]
    lifecycle = observation["lifecycle"]
    for key, value in (
        ("issueStatus", a.issue_status),
        ("runStatus", a.run_status),
        ("semanticDisposition", a.semantic_disposition),
        ("recoveryOwner", a.recovery_owner),
        ("attempts", a.max_attempts),
        ("runs", a.max_runs),
    ):
        if value is not None:
            lifecycle[key] = value
    presentation = observation["presentation"]
    if a.comment_count is not None:
        presentation["commentCount"] = a.comment_count
    if a.response_source is not None:
        presentation["responseSource"] = a.response_source
    presentation["markers"] = ["noise", *(a.ordered_markers or []), "tail"]
    presentation["activityFamilies"] = list(a.required_activity_families or [])
    observation["observedPrpEventTypes"] = ["other.event", *(a.required_prp_event_types or [])]
    observation["artifactDigests"] = list(a.artifact_digests or [])
    calls = list(a.required_operation_ids or [])
    observation["base"]["observedCalls"] = calls
    observation["base"]["expectedCalls"] = calls
    observation["base"]["trace"]["receiptIds"] = [f"r-{i}" for i in range(len(calls))]
    observation["traceLineage"]["digestVerified"] = True
    observation["traceLineage"]["ordered"] = True
    return observation


def violating(case: WorkflowCase, template: dict[str, Any]) -> dict[str, Any]:
    """An observation of ``case`` that contradicts every assertion the case declares."""
    a = case.assertions
    observation = conforming(case, template)
    lifecycle = observation["lifecycle"]
    lifecycle.update(issueStatus="blocked", runStatus="failed", semanticDisposition="abandoned")
    lifecycle.update(recoveryOwner="nobody")
    lifecycle["attempts"] = (a.max_attempts or 0) + 1
    lifecycle["runs"] = (a.max_runs or 0) + 1
    presentation = observation["presentation"]
    presentation["commentCount"] = (a.comment_count or 0) + 1
    presentation["responseSource"] = "placeholder"
    presentation["markers"] = list(reversed(a.ordered_markers or []))
    presentation["activityFamilies"] = []
    observation["observedPrpEventTypes"] = list(a.forbidden_prp_event_types or [])
    observation["artifactDigests"] = []
    observation["base"]["observedCalls"] = []
    observation["base"]["trace"]["receiptIds"] = []
    observation["traceLineage"]["digestVerified"] = False
    observation["traceLineage"]["ordered"] = False
    observation["provider"] = "claude-desktop"
    return observation


def expected_failures(case: WorkflowCase) -> list[tuple[str, str]]:
    """(code, pointer) of every failure the violating observation must produce, in order."""
    a = case.assertions
    expected: list[tuple[str, str]] = []
    scalar = [
        (a.issue_status, "issue_status_mismatch", "/lifecycle/issueStatus"),
        (a.run_status, "run_status_mismatch", "/lifecycle/runStatus"),
        (a.semantic_disposition, "semantic_disposition_mismatch", "/lifecycle/semanticDisposition"),
        (a.max_attempts, "attempts_exceeded", "/lifecycle/attempts"),
        (a.max_runs, "runs_exceeded", "/lifecycle/runs"),
        (a.recovery_owner, "recovery_owner_mismatch", "/lifecycle/recoveryOwner"),
        (a.comment_count, "comment_count_mismatch", "/presentation/commentCount"),
        (a.response_source, "response_source_mismatch", "/presentation/responseSource"),
    ]
    expected += [(code, pointer) for value, code, pointer in scalar if value is not None]
    if a.ordered_markers:
        # Reversed, the second marker is found first, before the first one: it breaks the order.
        expected.append(
            ("ordered_markers_out_of_order", f"/presentation/markers/{len(a.ordered_markers) - 2}")
        )
    expected += [
        ("required_prp_event_missing", "/observedPrpEventTypes")
        for _ in a.required_prp_event_types or []
    ]
    expected += [
        ("forbidden_prp_event_observed", f"/observedPrpEventTypes/{index}")
        for index, _ in enumerate(a.forbidden_prp_event_types or [])
    ]
    expected += [
        ("required_activity_family_missing", "/presentation/activityFamilies")
        for _ in a.required_activity_families or []
    ]
    expected += [("artifact_digest_missing", "/artifactDigests") for _ in a.artifact_digests or []]
    expected += [
        ("required_operation_missing", "/base/observedCalls")
        for _ in a.required_operation_ids or []
    ]
    if a.trace is not None and a.trace.digest_verified is not None:
        expected.append(("trace_digest_unverified", "/traceLineage/digestVerified"))
    if a.trace is not None and a.trace.ordered is not None:
        expected.append(("trace_frames_unordered", "/traceLineage/ordered"))
    expected.append(("provider_not_in_case", "/provider"))
    return expected


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_a_conforming_run_passes_every_assertion(
    case_id: str, catalog: Catalog, observation: dict[str, Any]
) -> None:
    """Evidence that satisfies the case yields only passed findings."""
    case = catalog[case_id]
    findings = audit_observation(case, accept_observation(conforming(case, observation))[0])
    assert [f.code for f in findings if f.status != "passed"] == []
    assert len(findings) >= len(expected_failures(case))


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_a_violating_run_fails_exactly_the_declared_assertions(
    case_id: str, catalog: Catalog, observation: dict[str, Any]
) -> None:
    """Breaking every assertion yields exactly one located failure per assertion item."""
    case = catalog[case_id]
    findings = audit_observation(case, accept_observation(violating(case, observation))[0])
    failed = [(f.code, f.pointer) for f in findings if f.status == "failed"]
    assert failed == expected_failures(case)
    assert all(f.hint for f in findings if f.status == "failed")


def test_missing_evidence_is_not_observed_rather_than_failed(
    catalog: Catalog, observation: dict[str, Any]
) -> None:
    """Without the optional evidence fields the audit says not_observed, never failed."""
    case = catalog["final-response"]
    document = conforming(case, observation)
    for key in ("issueStatus", "runStatus", "semanticDisposition", "runs"):
        document["lifecycle"].pop(key, None)
    for key in ("commentCount", "responseSource", "markers"):
        document["presentation"].pop(key, None)
    findings = audit_observation(case, accept_observation(document)[0])
    not_observed = {f.code for f in findings if f.status == "not_observed"}
    assert not_observed == {
        "issue_status_mismatch",
        "run_status_mismatch",
        "semantic_disposition_mismatch",
        "runs_exceeded",
        "comment_count_mismatch",
        "response_source_mismatch",
        "ordered_markers_out_of_order",
    }
    assert summarize_findings(findings).failed == 0


@pytest.mark.parametrize(
    ("shown", "code", "pointer", "hint_part"),
    [
        (["question", "answer", "continuation", "final"], None, None, None),
        (["question", "x", "answer", "continuation", "y", "final"], None, None, None),
        (
            ["answer", "question", "continuation", "final"],
            "ordered_markers_out_of_order",
            "/presentation/markers/0",
            "'answer' appears before 'question'",
        ),
        (
            ["question", "answer", "final", "continuation"],
            "ordered_markers_out_of_order",
            "/presentation/markers/2",
            "'final' appears before 'continuation'",
        ),
        (
            ["question", "answer", "final"],
            "ordered_marker_missing",
            "/presentation/markers",
            "'continuation' was never shown",
        ),
    ],
)
def test_marker_order_is_an_ordered_subsequence_and_names_the_breaking_marker(
    catalog: Catalog,
    observation: dict[str, Any],
    shown: list[str],
    code: str | None,
    pointer: str | None,
    hint_part: str | None,
) -> None:
    """Markers must appear in order (others may interleave); the breaking marker is named."""
    case = catalog["governed-interaction"]
    document = conforming(case, observation)
    document["presentation"]["markers"] = shown
    findings = audit_observation(case, accept_observation(document)[0])
    marker = [f for f in findings if f.assertion == "/assertions/orderedMarkers"]
    assert len(marker) == 1
    if code is None:
        assert marker[0].status == "passed"
    else:
        assert (marker[0].code, marker[0].pointer, marker[0].status) == (code, pointer, "failed")
        assert hint_part is not None
        assert hint_part in marker[0].hint


def test_unscoreable_runs_are_not_audited(catalog: Catalog, observation: dict[str, Any]) -> None:
    """An infrastructure failure's evidence is not the candidate's: no findings."""
    document = violating(catalog["final-response"], observation)
    document["classification"] = "infrastructure_failure"
    document["failure"] = {
        "code": "x",
        "category": "provider",
        "retryable": True,
        "message": "down",
    }
    assert audit_observation(catalog["final-response"], accept_observation(document)[0]) == []


def test_observed_secrets_are_redacted_in_findings(
    catalog: Catalog, observation: dict[str, Any]
) -> None:
    """A secret written into an audited field never reaches the finding's JSON."""
    case = catalog["final-response"]
    document = conforming(case, observation)
    document["lifecycle"]["issueStatus"] = "sk-ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    findings = audit_observation(case, accept_observation(document)[0])
    issue = next(f for f in findings if f.code == "issue_status_mismatch")
    assert issue.to_json()["actual"] == "[redacted]"
