"""The scored record: one accepted observation, its scorecard and where it came from.

This is the one definition of the record ``scorecard score --format records`` writes and the
aggregation layer reads (``docs/records.md``): the v2 scorecard plus the observation facts it
was computed from, its keys in :data:`~scorecard.contract.RECORD_KEYS` order. One method,
``ScoredRecord._record_values``, gives its values; :meth:`ScoredRecord.record_json` makes them
data and :func:`record_line` writes them from cached pieces;
``tests/core/test_lines.py`` checks that equals ``js_json(record.record_json())`` byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from scorecard.contract import (
    METRIC_KEYS,
    RECORD_KEYS,
    RECORD_SCHEMA,
    BundleInfo,
    ObservationDict,
    ScorecardDict,
    js_json,
    redact,
)

from ._audit import AuditSummary, Finding, summarize_findings
from ._lines import json_scalar, json_string, scorecard_line
from ._notice import Notice

if TYPE_CHECKING:
    from scorecard.contract import ScorecardV2

__all__ = [
    "METRIC_KEYS",
    "RECORD_SCHEMA",
    "ScoredRecord",
    "Tally",
    "record_failure",
    "record_line",
]


class Tally(NamedTuple):
    """The few facts of a scored record that run summaries and run numbers are made of."""

    bundle_id: str
    candidate_id: str
    case_id: str
    unscoreable: bool
    gate_failed: bool
    audit_failed: int
    notices: tuple[Notice, ...]
    """The record's notices (unknown fields), located in its file."""

    @property
    def run_key(self) -> tuple[str, str, str]:
        """Runs of the same case by the same candidate in the same bundle are repetitions."""
        return (self.bundle_id, self.candidate_id, self.case_id)


#: Where a record keeps the raw results its card was made from (:meth:`ScoredRecord.remembering`).
_RESULTS = "_remembered_results"


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
        from scorecard.contract import ScorecardV2  # the models load where used (start-up)

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

    def findings_not_passed(self) -> list[dict[str, Any]]:
        """The audit findings not passed (failed, not observed), each as a record lists it
        (:meth:`~scorecard.core.Finding.to_json`: its values redacted), in audit order."""
        return [finding.to_json() for finding in self.findings if finding.status != "passed"]

    def audit_json(self) -> dict[str, Any]:
        """Audit counts and every finding, for ``--format audit`` and ``explain``."""
        summary = self.audit_summary()
        return {
            "passed": summary.passed,
            "failed": summary.failed,
            "notObserved": summary.not_observed,
            "findings": [finding.to_json() for finding in self.findings],
        }

    @cached_property
    def redacted_reasons(self) -> dict[str, tuple[str, ...]]:
        """Each dimension's reasons (the card's dimensions, in its order), secret-shaped text
        redacted, as :meth:`scorecard_json` and :meth:`record_json` write them. Each view of a
        record asks for its scorecard (the site: its facts, its explanation, its pages): its
        reasons are redacted once."""
        return {
            name: tuple(redact(reason) for reason in dimension["reasons"])
            for name, dimension in self.card["dimensions"].items()
        }

    def scorecard_json(self) -> dict[str, Any]:
        """The pure v2 scorecard as JSON-ready data (free text redacted); new data each call."""
        card: dict[str, Any] = dict(self.card)
        reasons = self.redacted_reasons
        card["dimensions"] = {
            name: {**dimension, "reasons": list(reasons[name])}
            for name, dimension in self.card["dimensions"].items()
        }
        return card

    def record_json(self) -> dict[str, Any]:
        """The scored record (``scorecard.record.v1``) the aggregation layer reads."""
        values = self._record_values(self._record_audit(), self.scorecard_json())
        return dict(zip(RECORD_KEYS, values, strict=True))

    def _record_values(self, audit: Any, scorecard: Any) -> tuple[Any, ...]:
        """The record's values in :data:`RECORD_KEYS` order, ``audit`` and ``scorecard`` as
        given (data for :meth:`record_json`, text already written for :func:`record_line`)."""
        observation = self.observation
        candidate = self.bundle.candidates.get(observation["candidateId"])
        failure = observation.get("failure")
        metrics = observation["metrics"]
        return (
            RECORD_SCHEMA,
            self.card["bundleId"],
            observation["caseId"],
            observation["candidateId"],
            observation["provider"],
            candidate.model if candidate else None,
            candidate.tier if candidate else None,
            self.repetition,
            observation["classification"],
            {key: metrics[key] for key in METRIC_KEYS if key in metrics},  # type: ignore[literal-required]
            record_failure(failure),
            {"file": self.source, "line": self.line, "index": self.index},
            self.gate_passed,
            audit,
            scorecard,
        )

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

    def remembering(self, case: Any, results: Any) -> ScoredRecord:
        """This record, remembering the raw dimension results its card was made from, scored
        as a run of ``case`` (:func:`~scorecard.core.scored_wire`; None: not scoreable):
        explaining it with that case reads them instead of scoring it again
        (:meth:`remembered_results`). They are no part of the record's value: not compared,
        not pickled, kept by :meth:`numbered`."""
        if results is not None:
            self.__dict__[_RESULTS] = (case, results)
        return self

    def remembered_results(self, case: Any) -> Any:
        """The raw dimension results :meth:`remembering` kept, when they were scored as a run
        of ``case`` (the same object), else None."""
        known = self.__dict__.get(_RESULTS)
        return known[1] if known is not None and known[0] is case else None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop(_RESULTS, None)
        return state

    def numbered(self, repetition: int) -> ScoredRecord:
        """This record as run number ``repetition`` (``dataclasses.replace``, spelt out: faster)."""
        made = self._numbered(repetition)
        known = self.__dict__.get(_RESULTS)
        if known is not None:
            made.__dict__[_RESULTS] = known
        return made

    def _numbered(self, repetition: int) -> ScoredRecord:
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
            tuple(
                notice.located(source=self.source, line=self.line, index=self.index)
                for notice in self.notices
            ),
        )

    def _record_audit(self) -> dict[str, Any]:
        summary = self.audit_summary()
        return {
            "passed": summary.passed,
            "failed": summary.failed,
            "notObserved": summary.not_observed,
            # Records stay small: only what needs attention is listed.
            "findings": self.findings_not_passed(),
            "gates": self.audit_gate,
        }


def record_failure(failure: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An observation's ``failure`` as its record holds it: code, category, retryable and
    message, secret-shaped text redacted (None stays None)."""
    if failure is None:
        return None
    return {
        "code": redact(failure["code"]),
        "category": failure["category"],
        "retryable": failure["retryable"],
        "message": redact(failure["message"]),
    }


class _Written(str):
    """JSON text already written: a part of a record line that is copied as it is."""

    __slots__ = ()


def _json_text(value: Any) -> str:
    """``value`` as ``js_json`` writes it, from the pieces of :mod:`._lines`."""
    kind = type(value)
    if kind is str:
        return json_string(value)
    if kind is dict:
        return "{" + ",".join([f"{json_string(k)}:{_json_text(v)}" for k, v in value.items()]) + "}"
    if kind is _Written:
        return value  # type: ignore[no-any-return]
    if kind is list:
        return "[" + ",".join([_json_text(item) for item in value]) + "]"
    return json_scalar(value)


_KEY_TEXTS = tuple(f"{json_string(key)}:" for key in RECORD_KEYS)


def record_line(record: ScoredRecord) -> str:
    """The scored record (``scorecard.record.v1``) as one line, equal to ``js_json`` of it."""
    values = record._record_values(record._record_audit(), _Written(scorecard_line(record.card)))
    pairs = zip(_KEY_TEXTS, values, strict=True)
    return "{" + ",".join([key + _json_text(value) for key, value in pairs]) + "}"
