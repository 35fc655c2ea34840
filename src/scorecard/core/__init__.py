"""PURE scoring: validation, the v2 scorer, the case-assertion audit, explanations and the scored
record. No I/O, clock, randomness, pandas, matplotlib or typer.

Names load on first use (PEP 562): the compiled fast path imports the few pieces it hands
to C, not the general path it may never need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorecard.contract import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "CHECKS": "_audit",
    "MARKER_MISSING": "_audit",
    "METRICS_ATTEMPTS": "_audit",
    "AuditSummary": "_audit",
    "Check": "_audit",
    "Finding": "_audit",
    "audit_observation": "_audit",
    "summarize_findings": "_audit",
    "explain_failing": "_explain",
    "explain_record": "_explain",
    "failing_dimensions": "_explain",
    "failing_of": "_explain",
    "failing_reasons": "_explain",
    "marker_hints": "_audit",
    "reason_evidence": "_explain",
    "render_explanation": "_explain",
    "dimension_json": "_lines",
    "json_scalar": "_lines",
    "json_string": "_lines",
    "reason_json": "_lines",
    "scorecard_line": "_lines",
    "NOT_PLAIN_ERRORS": "_recognize",
    "OBSERVATION_DECODER": "_recognize",
    "METRIC_KEYS": "_record",
    "RECORD_SCHEMA": "_record",
    "ScoredRecord": "_record",
    "Tally": "_record",
    "record_failure": "_record",
    "record_line": "_record",
    "UNSCOREABLE_REASON": "_scoring",
    "score_observation": "_scoring",
    "score_wire": "_scoring",
    "scored_wire": "_scoring",
    "Notice": "_notice",
    "accept_observation": "_validation",
    "identifier_secret": "_validation",
    "validate_observation": "_validation",
}

__all__ = [
    "CHECKS",
    "MARKER_MISSING",
    "METRICS_ATTEMPTS",
    "METRIC_KEYS",
    "NOT_PLAIN_ERRORS",
    "OBSERVATION_DECODER",
    "RECORD_SCHEMA",
    "UNSCOREABLE_REASON",
    "AuditSummary",
    "Check",
    "Finding",
    "Notice",
    "ScoredRecord",
    "Tally",
    "accept_observation",
    "audit_observation",
    "dimension_json",
    "explain_failing",
    "explain_record",
    "failing_dimensions",
    "failing_of",
    "failing_reasons",
    "identifier_secret",
    "json_scalar",
    "json_string",
    "marker_hints",
    "reason_evidence",
    "reason_json",
    "record_failure",
    "record_line",
    "render_explanation",
    "score_observation",
    "score_wire",
    "scorecard_line",
    "scored_wire",
    "summarize_findings",
    "validate_observation",
]


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, base=__name__)


if TYPE_CHECKING:
    from ._audit import (
        CHECKS,
        MARKER_MISSING,
        METRICS_ATTEMPTS,
        AuditSummary,
        Check,
        Finding,
        audit_observation,
        marker_hints,
        summarize_findings,
    )
    from ._explain import (
        explain_failing,
        explain_record,
        failing_dimensions,
        failing_of,
        failing_reasons,
        reason_evidence,
        render_explanation,
    )
    from ._lines import dimension_json, json_scalar, json_string, reason_json, scorecard_line
    from ._notice import Notice
    from ._recognize import NOT_PLAIN_ERRORS, OBSERVATION_DECODER
    from ._record import (
        METRIC_KEYS,
        RECORD_SCHEMA,
        ScoredRecord,
        Tally,
        record_failure,
        record_line,
    )
    from ._scoring import UNSCOREABLE_REASON, score_observation, score_wire, scored_wire
    from ._validation import accept_observation, identifier_secret, validate_observation
