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

import array
import itertools
import json
from collections import Counter
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import msgspec
import pyarrow as pa
import pyarrow.ipc

from scorecard.contract import BundleInfo, Catalog, InputError, Policy, Row, written_name
from scorecard.core import ScoredRecord, audit_observation, record_failure, scorecard_line

from ._chunk_scorer import ChunkScorer, RunKey, run_key
from ._chunks import Chunk
from ._io import RawRecord, numbered_lines, parse_line, unreadable
from ._parallel import merged_items, numbered_row
from ._pipeline import RunSummary, score_record
from ._pool import Run
from ._rows import scored_row

__all__ = [
    "DETAIL_COLUMNS",
    "StoredBlock",
    "StoredRun",
    "detail_batch",
    "stored_blocks",
    "stored_record",
]


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


class _Detail:
    """The detail batch that ends a chunk's items (after its runs' rows and its errors). A
    forked pool's worker writes it into the chunk's output slot (Arrow's stream format, in
    place) instead of pickling it through the pipe (:mod:`._slots`)."""

    __slots__ = ("batch",)

    def __init__(self, batch: pa.RecordBatch) -> None:
        self.batch = batch

    def __reduce__(self) -> tuple[object, ...]:
        return (_Detail, (self.batch,))

    def write_into(self, memory: memoryview) -> int | None:
        """Write the batch into ``memory``; its length, or None when it does not fit."""
        needed = _stream_size(self.batch)
        if needed > len(memory):
            return None
        sink = pa.FixedSizeBufferWriter(pa.py_buffer(memory[:needed]))
        with pa.ipc.new_stream(sink, self.batch.schema) as stream:
            stream.write_batch(self.batch)
        return needed

    @classmethod
    def read_from(cls, memory: memoryview) -> _Detail:
        """The batch written into ``memory``, copied out of it."""
        copied = pa.py_buffer(bytes(memory))
        return cls(pa.ipc.open_stream(copied).read_next_batch())


def _stream_size(batch: pa.RecordBatch) -> int:
    """The bytes of ``batch`` in Arrow's stream format (schema, batch, end)."""
    counter = pa.MockOutputStream()
    with pa.ipc.new_stream(counter, batch.schema) as stream:
        stream.write_batch(batch)
    return int(counter.size())


Items = tuple[list[tuple[RunKey, Row] | InputError | _Detail], RunSummary]

#: The detail a block carries of each run, as Arrow columns (the :class:`StoredRun` fields but
#: the row, in their order).
DETAIL_COLUMNS = pa.schema(
    [
        pa.field("scorecard", pa.string()),
        pa.field("findings", pa.string()),
        pa.field("failure", pa.string()),
        pa.field("observation", pa.string()),
        pa.field("source_file", pa.string()),
        pa.field("source_line", pa.int64()),
        pa.field("source_index", pa.int64()),
    ]
)


@dataclass(frozen=True)
class StoredBlock:
    """Consecutive runs as a store keeps them (a chunk's), and the errors met before them."""

    rows: list[Row]
    """Each run's row, numbered, in input order."""
    detail: pa.RecordBatch | None
    """Each run's detail (:data:`DETAIL_COLUMNS`), in the same order; None without runs."""
    errors: list[InputError]
    """The records rejected (and inputs unreadable) since the block before, in input order."""

    def runs(self) -> Iterator[StoredRun]:
        """The block's runs one by one (Python values: for small uses and tests)."""
        if self.detail is None:
            return
        columns = [self.detail.column(name).to_pylist() for name in DETAIL_COLUMNS.names]
        for row, card, found, failure, text, file, line, index in zip(
            self.rows, *columns, strict=True
        ):
            yield StoredRun(row, card, found, failure, text.encode("utf-8"), file, line, index)


def _validity(values: Sequence[object]) -> tuple[pa.Buffer | None, int]:
    """The validity bitmap of ``values`` (None marks a null) and how many are null."""
    present = [position for position, value in enumerate(values) if value is not None]
    nulls = len(values) - len(present)
    if not nulls:
        return None, 0
    bits = sum(1 << position for position in present)  # mostly null: few bits to set
    return pa.py_buffer(bits.to_bytes((len(values) + 7) // 8, "little")), nulls


def _text(values: Sequence[bytes | None]) -> pa.Array:
    """UTF-8 text (bytes, None for null) as an Arrow string array, made from its buffers:
    ``pa.array`` of Python values would make pyarrow import pandas in every worker. Every
    value is UTF-8 already (lines the parsers accepted, text encoded here): only the array's
    structure is checked."""
    offsets = array.array("i", [0])
    offsets.extend(itertools.accumulate(0 if value is None else len(value) for value in values))
    data = b"".join(value for value in values if value is not None)
    validity, nulls = _validity(values)
    made = pa.StringArray.from_buffers(
        len(values), pa.py_buffer(offsets), pa.py_buffer(data), validity, nulls
    )
    made.validate()
    return made


def _integers(values: Sequence[int | None]) -> pa.Array:
    """Integers (None for null) as an Arrow int64 array, made from its buffers."""
    data = array.array("q", (0 if value is None else value for value in values))
    validity, nulls = _validity(values)
    return pa.Array.from_buffers(pa.int64(), len(values), [validity, pa.py_buffer(data)], nulls)


def _encoded(value: str | None) -> bytes | None:
    return None if value is None else value.encode("utf-8")


def detail_batch(runs: Sequence[StoredRun]) -> pa.RecordBatch:
    """The detail of ``runs`` as one batch of :data:`DETAIL_COLUMNS`."""
    columns = [
        _text([run.scorecard.encode("utf-8") for run in runs]),
        _text([_encoded(run.findings) for run in runs]),
        _text([_encoded(run.failure) for run in runs]),
        _text([run.observation for run in runs]),
        _text([run.source_file.encode("utf-8") for run in runs]),
        _integers([run.source_line for run in runs]),
        _integers([run.source_index for run in runs]),
    ]
    return pa.RecordBatch.from_arrays(columns, schema=DETAIL_COLUMNS)


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
    """``chunk``'s runs as a store keeps them, counted here (the worker's call): each run's
    key and row in its place, the errors in theirs, and, last, the detail of the chunk's runs as
    one Arrow batch (made here, on the workers, not by the main process, and sent as buffers
    instead of a Python object per value)."""
    items, summary = _stored_runs(scorer, chunk)
    kept: list[tuple[RunKey, Row] | InputError | _Detail] = []
    runs: list[StoredRun] = []
    for item in items:
        if isinstance(item, InputError):
            kept.append(item)
            continue
        key, run = item
        kept.append((key, run.row))
        runs.append(run)
    if runs:
        kept.append(_Detail(detail_batch(runs)))
    return kept, summary


_stored_chunk.uses_output_slots = True  # type: ignore[attr-defined]


def _stored_runs(
    scorer: ChunkScorer, chunk: Chunk
) -> tuple[list[tuple[RunKey, StoredRun] | InputError], RunSummary]:
    """``chunk``'s runs, each as a :class:`StoredRun`, and its errors, in order."""
    summary = RunSummary()
    fast = scorer.fast
    if fast is None or chunk.json_file:
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
        block = chunk.contents()
    except OSError as error:
        summary.rejected += 1
        return [unreadable(chunk.source, error)]
    if not isinstance(block, bytes):  # a .json file's records
        return [_general(scorer, record, None, summary) for record in block]
    return [
        _general(
            scorer,
            parse_line(raw, number=number, source=chunk.source, bundle=chunk.bundle),
            raw,
            summary,
        )
        for number, raw in numbered_lines(block, chunk.first_line)
    ]


def stored_blocks(run: Run, summary: RunSummary) -> Generator[StoredBlock, None, None]:
    """Every run of ``run`` as a store keeps it, a block (a chunk) at a time: rows numbered as
    the rows view numbers runs, their detail, and the errors met since the block before, all in
    input order. Closing the generator early ends the pool."""
    repetitions: Counter[RunKey] = Counter()
    rows: list[Row] = []
    errors: list[InputError] = []
    for item in merged_items(run.map(_stored_chunk), summary):
        if isinstance(item, InputError):
            errors.append(item)
        elif isinstance(item, _Detail):
            yield StoredBlock(rows, item.batch, errors)
            rows, errors = [], []
        else:
            key, row = item
            rows.append(numbered_row(row, key, repetitions))
    if errors:
        yield StoredBlock([], None, errors)


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
