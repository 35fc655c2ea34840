"""The gate result as one deterministic JSON document (``scorecard.gate.v1``), for tools.

Keys are the field names of the result's dataclasses (as in ``scorecard compare --format json``),
missing numbers are ``null``, secret-shaped text is redacted as in every gate report (ids and
sentences come from the agent under test), and nothing depends on the clock: same inputs and
seed, same bytes. A receipted result ends with its ``receipt`` (``docs/receipts.md``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from scorecard.aggregate import Alert
from scorecard.contract import (
    DIMENSIONS,
    EVIDENCE_KEYS,
    OBSERVATION_SCHEMA_ID,
    js_json,
    printable,
    redact,
)
from scorecard.gate import GateCheck, GateFailure, GateResult, RuleOutcome

__all__ = ["GATE_SCHEMA", "gate_document", "render_gate_json"]

GATE_SCHEMA = "scorecard.gate.v1"


def _jsonable(value: Any, redacted: dict[str, str] | None = None) -> Any:
    """``value`` as JSON data: NaN as null, every string redacted (each distinct string once:
    a document of many failures repeats the same ids)."""
    seen = {} if redacted is None else redacted
    kind = type(value)  # the exact types first: a document of many failures is mostly these
    if kind is str:
        found = seen.get(value)
        if found is None:
            found = seen[value] = redact(value)
        return found
    if kind is dict:
        return {str(key): _jsonable(item, seen) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_jsonable(item, seen) for item in value]
    if kind is int or kind is bool or value is None:
        return value
    if isinstance(value, dict):
        return {str(key): _jsonable(item, seen) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item, seen) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, str):
        found = seen.get(value)
        if found is None:
            found = seen[value] = redact(value)
        return found
    return value


def _flat(item: RuleOutcome | Alert) -> dict[str, Any]:
    """``dataclasses.asdict`` of a rule outcome or an alert, whose fields are scalars and tuples
    of text: the same dict, without asdict's deep copy of every field (a report of many
    failures has thousands of them)."""
    return {name: getattr(item, name) for name in _FIELD_NAMES[type(item)]}


_FIELD_NAMES = {
    kind: tuple(field.name for field in dataclasses.fields(kind)) for kind in (RuleOutcome, Alert)
}


def _check(check: GateCheck) -> dict[str, Any]:
    return {
        "rule": check.rule,
        "candidate": check.candidate,
        "status": check.status,
        "required": check.required,
        "failed": check.failed,
        "subjects": sorted({outcome.subject for outcome in check.outcomes if outcome.subject}),
    }


def _failure(failure: GateFailure) -> dict[str, Any]:
    """A gate failure with where its run was read and why it failed: each reason of its
    failing dimensions and each failed audit finding, with the runner output contract
    (``contract.Evidence``'s keys). A run read from records or Parquet (no observation to
    point into) has its reasons' texts with null contract keys."""
    run = failure.run
    evidence = run.evidence
    if evidence is not None:
        source: dict[str, Any] | None = {
            "file": evidence.file,
            "line": evidence.line,
            "index": evidence.index,
        }
        reasons = [
            {"dimension": dimension, "reason": text, **found.to_json()}
            for dimension, text, found in evidence.reasons
        ]
    else:
        source = None if run.source is None else {"file": run.source, "line": None, "index": None}
        failing = [
            name
            for name, flag in zip(DIMENSIONS, run.dimension_passed, strict=True)
            if flag is False
        ]
        reasons = [
            {"dimension": name, "reason": text, **_NO_EVIDENCE}
            for name in failing
            for text in run.reasons_for(name)
        ]
    return {
        "candidate": run.candidate,
        "case": run.case,
        "repetition": run.repetition,
        "dimensions": list(failure.dimensions),
        "new": None if failure.new is None else list(failure.new),
        "counted": failure.counted,
        "source": None if source is None else _inert(source),
        "reasons": [_inert(reason) for reason in reasons],
        "findings": [
            _inert(
                {
                    "code": finding.code,
                    "pointer": finding.pointer,
                    "expected": finding.expected,
                    "observed": finding.actual,
                    "assertion": finding.assertion or None,
                    "schema": OBSERVATION_SCHEMA_ID,
                    "hint": finding.hint,
                }
            )
            for finding in run.findings
        ],
    }


_NO_EVIDENCE = dict.fromkeys(EVIDENCE_KEYS)


def _inert(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with its text made inert as every gate report makes the agent's text
    (``contract.printable``: controls, bidi and zero-width characters spelt as escapes), so a
    reason cannot reorder or recolour a terminal that shows the JSON."""
    return {
        key: printable(value) if isinstance(value, str) else value for key, value in item.items()
    }


def gate_document(result: GateResult) -> dict[str, Any]:
    """The JSON-ready document of ``result`` (see the module docstring)."""
    settings = result.analysis.settings if result.analysis is not None else None
    document: dict[str, Any] = _jsonable(
        {
            "schema": GATE_SCHEMA,
            "verdict": result.verdict,
            "current_bundle": result.current_bundle,
            "baseline_bundle": result.baseline_bundle,
            "baseline_nights": list(result.baseline_nights),
            "forbidden_calls": [
                {"candidate": name, "new": new, "all": total}
                for name, (new, total) in result.forbidden_calls.items()
            ],
            "seed": result.seed,
            "safety_mode": result.safety_mode,
            "rules": result.rules.to_json(),
            "settings": dataclasses.asdict(settings) if settings is not None else None,
            "checks": [_check(check) for check in result.checks],
            "outcomes": [_flat(outcome) for outcome in result.outcomes],
            "candidates": [dataclasses.asdict(item) for item in result.candidates],
            "comparisons": [
                {
                    "metric": item.metric,
                    "candidate": item.candidate,
                    "gated": item.gated,
                    "p_drop": item.p_drop,
                    "p_drop_adjusted": item.p_drop_adjusted,
                    "detectable_drop": None if math.isinf(item.detectable) else item.detectable,
                    "comparison": item.comparison.to_json(),
                }
                for item in result.comparisons
            ],
            "failures": [_failure(failure) for failure in result.failures],
            "shared_shifts": [
                {**dataclasses.asdict(found), "name": found.name} for found in result.shifts
            ],
            "residual_drops": [dataclasses.asdict(item) for item in result.residuals],
            "night_noise": [dataclasses.asdict(item) for item in result.night_noise],
            "case_findings": [
                {**dataclasses.asdict(item), "history": item.history_text}
                for item in result.case_findings
            ],
            "dimension_drops": [
                {**dataclasses.asdict(item), "text": item.text} for item in result.dimension_drops
            ],
            "drift": [{**dataclasses.asdict(item), "text": item.text} for item in result.drift],
            "alerts": [_flat(alert) for alert in result.alerts],
            "notes": list(result.notes),
        }
    )
    if result.receipt is not None:  # the user's own paths: never redacted (verify reads them)
        document["receipt"] = result.receipt.to_json()
    return document


def render_gate_json(result: GateResult) -> str:
    """``result`` as ``scorecard.gate.v1`` JSON text, two-space indent, newline-terminated."""
    return js_json(gate_document(result), 2) + "\n"
