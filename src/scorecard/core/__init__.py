"""PURE scoring: validation, the v2 scorer, the case-assertion audit, explanations and the scored
record. No I/O, clock, randomness, pandas, matplotlib or typer.
"""

from ._audit import AuditSummary, Finding, audit_observation, summarize_findings
from ._explain import explain_record, render_explanation
from ._lines import dimension_json, json_scalar, json_string, reason_json, scorecard_line
from ._recognize import NOT_PLAIN_ERRORS, OBSERVATION_DECODER
from ._record import METRIC_KEYS, RECORD_SCHEMA, ScoredRecord, Tally, record_line
from ._scoring import UNSCOREABLE_REASON, score_observation, score_wire
from ._validation import Notice, accept_observation, identifier_secret, validate_observation

__all__ = [
    "METRIC_KEYS",
    "NOT_PLAIN_ERRORS",
    "OBSERVATION_DECODER",
    "RECORD_SCHEMA",
    "UNSCOREABLE_REASON",
    "AuditSummary",
    "Finding",
    "Notice",
    "ScoredRecord",
    "Tally",
    "accept_observation",
    "audit_observation",
    "dimension_json",
    "explain_record",
    "identifier_secret",
    "json_scalar",
    "json_string",
    "reason_json",
    "record_line",
    "render_explanation",
    "score_observation",
    "score_wire",
    "scorecard_line",
    "summarize_findings",
    "validate_observation",
]
