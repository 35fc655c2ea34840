"""The evidence a plan implies: calls made, resources used, PRP events, artifacts, ``base``.

Everything here is what the runner recorded; the checks in :mod:`.checks` are derived from it.
The trace (identifiers, receipts, wire events) lives in :mod:`.trace`.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cases import PROGRESS_BOUND_MS, JsonObject, Setting, attempt_bound
from .plans import RunPlan
from .randomness import chance, usage_spread

#: Calls a run with an ``extra_call`` flaw may add (never one the case requires).
EXTRA_CALLS = ("search_tasks", "read_document", "list_comments", "report_progress")
#: PRP events a run that never settled cannot have emitted.
SETTLEMENT_EVENTS = frozenset(
    {"run.result.proposed", "run.result.accepted", "run.presentation.resolved", "item.completed"}
)


@dataclass(frozen=True)
class Usage:
    """Resources one run used; None where the run never got that far."""

    attempts: int
    latency_ms: int | None
    tokens: int | None
    cost_usd: float | None
    first_progress_ms: int | None
    settlement_ms: int | None


def _attempts(rng: random.Random, setting: Setting, plan: RunPlan) -> int:
    budget_bound = setting.candidate.spec.budget.max_attempts
    if plan.breach == "attempts":
        return budget_bound + 1
    attempts = 2 if setting.case.id == "restart-recovery" else 1
    while attempts < attempt_bound(setting) and chance(rng, setting.skills.retry_rate):
        attempts += 1
    return attempts


def draw_usage(rng: random.Random, setting: Setting, plan: RunPlan) -> Usage:
    """Latency, tokens, cost and progress timings consistent with the plan and the budget."""
    skills, budget = setting.skills, setting.candidate.spec.budget
    if plan.classification == "skipped":
        return Usage(0, None, None, None, None, None)
    infrastructure_failure = plan.classification == "infrastructure_failure"
    attempts = 1 if infrastructure_failure else _attempts(rng, setting, plan)
    work = setting.traits.effort * (1 + 0.5 * (attempts - 1))
    latency = skills.latency_ms * work * usage_spread(rng)
    tokens = skills.tokens * work * usage_spread(rng)
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
    if infrastructure_failure:
        latency *= rng.uniform(0.1, 0.7)
        partial_tokens = round(tokens * rng.uniform(0.1, 0.6)) if chance(rng, 0.5) else None
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


def _present(pairs: dict[str, Any]) -> JsonObject:
    """``pairs`` without its None values (absent, never null, on the wire)."""
    return {key: value for key, value in pairs.items() if value is not None}


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


def _json_number(value: float) -> int | float:
    """Integral floats as ints, so JSON says ``180000``, not ``180000.0``."""
    return int(value) if float(value).is_integer() else value


def _budget(setting: Setting) -> JsonObject:
    budget = setting.candidate.spec.budget
    return {
        "maxLatencyMs": _json_number(budget.max_latency_ms),
        "maxTotalTokens": _json_number(budget.max_total_tokens),
        "maxCostUsd": _json_number(budget.max_cost_usd),
        "maxAttempts": budget.max_attempts,
    }


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
