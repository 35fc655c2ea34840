"""Per-case expectations: how hard and heavy each case is, and which checks it is judged by.

Also the :class:`Setting` of one run (bundle, candidate, case, repetition), which every later
draw reads from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorecard.contract import WorkflowCase

from .roster import SimulatedCandidate, Skills

JsonObject = dict[str, Any]

#: Bound on the time to the first visible progress (the ``first-visible-progress`` check).
PROGRESS_BOUND_MS = 30000


@dataclass(frozen=True)
class CaseTraits:
    """How hard and heavy a case is, plus the case-specific evidence vocabulary."""

    difficulty: float
    """Multiplies every flaw and failure chance."""
    effort: float
    """Multiplies latency and tokens."""
    forbidden_calls: tuple[str, ...]
    """Calls a run of this case must never make."""
    causal_reason: str | None
    """Reason of the failing ``causal-order`` check; None when the case has no such check."""


CASE_TRAITS: dict[str, CaseTraits] = {
    "final-response": CaseTraits(0.6, 0.7, ("request_review", "checkout_task"), None),
    "rich-activity": CaseTraits(0.9, 1.2, ("checkout_task",), None),
    "verification-policy": CaseTraits(0.8, 0.9, ("request_review",), None),
    "governed-interaction": CaseTraits(
        1.2, 1.1, ("checkout_task", "create_task"),
        "continuation resumed before the interaction answer was recorded",
    ),
    "steering-causality": CaseTraits(
        1.2, 1.0, ("request_review",), "active-turn steer applied before the queued steer"
    ),
    "planning-lifecycle": CaseTraits(
        1.4, 1.4, ("checkout_task",), "execution started before the revised plan was accepted"
    ),
    "review-lifecycle": CaseTraits(
        1.2, 1.1, ("checkout_task", "create_task"),
        "replacement review requested before the rejection was acknowledged",
    ),
    "delegation-return": CaseTraits(
        1.6, 1.5, ("checkout_task",), "parent woke before the child result was recorded"
    ),
    "completion-robustness": CaseTraits(0.9, 0.8, ("request_review",), None),
    "restart-recovery": CaseTraits(
        1.3, 1.0, ("checkout_task", "request_review"),
        "finalizer ran before the checkpoint was restored",
    ),
    "cancellation-permissions": CaseTraits(
        1.0, 0.5, ("finish_task", "request_review"),
        "activity continued after the operator cancelled",
    ),
    "trace-lineage": CaseTraits(1.1, 0.9, ("checkout_task",), None),
}  # fmt: skip


@dataclass(frozen=True)
class Setting:
    """Everything fixed about one run before it is drawn."""

    bundle_id: str
    candidate: SimulatedCandidate
    skills: Skills
    """The candidate's skills tonight (drifted, maybe regressed)."""
    case: WorkflowCase
    traits: CaseTraits
    repetition: int
    """0-based repetition of the case within the bundle."""

    @property
    def expected_calls(self) -> list[str]:
        """The case's required operations, in order."""
        return list(self.case.assertions.required_operation_ids or [])

    @property
    def cancels(self) -> bool:
        """Whether the operator cancels the run (nothing may change, nothing may be called)."""
        return self.case.id == "cancellation-permissions"


def specific_lifecycle_check(case: WorkflowCase) -> str:
    """The one lifecycle check that depends on what the case asserts beyond the common ones."""
    assertions = case.assertions
    if assertions.forbidden_prp_event_types:
        return "forbidden-prp-events"
    if assertions.max_runs is not None:
        return "run-bound"
    if assertions.recovery_owner is not None:
        return "owned-recovery"
    return "token-budget"


def lifecycle_check_ids(case: WorkflowCase) -> list[str]:
    """The case's lifecycle checks, in report order."""
    return [
        "terminal-authority",
        "lifecycle-state",
        "required-prp-events",
        specific_lifecycle_check(case),
        "attempt-bound",
        "cost-budget",
    ]


def continuation_check_ids(setting: Setting) -> list[str]:
    """The case's continuation checks, in report order."""
    causal = ["causal-order"] if setting.traits.causal_reason else []
    return [
        "single-owned-wake",
        "required-calls",
        "no-repeated-work",
        *causal,
        "trajectory-restraint",
    ]


def expected_comment_count(case: WorkflowCase) -> int:
    """Comments a clean run posts (one unless the case says otherwise)."""
    count = case.assertions.comment_count
    return 1 if count is None else count


def attempt_bound(setting: Setting) -> int:
    """Attempts allowed: the case's bound, else the candidate's budget."""
    case_bound = setting.case.assertions.max_attempts
    return case_bound if case_bound is not None else setting.candidate.spec.budget.max_attempts
