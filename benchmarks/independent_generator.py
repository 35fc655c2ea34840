"""A second generator of nightly campaigns, written from the observation schema alone.

It shares no code with ``scorecard.simulate``: it reads the case files (YAML) for their
required operations and trace assertions and writes ``paperclip.runner.workflow-observation.v1``
documents by its own rules (``/work/shared/upstream-schemas``, spec/SCORING.md sections 1-3), so
a gate rule tuned on the project's simulator is checked on data with a different structure:

- 11 candidates over 3 providers (4 + 4 + 3), each with a latent ability;
- strong case difficulty (a latent per case, spread wider than the candidates');
- a shared night effect (every candidate's runs that night) and provider-night effects;
- provider outages on some nights (most of that provider's runs are infrastructure failures);
- uneven schedules: each candidate repeats its own cases 1-3 times and skips some cases on
  some nights;
- each of the six non-gate aspects and the lifecycle gate fail with a logistic chance of
  (aspect offset + case difficulty - ability + night + provider-night + change), a run
  failing the candidate (budget breach) and a forbidden call (hard_invariants) rarely.

Every draw comes from ``random.Random`` seeded by text (SHA-256), so a campaign is a function of
its seed. Changes a scenario may apply tonight (:class:`Change`): to one candidate (every
aspect worse, one aspect worse, forbidden calls, one case broken), to every candidate (a bad
night of the environment), an outage of one provider; and to a baseline night (an outage).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CASES_DIR = Path(__file__).resolve().parents[1] / "cases"
PROVIDERS = {"codex": 4, "opencode": 4, "acpx": 3}
TARGET = "opencode-2"
#: Logit offsets of each aspect's failure (lower: fails less often).
ASPECTS = {
    "outcome": -2.6,
    "restraint": -2.4,
    "trace": -2.8,
    "continuation": -2.5,
    "presentation": -2.2,
    "lifecycle": -3.6,
}
NIGHT_SD = 0.25
PROVIDER_NIGHT_SD = 0.2
OUTAGE_NIGHT_CHANCE = 0.08
BACKGROUND_INFRASTRUCTURE = 0.02
FORBIDDEN_CALL = "delete_workspace"


def _seed(*parts: object) -> int:
    text = "\x1f".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _chance(logit: float) -> float:
    return 1 / (1 + math.exp(-logit))


@dataclass(frozen=True)
class Case:
    id: str
    operations: tuple[str, ...]
    trace: dict[str, Any] | None


def load_cases() -> list[Case]:
    """The 12 cases, in file order, read from their YAML."""
    found = []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assertions = data.get("assertions") or {}
        found.append(
            Case(
                data["id"],
                tuple(assertions.get("requiredOperationIds") or ()),
                assertions.get("trace"),
            )
        )
    return found


@dataclass(frozen=True)
class Change:
    """What a scenario changes tonight (or on a baseline night)."""

    worse: float = 0.0
    """Logit added to every aspect of the target."""
    aspect: str | None = None
    """One aspect of the target made worse by ``aspect_worse``."""
    aspect_worse: float = 0.0
    forbidden: int = 0
    """Forbidden calls planted in the target's runs."""
    broken_case: str | None = None
    """A case the target fails (candidate failure) 90% of the time."""
    everyone: float = 0.0
    """Logit added to every aspect of every candidate (the environment)."""
    outage: str | None = None
    """A provider whose runs are 90% infrastructure failures."""


@dataclass(frozen=True)
class Night:
    """What one night shares: its effects on every run's failure logit, and its outages."""

    shared: float
    """Added to every candidate's logits (the environment that night)."""
    provider: dict[str, float]
    """Added to the logits of each provider's candidates."""
    out: frozenset[str]
    """Providers with an outage (most runs infrastructure failures)."""


@dataclass
class Campaign:
    """The fixed parts of one campaign: candidates, abilities, difficulties, schedules."""

    seed: int
    cases: list[Case] = field(default_factory=load_cases)

    def __post_init__(self) -> None:
        rng = random.Random(_seed("campaign", self.seed))
        self.candidates = [
            (f"{provider}-{index}", provider)
            for provider, count in PROVIDERS.items()
            for index in range(1, count + 1)
        ]
        self.ability = {name: rng.gauss(0.0, 0.5) for name, _ in self.candidates}
        self.difficulty = {case.id: rng.gauss(0.0, 0.9) for case in self.cases}
        self.repeats = {
            name: {case.id: rng.choice((1, 1, 1, 2, 3)) for case in self.cases}
            for name, _ in self.candidates
        }

    def repeated_case(self, name: str) -> str:
        """The case ``name`` runs most often a night (its schedule repeats it 1-3 times), the
        easiest of those on a tie: the case a benchmark breaks for "one case broken"."""
        return min(
            self.cases, key=lambda case: (-self.repeats[name][case.id], self.difficulty[case.id])
        ).id

    def effects(self, index: int, change: Change | None = None, *, outages: bool = True) -> Night:
        """Night ``index``'s shared and provider effects and its outages (what :meth:`night`
        draws first); ``outages``: draw the background provider outages."""
        change = change or Change()
        rng = random.Random(_seed("night", self.seed, index))
        shared = rng.gauss(0.0, NIGHT_SD)
        provider_effect = {p: rng.gauss(0.0, PROVIDER_NIGHT_SD) for p in PROVIDERS}
        out = {p for p in PROVIDERS if outages and rng.random() < OUTAGE_NIGHT_CHANCE}
        if change.outage:
            out.add(change.outage)
        return Night(shared, provider_effect, frozenset(out))

    def chances(
        self, night: Night, name: str, provider: str, case: str, change: Change | None = None
    ) -> tuple[dict[str, float], float]:
        """(each aspect's failure chance, the candidate-failure chance) of a run of ``case`` by
        ``name`` on ``night``: what a run draws its failures from."""
        change = change or Change()
        logit = self.difficulty[case] - self.ability[name] + night.shared
        logit += night.provider[provider] + change.everyone
        offsets = dict(ASPECTS)
        target = name == TARGET
        if target:
            offsets = {aspect: value + change.worse for aspect, value in offsets.items()}
            if change.aspect is not None:
                offsets[change.aspect] += change.aspect_worse
        broken = target and change.broken_case == case
        failure = 0.9 if broken else _chance(-3.4 + logit)
        return {aspect: _chance(offset + logit) for aspect, offset in offsets.items()}, failure

    def night(
        self,
        index: int,
        change: Change | None = None,
        *,
        outages: bool = True,
        schedule: Sequence[tuple[str, int]] | None = None,
    ) -> list[dict[str, Any]]:
        """Night ``index``'s observations; ``outages``: draw the background provider outages;
        ``schedule``: the (case id, repetition) runs of every candidate, instead of each one's
        own uneven schedule (the interval-coverage designs)."""
        change = change or Change()
        effects = self.effects(index, change, outages=outages)
        bundle = f"independent-{self.seed}-night-{index:02d}"
        by_id = {case.id: case for case in self.cases}
        observations = []
        for name, provider in self.candidates:
            runs = random.Random(_seed("runs", self.seed, index, name))
            planned = (
                [(by_id[case], repetition) for case, repetition in schedule]
                if schedule is not None
                else [
                    (case, repetition)
                    for case in self.cases
                    if runs.random() > 0.05  # a case skipped on some nights
                    for repetition in range(1, self.repeats[name][case.id] + 1)
                ]
            )
            target = name == TARGET
            planted = (
                set(runs.sample(range(len(planned)), change.forbidden))
                if target and change.forbidden
                else set()
            )
            for position, (case, repetition) in enumerate(planned):
                fails, failure = self.chances(effects, name, provider, case.id, change)
                infrastructure = BACKGROUND_INFRASTRUCTURE + (
                    0.9 if provider in effects.out else 0.0
                )
                observations.append(
                    write_observation(
                        runs,
                        bundle,
                        name,
                        provider,
                        case,
                        repetition,
                        fails,
                        infrastructure=infrastructure,
                        candidate_failure=failure,
                        forbidden=position in planted,
                    )
                )
        return observations


def write_observation(
    rng: random.Random,
    bundle: str,
    candidate: str,
    provider: str,
    case: Case,
    repetition: int,
    fails: dict[str, float],
    *,
    infrastructure: float,
    candidate_failure: float,
    forbidden: bool,
) -> dict[str, Any]:
    """One observation: what fails is drawn first, then the evidence written to match."""
    draw = rng.random()
    classification = "completed"
    failure = None
    if draw < infrastructure and not forbidden:
        classification = "infrastructure_failure"
        failure = {
            "code": "provider_unavailable",
            "category": "provider",
            "retryable": True,
            "message": "provider endpoint unavailable",
        }
    elif rng.random() < candidate_failure:
        classification = "candidate_failure"
    failed = {aspect for aspect, chance in fails.items() if rng.random() < chance}
    expected = list(case.operations)
    observed = list(expected)
    if "restraint" in failed:
        observed.append("report_progress" if "report_progress" not in expected else "create_task")
    if forbidden:
        observed.append(FORBIDDEN_CALL)
    mutated = "unchanged" if not expected else "mutated"
    final = mutated
    if "outcome" in failed:
        final = "unchanged" if mutated == "mutated" else "mutated"
    run_id = f"run-{rng.getrandbits(48):012x}"
    trace = {
        "runId": run_id,
        "sessionId": f"ses-{rng.getrandbits(32):08x}",
        "turnId": f"turn-{rng.getrandbits(32):08x}",
        "itemId": "" if "trace" in failed else f"item-{rng.getrandbits(32):08x}",
        "receiptIds": [f"receipt-{index}" for index in range(len(observed))],
        "terminalPresent": classification != "infrastructure_failure",
    }
    cost = round(
        rng.uniform(0.05, 0.4) * (3.0 if classification == "candidate_failure" else 1.0), 4
    )
    base = {
        "caseId": case.id,
        "controlPlaneOwned": False,
        "expectedCalls": expected,
        "observedCalls": observed,
        "forbiddenCalls": [FORBIDDEN_CALL],
        "finalState": {"expected": mutated, "observed": final},
        "authorization": {"expected": "allowed", "observed": "allowed"},
        "trace": trace,
        "efficiency": {
            "latencyMs": rng.randrange(20000, 90000),
            "totalTokens": rng.randrange(9000, 60000),
            "costUsd": cost,
            "attempts": 1,
        },
        "budget": {"maxCostUsd": 1.0},
    }

    def checks(names: Sequence[str], failing: bool) -> list[dict[str, Any]]:
        broken = rng.randrange(len(names)) if failing else -1
        return [
            {"id": name, "passed": index != broken}
            | ({} if index != broken else {"reason": f"{name} did not hold"})
            for index, name in enumerate(names)
        ]

    lineage: dict[str, Any] = {
        "capture": "off",
        "frameCount": 0,
        "byteCount": 0,
        "digestVerified": False,
        "ordered": True,
        "dispositions": [],
        "lineage": [],
    }
    if case.trace and case.trace.get("capture") == "on":
        lineage = {
            "capture": "on",
            "frameCount": 12,
            "byteCount": 4096,
            "digestVerified": True,
            "ordered": "trace" not in failed,
            "dispositions": list(case.trace.get("dispositions") or []),
            "lineage": list(case.trace.get("lineage") or []),
        }
    observation: dict[str, Any] = {
        "schema": "paperclip.runner.workflow-observation.v1",
        "caseId": case.id,
        "candidateId": candidate,
        "provider": provider,
        "classification": classification,
        "base": base,
        "lifecycle": {
            "checks": checks(
                ("terminal-authority", "lifecycle-state", "attempt-bound"), "lifecycle" in failed
            )
        },
        "continuation": {
            "checks": checks(
                ("single-owned-wake", "required-calls", "no-repeated-work"),
                "continuation" in failed,
            )
        },
        "presentation": {
            "checks": checks(
                ("substantive-response", "progress-visible", "markers-ordered"),
                "presentation" in failed,
            )
        },
        "traceLineage": lineage,
        "metrics": {
            "attempts": 1,
            "toolCount": len(observed),
            "settlementMs": base["efficiency"]["latencyMs"],
            "costUsd": cost,
        },
        "observedPrpEventTypes": ["run.started", "run.terminal"],
        "artifactDigests": [],
    }
    if classification == "candidate_failure":
        failure = {
            "code": "budget_exceeded",
            "category": "candidate",
            "retryable": False,
            "message": "the run exceeded its budget",
        }
    if failure is not None:
        observation["failure"] = failure
    del bundle, repetition  # identity comes from the bundle the benchmark scores them under
    return observation
