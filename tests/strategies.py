"""Hypothesis strategies: valid observations of every shape, and ways to break them."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from scorecard.contract._models import CASE_IDS, PROVIDERS

CALLS = ["finish_task", "report_progress", "request_human_input", "request_review", "checkout_task"]
CHECK_IDS = ["terminal-authority", "attempt-bound", "owned-recovery", "no-stuck-running", "ordered"]
JSON_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def checks(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A non-empty list of checks with unique ids."""
    ids = draw(st.lists(st.sampled_from(CHECK_IDS), min_size=1, max_size=5, unique=True))
    result = []
    for check_id in ids:
        check: dict[str, Any] = {"id": check_id, "passed": draw(st.booleans())}
        if draw(st.booleans()):
            check["reason"] = draw(
                st.sampled_from(["", "final comment missing", "observed 3 runs, bound is 2"])
            )
        result.append(check)
    return result


def _optional_numbers(draw: st.DrawFn, keys: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key in keys:
        if draw(st.booleans()):
            values[key] = draw(st.integers(0, 200_000) | st.floats(0, 2, allow_nan=False))
    return values


@st.composite
def wire_events(draw: st.DrawFn, calls: list[str]) -> list[dict[str, Any]]:
    """PRP events: tool results for (some of) the calls, maybe a terminal with a stop reason."""
    events: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        if draw(st.integers(0, 9)) == 0:
            continue
        tool: dict[str, Any] = {
            "schema": "paperclip.prp.semantic_tool.v1",
            "schemaVersion": draw(st.sampled_from([1, 1, 1, 2, True])),
            "phase": draw(st.sampled_from(["result", "result", "call"])),
            "operationId": call,
        }
        if draw(st.booleans()):
            tool["operationReceiptId"] = draw(st.sampled_from([f"r-{index}", "", 7]))
        event: dict[str, Any] = {
            "eventType": "mcp_app.tool_result",
            "payload": {"semantic_tool": tool},
        }
        for key in ("runId", "normalizedSessionId", "turnId", "itemId"):
            if draw(st.booleans()):
                event[key] = draw(st.sampled_from(["x", ""]))
        events.append(event)
    if draw(st.booleans()):
        payload: dict[str, Any] = {}
        if draw(st.booleans()):
            payload["stopReason"] = {
                "schema": "paperclip.prp.stop_reason.v1",
                "schemaVersion": 1,
                "receiptId": draw(st.sampled_from(["s-1", ""])),
                "decisionId": "d-1",
            }
        events.append({"eventType": "run.terminal", "payload": payload, "turnId": "t"})
    return events


@st.composite
def observations(draw: st.DrawFn) -> dict[str, Any]:
    """A structurally valid workflow observation that passes the contract rules."""
    case_id = draw(st.sampled_from(CASE_IDS))
    classification = draw(
        st.sampled_from(
            ["completed", "completed", "candidate_failure", "infrastructure_failure", "skipped"]
        )
    )
    expected = draw(st.lists(st.sampled_from(CALLS), max_size=4))
    observed = draw(st.lists(st.sampled_from(CALLS), max_size=5))
    trace: dict[str, Any] = {
        "receiptIds": draw(st.lists(st.sampled_from(["r-1", "r-2", ""]), max_size=5)),
        "terminalPresent": draw(st.booleans()),
    }
    for key in ("runId", "sessionId", "turnId", "itemId"):
        if draw(st.booleans()):
            trace[key] = draw(st.sampled_from(["id", ""]))
    if draw(st.integers(0, 3)) == 0:
        trace["wireEvents"] = draw(wire_events(observed))
    base: dict[str, Any] = {
        "caseId": case_id,
        "controlPlaneOwned": draw(st.booleans()),
        "expectedCalls": expected,
        "observedCalls": observed,
        "forbiddenCalls": draw(st.lists(st.sampled_from(CALLS), max_size=2)),
        "finalState": {
            "expected": draw(st.sampled_from(["unchanged", "mutated"])),
            "observed": draw(st.sampled_from(["unchanged", "mutated"])),
        },
        "authorization": {
            "expected": draw(st.sampled_from(["allowed", "denied", "absent"])),
            "observed": draw(st.sampled_from(["allowed", "denied", "absent"])),
        },
        "trace": trace,
    }
    if draw(st.booleans()):
        base["efficiency"] = _optional_numbers(
            draw, ["latencyMs", "totalTokens", "costUsd", "attempts"]
        )
    if draw(st.booleans()):
        base["budget"] = _optional_numbers(
            draw, ["maxLatencyMs", "maxTotalTokens", "maxCostUsd", "maxAttempts"]
        )
    capture = draw(st.sampled_from(["on", "off"]))
    observation: dict[str, Any] = {
        "schema": "paperclip.runner.workflow-observation.v1",
        "caseId": case_id,
        "candidateId": draw(st.sampled_from(["cand-a", "cand-b", "opencode-glm"])),
        "provider": draw(st.sampled_from(PROVIDERS)),
        "classification": classification,
        "base": base,
        "lifecycle": {"checks": draw(checks())},
        "continuation": {"checks": draw(checks())},
        "presentation": {"checks": draw(checks())},
        "traceLineage": {
            "capture": capture,
            "frameCount": draw(st.integers(0, 20)),
            "byteCount": draw(st.integers(0, 5000)),
            "digestVerified": draw(st.booleans()),
            "ordered": draw(st.booleans()),
            "dispositions": draw(
                st.lists(
                    st.sampled_from(["mapped", "generic", "ignored", "rejected", "operator_only"]),
                    unique=True,
                )
            ),
            "lineage": draw(
                st.lists(st.sampled_from(["one_to_one", "one_to_many", "many_to_one"]), unique=True)
            ),
        },
        "metrics": {"attempts": draw(st.integers(0, 4)), "toolCount": len(observed)},
        "observedPrpEventTypes": draw(
            st.lists(
                st.sampled_from(["run.terminal", "run.result.accepted", "item.started"]), max_size=3
            )
        ),
        "artifactDigests": [],
    }
    if classification in ("infrastructure_failure", "skipped") or draw(st.booleans()):
        observation["failure"] = {
            "code": "provider_unavailable",
            "category": draw(
                st.sampled_from(["candidate", "provider", "qualification", "orchestration"])
            ),
            "retryable": draw(st.booleans()),
            "message": draw(
                st.text(max_size=30).filter(
                    lambda text: "sk-" not in text.lower() and "bearer" not in text.lower()
                )
            ),
        }
    return observation


def _paths(document: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = [prefix] if prefix else []
    if isinstance(document, dict):
        for key, value in document.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _paths(value, (*prefix, index))
    return found


@st.composite
def corrupted(draw: st.DrawFn) -> dict[str, Any]:
    """A valid observation with one field deleted or replaced by arbitrary JSON."""
    document = copy.deepcopy(draw(observations()))
    path = draw(st.sampled_from(_paths(document)))
    parent: Any = document
    for token in path[:-1]:
        parent = parent[token]
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(
            JSON_VALUES
            | st.just(float("nan"))
            | st.just("x" * 100_000)
            | st.just(list(range(10_000)))
        )
    return document
