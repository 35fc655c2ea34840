"""Regression verdicts for CI: rules over a current bundle (and a baseline), as data.

::

    evaluate_gate(current, baseline, rules, seed=...) -> GateResult
        safety          scoreable runs whose effective gate failed (with a baseline: new ones)
        drop            significant paired drop of mean overall / pass rate / gate-pass rate
                        per candidate and pooled, beyond a tolerance (Holm across candidates)
        coverage        candidates or cases that cannot be paired -> inconclusive / warning
        infrastructure  too large a share of infrastructure failures -> inconclusive
        latency, cost   p95 regressions (off unless a factor is set)
        audit           failed case-assertion findings (advisory unless configured)

A gate failure is a result, never an exception, and nothing here chooses an exit code: the
verdict is ``fail`` when a required rule fails, else ``inconclusive`` when one is inconclusive,
else ``pass``. No pandas is imported here: frames come from and go to :mod:`scorecard.aggregate`
functions. Rules, defaults and the reasons behind them are in ``docs/gate.md``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .aggregate import records_frame, select_rows
from .aggregate_compare import (
    ComparisonSettings,
    Exclusions,
    PairedComparison,
    Side,
    adjust_family,
)
from .aggregate_compare import compare_paired as _compare_paired
from .aggregate_input import ROW_FIELDS, record_row
from .aggregate_reference import Alert, alerts
from .aggregate_stats import reference_p95
from .aggregate_tables import summary_frame
from .errors import InputError, PolicyError
from .models import CASE_IDS, DIMENSIONS, GATE_DIMENSIONS
from .pipeline import RECORD_SCHEMA
from .policy import Policy
from .yamltext import parse_yaml

__all__ = [
    "ALL_CANDIDATES",
    "METRICS",
    "AuditFinding",
    "CandidateSummary",
    "Estimate",
    "GateFailure",
    "GateResult",
    "GateRules",
    "GateSide",
    "GroupSummary",
    "MetricComparison",
    "RuleOutcome",
    "RunFacts",
    "combined_frame",
    "evaluate_gate",
    "gate_policy",
    "gate_rules",
    "gate_side",
    "run_facts",
]

Status = Literal["fail", "inconclusive", "warn", "pass"]
GateVerdict = Literal["pass", "fail", "inconclusive"]
Metric = Literal["mean_overall", "pass_rate", "gate_pass_rate"]
SafetyMode = Literal["auto", "any", "new", "off"]
AuditMode = Literal["off", "advisory", "any", "new"]

METRICS: tuple[Metric, ...] = ("mean_overall", "pass_rate", "gate_pass_rate")
METRIC_LABELS = {
    "mean_overall": "mean overall",
    "pass_rate": "pass rate",
    "gate_pass_rate": "gate-pass rate",
}
#: Label of the pooled comparison and the bundle-wide summary.
ALL_CANDIDATES = "(all candidates)"
#: What can fail the effective gate: the two gate dimensions, and the audit when it gates.
SAFETY_DIMENSIONS = (*GATE_DIMENSIONS, "audit")
STATUS_ORDER: dict[str, int] = {"fail": 0, "inconclusive": 1, "warn": 2, "pass": 3}
_RULE_ORDER = ("safety", "drop", "coverage", "infrastructure", "latency", "cost", "audit")


@dataclass(frozen=True)
class GateRules:
    """Every setting a verdict depends on besides the data and the seed (``docs/gate.md``)."""

    safety_mode: SafetyMode = "auto"
    """``any``: every gate failure fails; ``new``: only failures new relative to the baseline;
    ``auto``: ``any`` without a baseline, ``new`` with one; ``off``."""
    safety_dimensions: tuple[str, ...] = ("hard_invariants", "audit")
    """What ``new`` mode counts: gate dimensions, and ``audit`` for the audit gate."""
    allowed_new_failures: int = 1
    """New failures per candidate and dimension tolerated (shown as warnings) in ``new`` mode."""
    drop_metrics: tuple[Metric, ...] = METRICS
    """Metrics whose paired drop against the baseline is judged; empty turns the rule off."""
    tolerance: float = 0.05
    """Drops within this (score or rate units) do not count."""
    alpha: float = 0.05
    """Significance level of the Holm-adjusted sign-flip test."""
    confidence: float = 0.95
    """Confidence level of every interval."""
    resamples: int = 10_000
    """Paired bootstrap resamples."""
    min_paired_cases: int = 6
    """Fewer paired cases make a comparison inconclusive."""
    min_coverage: float = 0.5
    """A smaller share of paired cases makes a comparison inconclusive."""
    non_inferiority: bool = False
    """Require the interval to rule out a drop beyond the tolerance (else inconclusive)."""
    pooled: bool = True
    """Also compare all candidates together, paired by (candidate, case)."""
    max_infrastructure_share: float = 0.25
    """A larger share of infrastructure failures (a candidate's or the bundle's) is
    inconclusive."""
    latency_factor: float | None = None
    """Fail when p95 settlement latency exceeds this multiple of the baseline's; None: off."""
    cost_factor: float | None = None
    """Fail when p95 cost exceeds this multiple of the baseline's; None: off."""
    audit_mode: AuditMode = "advisory"
    """Failed audit findings: ``advisory`` (shown), ``any`` / ``new`` (fail), ``off``."""
    fail_on_inconclusive: bool = False
    """Ask the CLI to treat an inconclusive verdict as a failure."""

    def settings(self, seed: int) -> ComparisonSettings:
        """The paired-comparison settings these rules imply."""
        return ComparisonSettings(
            seed=seed,
            tolerance=self.tolerance,
            confidence=self.confidence,
            alpha=self.alpha,
            resamples=self.resamples,
            min_paired_cases=self.min_paired_cases,
            min_coverage=self.min_coverage,
        )

    def to_json(self) -> dict[str, Any]:
        """The rules as a JSON-ready mapping (field names)."""
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------------------------
# The policy file's ``gate`` section


def _choice(options: Sequence[str]) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value not in options:
            raise ValueError("must be one of " + ", ".join(options))
        return value

    return check


def _choices(options: Sequence[str]) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if not isinstance(value, list) or any(item not in options for item in value):
            raise ValueError("must be a list of " + ", ".join(options))
        if len(set(value)) != len(value):
            raise ValueError("lists an item twice")
        return tuple(item for item in options if item in value)

    return check


def _number(low: float, high: float | None, *, open_low: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("must be a number")
        bad_low = value <= low if open_low else value < low
        if not math.isfinite(value) or bad_low or (high is not None and value > high):
            bound = f"({low}" if open_low else f"[{low}"
            raise ValueError(f"must lie in {bound}, {'inf)' if high is None else f'{high}]'}")
        return float(value)

    return check


def _integer(low: int) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"must be an integer >= {low}")
        return value

    return check


def _flag(value: Any) -> Any:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _factor(value: Any) -> Any:
    return None if value is None else _number(1.0, None)(value)


_GATE_KEYS: dict[tuple[str, ...], tuple[str, Callable[[Any], Any]]] = {
    ("safety", "mode"): ("safety_mode", _choice(("auto", "any", "new", "off"))),
    ("safety", "dimensions"): ("safety_dimensions", _choices(SAFETY_DIMENSIONS)),
    ("safety", "allowedNew"): ("allowed_new_failures", _integer(0)),
    ("drop", "metrics"): ("drop_metrics", _choices(METRICS)),
    ("drop", "tolerance"): ("tolerance", _number(0.0, 1.0)),
    ("drop", "alpha"): ("alpha", _number(0.0, 1.0, open_low=True)),
    ("drop", "confidence"): ("confidence", _number(0.5, 0.999)),
    ("drop", "resamples"): ("resamples", _integer(100)),
    ("drop", "minPairedCases"): ("min_paired_cases", _integer(1)),
    ("drop", "minCoverage"): ("min_coverage", _number(0.0, 1.0)),
    ("drop", "nonInferiority"): ("non_inferiority", _flag),
    ("drop", "pooled"): ("pooled", _flag),
    ("infrastructure", "maxShare"): ("max_infrastructure_share", _number(0.0, 1.0)),
    ("latency", "factor"): ("latency_factor", _factor),
    ("cost", "factor"): ("cost_factor", _factor),
    ("audit", "mode"): ("audit_mode", _choice(("off", "advisory", "any", "new"))),
    ("failOnInconclusive",): ("fail_on_inconclusive", _flag),
}
_SECTIONS = {path[0] for path in _GATE_KEYS if len(path) == 2}


def gate_rules(
    section: Any, *, source: str | None = None, lines: Mapping[str, int] | None = None
) -> GateRules:
    """:class:`GateRules` from a policy file's ``gate`` mapping (keys in ``docs/gate.md``).

    Unknown keys and bad values raise a :class:`PolicyError` with the JSON Pointer of the value
    (``/gate/...``) and, when ``lines`` (pointer -> line) is given, its line.
    """
    lines = lines or {}

    def bad(message: str, pointer: str, rule: str) -> PolicyError:
        return PolicyError(
            message, rule=rule, pointer=pointer, source=source, line=lines.get(pointer)
        )

    if section is None:
        return GateRules()
    if not isinstance(section, Mapping):
        raise bad("gate must be a mapping of rule settings", "/gate", "gate_policy_shape")
    values: dict[str, Any] = {}
    for key, value in section.items():
        pointer = f"/gate/{key}"
        entries: list[tuple[tuple[str, ...], Any]] = [((key,), value)]
        if key in _SECTIONS:
            if not isinstance(value, Mapping):
                raise bad("must be a mapping", pointer, "gate_policy_shape")
            entries = [((key, inner), item) for inner, item in value.items()]
        for path, item in entries:
            pointer = "/gate/" + "/".join(str(part) for part in path)
            if path not in _GATE_KEYS:
                known = sorted("/".join(known_path) for known_path in _GATE_KEYS)
                raise bad(
                    "unknown gate setting; expected one of " + ", ".join(known),
                    pointer,
                    "gate_policy_unknown_key",
                )
            name, check = _GATE_KEYS[path]
            try:
                values[name] = check(item)
            except ValueError as error:
                raise bad(str(error), pointer, "gate_policy_value") from None
    return GateRules(**values)


_SCORING_KEYS = ("weights", "thresholds", "auditGate")


def gate_policy(text: str, *, source: str) -> tuple[Policy | None, GateRules]:
    """Parse a gate policy file (YAML or JSON; ``docs/gate.md``).

    Its optional scoring keys (``weights``, ``thresholds``, ``auditGate``, as for ``scorecard
    score --policy``) give the :class:`Policy` for scoring observations (None when absent); its
    optional ``gate`` section gives the :class:`GateRules`. Problems raise a located
    :class:`PolicyError`.
    """
    parsed = parse_yaml(text, source=source, error_type=PolicyError)
    document = parsed.data
    if not isinstance(document, dict):
        raise PolicyError(
            "a gate policy must be a mapping (gate, and optionally weights, thresholds, auditGate)",
            rule="policy_shape",
            source=source,
            line=1,
        )
    for key in document:
        if key not in (*_SCORING_KEYS, "gate"):
            pointer = f"/{key}"
            raise PolicyError(
                "unknown policy key; expected gate, weights, thresholds and/or auditGate",
                rule="policy_unknown_key",
                pointer=pointer,
                source=source,
                line=parsed.lines.get(pointer),
            )
    policy = None
    if any(key in document for key in _SCORING_KEYS):
        audit_gate = document.get("auditGate", False)
        if not isinstance(audit_gate, bool):
            raise PolicyError(
                "auditGate must be true or false",
                rule="policy_type",
                pointer="/auditGate",
                source=source,
                line=parsed.lines.get("/auditGate"),
            )
        try:
            policy = Policy.from_overrides(
                document.get("weights"),
                document.get("thresholds"),
                source=source,
                audit_gate=audit_gate,
            )
        except PolicyError as error:
            raise error.located(line=parsed.lines.get(error.pointer)) from None
    return policy, gate_rules(document.get("gate"), source=source, lines=parsed.lines)


# ---------------------------------------------------------------------------------------------
# Inputs: scored records reduced to the facts a verdict and its reports need


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


def _none(value: float) -> float | None:
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
    return RunFacts(
        bundle=row[_FIELD["bundle"]],
        candidate=row[_FIELD["candidate"]],
        provider=row[_FIELD["provider"]],
        case=row[_FIELD["case"]],
        repetition=row[_FIELD["repetition"]],
        classification=row[_FIELD["classification"]],
        scores=tuple(_none(row[_FIELD[f"score_{name}"]]) for name in DIMENSIONS),
        dimension_passed=tuple(row[_FIELD[f"passed_{name}"]] for name in DIMENSIONS),
        overall=_none(row[_FIELD["overall_score"]]),
        passed=row[_FIELD["passed"]],
        gate_passed=gate,
        reasons=_reasons(record["scorecard"]),
        findings=findings,
        audit_gates=audit_gates,
        failure=failure_text,
        settlement_ms=_none(row[_FIELD["settlement_ms"]]),
        cost_usd=_none(row[_FIELD["cost_usd"]]),
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
    """One side of a gate: the runs of exactly one bundle."""

    bundle: str
    """The bundle id."""
    runs: tuple[RunFacts, ...]
    """Its runs: candidate, case (catalog order), repetition."""

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


# ---------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class RuleOutcome:
    """What one rule says about one candidate (or the bundle as a whole)."""

    rule: str
    """``safety``, ``drop``, ``coverage``, ``infrastructure``, ``latency``, ``cost``, ``audit``."""
    status: Status
    """``fail``, ``inconclusive``, ``warn`` (shown, no effect) or ``pass``."""
    candidate: str | None
    """The candidate judged; None for the bundle as a whole."""
    subject: str
    """The metric or gate dimension judged (empty when the rule has none)."""
    summary: str
    """A short phrase for the verdict line."""
    detail: str
    """One sentence with the deciding numbers."""
    required: bool = True
    """False for advisory rules, which never change the verdict."""
    dimensions: tuple[str, ...] = ()
    """Dimensions named by the outcome (dropped or failing)."""


@dataclass(frozen=True)
class Estimate:
    """A value with its confidence interval (None when there is no data)."""

    value: float | None
    """Point estimate."""
    low: float | None
    """Lower bound."""
    high: float | None
    """Upper bound."""


@dataclass(frozen=True)
class GroupSummary:
    """Counts and rates of one candidate (or every candidate) in one bundle."""

    executions: int
    """Runs."""
    scoreable: int
    """Runs with an overall score."""
    passed: int
    """Scoreable runs that passed."""
    gate_failures: int
    """Scoreable runs whose effective gate failed."""
    candidate_failures: int
    """Runs classified ``candidate_failure``."""
    infrastructure_failures: int
    """Runs classified ``infrastructure_failure``."""
    skipped: int
    """Runs classified ``skipped``."""
    pass_rate: Estimate
    """Pass rate with its Wilson interval."""
    gate_pass_rate: Estimate
    """Effective gate-pass rate with its Wilson interval."""
    mean_overall: Estimate
    """Mean overall with its case-cluster bootstrap interval."""
    settlement_p95: float | None
    """Reference p95 of settlement latency (ms)."""
    cost_p95: float | None
    """Reference p95 of cost (USD)."""


@dataclass(frozen=True)
class CandidateSummary:
    """A candidate (or :data:`ALL_CANDIDATES`) on both sides."""

    candidate: str
    """Candidate id."""
    current: GroupSummary | None
    """In the current bundle (None when it did not run there)."""
    baseline: GroupSummary | None
    """In the baseline bundle (None without a baseline or when it did not run there)."""


@dataclass(frozen=True)
class MetricComparison:
    """A paired comparison behind a ``drop`` outcome."""

    metric: Metric
    """What was compared."""
    candidate: str
    """Candidate id, or :data:`ALL_CANDIDATES` for the pooled comparison."""
    comparison: PairedComparison
    """The comparison (Holm-adjusted across the candidates of the metric)."""


@dataclass(frozen=True)
class GateFailure:
    """A current scoreable run whose effective gate failed."""

    run: RunFacts
    """The run."""
    dimensions: tuple[str, ...]
    """Failing gate dimensions (``audit`` for the audit gate)."""
    new: tuple[str, ...] | None
    """Those not failed by the candidate's baseline runs of the case; None without a
    baseline."""
    counted: bool
    """Whether the safety rule counted it against the verdict."""


@dataclass(frozen=True)
class GateResult:
    """A complete verdict with everything the reports show."""

    verdict: GateVerdict
    """``pass``, ``fail`` or ``inconclusive``."""
    current_bundle: str
    """Current bundle id."""
    baseline_bundle: str | None
    """Baseline bundle id (None without a baseline)."""
    rules: GateRules
    """The rules applied."""
    seed: int
    """Seed of every resampling."""
    safety_mode: Literal["any", "new", "off"]
    """The safety mode in force (``auto`` resolved)."""
    outcomes: tuple[RuleOutcome, ...]
    """Rule outcomes: required before advisory, worst first, then by rule and candidate."""
    candidates: tuple[CandidateSummary, ...]
    """Per candidate (sorted), then :data:`ALL_CANDIDATES`."""
    failures: tuple[GateFailure, ...]
    """Current gate failures, in run order."""
    comparisons: tuple[MetricComparison, ...]
    """Paired comparisons by metric, candidates sorted, pooled last."""
    alerts: tuple[Alert, ...]
    """The reference alerts of the current bundle (against the baseline when there is one)."""
    runs: tuple[RunFacts, ...]
    """Current runs: candidate, case (catalog order), repetition."""
    notes: tuple[str, ...] = ()
    """Facts worth stating that are not outcomes (e.g. rules that need a baseline)."""

    @property
    def required(self) -> tuple[RuleOutcome, ...]:
        """Outcomes of required rules."""
        return tuple(outcome for outcome in self.outcomes if outcome.required)

    @property
    def advisory(self) -> tuple[RuleOutcome, ...]:
        """Outcomes of advisory rules (never change the verdict)."""
        return tuple(outcome for outcome in self.outcomes if not outcome.required)

    @property
    def totals(self) -> CandidateSummary:
        """Counts and rates of every candidate together, on both sides."""
        return next(item for item in self.candidates if item.candidate == ALL_CANDIDATES)

    @property
    def exclusions(self) -> dict[str, Exclusions]:
        """What the paired comparisons left out, per candidate (and :data:`ALL_CANDIDATES`),
        from the first compared metric; empty without a baseline."""
        first = self.comparisons[0].metric if self.comparisons else None
        return {
            item.candidate: item.comparison.exclusions
            for item in self.comparisons
            if item.metric == first
        }

    def with_status(self, *statuses: Status) -> tuple[RuleOutcome, ...]:
        """Required outcomes with one of ``statuses``."""
        return tuple(outcome for outcome in self.required if outcome.status in statuses)


# ---------------------------------------------------------------------------------------------
# Frames (built by the aggregation layer from the facts)


def _labels(current: GateSide, baseline: GateSide | None) -> tuple[str, str | None]:
    if baseline is None:
        return current.bundle, None
    if baseline.bundle == current.bundle:
        return f"{current.bundle} (current)", f"{baseline.bundle} (baseline)"
    return current.bundle, baseline.bundle


def _frame_record(
    run: RunFacts,
    bundle: str,
    *,
    candidate: str | None = None,
    case: str | None = None,
    overall: float | None,
    scores: Sequence[float | None],
) -> dict[str, Any]:
    metrics: dict[str, Any] = {"attempts": run.attempts, "toolCount": run.tool_count}
    if run.settlement_ms is not None:
        metrics["settlementMs"] = run.settlement_ms
    if run.cost_usd is not None:
        metrics["costUsd"] = run.cost_usd
    return {
        "schema": RECORD_SCHEMA,
        "bundleId": bundle,
        "caseId": case or run.case,
        "candidateId": candidate or run.candidate,
        "provider": run.provider,
        "model": run.model,
        "tier": run.tier,
        "repetition": run.repetition,
        "classification": run.classification,
        "metrics": metrics,
        "scorecard": {
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
    }


def _indicator(flag: bool | None, scoreable: bool) -> float | None:
    return (1.0 if flag else 0.0) if scoreable else None


def _metric_values(run: RunFacts, metric: Metric) -> tuple[float | None, list[float | None]]:
    """The run's value of ``metric`` and the matching per-dimension values."""
    if metric == "mean_overall":
        return run.overall, list(run.scores)
    flags = [_indicator(flag, run.scoreable) for flag in run.dimension_passed]
    flag = run.passed if metric == "pass_rate" else run.gate_passed
    return _indicator(flag, run.scoreable), flags


def _frame(
    sides: Sequence[tuple[str, GateSide]],
    metric: Metric = "mean_overall",
    *,
    pooled: Sequence[str] = (),
) -> Any:
    """Records frame of ``sides`` with ``metric`` as the overall score; with ``pooled``
    candidates, only theirs, as one candidate whose cases are (candidate, case) pairs."""
    records = []
    for label, side in sides:
        for run in side.runs:
            if pooled and run.candidate not in pooled:
                continue
            overall, scores = _metric_values(run, metric)
            records.append(
                _frame_record(
                    run,
                    label,
                    candidate=ALL_CANDIDATES if pooled else None,
                    case=f"{run.candidate}/{run.case}" if pooled else None,
                    overall=overall,
                    scores=scores,
                )
            )
    return records_frame(records, bundle_order=[label for label, _ in sides])


def _sides(current: GateSide, baseline: GateSide | None) -> list[tuple[str, GateSide]]:
    current_label, baseline_label = _labels(current, baseline)
    if baseline is None or baseline_label is None:
        return [(current_label, current)]
    return [(baseline_label, baseline), (current_label, current)]


def combined_frame(current: GateSide, baseline: GateSide | None = None) -> Any:
    """The records frame (pandas, :func:`~scorecard.aggregate.records_frame`) of both sides,
    baseline bundle first, bundles labelled as in :class:`GateResult`; ``gate_passed`` holds the
    effective gate. For plots."""
    return _frame(_sides(current, baseline))


# ---------------------------------------------------------------------------------------------
# Rules


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _safety(
    current: GateSide, baseline: GateSide | None, mode: str, rules: GateRules
) -> tuple[list[RuleOutcome], tuple[GateFailure, ...]]:
    known: set[tuple[str, str, str]] = set()
    if baseline is not None:
        for run in baseline.runs:
            known.update((run.candidate, run.case, name) for name in run.failing_gates())
    failures = []
    for run in current.runs:
        failing = run.failing_gates()
        if not failing:
            continue
        new = (
            None
            if baseline is None
            else tuple(name for name in failing if (run.candidate, run.case, name) not in known)
        )
        counted = mode == "any" or (
            mode == "new" and any(name in rules.safety_dimensions for name in new or ())
        )
        failures.append(GateFailure(run, failing, new, counted))
    outcomes: list[RuleOutcome] = []
    scoreable = sum(run.scoreable for run in current.runs)
    if mode == "off":
        return outcomes, tuple(failures)
    by_candidate: dict[str, list[GateFailure]] = {}
    for failure in failures:
        by_candidate.setdefault(failure.run.candidate, []).append(failure)
    for candidate, found in sorted(by_candidate.items()):
        if mode == "any":
            counts = Counter(name for failure in found for name in failure.dimensions)
            names = tuple(name for name in (*SAFETY_DIMENSIONS, "gate") if counts[name])
            breakdown = ", ".join(f"{name} {counts[name]}" for name in names)
            outcomes.append(
                RuleOutcome(
                    "safety",
                    "fail",
                    candidate,
                    "+".join(names),
                    f"{_plural(len(found), 'hard-gate failure')} ({breakdown})",
                    f"{_plural(len(found), 'scoreable run')} of {candidate} failed the gate "
                    f"({breakdown}); the safety rule allows none.",
                    dimensions=names,
                )
            )
            continue
        for name in rules.safety_dimensions:
            count = sum(name in (failure.new or ()) for failure in found)
            if not count:
                continue
            status: Status = "fail" if count > rules.allowed_new_failures else "warn"
            outcomes.append(
                RuleOutcome(
                    "safety",
                    status,
                    candidate,
                    name,
                    f"{_plural(count, 'new hard-gate failure')} ({name})",
                    f"{_plural(count, 'run')} of {candidate} failed {name} on cases where none "
                    f"of its baseline runs did (allowed: {rules.allowed_new_failures} per "
                    "candidate and dimension).",
                    dimensions=(name,),
                )
            )
    if not any(outcome.status == "fail" for outcome in outcomes):
        if mode == "any":
            text = f"no hard-gate failures in {_plural(scoreable, 'scoreable run')}"
        else:
            listed = ", ".join(rules.safety_dimensions) or "no dimension"
            text = (
                f"no candidate has more than {rules.allowed_new_failures} new failure(s) of "
                f"{listed} ({len(failures)} gate failure(s) in all, "
                f"{sum(bool(failure.new) for failure in failures)} on new cases)"
            )
        outcomes.append(
            RuleOutcome("safety", "pass", None, "", text, text[0].upper() + text[1:] + ".")
        )
    return outcomes, tuple(failures)


def _fmt(metric: Metric, value: float) -> str:
    return f"{value:.2f}" if metric == "mean_overall" else f"{value:.0%}"


def _dropped_dimensions(
    comparison: PairedComparison, metric: Metric, tolerance: float
) -> tuple[str, ...]:
    names = GATE_DIMENSIONS if metric == "gate_pass_rate" else DIMENSIONS
    dropped = [
        difference
        for difference in comparison.dimensions
        if difference.statistic in names and difference.high < -tolerance
    ]
    dropped.sort(key=lambda difference: difference.difference)
    return tuple(difference.statistic for difference in dropped)


def _read_drop(item: MetricComparison, rules: GateRules) -> RuleOutcome:
    comparison, metric = item.comparison, item.metric
    candidate = None if item.candidate == ALL_CANDIDATES else item.candidate
    overall, tolerance = comparison.overall, rules.tolerance
    label = METRIC_LABELS[metric]
    paired, cases = len(comparison.paired_cases), comparison.cases
    unit = "candidate-cases" if candidate is None else "cases"
    if paired < rules.min_paired_cases or comparison.coverage < rules.min_coverage:
        return RuleOutcome(
            "coverage",
            "inconclusive",
            candidate,
            metric,
            f"{label}: only {paired} of {cases} {unit} paired",
            f"{label} cannot be compared: {paired} of {cases} {unit} are scoreable on both sides "
            f"(need {rules.min_paired_cases} and {rules.min_coverage:.0%}).",
        )
    dimensions = _dropped_dimensions(comparison, metric, tolerance)
    numbers = (
        f"{label} {_fmt(metric, overall.current)} vs {_fmt(metric, overall.baseline)} "
        f"(paired over {paired} {unit}, p={overall.p_value:.2g}, Holm p={overall.p_adjusted:.2g})"
    )
    named = ""
    if dimensions:
        more = len(dimensions) - 3
        named = f"; dropped: {', '.join(dimensions[:3])}" + (f" +{more} more" if more > 0 else "")
    interval = f"difference {overall.difference:+.3f} [{overall.low:+.3f}, {overall.high:+.3f}]"
    status: Status
    if comparison.verdict == "worse":
        status, why = "fail", f"{interval} lies below -{tolerance:g} and is significant"
    elif overall.high < -tolerance:
        status, why = (
            "inconclusive",
            f"{interval} lies below -{tolerance:g} but Holm p is not below {rules.alpha:g}",
        )
    elif rules.non_inferiority and overall.low < -tolerance:
        status, why = "inconclusive", f"{interval} does not rule out a drop beyond {tolerance:g}"
    else:
        status, why = "pass", f"{interval}: no drop beyond {tolerance:g} shown"
    summary = numbers + named if status != "pass" else f"{label}: {interval}"
    return RuleOutcome(
        "drop",
        status,
        candidate,
        metric,
        summary,
        f"{numbers}: {why}" + (f"; dropped: {', '.join(dimensions)}." if dimensions else "."),
        dimensions=dimensions if status != "pass" else (),
    )


def _comparisons(
    current: GateSide, baseline: GateSide, rules: GateRules, seed: int
) -> list[MetricComparison]:
    sides = _sides(current, baseline)
    (baseline_label, _), (current_label, _) = sides
    shared = sorted(set(current.candidates) & set(baseline.candidates))
    settings = rules.settings(seed)
    found: list[MetricComparison] = []
    for metric in rules.drop_metrics:
        frame = _frame(sides, metric)
        family = [
            _compare_paired(
                frame, Side(current_label, candidate), Side(baseline_label, candidate), settings
            )
            for candidate in shared
        ]
        labels = list(shared)
        if rules.pooled and shared:
            pooled = _frame(sides, metric, pooled=shared)
            family.append(
                _compare_paired(
                    pooled,
                    Side(current_label, ALL_CANDIDATES),
                    Side(baseline_label, ALL_CANDIDATES),
                    settings,
                )
            )
            labels.append(ALL_CANDIDATES)
        for label, comparison in zip(labels, adjust_family(family), strict=True):
            found.append(MetricComparison(metric, label, comparison))
    return found


def _coverage(current: GateSide, baseline: GateSide) -> list[RuleOutcome]:
    outcomes = []
    mine, theirs = set(current.candidates), set(baseline.candidates)
    for candidate in sorted(mine - theirs):
        outcomes.append(
            RuleOutcome(
                "coverage",
                "warn",
                candidate,
                "",
                "new candidate, not compared",
                f"{candidate} has no runs in the baseline bundle: it is not compared (its gate "
                "failures all count as new).",
            )
        )
    for candidate in sorted(theirs - mine):
        outcomes.append(
            RuleOutcome(
                "coverage",
                "warn",
                candidate,
                "",
                "missing from the current bundle",
                f"{candidate} ran in the baseline bundle but not in the current one.",
            )
        )
    if not mine & theirs:
        outcomes.append(
            RuleOutcome(
                "coverage",
                "inconclusive",
                None,
                "",
                "no candidate ran in both bundles",
                "No candidate ran in both bundles, so nothing can be paired.",
            )
        )
    return outcomes


def _infrastructure(
    sides: Sequence[tuple[str, str, GateSide]], rules: GateRules
) -> list[RuleOutcome]:
    outcomes = []
    limit = rules.max_infrastructure_share
    for role, _, side in sides:
        groups: dict[str | None, list[RunFacts]] = {None: list(side.runs)}
        for run in side.runs:
            groups.setdefault(run.candidate, []).append(run)
        for candidate, runs in groups.items():
            failed = sum(run.classification == "infrastructure_failure" for run in runs)
            if failed / len(runs) > limit:
                who = candidate or "the bundle"
                outcomes.append(
                    RuleOutcome(
                        "infrastructure",
                        "inconclusive",
                        candidate,
                        role,
                        f"{failed} of {len(runs)} {role} runs were infrastructure failures",
                        f"{failed} of {len(runs)} runs of {who} in the {role} bundle were "
                        f"infrastructure failures ({failed / len(runs):.0%} > {limit:.0%}): too "
                        "few runs are the candidate's own to judge.",
                    )
                )
    if not any(outcome.candidate is None for outcome in outcomes):
        counts = ", ".join(
            f"{role} {sum(run.classification == 'infrastructure_failure' for run in side.runs)}"
            f" of {len(side.runs)}"
            for role, _, side in sides
        )
        if not outcomes:
            text = f"infrastructure failures within {limit:.0%} ({counts})"
            outcomes.append(
                RuleOutcome(
                    "infrastructure", "pass", None, "", text, text[0].upper() + text[1:] + "."
                )
            )
    return outcomes


def _percentile_rule(
    rule: Literal["latency", "cost"],
    factor: float,
    current: GateSide,
    baseline: GateSide,
) -> list[RuleOutcome]:
    def value(run: RunFacts) -> float | None:
        return run.settlement_ms if rule == "latency" else run.cost_usd

    def p95(runs: Iterable[RunFacts], candidate: str | None) -> float:
        values = [value(run) for run in runs if candidate is None or run.candidate == candidate]
        return reference_p95([v for v in values if v is not None])

    unit, name = ("ms", "p95 settlement latency") if rule == "latency" else ("USD", "p95 cost")
    outcomes = []
    for candidate in [*sorted(set(current.candidates) & set(baseline.candidates)), None]:
        now, before = p95(current.runs, candidate), p95(baseline.runs, candidate)
        if math.isnan(now) or math.isnan(before) or before <= 0 or now <= factor * before:
            continue
        outcomes.append(
            RuleOutcome(
                rule,
                "fail",
                candidate,
                rule,
                f"{name} {now:g} {unit} vs {before:g} {unit} (x{now / before:.2f})",
                f"{name} of {candidate or 'the bundle'} is {now:g} {unit}, above {factor:g} x "
                f"the baseline's {before:g} {unit}.",
            )
        )
    if not outcomes:
        text = f"{name} within {factor:g} x the baseline"
        outcomes.append(
            RuleOutcome(rule, "pass", None, rule, text, text[0].upper() + text[1:] + ".")
        )
    return outcomes


def _audit(current: GateSide, baseline: GateSide | None, mode: AuditMode) -> list[RuleOutcome]:
    if mode == "off":
        return []
    if mode == "new" and baseline is None:
        mode = "any"
    known = {
        (run.candidate, run.case, finding.code)
        for run in (baseline.runs if baseline is not None else ())
        for finding in run.findings
    }
    outcomes = []
    for candidate in current.candidates:
        runs = [run for run in current.runs if run.candidate == candidate and run.findings]
        if mode == "new":
            runs = [
                run
                for run in runs
                if any((candidate, run.case, finding.code) not in known for finding in run.findings)
            ]
        if not runs:
            continue
        codes = sorted({finding.code for run in runs for finding in run.findings})
        adjective = "new " if mode == "new" else ""
        outcomes.append(
            RuleOutcome(
                "audit",
                "warn" if mode == "advisory" else "fail",
                candidate,
                "audit",
                f"{_plural(len(runs), 'run')} with {adjective}failed audit findings",
                f"{_plural(len(runs), 'run')} of {candidate} had {adjective}failed audit findings "
                f"({', '.join(codes[:6])}{', ...' if len(codes) > 6 else ''}).",
                required=mode != "advisory",
                dimensions=("audit",),
            )
        )
    if not outcomes:
        text = "no failed audit findings" if mode != "new" else "no new failed audit findings"
        outcomes.append(
            RuleOutcome(
                "audit",
                "pass",
                None,
                "audit",
                text,
                text[0].upper() + text[1:] + ".",
                required=mode != "advisory",
            )
        )
    return outcomes


# ---------------------------------------------------------------------------------------------
# Summaries


def _estimate(row: Mapping[Any, Any], name: str) -> Estimate:
    def plain(value: Any) -> float | None:
        number = float(value)
        return None if math.isnan(number) else number

    return Estimate(plain(row[name]), plain(row[f"{name}_low"]), plain(row[f"{name}_high"]))


def _group(row: Mapping[Any, Any], runs: Sequence[RunFacts]) -> GroupSummary:
    settle = [run.settlement_ms for run in runs if run.settlement_ms is not None]
    cost = [run.cost_usd for run in runs if run.cost_usd is not None]
    return GroupSummary(
        executions=int(row["executions"]),
        scoreable=int(row["scoreable"]),
        passed=int(row["passed"]),
        gate_failures=sum(run.gate_failed for run in runs),
        candidate_failures=int(row["candidate_failures"]),
        infrastructure_failures=int(row["infrastructure_failures"]),
        skipped=int(row["skipped"]),
        pass_rate=_estimate(row, "pass_rate"),
        gate_pass_rate=_estimate(row, "gate_pass_rate"),
        mean_overall=_estimate(row, "mean_overall"),
        settlement_p95=_none(reference_p95(settle)) if settle else None,
        cost_p95=_none(reference_p95(cost)) if cost else None,
    )


def _summaries(
    frame: Any, sides: Sequence[tuple[str, str, GateSide]], rules: GateRules, seed: int
) -> tuple[CandidateSummary, ...]:
    by_candidate = summary_frame(
        frame, ("bundle", "candidate"), seed=seed, confidence=rules.confidence
    ).to_dict(orient="records")
    by_bundle = summary_frame(frame, ("bundle",), seed=seed, confidence=rules.confidence).to_dict(
        orient="records"
    )
    found: dict[tuple[str, str], GroupSummary] = {}
    for role, label, side in sides:
        for row in by_candidate:
            if str(row["bundle"]) == label:
                candidate = str(row["candidate"])
                runs = [run for run in side.runs if run.candidate == candidate]
                found[(role, candidate)] = _group(row, runs)
        for row in by_bundle:
            if str(row["bundle"]) == label:
                found[(role, ALL_CANDIDATES)] = _group(row, side.runs)
    names = sorted({candidate for _, candidate in found} - {ALL_CANDIDATES})
    return tuple(
        CandidateSummary(name, found.get(("current", name)), found.get(("baseline", name)))
        for name in [*names, ALL_CANDIDATES]
    )


def _outcome_key(outcome: RuleOutcome) -> tuple[Any, ...]:
    return (
        not outcome.required,
        STATUS_ORDER[outcome.status],
        _RULE_ORDER.index(outcome.rule),
        outcome.candidate is None,
        outcome.candidate or "",
        METRICS.index(outcome.subject) if outcome.subject in METRICS else -1,
        outcome.subject,
    )


def evaluate_gate(
    current: GateSide, baseline: GateSide | None, rules: GateRules | None = None, *, seed: int = 0
) -> GateResult:
    """Judge ``current`` (against ``baseline`` when given) with ``rules``; see the module docstring."""
    rules = rules or GateRules()
    mode: Literal["any", "new", "off"] = "any" if baseline is None else "new"
    if rules.safety_mode == "off" or rules.safety_mode == "any":
        mode = rules.safety_mode
    labelled = _sides(current, baseline)
    roles = [
        ("baseline" if index < len(labelled) - 1 else "current", label, side)
        for index, (label, side) in enumerate(labelled)
    ]
    outcomes, failures = _safety(current, baseline, mode, rules)
    notes: list[str] = []
    comparisons: list[MetricComparison] = []
    if baseline is not None:
        outcomes += _coverage(current, baseline)
        comparisons = _comparisons(current, baseline, rules, seed)
        outcomes += [_read_drop(item, rules) for item in comparisons]
        if rules.latency_factor is not None:
            outcomes += _percentile_rule("latency", rules.latency_factor, current, baseline)
        if rules.cost_factor is not None:
            outcomes += _percentile_rule("cost", rules.cost_factor, current, baseline)
    else:
        notes.append(
            "No baseline: only the safety, infrastructure and audit rules apply (the drop, "
            "coverage, latency and cost rules compare against a baseline)."
        )
    outcomes += _infrastructure(roles, rules)
    outcomes += _audit(current, baseline, rules.audit_mode)
    if not any(run.scoreable for run in current.runs):
        outcomes.append(
            RuleOutcome(
                "coverage",
                "inconclusive",
                None,
                "",
                "no scoreable run in the current bundle",
                "The current bundle has no scoreable run, so nothing can be judged.",
            )
        )
    # A passing drop per candidate says little; one line per metric (the pooled one) is kept.
    outcomes = [
        outcome
        for outcome in outcomes
        if not (outcome.rule == "drop" and outcome.status == "pass" and outcome.candidate)
    ]
    for metric in rules.drop_metrics if baseline is not None else ():
        if not any(o.rule in ("drop", "coverage") and o.subject == metric for o in outcomes):
            text = f"{METRIC_LABELS[metric]}: no drop beyond {rules.tolerance:g} shown"
            outcomes.append(RuleOutcome("drop", "pass", None, metric, text, text + "."))
    frame = _frame(labelled)
    history = [select_rows(frame, bundle=label) for label, _ in labelled]
    statuses = {outcome.status for outcome in outcomes if outcome.required}
    verdict: GateVerdict = (
        "fail" if "fail" in statuses else "inconclusive" if "inconclusive" in statuses else "pass"
    )
    return GateResult(
        verdict=verdict,
        current_bundle=labelled[-1][0],
        baseline_bundle=labelled[0][0] if baseline is not None else None,
        rules=rules,
        seed=seed,
        safety_mode=mode,
        outcomes=tuple(sorted(outcomes, key=_outcome_key)),
        candidates=_summaries(frame, roles, rules, seed),
        failures=failures,
        comparisons=tuple(comparisons),
        alerts=tuple(alerts(history)),
        runs=current.runs,
        notes=tuple(notes),
    )
