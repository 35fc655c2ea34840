"""Run plans: what goes wrong in one run, drawn before any evidence is written.

A plan fixes the classification, at most one flaw per scored aspect, a budget breach, a
forbidden-call incident and whether the trace carries wire events; the evidence modules then
write what that plan implies.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from scorecard.contract import Classification

from .cases import JsonObject, Setting, expected_comment_count, specific_lifecycle_check
from .randomness import chance

WIRE_EVENT_SHARE = 0.25
SKIP_RATE = 0.004
INFRASTRUCTURE_RATE = {"codex": 0.015, "opencode": 0.07, "acpx": 0.03}

_INFRASTRUCTURE_FAILURES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "codex": (
        ("provider_unavailable", "provider", "model endpoint returned HTTP 503 Service Unavailable"),
        ("rate_limited", "provider", "provider rate limit reached (HTTP 429), retry after 20 s"),
        ("app_server_exited", "orchestration", "codex app-server exited with status 137"),
    ),
    "opencode": (
        ("rate_limited", "provider", "OpenRouter returned HTTP 429 Too Many Requests"),
        ("rate_limited", "provider", "upstream provider rate limit reached, retry after 30 s"),
        ("provider_unavailable", "provider", "upstream provider returned HTTP 502 Bad Gateway"),
        ("provider_unavailable", "provider", "no upstream provider available for the model"),
        ("stream_interrupted", "provider", "provider event stream closed before run.terminal"),
        ("session_lost", "orchestration", "opencode server lost the session after a restart"),
    ),
    "acpx": (
        ("provider_unavailable", "provider", "model endpoint returned HTTP 529 Overloaded"),
        ("handshake_timeout", "orchestration", "ACP initialize handshake timed out after 30 s"),
    ),
}  # fmt: skip
_SKIP_FAILURES = (
    ("not_qualified", "candidate did not pass the qualification run for this case"),
    ("provider_not_applicable", "case is not enabled for this adapter version"),
)
#: The discipline flaw that fails each case-specific lifecycle check (token-budget has none).
_SPECIFIC_LIFECYCLE_FLAWS = {
    "forbidden-prp-events": "forbidden_prp_event",
    "run-bound": "run_overrun",
    "owned-recovery": "wrong_recovery_owner",
}


@dataclass(frozen=True)
class RunPlan:
    """What goes wrong in one run, decided before any evidence is written."""

    classification: Classification
    """How the run ends (a breach makes it a candidate failure)."""
    flaws: frozenset[str]
    """Flaw names, at most one per aspect (see ``_flaw_options``)."""
    breach: str | None
    """Cause of a candidate failure: ``cost``, ``attempts`` or ``no_result``."""
    incident: bool
    """Whether the run invokes a forbidden call."""
    wire: bool
    """Whether the trace carries PRP wire events."""
    failure: JsonObject | None
    """The ``failure`` object of infrastructure failures and skipped runs."""


def _flaw_options(setting: Setting) -> dict[str, list[str]]:
    """Flaws each aspect can show in this case (only those the evidence can express)."""
    assertions = setting.case.assertions
    expected = setting.expected_calls
    # An extra call in a control-plane-owned case is a hard-gate failure (incidents only);
    # a run without finish_task is a candidate failure (breach no_result), not a flaw.
    if setting.cancels:
        outcome, restraint = ["wrong_state"], []
    else:
        outcome = ["wrong_state", "denied"]
        restraint = ["extra_call", "missing_call"] if len(expected) > 1 else ["extra_call"]
    continuation = ["double_wake"]
    if expected:
        continuation.append("repeated_work")
    if setting.traits.causal_reason:
        continuation += ["causal_order", "causal_order"]  # listed twice: twice as likely
    presentation = ["slow_progress", "stuck_running", "marker_order"]
    if expected_comment_count(setting.case) > 0:
        presentation.append("no_comment")
    if assertions.response_source not in (None, "none"):
        presentation.append("wrong_source")
    if assertions.required_activity_families:
        presentation.append("missing_family")
    discipline = ["missing_prp_event"]
    specific = _SPECIFIC_LIFECYCLE_FLAWS.get(specific_lifecycle_check(setting.case))
    if specific is not None:
        discipline.append(specific)
    return {
        "outcome": outcome,
        "restraint": restraint,
        "tracing": ["trace_gap", "lineage_gap"] if assertions.trace else ["trace_gap"],
        "continuation": continuation,
        "presentation": presentation,
        "discipline": discipline,
    }


def _draw_flaws(rng: random.Random, setting: Setting) -> frozenset[str]:
    flaws: set[str] = set()
    for aspect, options in _flaw_options(setting).items():
        skill: float = getattr(setting.skills, aspect)
        if options and chance(rng, (1 - skill) * setting.traits.difficulty):
            flaws.add(rng.choice(options))
    return frozenset(flaws)


def _draw_failure(rng: random.Random, setting: Setting) -> tuple[Classification, JsonObject | None]:
    """Whether infrastructure (or qualification) stopped the run, and its failure object."""
    provider = setting.candidate.spec.provider
    draw = rng.random()
    if draw < SKIP_RATE:
        code, message = rng.choice(_SKIP_FAILURES)
        failure = {"code": code, "category": "qualification", "retryable": False}
        return "skipped", {**failure, "message": message}
    if draw < SKIP_RATE + INFRASTRUCTURE_RATE[provider] + setting.skills.outage:
        code, category, message = rng.choice(_INFRASTRUCTURE_FAILURES[provider])
        failure = {"code": code, "category": category, "retryable": True, "message": message}
        return "infrastructure_failure", failure
    return "completed", None


def plan_run(rng: random.Random, setting: Setting, *, incident: bool) -> RunPlan:
    """Draw the plan of one run; an incident run is always scoreable."""
    classification, failure = ("completed", None) if incident else _draw_failure(rng, setting)
    wire = chance(rng, WIRE_EVENT_SHARE)
    if classification != "completed":
        return RunPlan(classification, frozenset(), None, False, wire, failure)
    breach = None
    if chance(rng, setting.skills.failure_rate * setting.traits.difficulty):
        causes = ["cost", "cost", "attempts"]
        if "finish_task" in setting.expected_calls:
            causes.append("no_result")
        breach = rng.choice(causes)
        classification = "candidate_failure"
    return RunPlan(classification, _draw_flaws(rng, setting), breach, incident, wire, None)
