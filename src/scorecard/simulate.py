"""Seeded generator of realistic sample campaigns: synthetic data for reports, plots and the gate.

:func:`simulate_campaign` writes one bundle folder per campaign night: a ``scorecard.campaign.v1``
manifest (``bundle.json``) and one workflow observation per run (``observations.jsonl``).

How a run is made: each candidate has a latent skill profile (:class:`Skills`). A run first draws
its *plan* from it (classification, flaws per aspect, budget breach, forbidden-call incident),
then writes the *evidence* the plan implies (calls, receipts, usage, statuses, markers, PRP
events), and finally derives every lifecycle, continuation and presentation check from that
evidence, so the checks, the scorer's dimensions and the case-assertion audit always agree.
The newest bundle carries a deliberate regression of :data:`REGRESSED_CANDIDATE`.

Determinism: every draw comes from a ``random.Random`` seeded from SHA-256 of the campaign seed,
the bundle and the candidate; distributions use arithmetic only (no libm, whose last bits differ
between platforms), and nothing reads the clock, ``hash()`` or set iteration order.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from .bundles import (
    CAMPAIGN_SCHEMA,
    MANIFEST_NAME,
    CampaignManifest,
    CandidateBudget,
    CandidateSpec,
    manifest_json,
)
from .catalog import Catalog, load_catalog
from .io import atomic_writer
from .jsformat import format_js_number
from .models import OBSERVATION_SCHEMA, Classification, WorkflowCase

__all__ = [
    "OBSERVATIONS_NAME",
    "REGRESSED_CANDIDATE",
    "ROSTER",
    "SAMPLE_FOLDER",
    "SimulatedBundle",
    "SimulatedCandidate",
    "Skills",
    "is_sample_folder",
    "iter_bundles",
    "observation_line",
    "simulate_campaign",
]

JsonObject = dict[str, Any]

OBSERVATIONS_NAME = "observations.jsonl"
#: Names of the bundle folders this generator writes (and may therefore replace).
SAMPLE_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2}-nightly$")
FIRST_NIGHT = date(2026, 11, 1)
NIGHTS_BETWEEN_BUNDLES = 7
REGRESSED_CANDIDATE = "opencode-glm"
REPEATED_CASES = frozenset(
    {"final-response", "rich-activity", "governed-interaction", "completion-robustness"}
)
REPETITIONS = 3
WIRE_EVENT_SHARE = 0.25
CAPTURE_ON_SHARE = 0.12
SKIP_RATE = 0.004
INFRASTRUCTURE_RATE = {"codex": 0.015, "opencode": 0.07, "acpx": 0.03}
PROGRESS_BOUND_MS = 30000
SEMANTIC_TOOL_SCHEMA = "paperclip.prp.semantic_tool.v1"
STOP_REASON_SCHEMA = "paperclip.prp.stop_reason.v1"
TERMINAL_SCHEMA = "paperclip.prp.terminal.v1"
EXTRA_CALLS = ("search_tasks", "read_document", "list_comments", "report_progress")
DEFAULT_MARKERS = ("commentary", "final")
ACTIVITY_FAMILIES = ("commentary", "tool_execution")
FINAL_MARKERS = frozenset({"final", "parent-final"})
#: PRP events a run that never settled cannot have emitted.
SETTLEMENT_EVENTS = frozenset(
    {"run.result.proposed", "run.result.accepted", "run.presentation.resolved", "item.completed"}
)


# --- the roster -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Skills:
    """A candidate's latent profile: chances that a run is clean per aspect, and its costs."""

    outcome: float
    """Chance the control-plane outcome is right (semantic_outcome)."""
    restraint: float
    """Chance the call trajectory is exactly the required one (trajectory_restraint)."""
    tracing: float
    """Chance the trace and provider lineage are complete (trace_completeness)."""
    continuation: float
    """Chance wakes, resumptions and causal order are clean (continuation_integrity)."""
    presentation: float
    """Chance the user sees the right markers, comments and progress (presentation_fidelity)."""
    discipline: float
    """Chance the lifecycle bounds and PRP events are clean (lifecycle_integrity)."""
    failure_rate: float
    """Base chance of a candidate failure (budget breach or no result)."""
    retry_rate: float
    """Chance of each extra attempt."""
    latency_ms: float
    """Typical wall time of a run of average effort."""
    tokens: float
    """Typical tokens of a run of average effort."""
    usd_per_1k_tokens: float
    """Blended price."""


@dataclass(frozen=True)
class SimulatedCandidate:
    """A roster entry and the skills its runs are drawn from."""

    spec: CandidateSpec
    skills: Skills


_ADAPTERS = {"codex": "codex-app-server", "opencode": "opencode-server", "acpx": "acp-json-rpc"}
_PREMIUM = CandidateBudget(
    max_latency_ms=180000, max_attempts=3, max_cost_usd=1.5, max_total_tokens=100000
)
_OPEN = CandidateBudget(
    max_latency_ms=180000, max_attempts=3, max_cost_usd=0.8, max_total_tokens=100000
)
_INEXPENSIVE = CandidateBudget(
    max_latency_ms=150000, max_attempts=3, max_cost_usd=0.2, max_total_tokens=64000
)


def _candidate(
    slot: int, candidate_id: str, model: str, budget: CandidateBudget, skills: Skills
) -> SimulatedCandidate:
    provider = candidate_id.split("-", 1)[0]
    spec: JsonObject = {
        "id": candidate_id,
        "slot": slot,
        "adapter": _ADAPTERS[provider],
        "provider": provider,
        "model": model,
        "tier": "inexpensive" if budget is _INEXPENSIVE else "strong",
        "budget": budget,
    }
    if model.startswith("gpt-5"):
        spec["reasoningEffort"] = "medium"
    return SimulatedCandidate(CandidateSpec.model_validate(spec), skills)


#: The campaign roster in slot order. Skills: outcome, restraint, tracing, continuation,
#: presentation, discipline, failure rate, retry rate, latency ms, tokens, USD per 1k tokens.
ROSTER: tuple[SimulatedCandidate, ...] = tuple(
    _candidate(slot, *entry)
    for slot, entry in enumerate(
        [
            ("codex-luna", "gpt-5.6-luna", _PREMIUM,
             Skills(0.95, 0.94, 0.93, 0.94, 0.92, 0.985, 0.03, 0.08, 64000, 41000, 0.014)),
            ("opencode-kimi", "openrouter/moonshotai/kimi-k2.5", _OPEN,
             Skills(0.91, 0.9, 0.88, 0.9, 0.88, 0.975, 0.045, 0.11, 82000, 47000, 0.0045)),
            ("opencode-glm", "openrouter/z-ai/glm-4.6", _OPEN,
             Skills(0.9, 0.89, 0.87, 0.9, 0.89, 0.975, 0.05, 0.12, 74000, 43000, 0.005)),
            ("opencode-gpt-oss", "openrouter/openai/gpt-oss-20b", _INEXPENSIVE,
             Skills(0.8, 0.76, 0.8, 0.8, 0.76, 0.95, 0.1, 0.18, 52000, 27000, 0.0017)),
            ("opencode-glm-flash", "openrouter/z-ai/glm-4.5-air", _INEXPENSIVE,
             Skills(0.78, 0.78, 0.78, 0.78, 0.78, 0.945, 0.11, 0.2, 56000, 25000, 0.0024)),
            ("acpx-claude-sonnet", "claude-sonnet-5", _PREMIUM,
             Skills(0.95, 0.93, 0.92, 0.95, 0.94, 0.985, 0.03, 0.07, 69000, 38000, 0.018)),
            ("acpx-codex-sol", "gpt-5.6-sol", _PREMIUM,
             Skills(0.93, 0.93, 0.91, 0.92, 0.9, 0.98, 0.035, 0.09, 60000, 40000, 0.013)),
        ]
    )
)  # fmt: skip


def _regressed(skills: Skills) -> Skills:
    """The newest bundle's regression: worse on several aspects, more candidate failures."""
    return dataclasses.replace(
        skills,
        outcome=skills.outcome - 0.14,
        restraint=skills.restraint - 0.12,
        continuation=skills.continuation - 0.18,
        presentation=skills.presentation - 0.15,
        discipline=skills.discipline - 0.03,
        failure_rate=skills.failure_rate * 4,
    )


# --- the cases ------------------------------------------------------------------------------


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


# --- seeded randomness ----------------------------------------------------------------------


def derive_seed(*parts: object) -> int:
    """A 32-bit seed from the parts' text, stable across runs, platforms and PYTHONHASHSEED."""
    text = "/".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def _hex(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(4 * digits):0{digits}x}"


def _spread(rng: random.Random) -> float:
    """A right-skewed factor with mean 1 (0.7 to 1.6): run-to-run variation of usage."""
    return rng.triangular(0.7, 1.6, 0.7)


def _chance(rng: random.Random, probability: float) -> bool:
    return rng.random() < probability


def _json_number(value: float) -> int | float:
    """Integral floats as ints, so JSON says ``180000``, not ``180000.0``."""
    return int(value) if float(value).is_integer() else value


# --- run plans ------------------------------------------------------------------------------


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


def _lifecycle_check_ids(case: WorkflowCase) -> list[str]:
    assertions = case.assertions
    if assertions.forbidden_prp_event_types:
        specific = "forbidden-prp-events"
    elif assertions.max_runs is not None:
        specific = "run-bound"
    elif assertions.recovery_owner is not None:
        specific = "owned-recovery"
    else:
        specific = "token-budget"
    return [
        "terminal-authority",
        "lifecycle-state",
        "required-prp-events",
        specific,
        "attempt-bound",
        "cost-budget",
    ]


def _flaw_options(setting: Setting) -> dict[str, tuple[str, ...]]:
    """Flaws each aspect can show in this case (only those the evidence can express)."""
    case, assertions = setting.case, setting.case.assertions
    expected = setting.expected_calls
    lifecycle = _lifecycle_check_ids(case)
    discipline = ["missing_prp_event"]
    for check, flaw in (
        ("forbidden-prp-events", "forbidden_prp_event"),
        ("run-bound", "run_overrun"),
        ("owned-recovery", "wrong_recovery_owner"),
    ):
        if check in lifecycle:
            discipline.append(flaw)
    presentation = ["slow_progress", "stuck_running", "marker_order"]
    if _expected_comments(case) > 0:
        presentation.append("no_comment")
    if assertions.response_source not in (None, "none"):
        presentation.append("wrong_source")
    if assertions.required_activity_families:
        presentation.append("missing_family")
    return {
        "outcome": ("wrong_state",) if setting.cancels else ("wrong_state", "denied"),
        # An extra call in a control-plane-owned case is a hard-gate failure (incidents only);
        # a run without finish_task is a candidate failure (breach no_result), not a flaw.
        "restraint": ()
        if setting.cancels
        else ("extra_call", "missing_call")
        if len(expected) > 1
        else ("extra_call",),
        "tracing": ("trace_gap", "lineage_gap") if assertions.trace else ("trace_gap",),
        "continuation": ("double_wake",)
        + (("repeated_work",) if expected else ())
        + (("causal_order", "causal_order") if setting.traits.causal_reason else ()),
        "presentation": tuple(presentation),
        "discipline": tuple(discipline),
    }


def _draw_flaws(rng: random.Random, setting: Setting) -> frozenset[str]:
    flaws: set[str] = set()
    for aspect, options in _flaw_options(setting).items():
        skill: float = getattr(setting.skills, aspect)
        if options and _chance(rng, (1 - skill) * setting.traits.difficulty):
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
    if draw < SKIP_RATE + INFRASTRUCTURE_RATE[provider]:
        code, category, message = rng.choice(_INFRASTRUCTURE_FAILURES[provider])
        failure = {"code": code, "category": category, "retryable": True, "message": message}
        return "infrastructure_failure", failure
    return "completed", None


def plan_run(rng: random.Random, setting: Setting, *, incident: bool) -> RunPlan:
    """Draw the plan of one run; an incident run is always scoreable."""
    classification, failure = ("completed", None) if incident else _draw_failure(rng, setting)
    wire = _chance(rng, WIRE_EVENT_SHARE)
    if classification != "completed":
        return RunPlan(classification, frozenset(), None, False, wire, failure)
    breach = None
    if _chance(rng, setting.skills.failure_rate * setting.traits.difficulty):
        causes = ["cost", "cost", "attempts"]
        if "finish_task" in setting.expected_calls:
            causes.append("no_result")
        breach = rng.choice(causes)
        classification = "candidate_failure"
    return RunPlan(classification, _draw_flaws(rng, setting), breach, incident, wire, None)


# --- evidence -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Resources one run used; None where the run never got that far."""

    attempts: int
    latency_ms: int | None
    tokens: int | None
    cost_usd: float | None
    first_progress_ms: int | None
    settlement_ms: int | None


def _attempt_bound(setting: Setting) -> int:
    case_bound = setting.case.assertions.max_attempts
    return case_bound if case_bound is not None else setting.candidate.spec.budget.max_attempts


def _attempts(rng: random.Random, setting: Setting, plan: RunPlan) -> int:
    budget_bound = setting.candidate.spec.budget.max_attempts
    if plan.breach == "attempts":
        return budget_bound + 1
    attempts = 2 if setting.case.id == "restart-recovery" else 1
    while attempts < _attempt_bound(setting) and _chance(rng, setting.skills.retry_rate):
        attempts += 1
    return attempts


def draw_usage(rng: random.Random, setting: Setting, plan: RunPlan) -> Usage:
    """Latency, tokens, cost and progress timings consistent with the plan and the budget."""
    skills, budget = setting.skills, setting.candidate.spec.budget
    if plan.classification == "skipped":
        return Usage(0, None, None, None, None, None)
    if plan.classification == "infrastructure_failure":
        attempts = 1
    else:
        attempts = _attempts(rng, setting, plan)
    work = setting.traits.effort * (1 + 0.5 * (attempts - 1))
    latency = skills.latency_ms * work * _spread(rng)
    tokens = skills.tokens * work * _spread(rng)
    cost = tokens / 1000 * skills.usd_per_1k_tokens * rng.uniform(0.95, 1.05)
    if plan.breach == "cost":
        cost = budget.max_cost_usd * rng.uniform(1.05, 1.7)
        tokens = cost * 1000 / skills.usd_per_1k_tokens
    else:  # a costly draw the plan did not ask for stays within budget
        cost = min(cost, budget.max_cost_usd * rng.uniform(0.85, 0.99))
        tokens = min(tokens, budget.max_total_tokens * rng.uniform(0.85, 0.99))
    first_progress = rng.uniform(1500, 9000) * (1 + 0.3 * (attempts - 1))
    if "slow_progress" in plan.flaws:
        first_progress = rng.uniform(PROGRESS_BOUND_MS + 1000, PROGRESS_BOUND_MS * 2.2)
    latency = max(latency, first_progress + rng.uniform(4000, 12000))
    if plan.classification == "infrastructure_failure":
        latency *= rng.uniform(0.1, 0.7)
        partial_tokens = round(tokens * rng.uniform(0.1, 0.6)) if _chance(rng, 0.5) else None
        progress = round(first_progress) if first_progress < latency else None
        return Usage(attempts, round(latency), partial_tokens, None, progress, None)
    return Usage(
        attempts,
        round(latency),
        round(tokens),
        round(cost, 4),
        round(first_progress),
        round(latency + rng.uniform(300, 2500)),
    )


def observed_calls(rng: random.Random, setting: Setting, plan: RunPlan) -> list[str]:
    """The calls the run made: the required ones, minus and plus what its flaws imply."""
    expected = setting.expected_calls
    if plan.classification == "skipped":
        return []
    if plan.classification == "infrastructure_failure":
        return expected[: rng.randrange(len(expected))] if expected else []
    calls = list(expected)
    if plan.breach == "no_result":
        calls.remove("finish_task")
    if "missing_call" in plan.flaws:
        calls.remove(rng.choice([call for call in calls if call != "finish_task"]))
    if "extra_call" in plan.flaws:
        pool = [call for call in EXTRA_CALLS if call not in expected]
        calls.insert(rng.randint(0, len(calls)), rng.choice(pool))
    if "repeated_work" in plan.flaws and calls:
        calls.append(calls[-1])
    if plan.incident:
        calls.insert(rng.randint(0, len(calls)), rng.choice(setting.traits.forbidden_calls))
    return calls


@dataclass(frozen=True)
class TraceIds:
    """Identifiers of one run as the runner recorded them."""

    run_id: str
    session_id: str
    turn_id: str
    item_ids: list[str]
    receipt_ids: list[str]


def _trace_ids(rng: random.Random, calls: Sequence[str]) -> TraceIds:
    return TraceIds(
        run_id=f"run-{_hex(rng, 12)}",
        session_id=f"ses-{_hex(rng, 12)}",
        turn_id=f"turn-{_hex(rng, 8)}",
        item_ids=[f"item-{_hex(rng, 8)}" for _ in range(max(1, len(calls)))],
        receipt_ids=[f"semantic_receipt:{_hex(rng, 16)}" for _ in calls],
    )


def _terminal_state(setting: Setting, plan: RunPlan) -> str:
    if plan.classification == "candidate_failure":
        return "failed"
    return "cancelled" if setting.cancels else "succeeded"


def _draw_trace_gap(rng: random.Random, plan: RunPlan, calls: Sequence[str]) -> str | None:
    """Which piece of the trace a ``trace_gap`` flaw loses."""
    if "trace_gap" not in plan.flaws:
        return None
    options = ["no_session", "incomplete_stop_reason" if plan.wire else "no_item"]
    if calls:
        options.append("receipt_without_id" if plan.wire else "missing_receipt")
    return rng.choice(options)


_STOP_KINDS = {"cost": "budget", "attempts": "budget", "no_result": "result_missing"}


def _settled_kind(setting: Setting) -> str:
    return "cancelled" if setting.cancels else "completed"


def _stop_reason(
    rng: random.Random, setting: Setting, plan: RunPlan, gap: str | None
) -> JsonObject:
    stop: JsonObject = {
        "schema": STOP_REASON_SCHEMA,
        "schemaVersion": 1,
        "kind": _STOP_KINDS[plan.breach] if plan.breach else _settled_kind(setting),
        "receiptId": f"stop_receipt:{_hex(rng, 16)}",
    }
    if gap != "incomplete_stop_reason":
        stop["decisionId"] = f"decision:{_hex(rng, 12)}"
    return stop


def _event(
    event_type: str, ids: TraceIds, index: int, payload: JsonObject, gap: str | None
) -> JsonObject:
    event: JsonObject = {"eventType": event_type, "runId": ids.run_id}
    if gap != "no_session":
        event["normalizedSessionId"] = ids.session_id
    event.update(turnId=ids.turn_id, itemId=ids.item_ids[index], payload=payload)
    return event


def _wire_events(
    rng: random.Random,
    setting: Setting,
    plan: RunPlan,
    calls: Sequence[str],
    ids: TraceIds,
    gap: str | None,
) -> list[JsonObject]:
    """PRP events: one tool result per call (with its receipt), then ``run.terminal``."""
    events: list[JsonObject] = []
    for index, call in enumerate(calls):
        tool: JsonObject = {
            "schema": SEMANTIC_TOOL_SCHEMA,
            "schemaVersion": 1,
            "phase": "result",
            "operationId": call,
            "callId": f"call-{index}",
            "outcome": "succeeded",
            "code": "ok",
            "retryable": False,
            "authorizationBoundary": "active_task",
        }
        if not (gap == "receipt_without_id" and index == len(calls) - 1):
            tool["operationReceiptId"] = ids.receipt_ids[index]
        events.append(_event("mcp_app.tool_result", ids, index, {"semantic_tool": tool}, gap))
    if plan.classification == "infrastructure_failure":
        return events  # the run never settled
    terminal: JsonObject = {
        "schema": TERMINAL_SCHEMA,
        "runTerminalState": _terminal_state(setting, plan),
    }
    if plan.breach or gap == "incomplete_stop_reason" or _chance(rng, 0.4):
        terminal["stopReason"] = _stop_reason(rng, setting, plan, gap)
    events.append(_event("run.terminal", ids, 0, terminal, gap))
    return events


def draw_trace(
    rng: random.Random, setting: Setting, plan: RunPlan, calls: Sequence[str]
) -> tuple[JsonObject, TraceIds]:
    """The base trace: identifiers, one receipt per call, terminal flag, maybe wire events."""
    ids = _trace_ids(rng, calls)
    if plan.classification == "skipped":
        return {"runId": ids.run_id, "receiptIds": [], "terminalPresent": False}, ids
    gap = _draw_trace_gap(rng, plan, calls)
    trace: JsonObject = {"runId": ids.run_id}
    if gap != "no_session":
        trace["sessionId"] = ids.session_id
    trace["turnId"] = ids.turn_id
    if gap != "no_item":
        trace["itemId"] = ids.item_ids[0]
    receipts = ids.receipt_ids
    trace["receiptIds"] = (
        receipts[:-1] if gap in ("missing_receipt", "receipt_without_id") else receipts
    )
    trace["terminalPresent"] = plan.classification != "infrastructure_failure"
    if plan.wire:
        trace["wireEvents"] = _wire_events(rng, setting, plan, calls, ids, gap)
    return trace, ids


def _final_state(setting: Setting, plan: RunPlan, calls: Sequence[str]) -> JsonObject:
    if setting.cancels:
        changed = "finish_task" in calls or "wrong_state" in plan.flaws
        return {"expected": "unchanged", "observed": "mutated" if changed else "unchanged"}
    finished = "finish_task" in calls or "finish_task" not in setting.expected_calls
    settled = plan.classification in ("completed", "candidate_failure")
    mutated = settled and finished and "wrong_state" not in plan.flaws
    return {"expected": "mutated", "observed": "mutated" if mutated else "unchanged"}


def _authorization(setting: Setting, plan: RunPlan, calls: Sequence[str]) -> JsonObject:
    if setting.cancels:  # nothing may be attempted after the cancel; attempts are denied
        return {"expected": "absent", "observed": "denied" if calls else "absent"}
    if plan.classification == "skipped" or not calls:
        observed = "absent"
    else:
        observed = "denied" if "denied" in plan.flaws else "allowed"
    return {"expected": "allowed", "observed": observed}


def _budget(setting: Setting) -> JsonObject:
    budget = setting.candidate.spec.budget
    return {
        "maxLatencyMs": _json_number(budget.max_latency_ms),
        "maxTotalTokens": _json_number(budget.max_total_tokens),
        "maxCostUsd": _json_number(budget.max_cost_usd),
        "maxAttempts": budget.max_attempts,
    }


def _present(pairs: dict[str, Any]) -> JsonObject:
    """``pairs`` without its None values (absent, never null, on the wire)."""
    return {key: value for key, value in pairs.items() if value is not None}


def base_observation(
    setting: Setting, plan: RunPlan, calls: list[str], trace: JsonObject, usage: Usage
) -> JsonObject:
    """The v1 ``base`` part: calls, state, authorisation, trace, efficiency and budget."""
    base: JsonObject = {
        "caseId": setting.case.id,
        "provenance": {
            "source": "synthetic",
            "generator": "scorecard.simulate",
            "campaign": setting.bundle_id,
            "repetition": setting.repetition + 1,
        },
        "controlPlaneOwned": setting.cancels,
        "expectedCalls": setting.expected_calls,
        "observedCalls": calls,
        "forbiddenCalls": list(setting.traits.forbidden_calls),
        "finalState": _final_state(setting, plan, calls),
        "authorization": _authorization(setting, plan, calls),
        "trace": trace,
    }
    if plan.classification != "skipped":
        base["efficiency"] = _present(
            {
                "latencyMs": usage.latency_ms,
                "totalTokens": usage.tokens,
                "costUsd": usage.cost_usd,
                "attempts": usage.attempts,
            }
        )
    base["budget"] = _budget(setting)
    return base


# --- checks, derived from the evidence ------------------------------------------------------


def _check(rng: random.Random, check_id: str, failure: str | None) -> JsonObject:
    """A check that passes when there is no failure reason (failures cite an evidence id)."""
    if failure is None:
        return {"id": check_id, "passed": True}
    return {
        "id": check_id,
        "passed": False,
        "reason": failure,
        "evidenceIds": [f"ev-{_hex(rng, 8)}"],
    }


def _listed(prefix: str, items: Sequence[str]) -> str | None:
    return f"{prefix}: {', '.join(items)}" if items else None


def _statuses(
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
    bound = _attempt_bound(setting)
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
        _check(rng, check_id, reasons[check_id]) for check_id in _lifecycle_check_ids(setting.case)
    ]
    return {"checks": checks, **statuses}


def _continuation_check_ids(setting: Setting) -> list[str]:
    causal = ["causal-order"] if setting.traits.causal_reason else []
    return [
        "single-owned-wake",
        "required-calls",
        "no-repeated-work",
        *causal,
        "trajectory-restraint",
    ]


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
            _check(rng, check_id, reasons[check_id])
            for check_id in _continuation_check_ids(setting)
        ]
    }


def _expected_comments(case: WorkflowCase) -> int:
    count = case.assertions.comment_count
    return 1 if count is None else count


def _marker_violation(expected: Sequence[str], shown: Sequence[str]) -> str | None:
    rank = {marker: position for position, marker in enumerate(expected)}
    for earlier, later in itertools.pairwise(shown):
        if rank[earlier] > rank[later]:
            return f"marker order violated: {earlier} before {later}"
    return None


def _shown_markers(rng: random.Random, setting: Setting, plan: RunPlan) -> list[str]:
    markers = list(setting.case.assertions.ordered_markers or DEFAULT_MARKERS)
    if plan.classification == "skipped":
        return []
    if plan.classification == "infrastructure_failure":
        return markers[: rng.randrange(len(markers))]
    if "marker_order" in plan.flaws:
        index = rng.randrange(len(markers) - 1)
        markers[index], markers[index + 1] = markers[index + 1], markers[index]
    return markers


def _shown_families(rng: random.Random, setting: Setting, plan: RunPlan) -> list[str]:
    if plan.classification == "skipped":
        return []
    required = list(setting.case.assertions.required_activity_families or [])
    if "missing_family" in plan.flaws:
        required.pop(rng.randrange(len(required)))
    if plan.classification == "infrastructure_failure":
        return ["commentary"]
    return list(dict.fromkeys([*ACTIVITY_FAMILIES[:1], *required, *ACTIVITY_FAMILIES[1:]]))


def presentation_evidence(
    rng: random.Random, setting: Setting, plan: RunPlan, usage: Usage
) -> JsonObject:
    """Presentation checks, derived from what the user was shown, plus what was shown."""
    assertions = setting.case.assertions
    wanted_comments = _expected_comments(setting.case)
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
    progress = usage.first_progress_ms
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
        "first-visible-progress": "no visible progress recorded"
        if progress is None
        else (
            f"first visible progress after {progress} ms, bound is {PROGRESS_BOUND_MS} ms"
            if progress > PROGRESS_BOUND_MS
            else None
        ),
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


def trace_lineage(rng: random.Random, setting: Setting, plan: RunPlan, ids: TraceIds) -> JsonObject:
    """Provider trace capture: always on for the trace-lineage case, occasionally elsewhere."""
    expectation = setting.case.assertions.trace
    captured = expectation is not None or _chance(rng, CAPTURE_ON_SHARE)
    if plan.classification == "skipped" or not captured:
        return {
            "capture": "off",
            "frameCount": 0,
            "byteCount": 0,
            "digestVerified": False,
            "ordered": True,
            "dispositions": [],
            "lineage": [],
        }
    if expectation is not None:
        dispositions, shapes = list(expectation.dispositions), list(expectation.lineage)
        frames = rng.randint(60, 240)
    else:
        dispositions = ["mapped", "generic", *(["ignored"] if _chance(rng, 0.5) else [])]
        shapes = ["one_to_one", *(["one_to_many"] if _chance(rng, 0.4) else [])]
        frames = rng.randint(8, 60)
    digest_verified = ordered = True
    if "lineage_gap" in plan.flaws:
        gap = rng.choice(("disposition", "disposition", "shape", "digest", "order"))
        if gap == "disposition":
            dispositions.pop(rng.randrange(len(dispositions)))
        elif gap == "shape":
            shapes.pop(rng.randrange(len(shapes)))
        digest_verified = gap != "digest"
        ordered = gap != "order"
    return {
        "capture": "on",
        "frameCount": frames,
        "byteCount": frames * rng.randint(480, 1400),
        "digestVerified": digest_verified,
        "ordered": ordered,
        "dispositions": dispositions,
        "lineage": shapes,
        "traceRef": f"trace:{ids.run_id}",
    }


def prp_event_types(
    rng: random.Random, setting: Setting, plan: RunPlan, calls: Sequence[str]
) -> list[str]:
    """PRP event types seen: the case's required ones, minus and plus what the plan implies."""
    if plan.classification == "skipped":
        return []
    assertions = setting.case.assertions
    opening = ["run.started", *(["mcp_app.tool_result"] if calls else [])]
    body = [kind for kind in assertions.required_prp_event_types or [] if kind != "run.terminal"]
    if plan.classification == "infrastructure_failure":
        early = [kind for kind in body if kind not in SETTLEMENT_EVENTS]
        return opening + early[: rng.randrange(len(early) + 1)]
    if plan.breach == "no_result" and "run.result.accepted" in body:
        body.remove("run.result.accepted")
    if "missing_prp_event" in plan.flaws and body:
        body.pop(rng.randrange(len(body)))
    if "forbidden_prp_event" in plan.flaws:
        body.append(rng.choice(assertions.forbidden_prp_event_types or []))
    return [*opening, *body, "run.terminal"]


def artifact_digests(rng: random.Random, setting: Setting, plan: RunPlan) -> list[str]:
    """A few ``sha256:`` digests of the artifacts the run produced."""
    if setting.cancels or plan.classification not in ("completed", "candidate_failure"):
        return []
    count = rng.randint(1, 3) if plan.classification == "completed" else rng.randint(0, 1)
    key = f"{setting.bundle_id}/{setting.candidate.spec.id}/{setting.case.id}/{setting.repetition}"
    return [
        "sha256:" + hashlib.sha256(f"{key}/artifact-{index}".encode()).hexdigest()
        for index in range(count)
    ]


def metrics(usage: Usage, calls: Sequence[str]) -> JsonObject:
    """Report metrics, consistent with ``base.efficiency``."""
    return {
        "attempts": usage.attempts,
        "toolCount": len(calls),
        **_present(
            {
                "timeToFirstVisibleProgressMs": usage.first_progress_ms,
                "settlementMs": usage.settlement_ms,
                "totalTokens": usage.tokens,
                "costUsd": usage.cost_usd,
            }
        ),
    }


def simulate_run(rng: random.Random, setting: Setting, *, incident: bool) -> JsonObject:
    """One workflow observation, keys in contract order."""
    plan = plan_run(rng, setting, incident=incident)
    calls = observed_calls(rng, setting, plan)
    usage = draw_usage(rng, setting, plan)
    trace, ids = draw_trace(rng, setting, plan, calls)
    event_types = prp_event_types(rng, setting, plan, calls)
    statuses = _statuses(rng, setting, plan, calls, usage)
    observation: JsonObject = {
        "schema": OBSERVATION_SCHEMA,
        "caseId": setting.case.id,
        "candidateId": setting.candidate.spec.id,
        "provider": setting.candidate.spec.provider,
        "classification": plan.classification,
        "base": base_observation(setting, plan, calls, trace, usage),
        "lifecycle": lifecycle_evidence(
            rng, setting, statuses, usage, event_types, trace["terminalPresent"]
        ),
        "continuation": continuation_evidence(rng, setting, plan, calls),
        "presentation": presentation_evidence(rng, setting, plan, usage),
        "traceLineage": trace_lineage(rng, setting, plan, ids),
        "metrics": metrics(usage, calls),
        "observedPrpEventTypes": event_types,
        "artifactDigests": artifact_digests(rng, setting, plan),
    }
    if plan.failure is not None:
        observation["failure"] = plan.failure
    return observation


# --- bundles --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimulatedBundle:
    """One campaign night: its folder name, manifest and observations in schedule order."""

    folder: str
    manifest: CampaignManifest
    observations: list[JsonObject]


def _schedule(catalog: Catalog) -> list[tuple[str, int]]:
    """(case, repetition) pairs a candidate runs, in catalog order then repetition."""
    return [
        (case_id, repetition)
        for case_id in catalog
        for repetition in range(REPETITIONS if case_id in REPEATED_CASES else 1)
    ]


def _drift(rng: random.Random, skills: Skills) -> Skills:
    """Night-to-night wobble of a candidate's quality aspects (no trend)."""
    aspects = ("outcome", "restraint", "tracing", "continuation", "presentation")
    changes = {
        name: min(0.99, getattr(skills, name) + rng.uniform(-0.015, 0.015)) for name in aspects
    }
    return dataclasses.replace(skills, **changes)


def _incidents(rng: random.Random, runs: int, *, newest: bool) -> dict[str, set[int]]:
    """Schedule positions at which a candidate invokes a forbidden call (a hard-gate failure).

    Older nights have at most one, most likely from a less restrained candidate; the newest
    night adds two or three for the regressed candidate.
    """
    incidents: dict[str, set[int]] = {}
    if _chance(rng, 0.5):
        weights = [1 - candidate.skills.restraint for candidate in ROSTER]
        chosen = rng.choices(ROSTER, weights)[0]
        incidents.setdefault(chosen.spec.id, set()).add(rng.randrange(runs))
    if newest:
        positions = rng.sample(range(runs), 2 + rng.randrange(2))
        incidents.setdefault(REGRESSED_CANDIDATE, set()).update(positions)
    return incidents


def _manifest(bundle_id: str, index: int, schedule_seed: int) -> CampaignManifest:
    return CampaignManifest.model_validate(
        {
            "schema": CAMPAIGN_SCHEMA,
            "id": bundle_id,
            "runnerVersion": f"0.8.{index}",
            "promptPolicy": "paperclip-default-v3",
            "providerVersions": {"codex": f"0.98.{index}", "opencode": "1.4.2", "acpx": "0.6.0"},
            "scheduleSeed": schedule_seed,
            "candidates": [candidate.spec for candidate in ROSTER],
        }
    )


def simulate_bundle(index: int, *, seed: int, bundles: int, catalog: Catalog) -> SimulatedBundle:
    """Bundle ``index`` (0 = oldest) of a ``bundles``-night campaign."""
    night = FIRST_NIGHT + timedelta(days=NIGHTS_BETWEEN_BUNDLES * index)
    bundle_id = f"campaign-{night.isoformat()}"
    schedule_seed = derive_seed(seed, "bundle", index)
    bundle_rng = random.Random(schedule_seed)
    schedule = _schedule(catalog)
    newest = index == bundles - 1
    incidents = _incidents(bundle_rng, len(schedule), newest=newest)
    observations: list[JsonObject] = []
    for candidate in ROSTER:
        skills = _drift(bundle_rng, candidate.skills)
        if newest and candidate.spec.id == REGRESSED_CANDIDATE:
            skills = _regressed(skills)
        rng = random.Random(derive_seed(schedule_seed, candidate.spec.id))
        planned = incidents.get(candidate.spec.id, set())
        for position, (case_id, repetition) in enumerate(schedule):
            case = catalog[case_id]
            setting = Setting(bundle_id, candidate, skills, case, CASE_TRAITS[case_id], repetition)
            observations.append(simulate_run(rng, setting, incident=position in planned))
    return SimulatedBundle(
        f"{night.isoformat()}-nightly", _manifest(bundle_id, index, schedule_seed), observations
    )


def observation_line(observation: JsonObject) -> str:
    """One observation as a compact JSON line."""
    text: str = json.dumps(observation, separators=(",", ":"), ensure_ascii=False)
    return text + "\n"


def is_sample_folder(path: Path) -> bool:
    """Whether ``path`` is a bundle folder this generator writes (so it may replace it)."""
    return path.is_dir() and SAMPLE_FOLDER.match(path.name) is not None


def _write_bundle(folder: Path, bundle: SimulatedBundle) -> None:
    with atomic_writer(folder / MANIFEST_NAME) as stream:
        stream.write(manifest_json(bundle.manifest))
    with atomic_writer(folder / OBSERVATIONS_NAME) as stream:
        stream.writelines(observation_line(observation) for observation in bundle.observations)


def iter_bundles(
    *, seed: int = 20261129, bundles: int = 4, catalog: Catalog | None = None
) -> Iterator[SimulatedBundle]:
    """The campaign's bundles, oldest first, without touching any file."""
    if bundles < 1:
        raise ValueError("a campaign has at least one bundle")
    catalog = catalog or load_catalog()
    for index in range(bundles):
        yield simulate_bundle(index, seed=seed, bundles=bundles, catalog=catalog)


def simulate_campaign(
    output_dir: Path, *, seed: int = 20261129, bundles: int = 4, catalog: Catalog | None = None
) -> list[Path]:
    """Write ``bundles`` sample bundle folders under ``output_dir``; return them oldest first.

    Each folder (``YYYY-MM-DD-nightly``, so name order is campaign order) holds ``bundle.json``
    and ``observations.jsonl``. Same seed and catalog, same bytes.
    """
    folders: list[Path] = []
    for bundle in iter_bundles(seed=seed, bundles=bundles, catalog=catalog):
        folder = output_dir / bundle.folder
        _write_bundle(folder, bundle)
        folders.append(folder)
    return folders
