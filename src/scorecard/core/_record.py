"""The scored record: one accepted observation, its scorecard and where it came from.

This is the one definition of the record ``scorecard score --format records`` writes and the
aggregation layer reads (``docs/records.md``): the v2 scorecard plus the observation facts it
was computed from. :func:`record_line` writes it from its fixed shape;
``tests/core/test_lines.py`` checks that equals ``js_json(record.record_json())`` byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from scorecard.contract import (
    BundleInfo,
    ObservationDict,
    ScorecardDict,
    ScorecardV2,
    js_json,
    redact,
)

from ._audit import AuditSummary, Finding, summarize_findings
from ._lines import json_scalar, json_string, scorecard_line
from ._validation import Notice

__all__ = ["METRIC_KEYS", "RECORD_SCHEMA", "ScoredRecord", "Tally", "record_line"]

RECORD_SCHEMA = "scorecard.record.v1"
"""Schema name of the scored record (``docs/records.md``)."""
METRIC_KEYS = (
    "attempts",
    "toolCount",
    "timeToFirstVisibleProgressMs",
    "settlementMs",
    "totalTokens",
    "costUsd",
)
"""The observation metrics a record carries, in this order."""


class Tally(NamedTuple):
    """The few facts of a scored record that run summaries and run numbers are made of."""

    bundle_id: str
    candidate_id: str
    case_id: str
    unscoreable: bool
    gate_failed: bool
    audit_failed: int
    notice_patterns: tuple[str, ...]

    @property
    def run_key(self) -> tuple[str, str, str]:
        """Runs of the same case by the same candidate in the same bundle are repetitions."""
        return (self.bundle_id, self.candidate_id, self.case_id)


def _notice_pattern(pointer: str) -> str:
    return "/".join("*" if token.isdigit() else token for token in pointer.split("/"))


@dataclass(frozen=True)
class ScoredRecord:
    """One accepted observation, its scorecard and where it came from."""

    card: ScorecardDict
    """The v2 scorecard as JSON data (reasons as scored, not yet redacted)."""
    observation: ObservationDict
    """The validated observation document."""
    bundle: BundleInfo
    source: str
    line: int | None
    index: int | None
    repetition: int
    """1-based ordinal of this (bundle, candidate, case) run in input order."""
    notices: tuple[Notice, ...] = ()
    findings: tuple[Finding, ...] = ()
    """Case-assertion audit findings (never part of the v2 scorecard)."""
    audit_gate: bool = False
    """Whether failed audit findings fail the gate (policy switch, default off)."""

    @cached_property
    def scorecard(self) -> ScorecardV2:
        """The scorecard as a validated model (built on first use)."""
        return ScorecardV2.model_validate(self.card)

    @property
    def gate_passed(self) -> bool | None:
        """The effective gate: the scorecard's, and no failed finding when the audit gates."""
        passed = self.card["overall"]["gatePassed"]
        if passed and self.audit_gate:
            return not any(finding.status == "failed" for finding in self.findings)
        return passed

    def audit_summary(self) -> AuditSummary:
        """Counts of the audit findings by status."""
        return summarize_findings(self.findings)

    def audit_json(self) -> dict[str, Any]:
        """Audit counts and every finding, for ``--format audit`` and ``explain``."""
        summary = self.audit_summary()
        return {
            "passed": summary.passed,
            "failed": summary.failed,
            "notObserved": summary.not_observed,
            "findings": [finding.to_json() for finding in self.findings],
        }

    def scorecard_json(self) -> dict[str, Any]:
        """The pure v2 scorecard as JSON-ready data (free text redacted)."""
        card: dict[str, Any] = dict(self.card)
        card["dimensions"] = {
            name: {**dimension, "reasons": [redact(reason) for reason in dimension["reasons"]]}
            for name, dimension in self.card["dimensions"].items()
        }
        return card

    def record_json(self) -> dict[str, Any]:
        """The scored record (``scorecard.record.v1``) the aggregation layer reads."""
        observation = self.observation
        candidate = self.bundle.candidates.get(observation["candidateId"])
        failure = observation.get("failure")
        metrics = observation["metrics"]
        return {
            "schema": RECORD_SCHEMA,
            "bundleId": self.card["bundleId"],
            "caseId": observation["caseId"],
            "candidateId": observation["candidateId"],
            "provider": observation["provider"],
            "model": candidate.model if candidate else None,
            "tier": candidate.tier if candidate else None,
            "repetition": self.repetition,
            "classification": observation["classification"],
            "metrics": {key: metrics[key] for key in METRIC_KEYS if key in metrics},  # type: ignore[literal-required]
            "failure": None
            if failure is None
            else {
                "code": redact(failure["code"]),
                "category": failure["category"],
                "retryable": failure["retryable"],
                "message": redact(failure["message"]),
            },
            "source": {"file": self.source, "line": self.line, "index": self.index},
            "gatePassed": self.gate_passed,
            "audit": self._record_audit(),
            "scorecard": self.scorecard_json(),
        }

    def audit_line_json(self) -> dict[str, Any]:
        """One line of ``--format audit``: which run, then its audit."""
        card = self.card
        return {
            "bundleId": card["bundleId"],
            "caseId": card["caseId"],
            "candidateId": card["candidateId"],
            "repetition": self.repetition,
            "source": {"file": self.source, "line": self.line, "index": self.index},
            **self.audit_json(),
        }

    def render(self, output_format: str) -> str:
        """The record as one output line (no newline) of a streaming format."""
        if output_format == "jsonl":
            return scorecard_line(self.card)
        if output_format == "records":
            return record_line(self)
        if output_format == "audit":
            return js_json(self.audit_line_json())
        raise ValueError(f"not a streaming format: {output_format}")

    def numbered(self, repetition: int) -> ScoredRecord:
        """This record as run number ``repetition`` (``dataclasses.replace``, spelt out: faster)."""
        return ScoredRecord(
            self.card,
            self.observation,
            self.bundle,
            self.source,
            self.line,
            self.index,
            repetition,
            self.notices,
            self.findings,
            self.audit_gate,
        )

    def tally(self) -> Tally:
        """What the run summary and the run numbering need to know of this record."""
        card = self.card
        overall = card["overall"]
        return Tally(
            card["bundleId"],
            card["candidateId"],
            card["caseId"],
            overall["score"] is None,
            overall["gatePassed"] is False,
            sum(1 for finding in self.findings if finding.status == "failed"),
            tuple(_notice_pattern(notice.pointer) for notice in self.notices),
        )

    def _record_audit(self) -> dict[str, Any]:
        audit = self.audit_json()
        # Records stay small: only what needs attention is listed.
        audit["findings"] = [f for f in audit["findings"] if f["status"] != "passed"]
        audit["gates"] = self.audit_gate
        return audit


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{json_string(key)}:{text}" for key, text in pairs) + "}"


def record_line(record: ScoredRecord) -> str:
    """The scored record (``scorecard.record.v1``) as one line, equal to ``js_json`` of it."""
    observation = record.observation
    candidate = record.bundle.candidates.get(observation["candidateId"])
    metrics = observation["metrics"]
    failure = observation.get("failure")
    failure_text = (
        "null"
        if failure is None
        else _object(
            [
                ("code", json_string(redact(failure["code"]))),
                ("category", json_string(failure["category"])),
                ("retryable", json_scalar(failure["retryable"])),
                ("message", json_string(redact(failure["message"]))),
            ]
        )
    )
    summary = record.audit_summary()
    findings = ",".join(
        js_json(finding.to_json()) for finding in record.findings if finding.status != "passed"
    )
    audit = (
        f'{{"passed":{summary.passed},"failed":{summary.failed},'
        f'"notObserved":{summary.not_observed},"findings":[{findings}],'
        f'"gates":{json_scalar(record.audit_gate)}}}'
    )
    metric_pairs = [(key, json_scalar(metrics[key])) for key in METRIC_KEYS if key in metrics]  # type: ignore[literal-required]
    pairs = [
        ("schema", json_string(RECORD_SCHEMA)),
        ("bundleId", json_string(record.card["bundleId"])),
        ("caseId", json_string(observation["caseId"])),
        ("candidateId", json_string(observation["candidateId"])),
        ("provider", json_string(observation["provider"])),
        ("model", json_scalar(candidate.model if candidate else None)),
        ("tier", json_scalar(candidate.tier if candidate else None)),
        ("repetition", json_scalar(record.repetition)),
        ("classification", json_string(observation["classification"])),
        ("metrics", _object(metric_pairs)),
        ("failure", failure_text),
        (
            "source",
            _object(
                [
                    ("file", json_string(record.source)),
                    ("line", json_scalar(record.line)),
                    ("index", json_scalar(record.index)),
                ]
            ),
        ),
        ("gatePassed", json_scalar(record.gate_passed)),
        ("audit", audit),
        ("scorecard", scorecard_line(record.card)),
    ]
    return _object(pairs)
