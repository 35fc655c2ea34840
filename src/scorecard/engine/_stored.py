"""Runs as a campaign store keeps them: each run's row, and what a drill-down shows of it (its
scorecard line, its failed audit findings, its failure, its observation as given, its source).

The workers score each block in C as the rows view does, asking for every line's detail
(``fast_rows(..., detail=2)``): each plain line comes back with its row, its scorecard line and
its bytes. Only the lines whose audit failed findings are decoded again and audited in Python
(for the findings themselves); the failure is read from the line's bytes without decoding the
rest. A line the C code declines takes the general path in its place, whose scored record gives
the same values; a ``.json`` file's records are kept as compact JSON of what was parsed (there
is no line of text to keep). The results are the same for any worker count and with the C
extension off (``tests/engine/test_stored.py``).

:func:`stored_record` goes the other way: a kept observation scored again, on the general path,
into the :class:`~scorecard.core.ScoredRecord` that ``scorecard score`` makes of it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Generator
from typing import Any, NamedTuple

import msgspec

from scorecard.contract import BundleInfo, Catalog, InputError, Policy, Row, written_name
from scorecard.core import ScoredRecord, audit_observation, record_failure, scorecard_line

from ._chunk_scorer import ChunkScorer, RunKey, run_key
from ._chunks import Chunk
from ._io import RawRecord, numbered_lines, parse_json_file, parse_line, unreadable
from ._parallel import merged_items, numbered_row
from ._pipeline import RunSummary, score_record
from ._pool import Run
from ._rows import scored_row

__all__ = ["StoredRun", "stored_record", "stored_runs"]


class StoredRun(NamedTuple):
    """One scored run as a campaign store keeps it (``docs/store.md``)."""

    row: Row
    """Its aggregation row (:data:`~scorecard.contract.ROW_COLUMNS`), numbered."""
    scorecard: str
    """The v2 scorecard line, as ``scorecard score --format jsonl`` writes it (no newline)."""
    findings: str | None
    """The audit findings that failed, as JSON (an array of the objects a record lists,
    Python's spelling of numbers, so ``1.0`` reads back as a float); None when none failed."""
    failure: str | None
    """The observation's failure as its record holds it (secret-shaped text redacted), as
    JSON; None without one."""
    observation: bytes
    """The observation: its line as given (JSON Lines), or compact JSON of the element parsed
    (a ``.json`` file)."""
    source_file: str
    """The file it was read from, as records name it (``source.file``)."""
    source_line: int | None
    """Its line (JSON Lines)."""
    source_index: int | None
    """Its position in a ``.json`` array."""


Items = tuple[list[tuple[RunKey, StoredRun] | InputError], RunSummary]

_DECODER = msgspec.json.Decoder()


class _Failure(msgspec.Struct):
    """The one field of a line whose audit found nothing that a stored run reads besides its
    scorecard."""

    failure: dict[str, Any] | None = None


_FAILURE = msgspec.json.Decoder(_Failure)


def _json(value: Any) -> str:
    # Python's spelling keeps int and float apart (1.0 stays 1.0), so values read back as they
    # were; the text is valid JSON for any reader.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _failed(findings: Any) -> str | None:
    failed = [finding.to_json() for finding in findings if finding.status == "failed"]
    return _json(failed) if failed else None


def _failure_text(failure: Any) -> str | None:
    kept = record_failure(failure)
    return None if kept is None else _json(kept)


def _of_record(record: ScoredRecord, text: bytes | None) -> StoredRun:
    """The stored run of a record the general path scored (``text``: its line, if any)."""
    observation = text if text is not None else _json(record.observation).encode("utf-8")
    return StoredRun(
        scored_row(record.numbered(1)),  # the main process renumbers it
        scorecard_line(record.card),
        _failed(record.findings),
        _failure_text(record.observation.get("failure")),
        observation,
        record.source,
        record.line,
        record.index,
    )


def _general(
    scorer: ChunkScorer, record: RawRecord | InputError, text: bytes | None, summary: RunSummary
) -> tuple[RunKey, StoredRun] | InputError:
    result = score_record(record, catalog=scorer.catalog, policy=scorer.policy)
    if isinstance(result, InputError):
        summary.rejected += 1
        return result
    tally = result.tally()
    summary.count(tally)
    return tally.run_key, _of_record(result, text)


def _fast(
    scorer: ChunkScorer, row: Row, findings: int, number: int, card: str, raw: bytes, source: str
) -> StoredRun:
    """The stored run of a line the C code scored."""
    failed = None
    if findings:
        observation = _DECODER.decode(raw)
        found = audit_observation(scorer.catalog[observation["caseId"]], observation)
        failed = _failed(found)
        failure = observation.get("failure")
    elif b'"failure"' in raw or b"\\" in raw:  # a key may be spelt with escapes
        failure = _FAILURE.decode(raw).failure
    else:  # most runs have no failure: their lines are not decoded again
        failure = None
    return StoredRun(row, card, failed, _failure_text(failure), raw, source, number, None)


def _stored_chunk(scorer: ChunkScorer, chunk: Chunk) -> Items:
    """``chunk``'s runs as a store keeps them, counted here (the worker's call)."""
    summary = RunSummary()
    fast = scorer.fast
    if fast is None or chunk.whole_file is not None:
        return _general_chunk(scorer, chunk, summary), summary
    pieces = scorer.fast_rows(fast, chunk, summary, detail=2, audit_gates=scorer.policy.audit_gate)
    if isinstance(pieces, InputError):
        return [pieces], summary
    source = written_name(chunk.source)
    items: list[tuple[RunKey, StoredRun] | InputError] = []
    for piece in pieces:
        if len(piece) == 2:  # declined: (line number, line)
            number, raw = piece
            record = parse_line(raw, number=number, source=chunk.source, bundle=chunk.bundle)
            items.append(_general(scorer, record, raw, summary))
            continue
        row, findings, extra = piece
        if extra is None:  # pragma: no cover - detail 2 gives every scored line its detail
            raise RuntimeError("the C scorer gave a line without its detail")
        number, card, raw = extra
        items.append((run_key(row), _fast(scorer, row, findings, number, card, raw, source)))
    return items, summary


def _general_chunk(
    scorer: ChunkScorer, chunk: Chunk, summary: RunSummary
) -> list[tuple[RunKey, StoredRun] | InputError]:
    """Every record of ``chunk`` through the general path (no compiled scorer, or a ``.json``
    file)."""
    try:
        block = chunk.text()
    except OSError as error:
        summary.rejected += 1
        return [unreadable(chunk.source, error)]
    if block is None:
        records = parse_json_file(chunk.whole_file or b"", source=chunk.source, bundle=chunk.bundle)
        return [_general(scorer, record, None, summary) for record in records]
    return [
        _general(
            scorer,
            parse_line(raw, number=number, source=chunk.source, bundle=chunk.bundle),
            raw,
            summary,
        )
        for number, raw in numbered_lines(block, chunk.first_line)
    ]


def stored_runs(run: Run, summary: RunSummary) -> Generator[StoredRun | InputError, None, None]:
    """Every run of ``run`` as a store keeps it, numbered as the rows view numbers runs, and
    the errors between them, in input order. Closing the generator early ends the pool."""
    repetitions: Counter[RunKey] = Counter()
    for item in merged_items(run.map(_stored_chunk), summary):
        if isinstance(item, InputError):
            yield item
            continue
        key, stored = item
        yield stored._replace(row=numbered_row(stored.row, key, repetitions))


def stored_record(
    observation: bytes,
    *,
    source: str,
    line: int | None,
    index: int | None,
    repetition: int,
    bundle: BundleInfo,
    catalog: Catalog,
    policy: Policy,
) -> ScoredRecord | InputError:
    """A kept observation (:attr:`StoredRun.observation`) scored again on the general path:
    the :class:`~scorecard.core.ScoredRecord` ``scorecard score`` makes of it, as run number
    ``repetition`` of ``bundle``, read from ``source`` (``line`` or ``index``)."""
    parsed = parse_line(observation, number=line or 0, source=source, bundle=bundle)
    if isinstance(parsed, InputError):
        return parsed
    record = RawRecord(parsed.document, source, line, index, bundle)
    result = score_record(record, catalog=catalog, policy=policy)
    return result if isinstance(result, InputError) else result.numbered(repetition)
