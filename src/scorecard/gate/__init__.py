"""CI verdicts as data: rule settings, inputs, rule outcomes and the verdict, read from the
aggregation layer. Gate failures are results, never exceptions.
"""

from ._cases import CaseFinding
from ._evaluate import evaluate_gate
from ._input import (
    ALL_CANDIDATES,
    GateSide,
    RunFacts,
    combined_frame,
    findings_side,
    frame_side,
    gate_side,
    pool_sides,
    row_facts,
    rows_side,
    run_facts,
    scored_facts,
)
from ._results import (
    DimensionDrop,
    Estimate,
    GateCheck,
    GateFailure,
    GateResult,
    MetricComparison,
    ResidualDrop,
    RuleOutcome,
    SharedShift,
)
from ._rules import DROP_STATISTIC_LABELS, METRIC_LABELS, GateRules, gate_policy
from ._runs import numbered_facts

__all__ = [
    "ALL_CANDIDATES",
    "DROP_STATISTIC_LABELS",
    "METRIC_LABELS",
    "CaseFinding",
    "DimensionDrop",
    "Estimate",
    "GateCheck",
    "GateFailure",
    "GateResult",
    "GateRules",
    "GateSide",
    "MetricComparison",
    "ResidualDrop",
    "RuleOutcome",
    "RunFacts",
    "SharedShift",
    "combined_frame",
    "evaluate_gate",
    "findings_side",
    "frame_side",
    "gate_policy",
    "gate_side",
    "numbered_facts",
    "pool_sides",
    "row_facts",
    "rows_side",
    "run_facts",
    "scored_facts",
]
