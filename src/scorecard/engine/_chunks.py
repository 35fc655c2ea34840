"""Inputs cut into chunks of whole lines, and the line numbers of chunks that were not counted.

The main process discovers the inputs (:class:`._io.Discovery`) and cuts each into chunks: the
unit one worker call scores (:mod:`._chunk_scorer`). Without a pool, a chunk carries its block of
lines; with one, a regular JSON Lines file's chunk says only where its block lies (a span) and
its worker reads it (standard input and other streams are read once, here, and their blocks
travel). For ``jsonl`` and rows the main process does not even count a file's lines: a
worker numbers its chunk's lines from 1 or 2, sends back how many newlines the block held
(:class:`Uncounted`), and :class:`LineNumbers` moves the errors in its results to their true
lines, the chunks coming back in input order.
"""

from __future__ import annotations

import contextlib
import copy
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING, Any, Generic, TypeVar, cast

from scorecard.contract import BundleInfo, InputError

from ._io import (
    STDIN,
    Discovery,
    RawRecord,
    count_newlines,
    line_blocks,
    line_ranges,
    line_spans,
    parse_json_file,
    reads_as_lines,
    unreadable,
)
from ._output import is_special_file
from ._pipeline import RunSummary
from ._rows import is_scored_input

if TYPE_CHECKING:
    from ._chunk_scorer import ChunkScorer

__all__ = [
    "CHUNK_BYTES",
    "Chunk",
    "LineNumbers",
    "ScoredInput",
    "Uncounted",
    "input_chunks",
    "line_chunks",
    "worked",
]

T = TypeVar("T")


CHUNK_BYTES = 2 << 20
"""About how much JSON Lines text one worker call scores."""


@dataclass(frozen=True)
class Chunk:
    """Work for one worker call: a block of JSON Lines (its text, or where to read it), or one
    whole ``.json`` file."""

    source: str
    bundle: BundleInfo
    block: bytes | None = None
    """Whole lines of a JSON Lines input, without the last newline."""
    first_line: int = 1
    """Number of the block's first line in its file; for a chunk not ``counted``, what its first
    line is numbered in the worker (1 at the start of its file, else 2: no byte order mark is
    taken off a line inside a file), the main process renumbering the results."""
    counted: bool = True
    """Whether ``first_line`` is the true number (else the main process knows it only once the
    chunks before have come back with their line counts)."""
    whole_file: bytes | None = None
    """A whole ``.json`` file's bytes, read by the main process."""
    span: tuple[int, int] | None = None
    """(offset, length) of the block in the file ``source``, when the worker reads it."""
    read_whole: bool = False
    """A whole ``.json`` file that the worker reads from ``source`` (a pool's chunk: its bytes
    need not travel to the worker)."""

    @property
    def json_file(self) -> bool:
        """Whether the chunk is a whole ``.json`` file (:meth:`file_bytes`), not lines."""
        return self.whole_file is not None or self.read_whole

    def file_bytes(self) -> bytes:
        """A ``.json`` chunk's bytes (read from ``source`` when the worker reads them; an
        ``OSError`` then says why it could not)."""
        if self.whole_file is not None:
            return self.whole_file
        with open(self.source, "rb") as stream:
            return stream.read()

    def contents(self) -> bytes | Iterator[RawRecord | InputError]:
        """The block's lines, or a ``.json`` file's records (:func:`._io.parse_json_file`);
        an ``OSError`` says why the chunk could not be read."""
        block = self.text()
        if block is not None:
            return block
        return parse_json_file(self.file_bytes(), source=self.source, bundle=self.bundle)

    def text(self) -> bytes | None:
        """The block's lines (read from the file for a span), or None for a ``.json`` file."""
        if self.span is None:
            return self.block
        offset, length = self.span
        with open(self.source, "rb") as stream:
            stream.seek(offset)
            block = stream.read(length)
        if len(block) != length:
            raise OSError(0, "the file changed while it was read")
        return block


@dataclass(frozen=True)
class ScoredInput:
    """A given path already scored (a records file or Parquet), read as rows in its turn."""

    source: str


def input_chunks(
    paths: Iterable[str],
    bundle_id: str | None,
    stdin: IO[bytes] | None,
    size: int,
    spans: bool = False,
    read_scored: bool = False,
    counted: bool = True,
    only_bundles: frozenset[str] | None = None,
) -> Iterator[Chunk | ScoredInput | InputError]:
    """The chunks of every input; with ``spans``, those of JSON Lines files say where their
    block is instead of carrying it (the main process of a pool only finds line ends, and
    without ``counted`` does not count lines either: it reads only near each cut); with
    ``read_scored``, a given records file or Parquet path is one :class:`ScoredInput`; with
    ``only_bundles``, only the files of those bundles (discovery's errors all the same)."""
    discovery = Discovery(bundle_id=bundle_id)
    for given in paths:
        if read_scored and is_scored_input(given):
            yield ScoredInput(given)
            continue
        for item in discovery.inputs(given):
            if isinstance(item, InputError):
                yield item
                continue
            if only_bundles is not None and item.bundle.id not in only_bundles:
                continue
            try:
                if item.path == STDIN:
                    yield from line_chunks(stdin or sys.stdin.buffer, "<stdin>", item.bundle, size)
                    continue
                with open(item.path, "rb") as stream:
                    lines = reads_as_lines(item.path)
                    if lines and spans and not is_special_file(item.path) and not counted:
                        for offset, length in line_spans(stream, size):
                            yield Chunk(
                                item.path,
                                item.bundle,
                                first_line=1 if offset == 0 else 2,
                                span=(offset, length),
                                counted=False,
                            )
                    elif lines and spans and not is_special_file(item.path):
                        for first_line, offset, length in line_ranges(stream, size):
                            yield Chunk(
                                item.path, item.bundle, first_line=first_line, span=(offset, length)
                            )
                    elif lines:  # a stream is read once, here: its blocks travel
                        yield from line_chunks(stream, item.path, item.bundle, size)
                    elif spans and not is_special_file(item.path):
                        yield Chunk(item.path, item.bundle, read_whole=True)
                    else:
                        yield Chunk(item.path, item.bundle, whole_file=stream.read())
            except OSError as error:
                yield unreadable(item.path, error)


def line_chunks(stream: IO[bytes], source: str, bundle: BundleInfo, size: int) -> Iterator[Chunk]:
    """Blocks of whole lines of about ``size`` bytes; the main process never splits lines. A
    file's reads are ``size`` bytes but for the partial line each ends in, so a chunk is one
    read's block as it is (the join of one is that object); a pipe's short reads are gathered."""
    parts: list[bytes] = []
    first_line = 1
    gathered = 0
    for number, block in line_blocks(stream, size):
        if not parts:
            first_line = number
        parts.append(block)
        gathered += len(block) + 1
        if gathered >= size // 2:
            yield Chunk(source, bundle, block=b"\n".join(parts), first_line=first_line)
            parts, gathered = [], 0
    if parts:
        yield Chunk(source, bundle, block=b"\n".join(parts), first_line=first_line)


@dataclass(frozen=True)
class Uncounted(Generic[T]):
    """The result of a chunk that was not ``counted``, with how many newlines its block holds
    (the main process numbers the next chunk's lines from it)."""

    result: T
    newlines: int


def worked(
    scorer: ChunkScorer, work: Callable[[ChunkScorer, Chunk], T], chunk: Chunk
) -> T | Uncounted[T]:
    """``work`` on ``chunk``; for a chunk not ``counted``, with the newlines of its block. A
    ``.json`` file the worker reads is read here, once, whichever paths its records take."""
    if chunk.read_whole:
        # A file that cannot be read is read again by ``work``, which reports it unreadable.
        with contextlib.suppress(OSError):
            chunk = replace(chunk, whole_file=chunk.file_bytes(), read_whole=False)
    if chunk.counted:
        return work(scorer, chunk)
    try:
        block = chunk.text() or b""
    except OSError:  # read again by ``work``, which reports the file unreadable
        return Uncounted(work(scorer, chunk), 0)
    read = replace(chunk, block=block, span=None)
    return Uncounted(work(scorer, read), count_newlines(block, len(block)))


class LineNumbers:
    """Where each chunk that was not ``counted`` starts in its file, from the chunks before it
    (they come back in input order): its results' errors get their true line numbers."""

    def __init__(self) -> None:
        self.next_line = 1

    def moved(self, chunk: Chunk, counted: Uncounted[T]) -> T:
        """The result of ``chunk``, its errors moved to their lines in the file."""
        if chunk.span is None or chunk.span[0] == 0:  # a file's first chunk
            self.next_line = 1
        shift = self.next_line - chunk.first_line
        self.next_line += counted.newlines + 1
        if shift == 0:
            return counted.result
        items, summary = cast("tuple[list[Any], RunSummary]", counted.result)
        moved = [_moved(item, shift) if isinstance(item, InputError) else item for item in items]
        summary.moved_lines(shift)
        return cast("T", (moved, summary))


def _moved(error: InputError, shift: int) -> InputError:
    """``error`` with its line ``shift`` lines further on."""
    if error.line is None:
        return error
    moved = copy.copy(error)
    moved.line = error.line + shift
    return moved
