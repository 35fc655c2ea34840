"""Statuses and the lifecycle, continuation and presentation checks, derived from the evidence.

Each check's failure reason is computed from the evidence the run recorded (statuses, usage,
calls, PRP events, what the user was shown), so the checks, the scorer's dimensions and the
case-assertion audit always agree. A failing check cites one random evidence id.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from scorecard.contract import format_js_number

from .cases import (
    PROGRESS_BOUND_MS,
    JsonObject,
    Setting,
    attempt_bound,
    continuation_check_ids,
    expected_comment_count,
    lifecycle_check_ids,
)
from .evidence import Usage
from .plans import RunPlan
from .randomness import random_hex

DEFAULT_MARKERS = ("commentary", "final")
FINAL_MARKERS = frozenset({"final", "parent-final"})


def _check(rng: random.Random, check_id: str, failure: str | None) -> JsonObject:
    """A check that passes when there is no failure reason (failures cite an evidence id)."""
    if failure is None:
        return {"id": check_id, "passed": True}
    return {
        "id": check_id,
        "passed": False,
        "reason": failure,
        "evidenceIds": [f"ev-{random_hex(rng, 8)}"],
    }


def _listed(prefix: str, items: Sequence[str]) -> str | None:
    return f"{prefix}: {', '.join(items)}" if items else None


def run_statuses(
    rng: random.Random, setting: Setting, plan: RunPlan, calls: Sequence[str], usage: Usage
) -> JsonObject:
    """Issue and run outcome as the runner saw them, in contract key order."""
    assertions = setting.case.assertions
    if plan.classification == "skipped":
        return {"issueStatus": "todo", "runStatus": "skipped", "attempts": 0, "runs": 0}
    if plan.classification == "infrastructure_failure":
        return {
            "issueStatus": "todo",
            "runStatus": "failed",
            "attempts": usage.attempts,
            "runs": 1,
            "recoveryOwner": "runner",
        }
    bound = assertions.max_runs
    runs = rng.randint(max(1, bound - 1), bound) if bound is not None else 1
    if bound is not None and "run_overrun" in plan.flaws:
        runs = bound + 1
    issue = assertions.issue_status or "done"
    disposition = assertions.semantic_disposition or ("cancelled" if setting.cancels else "done")
    if "finish_task" in setting.expected_calls and "finish_task" not in calls:
        issue, disposition = "in_progress", "incomplete"
    if setting.cancels and "finish_task" in calls:
        issue = "done"
    statuses: JsonObject = {
        "issueStatus": issue,
        "runStatus": assertions.run_status or "succeeded",
        "attempts": usage.attempts,
        "runs": runs,
        "semanticDisposition": disposition,
        "recoveryOwner": "agent"
        if "wrong_recovery_owner" in plan.flaws
        else assertions.recovery_owner or "none",
    }
    if plan.classification == "candidate_failure":
        statuses.update(
            issueStatus="blocked",
            runStatus="failed",
            semanticDisposition="failed",
            recoveryOwner="human",
        )
    return statuses


def _state_mismatch(setting: Setting, statuses: JsonObject) -> str | None:
    assertions = setting.case.assertions
    wanted = (
        ("issue", "issueStatus", assertions.issue_status),
        ("run", "runStatus", assertions.run_status),
        ("disposition", "semanticDisposition", assertions.semantic_disposition),
    )
    problems = [
        f"{label} {statuses.get(key, 'unknown')}, expected {expected}"
        for label, key, expected in wanted
        if expected is not None and statuses.get(key) != expected
    ]
    return "; ".join(problems) or None


def lifecycle_evidence(
    rng: random.Random,
    setting: Setting,
    statuses: JsonObject,
    usage: Usage,
    event_types: Sequence[str],
    terminal_present: bool,
) -> JsonObject:
    """Lifecycle checks (derived from statuses, usage and PRP events) plus the statuses."""
    assertions, budget = setting.case.assertions, setting.candidate.spec.budget
    required = assertions.required_prp_event_types or []
    forbidden = assertions.forbidden_prp_event_types or []
    runs, max_runs = statuses["runs"], assertions.max_runs
    recovery = statuses.get("recoveryOwner")
    bound = attempt_bound(setting)
    reasons: dict[str, str | None] = {
        "terminal-authority": None if terminal_present else "no terminal event recorded",
        "lifecycle-state": _state_mismatch(setting, statuses),
        "required-prp-events": _listed(
            "missing PRP event(s)", [kind for kind in required if kind not in event_types]
        ),
        "forbidden-prp-events": _listed(
            "forbidden PRP event(s) observed", [kind for kind in forbidden if kind in event_types]
        ),
        "run-bound": f"observed {runs} runs, bound is {max_runs}"
        if max_runs is not None and runs > max_runs
        else None,
        "owned-recovery": f"recovery owned by {recovery}, expected {assertions.recovery_owner}"
        if assertions.recovery_owner is not None and recovery != assertions.recovery_owner
        else None,
        "token-budget": f"run exceeded token budget {format_js_number(budget.max_total_tokens)} tokens"
        if usage.tokens is not None and usage.tokens > budget.max_total_tokens
        else None,
        "attempt-bound": f"observed {usage.attempts} attempts, bound is {bound}"
        if usage.attempts > bound
        else None,
        "cost-budget": f"run exceeded cost budget {format_js_number(budget.max_cost_usd)} USD"
        if usage.cost_usd is not None and usage.cost_usd > budget.max_cost_usd
        else None,
    }
    checks = [
        _check(rng, check_id, reasons[check_id]) for check_id in lifecycle_check_ids(setting.case)
    ]
    return {"checks": checks, **statuses}


def continuation_evidence(
    rng: random.Random, setting: Setting, plan: RunPlan, calls: Sequence[str]
) -> JsonObject:
    """Continuation checks, derived from the calls and the continuation flaws."""
    expected = setting.expected_calls
    repeated = [call for index, call in enumerate(calls) if call in calls[:index]]
    reasons: dict[str, str | None] = {
        "single-owned-wake": "observed 2 owned wakes, bound is 1"
        if "double_wake" in plan.flaws
        else None,
        "required-calls": _listed(
            "required call(s) missing", [call for call in expected if call not in calls]
        ),
        "no-repeated-work": _listed("repeated call(s)", list(dict.fromkeys(repeated))),
        "causal-order": setting.traits.causal_reason if "causal_order" in plan.flaws else None,
        "trajectory-restraint": _listed(
            "unexpected call(s)", [call for call in calls if call not in expected]
        ),
    }
    return {
        "checks": [
            _check(rng, check_id, reasons[check_id]) for check_id in continuation_check_ids(setting)
        ]
    }


def _marker_violation(expected: Sequence[str], shown: Sequence[str]) -> str | None:
    rank = {marker: position for position, marker in enumerate(expected)}
    for earlier, later in itertools.pairwise(shown):
        if rank[earlier] > rank[later]:
            return f"marker order violated: {earlier} before {later}"
    return None


def _progress_violation(progress_ms: int | None) -> str | None:
    if progress_ms is None:
        return "no visible progress recorded"
    if progress_ms > PROGRESS_BOUND_MS:
        return f"first visible progress after {progress_ms} ms, bound is {PROGRESS_BOUND_MS} ms"
    return None


def _shown_markers(rng: random.Random, setting: Setting, plan: RunPlan) -> list[str]:
    if plan.classification == "skipped":
        return []
    markers = list(setting.case.assertions.ordered_markers or DEFAULT_MARKERS)
    if plan.classification == "infrastructure_failure":
        return markers[: rng.randrange(len(markers))]
    if "marker_order" in plan.flaws:
        index = rng.randrange(len(markers) - 1)
        markers[index], markers[index + 1] = markers[index + 1], markers[index]
    return markers


def _shown_families(rng: random.Random, setting: Setting, plan: RunPlan) -> list[str]:
    if plan.classification == "skipped":
        return []
    if plan.classification == "infrastructure_failure":
        return ["commentary"]
    required = list(setting.case.assertions.required_activity_families or [])
    if "missing_family" in plan.flaws:
        required.pop(rng.randrange(len(required)))
    return list(dict.fromkeys(["commentary", *required, "tool_execution"]))


def presentation_evidence(
    rng: random.Random, setting: Setting, plan: RunPlan, usage: Usage
) -> JsonObject:
    """Presentation checks, derived from what the user was shown, plus what was shown."""
    assertions = setting.case.assertions
    wanted_comments = expected_comment_count(setting.case)
    answered = (
        plan.classification in ("completed", "candidate_failure") and plan.breach != "no_result"
    )
    comments = wanted_comments if answered and "no_comment" not in plan.flaws else 0
    wanted_source = assertions.response_source or "final_agent_message"
    source = wanted_source if comments or not wanted_comments else "none"
    if "wrong_source" in plan.flaws and comments:
        source = "resolver_fallback"
    markers = _shown_markers(rng, setting, plan)
    if not comments and markers and markers[-1] in FINAL_MARKERS:
        markers.pop()  # no final answer, so no final marker
    families = _shown_families(rng, setting, plan)
    ids = [
        *(["substantive-response"] if wanted_comments else []),
        *(["comment-count"] if assertions.comment_count is not None else []),
        *(["response-source"] if assertions.response_source is not None else []),
        *(["required-activity-families"] if assertions.required_activity_families else []),
        "ordered-presentation",
        "first-visible-progress",
        "no-stuck-running",
    ]
    reasons: dict[str, str | None] = {
        "substantive-response": None if comments else "final comment missing",
        "comment-count": None
        if comments == wanted_comments
        else f"expected {wanted_comments} comment(s), observed {comments}",
        "response-source": None
        if source == wanted_source
        else f"response source {source}, expected {wanted_source}",
        "required-activity-families": _listed(
            "activity families not rendered",
            [
                family
                for family in assertions.required_activity_families or []
                if family not in families
            ],
        ),
        "ordered-presentation": _marker_violation(
            assertions.ordered_markers or DEFAULT_MARKERS, markers
        ),
        "first-visible-progress": _progress_violation(usage.first_progress_ms),
        "no-stuck-running": "run still shown as running after settlement"
        if "stuck_running" in plan.flaws
        else None,
    }
    return {
        "checks": [_check(rng, check_id, reasons[check_id]) for check_id in ids],
        "commentCount": comments,
        "responseSource": source,
        "markers": markers,
        "activityFamilies": families,
    }
