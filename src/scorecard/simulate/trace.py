"""The run's trace: identifiers, receipts, PRP wire events and the provider trace lineage.

A ``trace_gap`` flaw removes exactly one piece of the trace (session, item, stop-reason decision
or a receipt); a ``lineage_gap`` flaw damages the captured provider lineage.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .cases import JsonObject, Setting
from .plans import RunPlan
from .randomness import chance, random_hex

SEMANTIC_TOOL_SCHEMA = "paperclip.prp.semantic_tool.v1"
STOP_REASON_SCHEMA = "paperclip.prp.stop_reason.v1"
TERMINAL_SCHEMA = "paperclip.prp.terminal.v1"
#: Share of runs outside the trace-lineage case that capture the provider trace anyway.
CAPTURE_ON_SHARE = 0.12
_STOP_KINDS = {"cost": "budget", "attempts": "budget", "no_result": "result_missing"}


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
        run_id=f"run-{random_hex(rng, 12)}",
        session_id=f"ses-{random_hex(rng, 12)}",
        turn_id=f"turn-{random_hex(rng, 8)}",
        item_ids=[f"item-{random_hex(rng, 8)}" for _ in range(max(1, len(calls)))],
        receipt_ids=[f"semantic_receipt:{random_hex(rng, 16)}" for _ in calls],
    )


def _draw_trace_gap(rng: random.Random, plan: RunPlan, calls: Sequence[str]) -> str | None:
    """Which piece of the trace a ``trace_gap`` flaw loses."""
    if "trace_gap" not in plan.flaws:
        return None
    options = ["no_session", "incomplete_stop_reason" if plan.wire else "no_item"]
    if calls:
        options.append("receipt_without_id" if plan.wire else "missing_receipt")
    return rng.choice(options)


def _terminal_state(setting: Setting, plan: RunPlan) -> str:
    if plan.classification == "candidate_failure":
        return "failed"
    return "cancelled" if setting.cancels else "succeeded"


def _stop_reason(
    rng: random.Random, setting: Setting, plan: RunPlan, gap: str | None
) -> JsonObject:
    settled_kind = "cancelled" if setting.cancels else "completed"
    stop: JsonObject = {
        "schema": STOP_REASON_SCHEMA,
        "schemaVersion": 1,
        "kind": _STOP_KINDS[plan.breach] if plan.breach else settled_kind,
        "receiptId": f"stop_receipt:{random_hex(rng, 16)}",
    }
    if gap != "incomplete_stop_reason":
        stop["decisionId"] = f"decision:{random_hex(rng, 12)}"
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
    if plan.breach or gap == "incomplete_stop_reason" or chance(rng, 0.4):
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


def trace_lineage(rng: random.Random, setting: Setting, plan: RunPlan, ids: TraceIds) -> JsonObject:
    """Provider trace capture: always on for the trace-lineage case, occasionally elsewhere."""
    expectation = setting.case.assertions.trace
    captured = expectation is not None or chance(rng, CAPTURE_ON_SHARE)
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
        dispositions = ["mapped", "generic", *(["ignored"] if chance(rng, 0.5) else [])]
        shapes = ["one_to_one", *(["one_to_many"] if chance(rng, 0.4) else [])]
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
