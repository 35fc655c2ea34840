"""Reading JSON Lines in blocks gives exactly the lines and numbers of reading line by line."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from scorecard.engine._io import (
    count_newlines,
    line_blocks,
    line_ranges,
    line_spans,
    numbered_lines,
    raw_lines,
)
from tests.conftest import c_only

PROFILE = settings(max_examples=300, deadline=None, derandomize=True)
TEXT = st.lists(
    st.sampled_from([b"\n", b"\r", b"\r\n", b" ", b"\t", b"\xef\xbb\xbf", b"{}", b"x", b"\xff"]),
    max_size=40,
).map(b"".join)


def line_by_line(data: bytes) -> list[tuple[int, bytes]]:
    """The specification: Python's own line iteration, CR/LF stripped, BOM off line 1, no blanks."""
    found = []
    for number, raw in enumerate(io.BytesIO(data), start=1):
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        raw = raw.rstrip(b"\r\n")
        if raw.strip():
            found.append((number, raw))
    return found


class Trickle(io.RawIOBase):
    """A pipe that hands out at most ``step`` bytes per read."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step, self.at = data, step, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        piece = self.data[self.at : self.at + min(self.step, len(buffer))]
        buffer[: len(piece)] = piece
        self.at += len(piece)
        return len(piece)


def blockwise(data: bytes, size: int) -> Iterator[tuple[int, bytes]]:
    for first_line, block in line_blocks(io.BytesIO(data), size):
        yield from numbered_lines(block, first_line)


@PROFILE
@given(TEXT, st.integers(min_value=1, max_value=64))
def test_blocks_of_any_size_give_the_same_lines(data: bytes, size: int) -> None:
    """Any block size, lines longer than a block included."""
    assert list(blockwise(data, size)) == line_by_line(data)


@PROFILE
@given(TEXT, st.integers(min_value=1, max_value=7))
def test_a_trickling_pipe_gives_the_same_lines(data: bytes, step: int) -> None:
    """A stream that returns a few bytes per read (a pipe) is split the same way."""
    stream = io.BufferedReader(Trickle(data, step), buffer_size=8)  # type: ignore[type-var]
    assert list(raw_lines(stream)) == line_by_line(data)


def test_the_sample_data_splits_as_before() -> None:
    """A real file: same lines, same numbers."""
    from tests.conftest import ROOT

    data = (ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl").read_bytes()
    assert list(raw_lines(io.BytesIO(data))) == line_by_line(data)
    assert len(line_by_line(data)) == 140


def rangewise(data: bytes, size: int) -> Iterator[tuple[int, bytes]]:
    for first_line, offset, length in line_ranges(io.BytesIO(data), size):
        yield from numbered_lines(data[offset : offset + length], first_line)


@PROFILE
@given(TEXT, st.integers(min_value=1, max_value=64))
def test_ranges_of_any_size_give_the_same_lines(data: bytes, size: int) -> None:
    """Ranges (offsets and lengths, what worker processes read back) cover the same lines with
    the same numbers as reading line by line, for any read size."""
    assert list(rangewise(data, size)) == line_by_line(data)


@PROFILE
@given(TEXT, st.integers(min_value=1, max_value=64))
def test_ranges_tile_the_file_at_line_ends(data: bytes, size: int) -> None:
    """Each range ends where a newline is (or at the end), and the next starts right after it."""
    ranges = list(line_ranges(io.BytesIO(data), size))
    position = 0
    for _, offset, length in ranges:
        assert offset == position
        position = offset + length
        if position < len(data):
            assert data[position : position + 1] == b"\n"
            position += 1
    assert position == len(data)


@c_only("the count is bytes.count itself then")
@PROFILE
@given(TEXT, st.integers(min_value=0, max_value=50))
def test_counting_newlines_agrees_with_bytes_count(data: bytes, end: int) -> None:
    """The compiled count equals ``bytes.count`` for every prefix length (beyond the end too)."""
    assert count_newlines(data, end) == data.count(b"\n", 0, end)


def spanwise(data: bytes, size: int, probe: int, folder: Path) -> Iterator[tuple[int, bytes]]:
    """The lines a pool's workers score from ``line_spans``: each span numbered from 1 at the
    start of the file and from 2 elsewhere (no byte order mark is taken off inside the file),
    then moved to the line after the newlines of the spans before it, as the main process does.
    """
    path = folder / "lines.jsonl"
    path.write_bytes(data)
    with path.open("rb") as stream:
        spans = list(line_spans(stream, size, probe))
    next_line = 1
    for offset, length in spans:
        block = data[offset : offset + length]
        first = 1 if offset == 0 else 2
        for number, raw in numbered_lines(block, first):
            yield number - first + next_line, raw
        next_line += block.count(b"\n") + 1


@PROFILE
@given(TEXT, st.integers(min_value=1, max_value=64), st.integers(min_value=1, max_value=9))
def test_spans_numbered_by_their_newlines_give_the_same_lines(
    data: bytes, size: int, probe: int
) -> None:
    """Spans found without reading the file (a few bytes after each cut, ``probe`` at a time)
    cover the same lines with the same numbers as reading line by line, byte order marks and
    carriage returns included."""
    with tempfile.TemporaryDirectory() as folder:
        assert list(spanwise(data, size, probe, Path(folder))) == line_by_line(data)


@PROFILE
@given(TEXT, st.integers(min_value=1, max_value=64), st.integers(min_value=1, max_value=9))
def test_spans_tile_the_file_at_line_ends(data: bytes, size: int, probe: int) -> None:
    """Each span ends where a newline is (or at the end), the next starts right after it, and
    each is at least ``size`` bytes but for the last."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lines.jsonl"
        path.write_bytes(data)
        with path.open("rb") as stream:
            spans = list(line_spans(stream, size, probe))
    position = 0
    for index, (offset, length) in enumerate(spans):
        assert offset == position
        assert length > 0
        position = offset + length
        if position < len(data):
            assert data[position : position + 1] == b"\n"
            assert length >= size or index == len(spans) - 1
            position += 1
    assert position == len(data)
