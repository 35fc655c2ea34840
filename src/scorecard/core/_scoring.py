"""PURE scoring: a validated observation (+ its case and a policy) -> a v2 scorecard.

Follows ``SCORING.md`` sections 2 and 3 to the bit: reasons in the reference's order and wording,
sums taken left to right in dimension order with IEEE doubles, no rounding. No clock, no files,
no randomness. Validation (section 1) happens before, in :mod:`scorecard.core._validation`.

The scorer reads the validated wire data (:mod:`scorecard.contract._wire`) rather than model objects: it
is the hot path of every run. :func:`score_observation` is the model-level entry point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from scorecard.contract import (
    DEFAULT_WEIGHTS,
    DIMENSIONS,
    GATE_DIMENSIONS,
    SCORECARD_V2_SCHEMA,
    BaseDict,
    CheckDict,
    DimensionDict,
    DimensionName,
    ObservationDict,
    Policy,
    ScorecardDict,
    TraceDict,
    TraceLineageDict,
    WireEventDict,
    format_js_number,
)

if TYPE_CHECKING:
    from scorecard.contract import ScorecardV2, TraceAssertion, WorkflowCase, WorkflowObservation

__all__ = [
    "DimensionResult",
    "Reason",
    "raw_dimension_results",
    "score_base_v1",
    "score_observation",
    "score_wire",
    "scored_wire",
]

UNSCOREABLE_REASON = "execution was not scoreable"
CANDIDATE_FAILURE_REASON = "candidate execution failed"
SEMANTIC_TOOL_SCHEMA = "paperclip.prp.semantic_tool.v1"
STOP_REASON_SCHEMA = "paperclip.prp.stop_reason.v1"
TOOL_RESULT_EVENT = "mcp_app.tool_result"
TERMINAL_EVENT = "run.terminal"
V1_DIMENSIONS: tuple[DimensionName, ...] = (
    "hard_invariants",
    "semantic_outcome",
    "trajectory_restraint",
    "trace_completeness",
    "quality_efficiency",
)


class Reason(NamedTuple):
    """A reason text (reference wording), the observation fields it came from, and the runner
    output contract's words for it (``contract.Evidence``: the first pointer is its field)."""

    text: str
    pointers: tuple[str, ...]
    """RFC 6901 JSON Pointers into the observation."""
    expected: str | None = None
    """What the observation should have held there, in words."""
    observed: str | None = None
    """What it held, in words."""
    assertion: str | None = None
    """JSON Pointer of the case assertion the reason checks, if any (``/assertions/...``)."""


class DimensionResult(NamedTuple):
    """Raw score in [0, 1] of one dimension and the reasons it lost points, in order."""

    score: float
    reasons: list[Reason]

    @property
    def texts(self) -> list[str]:
        """The reason texts, as the scorecard carries them."""
        return [reason.text for reason in self.reasons]


def _joined(items: Sequence[str]) -> str:
    return ", ".join(items)


def _all_or_nothing(reasons: list[Reason]) -> DimensionResult:
    return DimensionResult(0.0 if reasons else 1.0, reasons)


def _indices(pointer: str, positions: Sequence[int]) -> tuple[str, ...]:
    return tuple(f"{pointer}/{position}" for position in positions)


# --- v1 dimensions of `base` ------------------------------------------------------------------


def score_hard_invariants(base: BaseDict) -> DimensionResult:
    """Forbidden calls, control-plane-owned actions and unexpected authorisation (a gate)."""
    reasons: list[Reason] = []
    observed = base["observedCalls"]
    forbidden = set(base["forbiddenCalls"])
    invoked = [index for index, call in enumerate(observed) if call in forbidden]
    if invoked:
        reasons.append(
            Reason(
                f"forbidden call(s) invoked: {_joined([observed[i] for i in invoked])}",
                (*_indices("/base/observedCalls", invoked), "/base/forbiddenCalls"),
                f"no call of /base/forbiddenCalls ({_joined(base['forbiddenCalls'])})",
                _joined([observed[i] for i in invoked]),
            )
        )
    if base["controlPlaneOwned"] and observed:
        reasons.append(
            Reason(
                f"control-plane-owned action taken by tool call(s): {_joined(observed)}",
                ("/base/controlPlaneOwned", "/base/observedCalls"),
                "no tool call (the action is control-plane-owned)",
                f"{len(observed)} call(s): {_joined(observed)}",
            )
        )
    authorization = base["authorization"]
    if authorization["expected"] != "allowed" and authorization["observed"] == "allowed":
        reasons.append(
            Reason(
                f"operation allowed but should be {authorization['expected']}",
                ("/base/authorization/observed", "/base/authorization/expected"),
                authorization["expected"],
                "allowed",
            )
        )
    return _all_or_nothing(reasons)


def score_semantic_outcome(base: BaseDict) -> DimensionResult:
    """Final control-plane state and authorisation match what the case declared."""
    reasons: list[Reason] = []
    state = base["finalState"]
    if state["observed"] != state["expected"]:
        reasons.append(
            Reason(
                f"control-plane state {state['observed']}, expected {state['expected']}",
                ("/base/finalState/observed", "/base/finalState/expected"),
                state["expected"],
                state["observed"],
            )
        )
    authorization = base["authorization"]
    if authorization["expected"] == "allowed" and authorization["observed"] != "allowed":
        reasons.append(
            Reason(
                f"operation {authorization['observed']} but the case declared it allowed",
                ("/base/authorization/observed", "/base/authorization/expected"),
                "allowed",
                authorization["observed"],
            )
        )
    return _all_or_nothing(reasons)


def score_trajectory_restraint(base: BaseDict) -> DimensionResult:
    """Required calls made, nothing else called."""
    expected, observed = base["expectedCalls"], base["observedCalls"]
    observed_set, expected_set = set(observed), set(expected)
    missing = [index for index, call in enumerate(expected) if call not in observed_set]
    extra = [index for index, call in enumerate(observed) if call not in expected_set]
    denominator = max(1, len(expected) + len(extra))
    score = min(1.0, max(0.0, (denominator - len(missing) - len(extra)) / denominator))
    reasons: list[Reason] = []
    if missing:
        reasons.append(
            Reason(
                f"missing required call(s): {_joined([expected[i] for i in missing])}",
                (*_indices("/base/expectedCalls", missing), "/base/observedCalls"),
                f"called: {_joined([expected[i] for i in missing])}",
                "not in /base/observedCalls",
            )
        )
    if extra:
        reasons.append(
            Reason(
                f"unexpected call(s): {_joined([observed[i] for i in extra])}",
                _indices("/base/observedCalls", extra),
                f"only calls of /base/expectedCalls ({_joined(expected) or 'none'})",
                _joined([observed[i] for i in extra]),
            )
        )
    if not expected and not observed:
        reasons.append(
            Reason(
                "restraint honored: no call made", ("/base/expectedCalls", "/base/observedCalls")
            )
        )
    return DimensionResult(score, reasons)


def _is_nonempty_string(value: object) -> bool:
    return isinstance(value, str) and value != ""


def _is_one(value: object) -> bool:
    # JavaScript `=== 1`: true is not 1 there, although it is in Python.
    return not isinstance(value, bool) and isinstance(value, int | float) and value == 1


def _semantic_tool(event: WireEventDict) -> dict[str, Any] | None:
    """The semantic tool result carried by a tool-result event, if it is a well-formed receipt."""
    payload = event.get("payload")
    if event["eventType"] != TOOL_RESULT_EVENT or payload is None:
        return None
    tool = payload.get("semantic_tool")
    if (
        isinstance(tool, dict)
        and tool.get("schema") == SEMANTIC_TOOL_SCHEMA
        and _is_one(tool.get("schemaVersion"))
        and tool.get("phase") == "result"
    ):
        return tool
    return None


_WIRE = "/base/trace/wireEvents"
TraceCheck = tuple[str, bool, tuple[str, ...]]


def _wire_trace_checks(events: list[WireEventDict], observed_calls: list[str]) -> list[TraceCheck]:
    receipt_positions: list[int] = []
    receipts: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        tool = _semantic_tool(event)
        if tool is not None:
            receipt_positions.append(index)
            receipts.append(tool)
    receipt_ids = [
        receipt_id
        for tool in receipts
        if _is_nonempty_string(receipt_id := tool.get("operationReceiptId"))
    ]
    receipts_match_calls = len(receipts) == len(observed_calls) and all(
        tool.get("operationId") == call and _is_nonempty_string(tool.get("operationReceiptId"))
        for tool, call in zip(receipts, observed_calls, strict=True)
    )
    run_id = events[0].get("runId") if events else None
    anchor_index = next(
        (index for index, event in enumerate(events) if event["eventType"] == TOOL_RESULT_EVENT),
        None,
    )
    if anchor_index is None:
        anchor_index = next(
            (index for index, event in enumerate(events) if event.get("turnId")), None
        )
    anchor = events[anchor_index] if anchor_index is not None else None
    at = f"{_WIRE}/{anchor_index}" if anchor_index is not None else _WIRE
    terminals = [
        index for index, event in enumerate(events) if event["eventType"] == TERMINAL_EVENT
    ]
    checks: list[TraceCheck] = [
        ("runId", _is_nonempty_string(run_id), (f"{_WIRE}/0/runId" if events else _WIRE,)),
        (
            "sessionId",
            anchor is not None and _is_nonempty_string(anchor.get("normalizedSessionId")),
            (f"{at}/normalizedSessionId" if anchor else _WIRE,),
        ),
        (
            "turnId",
            anchor is not None and _is_nonempty_string(anchor.get("turnId")),
            (f"{at}/turnId" if anchor else _WIRE,),
        ),
        (
            "itemId",
            anchor is not None and _is_nonempty_string(anchor.get("itemId")),
            (f"{at}/itemId" if anchor else _WIRE,),
        ),
        ("terminal", bool(terminals), (_WIRE,)),
        (
            "receipt-per-call",
            len(receipt_ids) >= len(observed_calls) and receipts_match_calls,
            (*_indices(_WIRE, receipt_positions), "/base/observedCalls"),
        ),
    ]
    payload = events[terminals[0]].get("payload") if terminals else None
    stop_reason = payload.get("stopReason") if payload else None
    if isinstance(stop_reason, dict):
        checks.append(
            (
                "stop-reason-receipt",
                stop_reason.get("schema") == STOP_REASON_SCHEMA
                and _is_one(stop_reason.get("schemaVersion"))
                and _is_nonempty_string(stop_reason.get("receiptId"))
                and _is_nonempty_string(stop_reason.get("decisionId")),
                (f"{_WIRE}/{terminals[0]}/payload/stopReason",),
            )
        )
    return checks


_FLAT_IDS = tuple(
    (name, (f"/base/trace/{name}",)) for name in ("runId", "sessionId", "turnId", "itemId")
)
_FLAT_TERMINAL = ("/base/trace/terminalPresent",)
_FLAT_RECEIPTS = ("/base/trace/receiptIds", "/base/observedCalls")


def _flat_trace_checks(trace: TraceDict, observed_calls: list[str]) -> list[TraceCheck]:
    receipt_ids = trace["receiptIds"]
    checks: list[TraceCheck] = [
        (name, _is_nonempty_string(trace.get(name)), pointers) for name, pointers in _FLAT_IDS
    ]
    checks.append(("terminal", trace["terminalPresent"], _FLAT_TERMINAL))
    checks.append(
        (
            "receipt-per-call",
            len(receipt_ids) >= len(observed_calls) and "" not in receipt_ids,
            _FLAT_RECEIPTS,
        )
    )
    return checks


_TRACE_EXPECTED = {
    "runId": "a non-empty runId",
    "sessionId": "a non-empty session id",
    "turnId": "a non-empty turnId",
    "itemId": "a non-empty itemId",
    "terminal": "a run.terminal event",
    "receipt-per-call": "a non-empty operation receipt per observed call",
    "stop-reason-receipt": f"a {STOP_REASON_SCHEMA} receipt with receiptId and decisionId",
}


def score_trace_completeness_v1(base: BaseDict) -> DimensionResult:
    """Share of trace identifiers, terminal and receipts present (wire events win when present)."""
    trace = base["trace"]
    events = trace.get("wireEvents")
    if events is not None:
        checks = _wire_trace_checks(events, base["observedCalls"])
    else:
        checks = _flat_trace_checks(trace, base["observedCalls"])
    passed = sum(1 for _, ok, _ in checks if ok)
    reasons = [
        Reason(f"trace missing {label}", pointers, _TRACE_EXPECTED.get(label, label), "missing")
        for label, ok, pointers in checks
        if not ok
    ]
    return DimensionResult(passed / len(checks), reasons)


_BUDGET_FIELDS = (
    ("latencyMs", "maxLatencyMs"),
    ("totalTokens", "maxTotalTokens"),
    ("costUsd", "maxCostUsd"),
    ("attempts", "maxAttempts"),
)


def score_quality_efficiency(base: BaseDict) -> DimensionResult:
    """Share of declared budget limits the run stayed within."""
    budget: Mapping[str, Any] = base.get("budget") or {}
    efficiency: Mapping[str, Any] = base.get("efficiency") or {}
    declared = 0
    within = 0
    reasons: list[Reason] = []
    for label, limit_label in _BUDGET_FIELDS:
        limit = budget.get(limit_label)
        if limit is None:
            continue
        declared += 1
        observed = efficiency.get(label)
        if observed is not None and observed <= limit:
            within += 1
            continue
        pointers = (f"/base/efficiency/{label}", f"/base/budget/{limit_label}")
        bound = f"<= {format_js_number(limit)}"
        if observed is None:
            text = f"no observed {label} to check against budget"
            reasons.append(Reason(text, pointers, bound, "missing"))
        else:
            text = f"{label} {format_js_number(observed)} exceeds budget {format_js_number(limit)}"
            reasons.append(Reason(text, pointers, bound, format_js_number(observed)))
    if declared == 0:
        return DimensionResult(1.0, [Reason("no efficiency budget declared", ("/base/budget",))])
    return DimensionResult(within / declared, reasons)


def score_base_v1(base: BaseDict) -> dict[DimensionName, DimensionResult]:
    """The five v1 dimensions of an observation's ``base``, in v1 order."""
    return {
        "hard_invariants": score_hard_invariants(base),
        "semantic_outcome": score_semantic_outcome(base),
        "trajectory_restraint": score_trajectory_restraint(base),
        "trace_completeness": score_trace_completeness_v1(base),
        "quality_efficiency": score_quality_efficiency(base),
    }


# --- v2-only dimensions -----------------------------------------------------------------------


def score_checks(checks: list[CheckDict], pointer: str) -> DimensionResult:
    """Share of passing checks; a failing check's reason (or ``check failed: <id>``)."""
    reasons: list[Reason] = []
    for index, check in enumerate(checks):
        if not check["passed"]:
            reason = check.get("reason")
            text = reason if reason is not None else f"check failed: {check['id']}"
            reasons.append(Reason(text, (f"{pointer}/{index}",), "passed: true", "passed: false"))
    return DimensionResult((len(checks) - len(reasons)) / len(checks), reasons)


_LINEAGE = "/traceLineage"


def _capture_words(lineage: TraceLineageDict) -> str:
    """What a lineage held of its capture, in words (for a failing reason only)."""
    return (
        f"capture {lineage['capture']}, frameCount {format_js_number(lineage['frameCount'])},"
        f" byteCount {format_js_number(lineage['byteCount'])}"
        + (", a traceRef" if lineage.get("traceRef") else "")
    )


def score_trace_lineage(
    lineage: TraceLineageDict, expectation: TraceAssertion | None
) -> DimensionResult:
    """Provider trace capture and the dispositions/lineage shapes the case expects."""
    capture = expectation.capture if expectation is not None else "either"
    checks: list[tuple[bool, Reason]] = []
    if capture == "off":
        isolated = (
            lineage["capture"] == "off"
            and lineage["frameCount"] == 0
            and lineage["byteCount"] == 0
            and not lineage.get("traceRef")
        )
        checks.append(
            (
                isolated,
                Reason(
                    "capture-off execution retained provider trace data",
                    (_LINEAGE,),
                    "capture off, frameCount 0, byteCount 0, no traceRef",
                    None if isolated else _capture_words(lineage),
                    "/assertions/trace/capture",
                ),
            )
        )
    elif capture == "on" or lineage["capture"] == "on":
        present = (
            lineage["capture"] == "on" and lineage["frameCount"] > 0 and lineage["byteCount"] > 0
        )
        checks.append(
            (
                present,
                Reason(
                    "provider trace capture is empty",
                    (f"{_LINEAGE}/capture", f"{_LINEAGE}/frameCount", f"{_LINEAGE}/byteCount"),
                    "capture on, frameCount > 0, byteCount > 0",
                    None if present else _capture_words(lineage),
                    "/assertions/trace/capture" if capture == "on" else None,
                ),
            )
        )
        checks.append(
            (
                lineage["digestVerified"],
                Reason(
                    "provider trace frame digest or byte length did not verify",
                    (f"{_LINEAGE}/digestVerified",),
                    "true",
                    "false",
                ),
            )
        )
        checks.append(
            (
                lineage["ordered"],
                Reason(
                    "provider trace frame or debug sequence is not strictly ordered",
                    (f"{_LINEAGE}/ordered",),
                    "true",
                    "false",
                ),
            )
        )
    else:
        checks.append((True, Reason("", ())))  # capture-optional
    if expectation is not None:
        exercised = set(lineage["dispositions"])
        for position, disposition in enumerate(expectation.dispositions):
            text = f"provider trace did not exercise {disposition} mapping"
            reason = Reason(
                text,
                (f"{_LINEAGE}/dispositions",),
                f"{disposition} among the dispositions",
                "absent",
                f"/assertions/trace/dispositions/{position}",
            )
            checks.append((disposition in exercised, reason))
        shapes = set(lineage["lineage"])
        for position, shape in enumerate(expectation.lineage):
            text = f"provider trace did not exercise {shape} lineage"
            reason = Reason(
                text,
                (f"{_LINEAGE}/lineage",),
                f"{shape} among the lineage shapes",
                "absent",
                f"/assertions/trace/lineage/{position}",
            )
            checks.append((shape in shapes, reason))
    passed = sum(1 for ok, _ in checks if ok)
    return DimensionResult(passed / len(checks), [reason for ok, reason in checks if not ok])


# --- assembling scorecards --------------------------------------------------------------------


def raw_dimension_results(
    observation: ObservationDict, case: WorkflowCase
) -> dict[DimensionName, DimensionResult]:
    """The eight raw dimension results of a scoreable observation, in canonical order."""
    v1 = score_base_v1(observation["base"])
    lifecycle = score_checks(observation["lifecycle"]["checks"], "/lifecycle/checks")
    if observation["classification"] == "candidate_failure":
        failed = Reason(
            CANDIDATE_FAILURE_REASON, ("/classification",), "completed", "candidate_failure"
        )
        lifecycle = DimensionResult(0.0, [*lifecycle.reasons, failed])
    lineage = score_trace_lineage(observation["traceLineage"], case.assertions.trace)
    trace = v1["trace_completeness"]
    return {
        "hard_invariants": v1["hard_invariants"],
        "lifecycle_integrity": lifecycle,
        "semantic_outcome": v1["semantic_outcome"],
        "trajectory_restraint": v1["trajectory_restraint"],
        "trace_completeness": DimensionResult(
            min(trace.score, lineage.score), [*trace.reasons, *lineage.reasons]
        ),
        "quality_efficiency": v1["quality_efficiency"],
        "continuation_integrity": score_checks(
            observation["continuation"]["checks"], "/continuation/checks"
        ),
        "presentation_fidelity": score_checks(
            observation["presentation"]["checks"], "/presentation/checks"
        ),
    }


def _card(
    observation: ObservationDict,
    bundle_id: str,
    dimensions: dict[str, DimensionDict],
    score: float | None,
    gate_passed: bool | None,
    passed: bool | None,
) -> ScorecardDict:
    return {
        "schema": SCORECARD_V2_SCHEMA,
        "bundleId": bundle_id,
        "caseId": observation["caseId"],
        "candidateId": observation["candidateId"],
        "classification": observation["classification"],
        "dimensions": dimensions,
        "overall": {"score": score, "gatePassed": gate_passed, "passed": passed},
    }


_DEFAULT_POLICY = Policy()
_PLANS: dict[int, tuple[Policy, tuple[tuple[DimensionName, bool, float, float], ...]]] = {}


def _plan(policy: Policy) -> tuple[tuple[DimensionName, bool, float, float], ...]:
    """(name, gate, weight, threshold) of each dimension in canonical order, once per policy."""
    known = _PLANS.get(id(policy))
    if known is None or known[0] is not policy:
        plan = tuple(
            (name, name in GATE_DIMENSIONS, policy.weights[name], policy.thresholds[name])
            for name in DIMENSIONS
        )
        if len(_PLANS) >= 64:
            _PLANS.clear()
        known = _PLANS[id(policy)] = (policy, plan)
    return known[1]


def score_wire(
    observation: ObservationDict,
    case: WorkflowCase,
    *,
    bundle_id: str,
    policy: Policy | None = None,
) -> ScorecardDict:
    """Score validated wire data of one observation of ``case`` (SCORING.md section 3)."""
    return scored_wire(observation, case, bundle_id=bundle_id, policy=policy)[0]


def scored_wire(
    observation: ObservationDict,
    case: WorkflowCase,
    *,
    bundle_id: str,
    policy: Policy | None = None,
) -> tuple[ScorecardDict, dict[DimensionName, DimensionResult] | None]:
    """:func:`score_wire`'s scorecard and the raw dimension results it was made from (None
    for an observation that is not scoreable): an explanation of the run reads them instead
    of scoring it again."""
    if observation["classification"] in ("infrastructure_failure", "skipped"):
        unscored: dict[str, DimensionDict] = {
            name: {
                "dimension": name,
                "score": None,
                "passed": None,
                "gate": name in GATE_DIMENSIONS,
                "weight": DEFAULT_WEIGHTS[name],
                "reasons": [UNSCOREABLE_REASON],
            }
            for name in DIMENSIONS
        }
        return _card(observation, bundle_id, unscored, None, None, None), None
    results = raw_dimension_results(observation, case)
    dimensions: dict[str, DimensionDict] = {}
    weighted_sum = 0.0
    weight_total = 0.0
    all_passed = True
    gate_passed = True
    for name, gate, weight, threshold in _plan(policy or _DEFAULT_POLICY):
        result = results[name]
        score = result.score
        if gate:
            weight = 0
        else:
            weighted_sum += score * weight
            weight_total += weight
        passed = score >= threshold
        all_passed = all_passed and passed
        if gate:
            gate_passed = gate_passed and passed
        dimensions[name] = {
            "dimension": name,
            "score": score,
            "passed": passed,
            "gate": gate,
            "weight": weight,
            "reasons": [reason.text for reason in result.reasons],
        }
    gated_out = not gate_passed or weight_total == 0
    overall_score = 0.0 if gated_out else weighted_sum / weight_total
    card = _card(
        observation, bundle_id, dimensions, overall_score, gate_passed, gate_passed and all_passed
    )
    return card, results


def score_observation(
    observation: WorkflowObservation,
    case: WorkflowCase,
    *,
    bundle_id: str,
    policy: Policy | None = None,
) -> ScorecardV2:
    """Score one validated observation model into a v2 scorecard model."""
    from scorecard.contract import (  # the models load where used (start-up)
        ScorecardV2,
        WorkflowCase,
        WorkflowObservation,
    )

    if not isinstance(observation, WorkflowObservation):
        raise TypeError(
            "score_observation(): observation must be a WorkflowObservation (validate_observation"
            f"(document) makes one from parsed JSON), not {type(observation).__name__}"
        )
    if not isinstance(case, WorkflowCase):
        raise TypeError(
            "score_observation(): case must be a WorkflowCase (load_catalog()[case_id]), not "
            f"{type(case).__name__}"
        )
    if not isinstance(bundle_id, str):
        raise TypeError(
            f"score_observation(): bundle_id must be a str, not {type(bundle_id).__name__}"
        )
    if policy is not None and not isinstance(policy, Policy):
        raise TypeError(
            "score_observation(): policy must be a scorecard.Policy or None, not "
            f"{type(policy).__name__}"
        )

    wire: ObservationDict = observation.model_dump(by_alias=True, exclude_none=True)  # type: ignore[assignment]
    return ScorecardV2.model_validate(score_wire(wire, case, bundle_id=bundle_id, policy=policy))
