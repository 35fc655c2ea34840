"""What a worker does with a chunk: parse, validate, score, audit and render its records.

One :class:`ChunkScorer` per process holds the catalog, the policy, the output format and the
compiled fast path; :func:`chunk_text`, :func:`chunk_records`, :func:`chunk_rows` and
:func:`chunk_outcomes` are the picklable calls a pool sends with each chunk. Plain ``jsonl``
lines, ``records`` lines and rows are scored in C a block at a time (:mod:`scorecard.fast`);
what the C scorer declines, and every other format, goes through the general path
(:func:`._pipeline.score_record`), line by line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from scorecard.contract import Catalog, InputError, Policy, written_name
from scorecard.core import ScoredRecord, Tally
from scorecard.fast import Counts, FastScorer, Piece, RecordPiece, RowPiece, fast_scorer

from ._catalog import scoring_catalog
from ._chunks import Chunk
from ._io import RawRecord, numbered_lines, parse_line, unreadable
from ._pipeline import RunSummary, score_record
from ._rows import ROW_FIELDS, Row, scored_row

__all__ = [
    "RECORDS",
    "ROWS",
    "ChunkScorer",
    "Keep",
    "Outcome",
    "RecordText",
    "Rows",
    "RunKey",
    "Text",
    "chunk_kept",
    "chunk_outcomes",
    "chunk_records",
    "chunk_rows",
    "chunk_text",
    "run_key",
]


# Workers asked for aggregation rows instead of lines; the main process sets the run number.
ROWS = "rows"


# Workers asked for the scored records themselves (what explain and the gate read).
RECORDS = "scored records"


Outcome = tuple[Tally, Any] | InputError
"""A record's tally and output (a line, or the aggregation row), or its error."""


Text = tuple[list[str | InputError], RunSummary]
"""A chunk of ``jsonl``: runs of whole output lines and the errors between them, in input order,
and the chunk's counts."""


RunKey = tuple[str, str, str]


RecordText = tuple[list[str | list[RunKey] | InputError], RunSummary]
"""A chunk of ``records``: pieces of whole record lines (each with ``"repetition":0,``), each
followed by the list of its lines' run keys, and the errors between them, in input order, and
the chunk's counts."""


Rows = tuple[list[tuple[RunKey | None, Row] | InputError], RunSummary]
"""A chunk as aggregation rows: each with its run key (the main process numbers the runs; None
for a row read already scored, which keeps its number) or an error, in input order, and the
chunk's counts."""


class ChunkScorer:
    """Parses, scores and renders chunks for one catalog, policy and output format."""

    def __init__(self, catalog: Catalog | Path | None, policy: Policy, output_format: str):
        # A forked worker inherits a loaded catalog as it is; a spawned one unpickles it.
        self.catalog = catalog if isinstance(catalog, Catalog) else scoring_catalog(catalog)
        self.policy = policy
        self.format = output_format
        fast = output_format in ("jsonl", "records", ROWS)
        self.fast = fast_scorer(self.catalog, policy) if fast else None

    def outcomes(self, chunk: Chunk) -> list[Outcome]:
        """The outcome of every record of ``chunk``, in order."""
        try:
            block = chunk.contents()
        except OSError as error:
            return [unreadable(chunk.source, error)]
        if not isinstance(block, bytes):  # a .json file's records
            return [self._general(record) for record in block]
        # Each document is parsed, scored and freed before the next is parsed; a thousand live
        # documents cost measurably more in cache misses.
        return [
            self._line(number, raw, chunk)
            for number, raw in numbered_lines(block, chunk.first_line)
        ]

    def text(self, chunk: Chunk) -> Text:
        """``chunk`` as ``jsonl`` text, counted here: its lines need no run numbers, so the main
        process only writes them. Plain lines are scored in C, a block at a time; so is a
        ``.json`` array whose every element is plain (:meth:`_array_block`)."""
        summary = RunSummary()
        array = self._array_block(chunk)
        if array is not None and self.fast is not None:
            pieces, counts = self.fast.score_block(array, 1, chunk.bundle.id)
            if all(isinstance(piece, str) for piece in pieces):
                _count_block(summary, counts, chunk.bundle.id)
                return cast(list[str | InputError], pieces), summary
        if self.fast is None or chunk.json_file:
            return [self._counted(outcome, summary) for outcome in self.outcomes(chunk)], summary
        scored = self._fast_block(self.fast, chunk, summary)
        if isinstance(scored, InputError):
            return [scored], summary
        _, pieces = scored
        items = [
            piece if isinstance(piece, str) else self._counted(self._line(*piece, chunk), summary)
            for piece in pieces
        ]
        return items, summary

    def records(self, chunk: Chunk) -> RecordText:
        """``chunk`` as ``records`` text, counted here: pieces of record lines whose
        repetitions the main process writes in (each line holds ``"repetition":0,``), each
        followed by its lines' run keys. Plain lines are scored and written in C, a block at a
        time (:meth:`FastScorer.score_records`); so is a ``.json`` array whose every element
        is plain. Without the C scorer, every line takes the general path, in the same
        pieces."""
        summary = RunSummary()
        written: Written = []
        array = self._array_block(chunk)
        if array is not None and self.fast is not None:
            pieces, counts = self._records_of_block(self.fast, array, 1, chunk, array=True)
            if not any(isinstance(piece, tuple) for piece in pieces):  # every element in C
                _count_block(summary, counts, chunk.bundle.id)
                return cast(list[str | list[RunKey] | InputError], pieces), summary
        if self.fast is None or chunk.json_file:
            for outcome in self.outcomes(chunk):
                _add_record(written, outcome, summary)
            return written, summary
        block = _block_of(chunk, summary)
        if isinstance(block, InputError):
            return [block], summary
        pieces, counts = self._records_of_block(self.fast, block, chunk.first_line, chunk)
        _count_block(summary, counts, chunk.bundle.id)
        text = ""
        for piece in pieces:
            if isinstance(piece, tuple):  # declined: (line number, line)
                _add_record(written, self._line(*piece, chunk), summary)
            elif isinstance(piece, str):
                text = piece
            else:  # the run keys of the text before
                _add_piece(written, text, piece)
        return written, summary

    def _records_of_block(
        self, fast: FastScorer, block: bytes, first_line: int, chunk: Chunk, *, array: bool = False
    ) -> tuple[list[RecordPiece], Counts]:
        """``block``'s lines (numbered from ``first_line``) as records by the C scorer, for
        ``chunk``'s bundle, its candidates' labels and its file."""
        labels: dict[str, tuple[str | None, str | None]] = {
            candidate: (spec.model, spec.tier)
            for candidate, spec in chunk.bundle.candidates.items()
        }
        return fast.score_records(
            block,
            first_line,
            chunk.bundle.id,
            labels,
            written_name(chunk.source),
            array=array,
            audit_gates=self.policy.audit_gate,
        )

    def rows(self, chunk: Chunk) -> Rows:
        """``chunk`` as aggregation rows, counted here. Plain lines are scored in C, which makes
        their rows as the one definition of a row says (``contract.ROW_COLUMNS``; the C code
        reads it through ``fast.row_plan``)."""
        summary = RunSummary()
        array = self._array_block(chunk)
        if array is not None and self.fast is not None:
            gates = self.policy.audit_gate
            scored, counts = self._rows_of_block(self.fast, array, 1, chunk, 0, gates)
            rows = [piece[0] for piece in scored if len(piece) == 3]
            if len(rows) == len(scored):  # every element scored in C
                _count_block(summary, counts, chunk.bundle.id)
                return [(run_key(row), row) for row in rows], summary
        if self.fast is None or chunk.json_file:
            return [self._keyed(outcome, summary) for outcome in self.outcomes(chunk)], summary
        pieces = self.fast_rows(
            self.fast, chunk, summary, detail=0, audit_gates=self.policy.audit_gate
        )
        if isinstance(pieces, InputError):
            return [pieces], summary
        items: list[tuple[RunKey | None, Row] | InputError] = []
        for piece in pieces:
            if len(piece) == 2:  # declined: (line number, line)
                items.append(self._keyed(self._line(*piece, chunk), summary))
            else:
                items.append((run_key(piece[0]), piece[0]))
        return items, summary

    def _array_block(self, chunk: Chunk) -> bytes | None:
        """A ``.json`` file's array elements one per line for the C scorer
        (:meth:`FastScorer.array_block`), or None (not a ``.json`` chunk, no C scorer, or not an
        array it can split). The caller keeps the C scorer's results only when it scored every
        element: a file with any element it declines takes the general path whole, so its
        results and errors are those of :func:`._io.parse_json_file` whichever path ran."""
        if self.fast is None or not chunk.json_file:
            return None
        try:
            raw = chunk.file_bytes()
        except OSError:
            return None  # the general path says why it could not be read
        return self.fast.array_block(raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)

    @staticmethod
    def _rows_of_block(
        fast: FastScorer, block: bytes, first_line: int, chunk: Chunk, detail: int, gates: bool
    ) -> tuple[list[RowPiece], Counts]:
        """``block``'s lines (numbered from ``first_line``) scored as rows by the C scorer, for
        ``chunk``'s bundle and its candidates' labels."""
        labels: dict[str, tuple[str | None, str | None]] = {
            candidate: (spec.model, spec.tier)
            for candidate, spec in chunk.bundle.candidates.items()
        }
        return fast.score_rows(
            block, first_line, chunk.bundle.id, labels, detail, audit_gates=gates
        )

    @staticmethod
    def _fast_block(
        fast: FastScorer, chunk: Chunk, summary: RunSummary
    ) -> tuple[bytes, list[Piece]] | InputError:
        """``chunk``'s block and its pieces from the C scorer, the lines it scored counted into
        ``summary``; or, counted too, the error that the block could not be read."""
        block = _block_of(chunk, summary)
        if isinstance(block, InputError):
            return block
        pieces, counts = fast.score_block(block, chunk.first_line, chunk.bundle.id)
        _count_block(summary, counts, chunk.bundle.id)
        return block, pieces

    @staticmethod
    def fast_rows(
        fast: FastScorer, chunk: Chunk, summary: RunSummary, *, detail: int, audit_gates: bool
    ) -> list[RowPiece] | InputError:
        """``chunk``'s lines from the C scorer as rows (:meth:`FastScorer.score_rows`, with
        ``detail`` and ``audit_gates``), the lines it scored counted into ``summary``; or,
        counted too, the error that the block could not be read."""
        block = _block_of(chunk, summary)
        if isinstance(block, InputError):
            return block
        pieces, counts = ChunkScorer._rows_of_block(
            fast, block, chunk.first_line, chunk, detail, audit_gates
        )
        _count_block(summary, counts, chunk.bundle.id)
        return pieces

    @staticmethod
    def _keyed(outcome: Outcome, summary: RunSummary) -> tuple[RunKey | None, Row] | InputError:
        """A rows outcome counted into ``summary``: its run key and row, or its error."""
        if isinstance(outcome, InputError):
            summary.rejected += 1
            return outcome
        tally, row = outcome
        summary.count(tally)
        return tally.run_key, row

    @staticmethod
    def _counted(outcome: Outcome, summary: RunSummary) -> str | InputError:
        """A ``jsonl`` outcome counted into ``summary``: its line (with newline) or its error."""
        if isinstance(outcome, InputError):
            summary.rejected += 1
            return outcome
        tally, line = outcome
        summary.count(tally)
        return f"{line}\n"

    def _line(self, number: int, raw: bytes, chunk: Chunk) -> Outcome:
        record = parse_line(raw, number=number, source=chunk.source, bundle=chunk.bundle)
        return self._general(record)

    def _general(self, record: RawRecord | InputError) -> Outcome:
        result = score_record(record, catalog=self.catalog, policy=self.policy)
        if isinstance(result, InputError):
            return result
        if self.format == ROWS:
            return result.tally(), scored_row(result.numbered(1))  # the main process renumbers it
        if self.format == RECORDS:
            return result.tally(), result
        return result.tally(), result.render(self.format)


def chunk_outcomes(scorer: ChunkScorer, chunk: Chunk) -> list[Outcome]:
    return scorer.outcomes(chunk)


Keep = Callable[[ScoredRecord, Catalog], Any]
"""What a caller keeps of each scored record, worked out where it was scored, with the catalog
it was scored with: a picklable call (a module's function, or a ``functools.partial`` of one)
whose result has a ``numbered(repetition)`` method, as a :class:`~scorecard.core.ScoredRecord`
has. From a scoring run the record comes as run 1 (its number is the main process's to give),
from a store (:meth:`~scorecard.store.Store.scored_records`) with its own; either way the main
process numbers what was kept of it, and so shares its values with the runs kept before."""


def chunk_kept(keep: Keep, scorer: ChunkScorer, chunk: Chunk) -> list[Outcome]:
    """What ``keep`` keeps of each scored record of ``chunk`` (``functools.partial(chunk_kept,
    keep)`` is a pool's work), and the errors, in order: a run's main process then holds and
    reads back only that, and its workers do the keeping."""
    catalog = scorer.catalog
    return [
        outcome
        if isinstance(outcome, InputError)
        else (outcome[0], keep(outcome[1].numbered(1), catalog))
        for outcome in scorer.outcomes(chunk)
    ]


def chunk_text(scorer: ChunkScorer, chunk: Chunk) -> Text:
    return scorer.text(chunk)


def chunk_rows(scorer: ChunkScorer, chunk: Chunk) -> Rows:
    return scorer.rows(chunk)


def chunk_records(scorer: ChunkScorer, chunk: Chunk) -> RecordText:
    return scorer.records(chunk)


Written = list[str | list[RunKey] | InputError]


def _add_record(written: Written, outcome: Outcome, summary: RunSummary) -> None:
    """A general path's ``records`` outcome counted into ``summary`` and added to ``written``:
    its line joins the piece before when there is one, an error stands between pieces."""
    if isinstance(outcome, InputError):
        summary.rejected += 1
        written.append(outcome)
        return
    tally, line = outcome
    summary.count(tally)
    _add_piece(written, f"{line}\n", [tally.run_key])


def _add_piece(written: Written, text: str, keys: list[RunKey]) -> None:
    """Record lines and their run keys added to ``written``, joining the piece at its end."""
    last_text = written[-2] if len(written) >= 2 else None
    last_keys = written[-1] if written else None
    if isinstance(last_text, str) and isinstance(last_keys, list):
        written[-2] = last_text + text
        last_keys.extend(keys)
    else:
        written += [text, keys]


def _block_of(chunk: Chunk, summary: RunSummary) -> bytes | InputError:
    """``chunk``'s block for the C scorer, or (counted as rejected) why it could not be read."""
    try:
        return chunk.text() or b""
    except OSError as error:
        summary.rejected += 1
        return unreadable(chunk.source, error)


def _count_block(summary: RunSummary, counts: Counts, bundle_id: str) -> None:
    summary.scored, summary.gate_failures, summary.unscoreable, summary.audit_failed = counts
    if summary.scored:
        summary.bundles.add(bundle_id)


_KEY_COLUMNS = tuple(ROW_FIELDS.index(name) for name in ("bundle", "candidate", "case"))


def run_key(row: Row) -> RunKey:
    """The (bundle, candidate, case) of a row."""
    bundle, candidate, case = _KEY_COLUMNS
    return row[bundle], row[candidate], row[case]
