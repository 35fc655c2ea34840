"""The campaign roster: candidates, their budgets and latent skills, and the planted regression.

A candidate's :class:`Skills` are the chances that one of its runs is clean per scored aspect,
plus its typical costs; every run of that candidate is drawn from them.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any

from scorecard.contract import CandidateBudget, CandidateSpec

#: The candidate whose runs regress in the newest bundle.
REGRESSED_CANDIDATE = "opencode-glm"


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
    outage: float = 0.0
    """Extra chance that the provider's infrastructure fails a run (an outage: 0 normally)."""


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
    spec: dict[str, Any] = {
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


def regress(skills: Skills) -> Skills:
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


def degrade(skills: Skills, factor: float) -> Skills:
    """Flaw chances (1 - skill, per quality aspect) and the candidate-failure rate times
    ``factor``: a candidate's regression, or, applied to every candidate, a bad night of the
    environment they share."""
    aspects = ("outcome", "restraint", "tracing", "continuation", "presentation", "discipline")
    worse = {name: max(0.0, 1 - factor * (1 - getattr(skills, name))) for name in aspects}
    return dataclasses.replace(skills, failure_rate=skills.failure_rate * factor, **worse)


def worsen(skills: Skills, amount: float) -> Skills:
    """Every quality aspect's clean chance ``amount`` lower and the candidate-failure rate
    ``amount`` / 2 higher: what a bad night of a shared environment does to every candidate
    alike (an additive shift, unlike :func:`degrade`, which hits weak candidates harder)."""
    aspects = ("outcome", "restraint", "tracing", "continuation", "presentation", "discipline")
    worse = {name: max(0.0, getattr(skills, name) - amount) for name in aspects}
    return dataclasses.replace(skills, failure_rate=skills.failure_rate + amount / 2, **worse)


def with_outage(skills: Skills, share: float) -> Skills:
    """``skills`` on a night its provider's infrastructure fails ``share`` more of its runs."""
    return dataclasses.replace(skills, outage=share)


def drift(rng: random.Random, skills: Skills) -> Skills:
    """Night-to-night wobble of a candidate's quality aspects (no trend)."""
    aspects = ("outcome", "restraint", "tracing", "continuation", "presentation")
    changes = {
        name: min(0.99, getattr(skills, name) + rng.uniform(-0.015, 0.015)) for name in aspects
    }
    return dataclasses.replace(skills, **changes)
