"""The fast path of ``scorecard score`` for the usual line: plain, plainly valid, ``jsonl`` out.

A JSON Lines record that :func:`scorecard.recognize.decode_plain_observation` accepts is scored
by the C extension ``scorecard._fastscore`` (scoring, the audit's failed count and the scorecard
line in one call); :meth:`FastScorer.score` returns the line and the run tally. Everything else
(an error, an unknown field, a secret-shaped id, a line written in another field order) returns
None and takes the general path of :mod:`scorecard.pipeline`, which stays the definition:
``tests/test_fastpath.py`` checks that both give the same bytes and tallies. Without the
compiled extension (a platform without a C compiler) :func:`fast_scorer` returns None and every
line takes the general path. ``docs/performance.md`` explains the design.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from .catalog import Catalog
from .jsformat import format_js_number
from .lines import dimension_json, json_scalar, json_string, reason_json
from .models import DIMENSIONS, GATE_DIMENSIONS, SCORECARD_V2_SCHEMA, WorkflowCase
from .pipeline import Tally
from .policy import DEFAULT_WEIGHTS, Policy
from .recognize import PlainObservation, decode_plain_observation
from .scoring import UNSCOREABLE_REASON
from .secrets import matches_reference_secret
from .validation import JS_WHITESPACE, identifier_secret

try:
    from . import _fastscore
except ImportError:  # pragma: no cover - built by every install that has a C compiler
    _fastscore = None  # type: ignore[assignment]

__all__ = ["FastScorer", "case_plan", "compiled", "fast_scorer", "policy_plan"]

_SAFE = 2**53
_UNSCOREABLE = ("infrastructure_failure", "skipped")
_HEADS_LIMIT = 4096

if _fastscore is not None:
    _fastscore.configure(UNSET, reason_json, json_string, format_js_number)


def case_plan(case: WorkflowCase) -> tuple[Any, ...]:
    """What the C scorer needs of a case, in the order ``_fastscore.c`` reads it."""
    assertions = case.assertions
    trace = assertions.trace

    def items(values: list[str] | None) -> tuple[str, ...]:
        return tuple(values or ())

    return (
        case.id,
        trace is not None,
        trace.capture if trace is not None else "either",
        items(trace.dispositions if trace is not None else None),
        items(trace.lineage if trace is not None else None),
        assertions.issue_status,
        assertions.run_status,
        assertions.semantic_disposition,
        assertions.max_attempts,
        assertions.max_runs,
        assertions.recovery_owner,
        assertions.comment_count,
        assertions.response_source,
        items(assertions.ordered_markers),
        items(assertions.required_prp_event_types),
        items(assertions.forbidden_prp_event_types),
        items(assertions.required_activity_families),
        items(assertions.artifact_digests),
        items(assertions.required_operation_ids),
        trace.digest_verified if trace is not None else None,
        trace.ordered if trace is not None else None,
        tuple(case.providers),
    )


def _exact_double(value: object) -> float | None:
    """``value`` as the double Python arithmetic would use, when that conversion is exact."""
    if type(value) is float:
        return value
    if type(value) is int and -_SAFE <= value <= _SAFE:
        return float(value)
    return None


def policy_plan(policy: Policy) -> tuple[tuple[Any, ...], ...] | None:
    """Per dimension (head, gate, weight, weight text, threshold, unscoreable entry), or None
    when a weight or threshold is a number doubles cannot stand for exactly."""
    plan = []
    for name in DIMENSIONS:
        gate = name in GATE_DIMENSIONS
        weight = _exact_double(policy.weights[name])
        threshold = _exact_double(policy.thresholds[name])
        if weight is None or threshold is None:
            return None
        unscoreable = dimension_json(
            name,
            {
                "dimension": name,
                "score": None,
                "passed": None,
                "gate": gate,
                "weight": DEFAULT_WEIGHTS[name],
                "reasons": [UNSCOREABLE_REASON],
            },
        )
        head = f'{json_string(name)}:{{"dimension":{json_string(name)},"score":'
        weight_text = json_scalar(0 if gate else policy.weights[name])
        plan.append((head, gate, weight, weight_text, threshold, unscoreable))
    return tuple(plan)


class FastScorer:
    """Scores plain JSON Lines records of one catalog and policy in compiled code."""

    def __init__(self, catalog: Catalog, policy_plan: tuple[Any, ...]) -> None:
        self._plans: dict[str, tuple[Any, ...]] = {
            case.id: case_plan(case) for case in catalog.cases.values()
        }
        self._policy = policy_plan
        self._heads: dict[tuple[str, str], str] = {}
        self._score_line = _fastscore.score_line

    def _head(self, bundle_id: str, case_id: str) -> str:
        key = (bundle_id, case_id)
        head = self._heads.get(key)
        if head is None:
            if len(self._heads) >= _HEADS_LIMIT:
                self._heads.clear()
            head = self._heads[key] = (
                f'{{"schema":{json_string(SCORECARD_V2_SCHEMA)},"bundleId":{json_string(bundle_id)},'
                f'"caseId":{json_string(case_id)},"candidateId":'
            )
        return head

    def score(self, raw: bytes, bundle_id: str) -> tuple[Tally, str] | None:
        """(tally, scorecard line) of one JSON Lines record, or None: take the general path."""
        observation = decode_plain_observation(raw)
        if observation is None or not _passes_contract(observation):
            return None
        case_id = observation.caseId
        plan = self._plans.get(case_id)
        if plan is None:
            return None
        scored = self._score_line(observation, plan, self._policy, self._head(bundle_id, case_id))
        if scored is None:
            return None
        line, unscoreable, gate_failed, audit_failed = scored
        tally = Tally(
            bundle_id, observation.candidateId, case_id, unscoreable, gate_failed, audit_failed, ()
        )
        return tally, line


def _passes_contract(observation: PlainObservation) -> bool:
    """SCORING.md 1.2, 1.3 and 1.5 (and the engine's secret-shaped id rule); the C scorer checks
    1.4. False sends the record to the general path, which reports the error."""
    candidate = observation.candidateId
    if not candidate.strip(JS_WHITESPACE):
        return False
    if (
        identifier_secret(candidate) is not None
        or identifier_secret(observation.provider) is not None
    ):
        return False
    failure = observation.failure
    if failure is UNSET:
        return observation.classification not in _UNSCOREABLE
    return not matches_reference_secret(failure.message)


def compiled() -> bool:
    """Whether the C extension was built (``pip install`` compiles it where a compiler is)."""
    return _fastscore is not None


def fast_scorer(catalog: Catalog, policy: Policy) -> FastScorer | None:
    """A fast scorer for this catalog and policy, or None when it cannot serve them."""
    if _fastscore is None:
        return None
    plan = policy_plan(policy)
    return None if plan is None else FastScorer(catalog, plan)
