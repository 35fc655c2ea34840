"""Rows with the detail a verdict shows: the rows view of a run, and for the runs that need it
the untrusted text only a scored record holds (reasons, failed findings, failure, source).

A gate judges every run from its row, but shows reasons, findings and failure text for a few
of them: the runs whose effective gate failed and the runs with failed audit findings. So the
workers score each block in C, as the rows view does: the C code gives each plain line's row
and its count of failed audit findings, and hands back the scorecard line and the line itself
only where the gate failed or the audit found something. Only such lines are decoded again
and audited in Python for the findings themselves. A line the C code
declines takes the general path, whose record gives the same detail. The detail is what
:func:`record_detail` reads of a ``scorecard.record.v1`` (the gate's ``run_facts`` reads
records files with it too), made in the worker; ``tests/engine/test_detail.py`` compares it
with the general path's records.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from scorecard.contract import DIMENSIONS, Evidence, InputError, redact, written_name
from scorecard.core import ScoredRecord, audit_observation, failing_reasons, reason_evidence

if TYPE_CHECKING:
    from scorecard.contract import Catalog

from ._chunk_scorer import ROWS, ChunkScorer, RunKey, run_key
from ._chunks import Chunk
from ._io import numbered_lines, parse_line, unreadable
from ._parallel import merged_items, numbered_row
from ._pipeline import RunSummary, score_record
from ._pool import Run
from ._rows import ROW_FIELDS, Row, scored_row

__all__ = [
    "RecordDetail",
    "RunEvidence",
    "detailed_rows",
    "failure_text",
    "record_detail",
    "run_evidence",
    "source_text",
]


@dataclass(frozen=True, slots=True)
class RunEvidence:
    """Where a run was read and, for each reason of its failing dimensions, the runner output
    contract (:class:`~scorecard.contract.Evidence`): what a gate failure shows of the run.
    Made where the observation is at hand (scoring, a store's kept observation); a records
    file or Parquet holds no observation, so runs read from them have none."""

    file: str | None
    """The file the observation was read from, as outputs write names."""
    line: int | None
    """Its 1-based line (JSON Lines)."""
    index: int | None
    """Its 0-based index (a JSON array)."""
    reasons: tuple[tuple[str, str, Evidence], ...]
    """(dimension, reason text redacted, evidence) per reason, canonical dimension order."""


#: What a scored record holds of a run beyond its row: reasons per dimension (canonical
#: order), failed findings as (code, pointer, expected, actual, hint, assertion) with the values as compact
#: JSON, whether failed findings gated, ``code: message`` of the failure, ``file:line``, and the
#: run's :class:`RunEvidence` where the observation was at hand (else None).
RecordDetail = tuple[
    tuple[tuple[str, ...], ...],
    tuple[tuple[str, str, str, str, str, str], ...],
    bool,
    str | None,
    str | None,
    RunEvidence | None,
]

DetailedItem = tuple[RunKey, Row, RecordDetail | None] | InputError
DetailedRows = tuple[list[DetailedItem], RunSummary]

_GATE = ROW_FIELDS.index("gate_passed")
_DECODER = msgspec.json.Decoder()


def _compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _findings(audit: Any) -> tuple[tuple[tuple[str, str, str, str, str, str], ...], bool]:
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
                (
                    str(item.get("code", "")),
                    str(item.get("pointer", "")),
                    _compact(item.get("expected")),
                    _compact(item.get("actual")),
                    str(item.get("hint", "")),
                    str(item.get("assertion", "")),
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


def run_evidence(
    observation: Mapping[str, Any],
    card: Mapping[str, Any],
    catalog: Catalog,
    *,
    file: str | None,
    line: int | None,
    index: int | None,
) -> RunEvidence:
    """The :class:`RunEvidence` of a scored observation (valid: it was scored) and its
    scorecard (JSON): each reason of the dimensions the scorecard failed, with its contract."""
    failing: list[str] = []
    if card.get("overall", {}).get("score") is not None:
        dimensions = card.get("dimensions", {})
        failing = [name for name in DIMENSIONS if dimensions.get(name, {}).get("passed") is False]
    reasons: tuple[tuple[str, str, Evidence], ...] = ()
    if failing:
        case = catalog[observation["caseId"]]
        reasons = tuple(
            (name, redact(reason.text), reason_evidence(reason))
            for name, reason in failing_reasons(observation, case, failing)  # type: ignore[arg-type]
        )
    return RunEvidence(None if file is None else written_name(file), line, index, reasons)


def record_detail(record: Mapping[str, Any], evidence: RunEvidence | None = None) -> RecordDetail:
    """What a ``scorecard.record.v1`` (or a dict with its ``scorecard``, ``audit``, ``failure``
    and ``source`` keys) holds of its run beyond the row, with ``evidence`` when the caller
    had the observation; a bad audit raises a pointed :class:`InputError`."""
    findings, audit_gates = _findings(record.get("audit"))
    failure = record.get("failure")
    where = record.get("source")
    source = None
    if isinstance(where, Mapping):
        source = source_text(where.get("file"), where.get("line"))
    return (
        _reasons(record["scorecard"]),
        findings,
        audit_gates,
        failure_text(failure) if isinstance(failure, Mapping) else None,
        source,
        evidence,
    )


def failure_text(failure: Mapping[str, Any]) -> str:
    """A record's failure (as the record holds it: redacted) as a detail says it:
    ``code: message``."""
    return f"{failure.get('code', '')}: {failure.get('message', '')}"


def source_text(file: Any, line: Any) -> str | None:
    """Where a run was read, as a detail says it: ``file:line`` (``file`` without a line; None
    without a file)."""
    if not file:
        return None
    return str(file) + (f":{line}" if line else "")


def _of_record(record: ScoredRecord, catalog: Catalog) -> RecordDetail:
    made = record.record_json()
    evidence = run_evidence(
        record.observation,
        made["scorecard"],
        catalog,
        file=record.source,
        line=record.line,
        index=record.index,
    )
    return record_detail(made, evidence)


def _needs_detail(row: Row, findings: int, every: bool) -> bool:
    return every or findings > 0 or row[_GATE] is False


def _general(scorer: ChunkScorer, record: Any, summary: RunSummary, every: bool) -> DetailedItem:
    result = score_record(record, catalog=scorer.catalog, policy=scorer.policy)
    if isinstance(result, InputError):
        summary.rejected += 1
        return result
    tally = result.tally()
    summary.count(tally)
    row = scored_row(result.numbered(1))  # the main process renumbers it
    detail = (
        _of_record(result, scorer.catalog)
        if _needs_detail(row, tally.audit_failed, every)
        else None
    )
    return tally.run_key, row, detail


def _fast_detail(
    scorer: ChunkScorer, card_line: str, raw: bytes, source: str, number: int, findings: int
) -> RecordDetail:
    """The detail of a line the C code scored, made as the general path's record holds it."""
    card = _DECODER.decode(card_line)
    # As the general path's record has it: the findings that failed (none: no audit needed)
    # and whether they gate, whatever the count.
    audit: dict[str, Any] = {"findings": [], "gates": scorer.policy.audit_gate}
    observation = _DECODER.decode(raw)
    if findings:
        found = audit_observation(scorer.catalog[observation["caseId"]], observation)
        audit["findings"] = [item.to_json() for item in found if item.status == "failed"]
    failure = observation.get("failure")
    evidence = run_evidence(observation, card, scorer.catalog, file=source, line=number, index=None)
    return record_detail(
        {
            "scorecard": card,
            "audit": audit,
            "failure": None
            if failure is None
            else {"code": redact(failure["code"]), "message": redact(failure["message"])},
            "source": {"file": written_name(source), "line": number},
        },
        evidence,
    )


def _detailed(scorer: ChunkScorer, chunk: Chunk, every: bool) -> DetailedRows:
    """``chunk`` as rows with detail, counted here (the worker's view)."""
    summary = RunSummary()
    fast = scorer.fast
    if fast is None or chunk.json_file:
        return _general_chunk(scorer, chunk, summary, every), summary
    pieces = scorer.fast_rows(
        fast, chunk, summary, detail=2 if every else 1, audit_gates=scorer.policy.audit_gate
    )
    if isinstance(pieces, InputError):
        return [pieces], summary
    items: list[DetailedItem] = []
    for piece in pieces:
        if len(piece) == 2:  # declined: (line number, line)
            number, raw = piece
            record = parse_line(raw, number=number, source=chunk.source, bundle=chunk.bundle)
            items.append(_general(scorer, record, summary, every))
            continue
        row, findings, extra = piece
        detail = None
        if extra is not None:
            number, card_line, raw = extra
            detail = _fast_detail(scorer, card_line, raw, chunk.source, number, findings)
        items.append((run_key(row), row, detail))
    return items, summary


def _general_chunk(
    scorer: ChunkScorer, chunk: Chunk, summary: RunSummary, every: bool
) -> list[DetailedItem]:
    """Every record of ``chunk`` through the general path (no compiled scorer, or a ``.json``
    file)."""
    try:
        block = chunk.contents()
    except OSError as error:
        summary.rejected += 1
        return [unreadable(chunk.source, error)]
    if not isinstance(block, bytes):  # a .json file's records
        return [_general(scorer, record, summary, every) for record in block]
    return [
        _general(
            scorer,
            parse_line(raw, number=number, source=chunk.source, bundle=chunk.bundle),
            summary,
            every,
        )
        for number, raw in numbered_lines(block, chunk.first_line)
    ]


class _Detailed:
    """The worker's call (picklable): :func:`_detailed` with ``every`` fixed."""

    def __init__(self, every: bool) -> None:
        self.every = every

    def __call__(self, scorer: ChunkScorer, chunk: Chunk) -> DetailedRows:
        return _detailed(scorer, chunk, self.every)


def detailed_rows(
    run: Run, summary: RunSummary, *, every: bool
) -> Iterator[tuple[Row, RecordDetail | None] | InputError]:
    """Every row of ``run`` (``ROWS`` format), numbered as the rows view numbers them, with the
    detail of the runs that need it (gate failed, failed findings; ``every``: all), and the
    errors between them, in input order."""
    from collections import Counter

    if run.output_format != ROWS:
        raise ValueError("a detailed run scores rows")
    repetitions: Counter[RunKey] = Counter()
    for item in merged_items(run.map(_Detailed(every)), summary):
        if isinstance(item, InputError):
            yield item
            continue
        key, row, detail = item
        yield numbered_row(row, key, repetitions), detail
