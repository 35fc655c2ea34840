"""A run as the gate sees it: :class:`RunFacts`, and the one function that makes one from a
row and what only a record adds.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from scorecard.contract import DIMENSIONS, GATE_DIMENSIONS, Row, row_of
from scorecard.engine import ROW_FIELDS

if TYPE_CHECKING:
    from scorecard.engine import RunEvidence

__all__ = [
    "AuditFinding",
    "RunFacts",
    "facts_of_columns",
    "facts_of_row",
    "frame_row",
    "none_if_nan",
    "numbered_facts",
]


_DIMENSION_INDEX: dict[str, int] = {name: index for index, name in enumerate(DIMENSIONS)}


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
    assertion: str = ""
    """JSON Pointer of the case assertion checked (``/assertions/runStatus``)."""


@dataclass(frozen=True, slots=True)
class RunFacts:
    """One scored record: identity, scores and the untrusted text reports show (slotted: a
    site or gate of a week of 50,000-run nights holds 400,000 of them)."""

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
    evidence: RunEvidence | None = None
    """Where the run was read and each failing reason's runner output contract, when the
    observation was at hand (scored here or kept by a store; not from records or Parquet)."""

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
        index = _DIMENSION_INDEX.get(dimension)
        return () if index is None else self.reasons[index]

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its values, in field order: a slotted dataclass's own pickling looks its
        # fields up again for every run read back (most of the time a report's main process
        # spent reading back the runs its scoring workers kept).
        return _facts_of_values, (_EVERY_FIELD(self),)


_FIELD = {name: index for index, name in enumerate(ROW_FIELDS)}


def none_if_nan(value: float) -> float | None:
    """``value``, or None for NaN (how rows and frames mark a missing number)."""
    return None if math.isnan(value) else value


def facts_of_row(
    row: Row,
    *,
    gate_passed: bool | None,
    reasons: tuple[tuple[str, ...], ...],
    findings: tuple[AuditFinding, ...],
    audit_gates: bool,
    failure: str | None,
    source: str | None,
    evidence: RunEvidence | None = None,
) -> RunFacts:
    """The run of ``row`` (its columns) with what only a record holds. Its names (bundle,
    candidate, provider, case, classification, model, tier) are interned: a run's parsed
    record brings its own copy of each, and a night of 50,000 runs holds a handful of them;
    so are its reasons, audit findings, scores and passes where equal values are the same
    value, which a campaign's runs repeat."""
    return RunFacts(
        bundle=_shared(row[_FIELD["bundle"]]),
        candidate=_shared(row[_FIELD["candidate"]]),
        provider=_shared(row[_FIELD["provider"]]),
        case=_shared(row[_FIELD["case"]]),
        repetition=row[_FIELD["repetition"]],
        classification=_shared(row[_FIELD["classification"]]),
        scores=_repeated_numbers(
            tuple(none_if_nan(row[_FIELD[f"score_{name}"]]) for name in DIMENSIONS)
        ),
        dimension_passed=_repeated_numbers(
            tuple(row[_FIELD[f"passed_{name}"]] for name in DIMENSIONS)
        ),
        overall=none_if_nan(row[_FIELD["overall_score"]]),
        passed=row[_FIELD["passed"]],
        gate_passed=gate_passed,
        reasons=_repeated(reasons),
        findings=_repeated(findings),
        audit_gates=audit_gates,
        failure=failure,
        settlement_ms=none_if_nan(row[_FIELD["settlement_ms"]]),
        cost_usd=none_if_nan(row[_FIELD["cost_usd"]]),
        attempts=row[_FIELD["attempts"]],
        tool_count=row[_FIELD["tool_count"]],
        model=_shared(row[_FIELD["model"]]),
        tier=_shared(row[_FIELD["tier"]]),
        source=source,
        evidence=evidence,
    )


def _shared(value: Any) -> Any:
    """``value`` interned when it is a plain string (one object for every run that names it)."""
    return sys.intern(value) if type(value) is str else value


#: Reasons and findings met so far (each its own key and value), forgotten past this many:
#: sharing saves memory, it never changes a value.
_REPEATED_AT_MOST = 100_000
_repeated_values: dict[Any, Any] = {}


def _repeated(value: Any) -> Any:
    """``value`` (a tuple of texts, or of findings made of texts and numbers' JSON) as the
    first equal one met: the same object for every run that repeats it."""
    if len(_repeated_values) >= _REPEATED_AT_MOST:
        _repeated_values.clear()
    return _repeated_values.setdefault(value, value)


def _repeated_numbers(value: tuple[Any, ...]) -> tuple[Any, ...]:
    """``value`` (scores or passes) shared as :func:`_repeated` shares texts, when equal means
    the same: floats (with each zero's sign in the key: 0.0 equals -0.0), or booleans, each
    None or of the one type, which is part of the key (1.0 equals True). Others are kept as
    they are."""
    kinds = {type(item) for item in value} - {type(None)}
    if kinds == {float} or kinds == {bool} or not kinds:
        if len(_repeated_values) >= _REPEATED_AT_MOST:
            _repeated_values.clear()
        kind = next(iter(kinds), None)
        signs: tuple[float, ...] = ()
        if kind is float and 0.0 in value:
            signs = tuple(math.copysign(1.0, item) if item == 0.0 else 0.0 for item in value)
        key = (kind, value, signs)
        return _repeated_values.setdefault(key, value)  # type: ignore[no-any-return]
    return value


_FIELDS = tuple(field.name for field in dataclasses.fields(RunFacts))
#: Each field's slot setter, in field order (a frozen dataclass's own ``__setattr__`` refuses).
_SETTERS = tuple(getattr(RunFacts, name).__set__ for name in _FIELDS)


def facts_of_columns(
    columns: Mapping[str, Sequence[Any]], details: Iterable[tuple[Any, ...]]
) -> list[RunFacts]:
    """The runs of ``columns`` (row fields, as lists or numpy arrays; ``gate_passed`` the
    effective gate) with each run's detail (reasons, findings, audit_gates, failure, source):
    what :func:`facts_of_row` makes of each row, made a block of columns at a time. Each run's
    slots are set from its values through their descriptors (a frozen dataclass's ``__init__``
    sets each field through ``object.__setattr__``, slower): the values of every run are one
    ``zip`` of the columns, in field order."""

    def known(name: str) -> list[Any]:
        """The numbers, None for NaN."""
        values = columns[name]
        if isinstance(values, np.ndarray):
            held = values.astype(object)
            held[np.isnan(values)] = None
            return cast(list[Any], held.tolist())
        return [None if value != value else value for value in values]

    def plain(name: str) -> Sequence[Any]:
        values = columns[name]
        return cast(list[Any], values.tolist()) if isinstance(values, np.ndarray) else values

    size = len(columns["bundle"])
    detail_columns: Sequence[Sequence[Any]] = [()] * 6
    if size:
        detail_columns = list(zip(*details, strict=True))
    if len(detail_columns) != 6:
        raise ValueError("a detail is reasons, findings, audit_gates, failure, source and evidence")
    reasons, findings, audit_gates, failure, source, evidence = detail_columns
    values = zip(
        plain("bundle"),
        plain("candidate"),
        plain("provider"),
        plain("case"),
        plain("repetition"),
        plain("classification"),
        zip(*(known(f"score_{name}") for name in DIMENSIONS), strict=True),
        zip(*(plain(f"passed_{name}") for name in DIMENSIONS), strict=True),
        known("overall_score"),
        plain("passed"),
        plain("gate_passed"),
        reasons,
        findings,
        audit_gates,
        failure,
        known("settlement_ms"),
        known("cost_usd"),
        plain("attempts"),
        plain("tool_count"),
        plain("model"),
        plain("tier"),
        source,
        evidence,
        strict=True,
    )
    made = []
    new = object.__new__
    for fields in values:
        run = new(RunFacts)
        for set_field, value in zip(_SETTERS, fields):  # noqa: B905 (as many, by construction)
            set_field(run, value)
        made.append(run)
    return made


def numbered_facts(run: RunFacts, repetition: int) -> RunFacts:
    """``run`` as run number ``repetition``, shared as :func:`facts_of_row` shares a run's
    values: what a process makes of facts another process worked out (a scoring worker numbers
    no run, and what it sends comes with its own copy of every name and repeated value)."""
    values = list(_EVERY_FIELD(run))
    values[_REPETITION] = repetition
    for index in _NAMES:
        values[index] = _shared(values[index])
    for index in _NUMBERS:
        values[index] = _repeated_numbers(values[index])
    for index in _TEXTS:
        values[index] = _repeated(values[index])
    made = object.__new__(RunFacts)
    for set_field, value in zip(_SETTERS, values):  # noqa: B905 (as many, by construction)
        set_field(made, value)
    return made


_EVERY_FIELD = operator.attrgetter(*_FIELDS)


def _facts_of_values(values: Sequence[Any]) -> RunFacts:
    """The run of ``values`` (every field's, in field order): how a pickled run is read back."""
    made = object.__new__(RunFacts)
    for set_field, value in zip(_SETTERS, values, strict=True):
        set_field(made, value)
    return made


_REPETITION = _FIELDS.index("repetition")
#: The fields :func:`facts_of_row` interns, and those it shares as numbers and as texts.
_NAMES = tuple(
    _FIELDS.index(name)
    for name in ("bundle", "candidate", "provider", "case", "classification", "model", "tier")
)
_NUMBERS = (_FIELDS.index("scores"), _FIELDS.index("dimension_passed"))
_TEXTS = (_FIELDS.index("reasons"), _FIELDS.index("findings"))


def frame_row(
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
