"""One run: its plan drawn, its evidence written and its checks derived, as one observation.

The order of the draws below is part of the output: reordering them changes every later run of
the candidate in the bundle.
"""

from __future__ import annotations

import random

from scorecard.contract import OBSERVATION_SCHEMA

from .cases import JsonObject, Setting
from .checks import continuation_evidence, lifecycle_evidence, presentation_evidence, run_statuses
from .evidence import (
    artifact_digests,
    base_observation,
    draw_usage,
    metrics,
    observed_calls,
    prp_event_types,
)
from .plans import plan_run
from .trace import draw_trace, trace_lineage


def simulate_run(rng: random.Random, setting: Setting, *, incident: bool) -> JsonObject:
    """One workflow observation, keys in contract order."""
    plan = plan_run(rng, setting, incident=incident)
    calls = observed_calls(rng, setting, plan)
    usage = draw_usage(rng, setting, plan)
    trace, ids = draw_trace(rng, setting, plan, calls)
    event_types = prp_event_types(rng, setting, plan, calls)
    statuses = run_statuses(rng, setting, plan, calls, usage)
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
