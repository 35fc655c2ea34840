"""Gate inputs: scored records reduced to the runs a verdict judges, and frames built from them.

::

    run_facts(record) -> RunFacts                       one checked ``scorecard.record.v1`` dict
    gate_side(runs, source=...) -> GateSide             the runs of exactly one bundle
    rows_side(rows, details, source=...) -> GateSide    the same, from rows and the detail of
                                                        the runs a verdict shows (as columns)
    frame_side(frame, source=...) -> GateSide           the same, from a records frame
    pool_sides(sides) -> GateSide                       several baseline nights as one side
    combined_frame(current, baseline) -> frame          both sides: what the analysis reads

No pandas is imported here: frames are built by :func:`scorecard.aggregate.records_frame` and
handled as opaque values.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from scorecard.aggregate import (
    POOLED,
    column_values,
    observed_categories,
    rows_frame,
    stack_frames,
)
from scorecard.contract import CASE_IDS, DIMENSIONS, InputError, Row
from scorecard.core import record_failure
from scorecard.engine import ROW_FIELDS, record_row

if TYPE_CHECKING:
    from scorecard.core import ScoredRecord
    from scorecard.engine import RecordDetail

from ._runs import AuditFinding, RunFacts, facts_of_row, none_if_nan
from ._table import Detail, RunTable

__all__ = [
    "ALL_CANDIDATES",
    "AuditFinding",
    "GateSide",
    "RunFacts",
    "combined_frame",
    "findings_side",
    "frame_side",
    "gate_side",
    "labelled_sides",
    "metric_frame",
    "none_if_nan",
    "pool_sides",
    "record_detail",
    "row_facts",
    "rows_side",
    "run_facts",
    "scored_facts",
]

_FIELD = {name: index for index, name in enumerate(ROW_FIELDS)}
_PAIRS = 4096
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)
_NO_REASONS: tuple[tuple[str, ...], ...] = tuple(() for _ in DIMENSIONS)

#: Label of the pooled comparison and the bundle-wide summary (the analysis's pooled label).
ALL_CANDIDATES = POOLED


def record_detail(record: Mapping[str, Any]) -> Detail:
    """What a ``scorecard.record.v1`` holds of a run beyond its row
    (:func:`scorecard.engine.record_detail`), its failed findings as :class:`AuditFinding`."""
    from scorecard.engine import record_detail as read_detail  # the scoring run's modules

    return _gate_detail(read_detail(record))


def _gate_detail(
    detail: RecordDetail, made: dict[Any, tuple[AuditFinding, ...]] | None = None
) -> Detail:
    """``detail`` with its findings as :class:`AuditFinding`; with ``made``, findings met
    before (by their values: a campaign's runs fail the same few findings) are the same
    objects, made once."""
    reasons, found, audit_gates, failure, source, evidence = detail
    if made is None:
        findings = tuple(AuditFinding(*item) for item in found)
    else:
        findings = _findings(found, made)
    return reasons, findings, audit_gates, failure, source, evidence


def _findings(found: Any, made: dict[Any, tuple[AuditFinding, ...]]) -> tuple[AuditFinding, ...]:
    """The :class:`AuditFinding` of ``found`` (a detail's findings), made once per value."""
    key = tuple(found)
    known = made.get(key)
    if known is None:
        known = made[key] = tuple(AuditFinding(*item) for item in found)
    return known


def run_facts(record: Any) -> RunFacts:
    """Check a ``scorecard.record.v1`` dict (problems raise a pointed InputError) and reduce it."""
    row = record_row(record)
    gate = record.get("gatePassed", row[_FIELD["gate_passed"]])
    if gate is not None and not isinstance(gate, bool):
        raise InputError("must be true, false or null", rule="record_field", pointer="/gatePassed")
    reasons, findings, audit_gates, failure, source, evidence = record_detail(record)
    return facts_of_row(
        row,
        gate_passed=gate,
        reasons=reasons,
        findings=findings,
        audit_gates=audit_gates,
        failure=failure,
        source=source,
        evidence=evidence,
    )


def scored_facts(record: ScoredRecord, row: Row) -> RunFacts:
    """:func:`run_facts` of ``record.record_json()`` for a record scored here (so already
    checked), with ``row`` its :func:`~scorecard.engine.scored_row`: the same run, read from
    the record's own values (its reasons redacted, its failed findings, failure and source as
    :func:`record_detail` reads them) without writing and checking again the rest of its
    record. What a site keeps of each run."""
    from scorecard.engine import failure_text, source_text  # the scoring run's modules

    findings: tuple[AuditFinding, ...] = ()
    failed = [item.to_json() for item in record.findings if item.status == "failed"]
    if failed:
        findings = record_detail({"scorecard": {}, "audit": {"findings": failed}})[1]
    failure = record_failure(record.observation.get("failure"))
    redacted = record.redacted_reasons
    return facts_of_row(
        row,
        gate_passed=record.gate_passed,
        reasons=tuple(redacted.get(name, ()) for name in DIMENSIONS),
        findings=findings,
        audit_gates=record.audit_gate,
        failure=None if failure is None else failure_text(failure),
        source=source_text(record.source, record.line),
    )


def row_facts(row: Row) -> RunFacts:
    """A scored row (a Parquet row: ``scorecard.engine.ROW_FIELDS``) as a run. Rows hold no
    reasons, audit findings or failure text, so reports show none for these runs."""
    gate = row[_FIELD["gate_passed"]]
    return facts_of_row(
        row,
        gate_passed=None if gate is None else bool(gate),
        reasons=tuple(() for _ in DIMENSIONS),
        findings=(),
        audit_gates=False,
        failure=None,
        source=None,
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
    runs: Sequence[RunFacts]
    """Its runs: candidate, case (catalog order), repetition (a tuple, or a
    :class:`~scorecard.gate._table.RunTable` that makes each run when asked)."""
    nights: tuple[str, ...] = ()
    """The bundle ids pooled into this side, in the order given (empty: just :attr:`bundle`)."""

    @functools.cached_property
    def table(self) -> RunTable:
        """The runs as the columns the rules read."""
        return self.runs if isinstance(self.runs, RunTable) else RunTable.of_runs(self.runs)

    @property
    def bundles(self) -> tuple[str, ...]:
        """The bundles that formed the side."""
        return self.nights or (self.bundle,)

    @property
    def candidates(self) -> list[str]:
        """Candidate ids, sorted."""
        return sorted(set(self.table.candidate))


def _checked(ordered: Sequence[tuple[str, str, int]], bundles: Sequence[str], source: str) -> None:
    """Raise for no runs, several bundles, the reserved candidate or a repeated run
    (``ordered``: each run's candidate, case and repetition, in run order)."""
    # Sorted runs: a repeated run follows its first.
    repeated = next(
        (key for key, before in zip(ordered[1:], ordered[:-1], strict=True) if key == before), None
    )
    reserved = any(candidate == ALL_CANDIDATES for candidate, _, _ in ordered)
    _checked_runs(len(ordered), bundles, reserved, repeated, source)


def _checked_runs(
    count: int,
    bundles: Sequence[str],
    reserved: bool,
    repeated: tuple[str, str, int] | None,
    source: str,
) -> None:
    """Raise for no runs, several bundles, the reserved candidate (``reserved``: a run has
    it) or a repeated run (the first run repeating the run before it), in that order."""
    if not count:
        raise InputError("no scored records found", rule="no_records", source=source)
    if len(bundles) != 1:
        raise InputError(
            f"holds {len(bundles)} bundles ({', '.join(bundles[:5])}"
            f"{', ...' if len(bundles) > 5 else ''}); give one bundle per side",
            rule="several_bundles",
            source=source,
        )
    if reserved:
        raise InputError(
            f"candidate id {ALL_CANDIDATES!r} is reserved for the pooled comparison",
            rule="reserved_candidate",
            source=source,
        )
    if repeated is not None:
        raise InputError(
            f"repeats candidate {repeated[0]}, case {repeated[1]}, repetition {repeated[2]}",
            rule="duplicate_record",
            source=source,
        )


def gate_side(runs: Iterable[RunFacts], *, source: str = "the input") -> GateSide:
    """The runs of one bundle as a side; no runs, several bundles or a repeated run raise."""
    ordered = sorted(runs, key=_run_key)
    bundles = sorted({run.bundle for run in ordered})
    _checked([(run.candidate, run.case, run.repetition) for run in ordered], bundles, source)
    return GateSide(bundles[0], tuple(ordered))


def frame_side(
    frame: Any,
    details: Mapping[int, Detail] | None = None,
    *,
    source: str = "the input",
    bundle: str | None = None,
) -> GateSide:
    """The runs of one bundle's sorted records frame as a side, checked as :func:`gate_side`
    checks runs; ``details`` is the detail of some runs, by frame row (none: the runs show none,
    as rows hold none). ``bundle`` names the side's bundle whatever the frame says (a given
    ``--baseline-bundle-id``): the runs of several bundles become one, and a run that two of
    them hold is the repeated run it is for records files relabelled the same way (the rows
    are sorted again: give no ``details`` with it)."""
    if bundle is not None:
        if details:
            raise ValueError("frame_side: details are by row, and naming the bundle re-sorts")
        frame = stack_frames([(bundle, frame)])
    table = RunTable.of_frame(frame, details or {})
    bundles = observed_categories(frame["bundle"])
    # The checks on the columns: the first repeated run is next to its first (sorted frame).
    repetitions = frame["repetition"].to_numpy()
    same = np.ones(max(len(frame) - 1, 0), dtype=bool)
    for values in (
        frame["candidate"].cat.codes.to_numpy(),
        frame["case"].cat.codes.to_numpy(),
        repetitions,
    ):
        same &= values[1:] == values[:-1]
    repeat = np.flatnonzero(same)[:1].tolist()
    repeated = None
    if repeat:
        index = repeat[0] + 1
        repeated = (table.candidate[index], table.case[index], int(repetitions[index]))
    reserved = ALL_CANDIDATES in observed_categories(frame["candidate"])
    _checked_runs(len(frame), bundles, reserved, repeated, source)
    return GateSide(bundles[0], table)


def findings_side(
    frame: Any, details: Mapping[int, RecordDetail], *, source: str = "the input"
) -> GateSide:
    """The runs of one bundle's sorted records frame as a side no report shows (a baseline),
    with the failed findings of ``details`` (what ``detailed_rows(findings_only=True)`` gives
    the runs that have one, by frame row): what :func:`rows_side` with ``shown`` false makes
    of the same runs, without a Python row per run."""
    made: dict[Any, tuple[AuditFinding, ...]] = {}
    kept = {
        index: (_NO_REASONS, _findings(detail[1], made), detail[2], None, None, None)
        for index, detail in details.items()
    }
    if not len(frame):
        raise InputError("no scored records found", rule="no_records", source=source)
    return frame_side(frame, kept, source=source)


def rows_side(
    runs: Iterable[tuple[Row, Any]], *, source: str = "the input", shown: bool = True
) -> GateSide:
    """The runs of one bundle as a side (:func:`frame_side` of their records frame), from
    ``(row, detail)`` pairs: ``detail`` is what a record holds beyond its row
    (:func:`scorecard.engine.record_detail`, as :meth:`scorecard.engine.ScoringRun.detailed_rows`
    gives it), or None. The rows are read as
    columns a batch at a time, so no list of every row is kept. A side whose runs no report
    shows (``shown`` false: a baseline) keeps only what the rules read of the detail, the
    failed findings."""
    found: dict[int, Detail] = {}
    made: dict[Any, tuple[AuditFinding, ...]] = {}

    def rows() -> Iterator[Row]:
        # A block of pairs at a time: the rows go on as they are, the details are picked out.
        items = iter(runs)
        start = 0
        while block := list(itertools.islice(items, _PAIRS)):
            details = list(map(_SECOND, block))
            for offset in [offset for offset, detail in enumerate(details) if detail is not None]:
                detail = details[offset]
                if shown:
                    found[start + offset] = _gate_detail(detail, made)
                else:  # what the rules read, not what a report of the run shows
                    findings = _findings(detail[1], made)
                    found[start + offset] = (_NO_REASONS, findings, detail[2], None, None, None)
            start += len(block)
            yield from map(_FIRST, block)

    frame, order = rows_frame(rows())
    if not len(frame):
        raise InputError("no scored records found", rule="no_records", source=source)
    place = np.empty(len(order), dtype=np.int64)
    place[order] = np.arange(len(order))
    details = {int(place[index]): detail for index, detail in found.items()}
    return frame_side(frame, details, source=source)


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
    if all(side.table.of_a_frame for side in sides):
        return _pooled_frames(sides, label)
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


def _pooled_frames(sides: Sequence[GateSide], label: str) -> GateSide:
    """:func:`pool_sides` of sides made of frames, as columns: the same runs renumbered the
    same way, in the same order, with the same detail, and the frame the pooled runs would
    make (:func:`stack_frames` ``judged``: what a run's facts hold of its row), without making
    a :class:`RunFacts` per run (a seven-night baseline of 50,000-run nights has 350,000)."""
    offsets: dict[tuple[str, str], int] = {}
    parts = []
    moved: list[tuple[tuple[str, str, int], Detail]] = []
    for side in sides:
        table = side.table
        frame = table.frame()
        keys = list(zip(table.candidate, table.case, strict=True))
        repetitions = frame["repetition"].to_numpy(dtype=np.int64)
        shift = np.fromiter((offsets.get(key, 0) for key in keys), np.int64, len(keys))
        renumbered = repetitions + shift
        most: dict[tuple[str, str], int] = {}
        for key, repetition in zip(keys, repetitions.tolist(), strict=True):
            if repetition > most.get(key, 0):
                most[key] = repetition
        for key, repetition in most.items():
            offsets[key] = offsets.get(key, 0) + repetition
        parts.append((side.bundle, frame.assign(repetition=renumbered)))
        moved.extend(
            ((*keys[index], int(renumbered[index])), detail)
            for index, detail in table.details.items()
        )
    # Each night under its own label first (stack_frames takes each label once), then as one.
    pooled = stack_frames([(label, stack_frames(parts, judged=True))])
    listed = column_values(pooled, ("candidate", "case", "repetition"))
    position = {
        key: index
        for index, key in enumerate(
            zip(listed["candidate"], listed["case"], listed["repetition"], strict=True)
        )
    }
    details = {position[key]: detail for key, detail in moved}
    return GateSide(label, RunTable.of_frame(pooled, details), tuple(side.bundle for side in sides))


# ---------------------------------------------------------------------------------------------
# Frames (built by the aggregation layer from the facts)


def _labels(current: GateSide, baseline: GateSide | None) -> tuple[str, str | None]:
    if baseline is None:
        return current.bundle, None
    if baseline.bundle == current.bundle:
        return f"{current.bundle} (current)", f"{baseline.bundle} (baseline)"
    return current.bundle, baseline.bundle


def metric_frame(sides: Sequence[tuple[str, GateSide]]) -> Any:
    """Records frame of ``sides`` (bundles labelled, baseline first); ``gate_passed`` holds the
    effective gate, so the analysis's gate-pass rate is the rate the safety rule judges."""
    return stack_frames([(label, side.table.frame()) for label, side in sides], judged=True)


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
