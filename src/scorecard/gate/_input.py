"""Gate inputs: scored records reduced to the runs a verdict judges, and frames built from them.

::

    run_facts(record) -> RunFacts                       one checked ``scorecard.record.v1`` dict
    gate_side(runs, source=...) -> GateSide             the runs of exactly one bundle
    pool_sides(sides) -> GateSide                       several baseline nights as one side
    combined_frame(current, baseline) -> frame          both sides: what the analysis reads

No pandas is imported here: frames are built by :func:`scorecard.aggregate.records_frame` and
handled as opaque values.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorecard.aggregate import POOLED, records_frame
from scorecard.contract import CASE_IDS, DIMENSIONS, GATE_DIMENSIONS, InputError, Row, row_of
from scorecard.engine import ROW_FIELDS, LoadedRecords, record_row

__all__ = [
    "ALL_CANDIDATES",
    "AuditFinding",
    "GateSide",
    "RunFacts",
    "combined_frame",
    "gate_side",
    "labelled_sides",
    "metric_frame",
    "none_if_nan",
    "pool_sides",
    "row_facts",
    "run_facts",
]

#: Label of the pooled comparison and the bundle-wide summary (the analysis's pooled label).
ALL_CANDIDATES = POOLED


@dataclass(frozen=True)
class AuditFinding:
    """One failed case-assertion finding (every text field is untrusted)."""

    code: str
    """Stable finding code."""
    pointer: str
    """JSON Pointer of the evidence in the observation."""
    expected: str
    """Expected value as compact JSON."""
    actual: str
    """Observed value as compact JSON."""
    hint: str
    """What to look at."""


@dataclass(frozen=True)
class RunFacts:
    """One scored record: identity, scores and the untrusted text reports show."""

    bundle: str
    """Bundle id as the record says."""
    candidate: str
    """Candidate id."""
    provider: str
    """Provider."""
    case: str
    """Case id."""
    repetition: int
    """1-based repetition."""
    classification: str
    """``completed``, ``candidate_failure``, ``infrastructure_failure`` or ``skipped``."""
    scores: tuple[float | None, ...]
    """Dimension scores in canonical order (None when unscoreable)."""
    dimension_passed: tuple[bool | None, ...]
    """Dimension pass flags in canonical order."""
    overall: float | None
    """Overall score; None when unscoreable."""
    passed: bool | None
    """Overall passed."""
    gate_passed: bool | None
    """Effective gate (the record's ``gatePassed``: gate dimensions, and the audit when it
    gates)."""
    reasons: tuple[tuple[str, ...], ...]
    """Reasons per dimension, canonical order (untrusted)."""
    findings: tuple[AuditFinding, ...]
    """Failed audit findings."""
    audit_gates: bool
    """Whether failed findings failed the effective gate when this run was scored."""
    failure: str | None
    """``code: message`` of the observation's failure (untrusted), if any."""
    settlement_ms: float | None
    """``metrics.settlementMs``."""
    cost_usd: float | None
    """``metrics.costUsd``."""
    attempts: int
    """``metrics.attempts``."""
    tool_count: int
    """``metrics.toolCount``."""
    model: str | None = None
    """Model from the roster."""
    tier: str | None = None
    """Tier from the roster."""
    source: str | None = None
    """``file:line`` of the record or observation."""

    @property
    def scoreable(self) -> bool:
        """Whether the run has an overall score."""
        return self.overall is not None

    @property
    def gate_failed(self) -> bool:
        """A scoreable run whose effective gate failed."""
        return self.scoreable and self.gate_passed is False

    def failing_gates(self) -> tuple[str, ...]:
        """Which of :data:`SAFETY_DIMENSIONS` failed (``audit`` when only the audit gate did)."""
        if not self.gate_failed:
            return ()
        failing: tuple[str, ...] = tuple(
            name
            for name, flag in zip(DIMENSIONS, self.dimension_passed, strict=True)
            if name in GATE_DIMENSIONS and flag is False
        )
        if self.audit_gates and self.findings:
            failing = (*failing, "audit")
        return failing or ("gate",)

    def reasons_for(self, dimension: str) -> tuple[str, ...]:
        """Reasons recorded for ``dimension`` (none for ``audit``)."""
        if dimension not in DIMENSIONS:
            return ()
        return self.reasons[DIMENSIONS.index(dimension)]


_FIELD = {name: index for index, name in enumerate(ROW_FIELDS)}


def none_if_nan(value: float) -> float | None:
    """``value``, or None for NaN (how rows and frames mark a missing number)."""
    return None if math.isnan(value) else value


def _compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _findings(audit: Any) -> tuple[tuple[AuditFinding, ...], bool]:
    if audit is None:
        return (), False
    if not isinstance(audit, Mapping) or not isinstance(audit.get("findings", []), list):
        raise InputError(
            "must be an object with a findings list", rule="record_field", pointer="/audit"
        )
    found = []
    for index, item in enumerate(audit.get("findings", [])):
        if not isinstance(item, Mapping):
            raise InputError(
                "must be an object", rule="record_field", pointer=f"/audit/findings/{index}"
            )
        if item.get("status") == "failed":
            found.append(
                AuditFinding(
                    code=str(item.get("code", "")),
                    pointer=str(item.get("pointer", "")),
                    expected=_compact(item.get("expected")),
                    actual=_compact(item.get("actual")),
                    hint=str(item.get("hint", "")),
                )
            )
    return tuple(found), audit.get("gates") is True


def _reasons(card: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    dimensions = card.get("dimensions", {})
    found = []
    for name in DIMENSIONS:
        reasons = dimensions.get(name, {}).get("reasons", [])
        found.append(tuple(str(reason) for reason in reasons) if isinstance(reasons, list) else ())
    return tuple(found)


def run_facts(record: Any) -> RunFacts:
    """Check a ``scorecard.record.v1`` dict (problems raise a pointed InputError) and reduce it."""
    row = record_row(record)
    gate = record.get("gatePassed", row[_FIELD["gate_passed"]])
    if gate is not None and not isinstance(gate, bool):
        raise InputError("must be true, false or null", rule="record_field", pointer="/gatePassed")
    findings, audit_gates = _findings(record.get("audit"))
    failure = record.get("failure")
    failure_text = None
    if isinstance(failure, Mapping):
        failure_text = f"{failure.get('code', '')}: {failure.get('message', '')}"
    where = record.get("source")
    source = None
    if isinstance(where, Mapping) and where.get("file"):
        source = str(where["file"]) + (f":{where['line']}" if where.get("line") else "")
    return _facts(
        row,
        gate_passed=gate,
        reasons=_reasons(record["scorecard"]),
        findings=findings,
        audit_gates=audit_gates,
        failure=failure_text,
        source=source,
    )


def row_facts(row: Row) -> RunFacts:
    """A scored row (a Parquet row: ``scorecard.engine.ROW_FIELDS``) as a run. Rows hold no
    reasons, audit findings or failure text, so reports show none for these runs."""
    gate = row[_FIELD["gate_passed"]]
    return _facts(
        row,
        gate_passed=None if gate is None else bool(gate),
        reasons=tuple(() for _ in DIMENSIONS),
        findings=(),
        audit_gates=False,
        failure=None,
        source=None,
    )


def _facts(
    row: Row,
    *,
    gate_passed: bool | None,
    reasons: tuple[tuple[str, ...], ...],
    findings: tuple[AuditFinding, ...],
    audit_gates: bool,
    failure: str | None,
    source: str | None,
) -> RunFacts:
    """The run of ``row`` (its columns) with what only a record holds."""
    return RunFacts(
        bundle=row[_FIELD["bundle"]],
        candidate=row[_FIELD["candidate"]],
        provider=row[_FIELD["provider"]],
        case=row[_FIELD["case"]],
        repetition=row[_FIELD["repetition"]],
        classification=row[_FIELD["classification"]],
        scores=tuple(none_if_nan(row[_FIELD[f"score_{name}"]]) for name in DIMENSIONS),
        dimension_passed=tuple(row[_FIELD[f"passed_{name}"]] for name in DIMENSIONS),
        overall=none_if_nan(row[_FIELD["overall_score"]]),
        passed=row[_FIELD["passed"]],
        gate_passed=gate_passed,
        reasons=reasons,
        findings=findings,
        audit_gates=audit_gates,
        failure=failure,
        settlement_ms=none_if_nan(row[_FIELD["settlement_ms"]]),
        cost_usd=none_if_nan(row[_FIELD["cost_usd"]]),
        attempts=row[_FIELD["attempts"]],
        tool_count=row[_FIELD["tool_count"]],
        model=row[_FIELD["model"]],
        tier=row[_FIELD["tier"]],
        source=source,
    )


_CASE_ORDER = {case: index for index, case in enumerate(CASE_IDS)}


def _run_key(run: RunFacts) -> tuple[Any, ...]:
    return (run.candidate, _CASE_ORDER.get(run.case, len(CASE_IDS)), run.case, run.repetition)


@dataclass(frozen=True)
class GateSide:
    """One side of a gate: the runs of one bundle, or of several nights pooled
    (:func:`pool_sides`)."""

    bundle: str
    """The bundle id (for pooled nights, their ids joined by `` + ``)."""
    runs: tuple[RunFacts, ...]
    """Its runs: candidate, case (catalog order), repetition."""
    nights: tuple[str, ...] = ()
    """The bundle ids pooled into this side, in the order given (empty: just :attr:`bundle`)."""

    @property
    def bundles(self) -> tuple[str, ...]:
        """The bundles that formed the side."""
        return self.nights or (self.bundle,)

    @property
    def candidates(self) -> list[str]:
        """Candidate ids, sorted."""
        return sorted({run.candidate for run in self.runs})


def gate_side(runs: Iterable[RunFacts], *, source: str = "the input") -> GateSide:
    """The runs of one bundle as a side; no runs, several bundles or a repeated run raise."""
    ordered = sorted(runs, key=_run_key)
    bundles = sorted({run.bundle for run in ordered})
    if not ordered:
        raise InputError("no scored records found", rule="no_records", source=source)
    if len(bundles) != 1:
        raise InputError(
            f"holds {len(bundles)} bundles ({', '.join(bundles[:5])}"
            f"{', ...' if len(bundles) > 5 else ''}); give one bundle per side",
            rule="several_bundles",
            source=source,
        )
    if any(run.candidate == ALL_CANDIDATES for run in ordered):
        raise InputError(
            f"candidate id {ALL_CANDIDATES!r} is reserved for the pooled comparison",
            rule="reserved_candidate",
            source=source,
        )
    keys = Counter(_run_key(run) for run in ordered)
    repeated = next((key for key, count in keys.items() if count > 1), None)
    if repeated is not None:
        raise InputError(
            f"repeats candidate {repeated[0]}, case {repeated[2]}, repetition {repeated[3]}",
            rule="duplicate_record",
            source=source,
        )
    return GateSide(bundles[0], tuple(ordered))


def pool_sides(sides: Sequence[GateSide], *, source: str = "the baselines") -> GateSide:
    """Several nights as one baseline side, pooled per candidate and case.

    Each run keeps its scores; its bundle becomes the pooled label (the nights' ids joined by
    `` + ``) and its repetition is renumbered after the earlier nights' runs of the same
    candidate and case, so a case run on three nights has three times the repetitions. One side
    is returned as it is; the same bundle twice raises.
    """
    if not sides:
        raise InputError("no baseline given", rule="no_records", source=source)
    if len(sides) == 1:
        return sides[0]
    names = [side.bundle for side in sides]
    repeated = next((name for name in names if names.count(name) > 1), None)
    if repeated is not None:
        raise InputError(
            f"baseline bundle {repeated} is given twice", rule="duplicate_baseline", source=source
        )
    label = " + ".join(names)
    offsets: Counter[tuple[str, str]] = Counter()
    runs: list[RunFacts] = []
    for side in sides:
        most: Counter[tuple[str, str]] = Counter()
        for run in side.runs:
            key = (run.candidate, run.case)
            runs.append(
                dataclasses.replace(run, bundle=label, repetition=offsets[key] + run.repetition)
            )
            most[key] = max(most[key], run.repetition)
        offsets.update(most)
    return GateSide(label, tuple(sorted(runs, key=_run_key)), tuple(names))


# ---------------------------------------------------------------------------------------------
# Frames (built by the aggregation layer from the facts)


def _labels(current: GateSide, baseline: GateSide | None) -> tuple[str, str | None]:
    if baseline is None:
        return current.bundle, None
    if baseline.bundle == current.bundle:
        return f"{current.bundle} (current)", f"{baseline.bundle} (baseline)"
    return current.bundle, baseline.bundle


def _frame_row(
    run: RunFacts, bundle: str, *, overall: float | None, scores: Sequence[float | None]
) -> Row:
    metrics: dict[str, Any] = {"attempts": run.attempts, "toolCount": run.tool_count}
    if run.settlement_ms is not None:
        metrics["settlementMs"] = run.settlement_ms
    if run.cost_usd is not None:
        metrics["costUsd"] = run.cost_usd
    return row_of(
        bundle_id=bundle,
        case_id=run.case,
        candidate_id=run.candidate,
        provider=run.provider,
        model=run.model,
        tier=run.tier,
        repetition=run.repetition,
        classification=run.classification,
        metrics=metrics,
        gate_passed=run.gate_passed if run.scoreable else None,
        scorecard={
            "dimensions": {
                name: {"score": score, "passed": flag}
                for name, score, flag in zip(DIMENSIONS, scores, run.dimension_passed, strict=True)
            },
            "overall": {
                "score": overall,
                "gatePassed": run.gate_passed if run.scoreable else None,
                "passed": run.passed,
            },
        },
    )


def metric_frame(sides: Sequence[tuple[str, GateSide]]) -> Any:
    """Records frame of ``sides`` (bundles labelled, baseline first); ``gate_passed`` holds the
    effective gate, so the analysis's gate-pass rate is the rate the safety rule judges."""
    rows = LoadedRecords()
    rows.rows.extend(
        _frame_row(run, label, overall=run.overall, scores=run.scores)
        for label, side in sides
        for run in side.runs
    )
    return records_frame(rows, bundle_order=[label for label, _ in sides])


def labelled_sides(current: GateSide, baseline: GateSide | None) -> list[tuple[str, GateSide]]:
    """``(label, side)`` pairs, baseline first, labelled as in a :class:`~scorecard.gate.GateResult`
    (``(current)`` / ``(baseline)`` appended when both sides have the same bundle id)."""
    current_label, baseline_label = _labels(current, baseline)
    if baseline is None or baseline_label is None:
        return [(current_label, current)]
    return [(baseline_label, baseline), (current_label, current)]


def combined_frame(current: GateSide, baseline: GateSide | None = None) -> Any:
    """The records frame (pandas, :func:`~scorecard.aggregate.records_frame`) of both sides,
    baseline bundle first, bundles labelled as in :class:`GateResult`; ``gate_passed`` holds the
    effective gate. The gate's analysis reads it."""
    return metric_frame(labelled_sides(current, baseline))
