"""Explanations: each failing dimension's reasons with the observation fields they came from,
and the audit findings, as data and as readable text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from scorecard.contract import (
    DIMENSIONS,
    OBSERVATION_SCHEMA_ID,
    Catalog,
    Evidence,
    printable,
    redact,
)

from ._record import ScoredRecord
from ._scoring import Reason, raw_dimension_results

if TYPE_CHECKING:
    from scorecard.contract import DimensionName, ObservationDict, WorkflowCase

__all__ = [
    "explain_failing",
    "explain_record",
    "failing_dimensions",
    "failing_reasons",
    "reason_evidence",
    "render_explanation",
]


def reason_evidence(reason: Reason) -> Evidence:
    """The runner output contract of a dimension reason: its first pointer (into the
    observation, whose schema's ``$id`` it names), expected, observed, the case assertion."""
    pointer = reason.pointers[0] if reason.pointers else ""
    return Evidence(
        pointer, reason.expected, reason.observed, reason.assertion, OBSERVATION_SCHEMA_ID
    )


def explained_reason(reason: Reason) -> dict[str, Any]:
    """A reason as explanations and reports write it: its text, every pointer, and its
    :class:`~scorecard.contract.Evidence` keys (secret-shaped text redacted)."""
    return {
        "reason": redact(reason.text),
        "pointers": list(reason.pointers),
        **reason_evidence(reason).to_json(),
    }


def failing_reasons(
    observation: ObservationDict, case: WorkflowCase, failing: Sequence[str]
) -> list[tuple[str, Reason]]:
    """Each reason of the dimensions named in ``failing`` (a scoreable observation), as
    (dimension, reason), in canonical dimension order."""
    results = raw_dimension_results(observation, case)
    return [
        (name, reason) for name in DIMENSIONS if name in failing for reason in results[name].reasons
    ]


def failing_dimensions(record: ScoredRecord) -> list[DimensionName]:
    """The dimensions :func:`explain_record` explains as failing, in canonical order
    (:func:`failing_of` the card's overall score and passes), read from the card alone,
    without scoring again."""
    card = record.card
    dimensions = card["dimensions"]
    return failing_of(card["overall"]["score"], [dimensions[name]["passed"] for name in DIMENSIONS])


def failing_of(overall: float | None, passed: Sequence[bool | None]) -> list[DimensionName]:
    """The failing dimensions of a run whose overall score is ``overall`` (None: not scored)
    and whose dimensions' passes are ``passed`` (canonical order): those whose pass is not
    true, of a scored run; an unscored run has none. One rule for the card
    (:func:`failing_dimensions`) and for a run's facts (the report's runs tables)."""
    if overall is None:
        return []
    return [name for name, verdict in zip(DIMENSIONS, passed, strict=True) if not verdict]


def explain_failing(record: ScoredRecord, catalog: Catalog) -> list[dict[str, Any]]:
    """:func:`explain_record`'s ``failingDimensions``: each failing dimension (canonical order)
    with its score, gate and reasons (each with its JSON Pointer, expected and observed); the
    observation is scored again only when a dimension fails."""
    dimensions = record.card["dimensions"]
    failing: list[dict[str, Any]] = []
    failed = failing_dimensions(record)
    if failed:  # the reasons' pointers: scored again
        case = catalog[record.card["caseId"]]
        results = record.remembered_results(case)
        if results is None:
            results = raw_dimension_results(record.observation, case)
        for name in failed:
            dimension = dimensions[name]
            failing.append(
                {
                    "dimension": name,
                    "score": dimension["score"],
                    "gate": dimension["gate"],
                    "reasons": [explained_reason(reason) for reason in results[name].reasons],
                }
            )
    return failing


def explain_record(record: ScoredRecord, catalog: Catalog) -> dict[str, Any]:
    """Scorecard, failing dimensions (reasons + JSON Pointers) and audit of one record."""
    # Read from the record's card as the scorer made it (the contract's types: a site explains
    # every run, and validating each card again as a model cost a third of the explanation).
    card = record.card
    overall = card["overall"]
    failing = explain_failing(record, catalog)
    return {
        "source": {"file": record.source, "line": record.line, "index": record.index},
        "bundleId": card["bundleId"],
        "caseId": card["caseId"],
        "candidateId": card["candidateId"],
        "repetition": record.repetition,
        "classification": card["classification"],
        "overall": {
            "score": overall["score"],
            "gatePassed": overall["gatePassed"],
            "passed": overall["passed"],
        },
        "gatePassed": record.gate_passed,
        "failingDimensions": failing,
        "audit": _audit_with_schema(record.audit_json()),
        "scorecard": record.scorecard_json(),
    }


def _audit_with_schema(audit: dict[str, Any]) -> dict[str, Any]:
    """The record's audit, each finding naming the schema its pointer is read under."""
    findings = [{**finding, "schema": OBSERVATION_SCHEMA_ID} for finding in audit["findings"]]
    return {**audit, "findings": findings}


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}".rstrip("0").rstrip(".") if value else "0"


def _where(source: dict[str, Any]) -> str:
    where = str(source["file"])
    if source["line"] is not None:
        where += f":{source['line']}"
    if source["index"] is not None:
        where += f"[{source['index']}]"
    return where


def _flag(value: bool | None, yes: str, no: str) -> str:
    return "not scored" if value is None else (yes if value else no)


def render_explanation(explanation: dict[str, Any]) -> str:
    """A plain-text view of :func:`explain_record`'s data, for terminals and CI logs."""
    overall = explanation["overall"]
    lines = [
        f"{explanation['caseId']} | {explanation['candidateId']} | run {explanation['repetition']}"
        f" | bundle {explanation['bundleId']} | {_where(explanation['source'])}",
        f"  {explanation['classification']}: overall {_number(overall['score'])}, "
        f"{_flag(overall['gatePassed'], 'gates passed', 'GATE FAILED')}, "
        f"{_flag(overall['passed'], 'passed', 'not passed')}",
    ]
    for dimension in explanation["failingDimensions"]:
        gate = " (gate)" if dimension["gate"] else ""
        lines.append(f"  x {dimension['dimension']}{gate} {_number(dimension['score'])}")
        for reason in dimension["reasons"]:
            lines.append(f"      {json.dumps(reason['reason'], ensure_ascii=False)}")
            if reason["pointers"]:
                lines.append(f"        at {', '.join(reason['pointers'])}")
            if reason["expected"] is not None or reason["observed"] is not None:
                lines.append(
                    f"        expected {reason['expected'] or '-'}, observed"
                    f" {reason['observed'] or '-'}"
                )
            if reason["assertion"]:
                lines.append(f"        case assertion {reason['assertion']}")
    audit = explanation["audit"]
    lines.append(
        f"  audit: {audit['failed']} failed, {audit['notObserved']} not observed,"
        f" {audit['passed']} passed"
    )
    for finding in audit["findings"]:
        if finding["status"] == "passed":
            continue
        mark = "x" if finding["status"] == "failed" else "?"
        if finding["status"] == "failed":
            detail = (
                f"expected {json.dumps(finding['expected'], ensure_ascii=False)},"
                f" observed {json.dumps(finding['actual'], ensure_ascii=False)}"
            )
        else:
            detail = "no evidence in the observation"
        lines.append(f"    {mark} {finding['code']} at {finding['pointer']}: {detail}")
        if finding["hint"]:
            lines.append(f"        hint: {finding['hint']}")
    # Every field is the producer's text: one escaping pass keeps each line one line, inert.
    return "\n".join(printable(line) for line in lines) + "\n"
