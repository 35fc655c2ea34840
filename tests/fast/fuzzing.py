"""A byte-level fuzzer holding the C fast path to the Python scorer.

It starts from valid observation lines (the samples as the runners wrote them, conformance rows,
and other producers' spellings of both) and changes their bytes: bit flips, bytes inserted,
deleted, swapped and copied, truncation, repeated keys (plainly and through escapes), other
spellings of numbers (exponents, ``-0``, past 2**53, past a double's range, malformed ones),
UTF-8 at its edges (overlong, encoded surrogates, past U+10FFFF, cut short, separators), escapes
(lone and paired surrogates, bad ones), whitespace JSON does and does not allow, and nesting on
both sides of the scanner's depth limit. For every line the C path must decline it or give the
Python path's bytes and counts (:func:`check_line`); blocks of such lines must give the general
path's text, rows, errors and line numbers (:func:`check_block`).

``tests/fast/test_fuzz.py`` runs it on the built extension, ``tests/fast/sanitized.py`` on a
build with AddressSanitizer and UBSan, and ``dev/fuzz.py`` for as long as one likes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache

from hypothesis import strategies as st

from scorecard.contract._bundles import BundleInfo
from scorecard.contract._catalog import Catalog
from scorecard.contract._policy import Policy
from scorecard.engine._chunk_scorer import ROWS, ChunkScorer
from scorecard.engine._chunks import Chunk
from scorecard.engine._io import numbered_lines
from scorecard.simulate.producers import WRITERS
from tests.conftest import BUNDLE, ROOT, conformance_rows, runner_line
from tests.fast.test_fastpath import (
    _rows_and_summary,
    _text_and_summary,
    assert_same_or_declined,
)
from tests.fast.test_records import _records_and_summary
from tests.fast.test_records import assert_same_or_declined as assert_same_record_or_declined

Mutation = Callable[[st.DrawFn, bytes], bytes]


@cache
def seed_lines() -> tuple[bytes, ...]:
    """Valid lines to start from: every sample line as written, every fifth scored conformance
    row in the runners' spelling, and a few of each in every other producer's."""
    samples = [
        line
        for path in sorted((ROOT / "observations").rglob("*.jsonl"))
        for line in path.read_bytes().splitlines()
    ]
    rows = [row["observation"] for row in conformance_rows() if "error" not in row["expected"]]
    lines = [*samples, *(runner_line(document) for document in rows[::5])]
    others = [json.loads(line) for line in samples[::70]] + rows[::60]
    lines += [write(document) for document in others for write in WRITERS.values()]
    return tuple(lines)


def _position(draw: st.DrawFn, line: bytes, *, end: bool = True) -> int:
    return draw(st.integers(0, len(line) if end else max(len(line) - 1, 0)))


def _one_of(draw: st.DrawFn, line: bytes, pattern: re.Pattern[bytes]) -> re.Match[bytes] | None:
    """One match of ``pattern`` in ``line`` (None when there is none)."""
    found = list(pattern.finditer(line))
    return draw(st.sampled_from(found)) if found else None


def flip_bit(draw: st.DrawFn, line: bytes) -> bytes:
    if not line:
        return line
    at = _position(draw, line, end=False)
    return line[:at] + bytes([line[at] ^ (1 << draw(st.integers(0, 7)))]) + line[at + 1 :]


# Bytes that mean something to a JSON scanner, and some that never may appear raw.
_TOKENS = [bytes([value]) for value in b'"\\{}[],:-+.eE0123456789tfnu \t\r\n'] + [
    b"\x00",
    b"\x01",
    b"\x1f",
    b"\x7f",
    b"\x80",
    b"\xbf",
    b"\xc0",
    b"\xc2",
    b"\xe0",
    b"\xed",
    b"\xf0",
    b"\xf4",
    b"\xf5",
    b"\xff",
]


def insert_bytes(draw: st.DrawFn, line: bytes) -> bytes:
    at = _position(draw, line)
    insert = draw(st.sampled_from(_TOKENS) | st.binary(min_size=1, max_size=4))
    return line[:at] + insert + line[at:]


def delete_bytes(draw: st.DrawFn, line: bytes) -> bytes:
    at = _position(draw, line)
    return line[:at] + line[at + draw(st.integers(1, 8)) :]


def truncate(draw: st.DrawFn, line: bytes) -> bytes:
    return line[: _position(draw, line)]


def swap_bytes(draw: st.DrawFn, line: bytes) -> bytes:
    if len(line) < 2:
        return line
    at = draw(st.integers(0, len(line) - 2))
    return line[:at] + line[at + 1 : at + 2] + line[at : at + 1] + line[at + 2 :]


def copy_slice(draw: st.DrawFn, line: bytes) -> bytes:
    start = _position(draw, line)
    piece = line[start : start + draw(st.integers(1, 64))]
    at = _position(draw, line)
    return line[:at] + piece + line[at:]


_KEY = re.compile(rb'[{,]"([A-Za-z_][A-Za-z0-9_]*)":')


def repeat_key(draw: st.DrawFn, line: bytes) -> bytes:
    """A key of some object written again in it, before its first writing (which a decoder
    keeping the last value would then read), maybe spelt with escapes."""
    found = _one_of(draw, line, _KEY)
    if found is None:
        return line
    key = found.group(1)
    spelt: bytes = draw(
        st.sampled_from(
            [
                key,
                b"\\u%04x" % key[0] + key[1:],
                key[:-1] + b"\\u%04X" % key[-1],
                b"".join(b"\\u%04x" % byte for byte in key),
            ]
        )
    )
    value = draw(st.sampled_from([b"null", b"0", b'"x"', b"[]", b"{}", b"true"]))
    at = found.start(0) + 1
    return line[:at] + b'"' + spelt + b'":' + value + b"," + line[at:]


_NUMBER = re.compile(rb"(?<![\w.\"])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])")
_NUMBERS = [
    b"0",
    b"-0",
    b"-0.0",
    b"0.0",
    b"1",
    b"1.0",
    b"1e0",
    b"1E+0",
    b"10e-1",
    b"0.1e1",
    b"100000e-5",
    b"9007199254740991",
    b"9007199254740992",
    b"9007199254740993",
    b"-9007199254740993",
    b"18446744073709551616",
    b"12345678901234567890123",
    b"1.7976931348623157e308",
    b"1e308",
    b"9.99e307",
    b"1e309",
    b"1e400",
    b"-1e400",
    b"4.9e-324",
    b"2.2250738585072014e-308",
    b"1e-400",
    b"0.1",
    b"0.30000000000000004",
    b"123456.789e3",
]
_NOT_NUMBERS = [b"01", b"1.", b".5", b"1e", b"1e+", b"--1", b"+1", b"NaN", b"Infinity"]
_NOT_NUMBERS += [b"-Infinity", b"0x10", b"1_000", b"1.5.2", b"-"]


def respell_number(draw: st.DrawFn, line: bytes) -> bytes:
    """A number replaced by another spelling of its value, or by another number."""
    found = _one_of(draw, line, _NUMBER)
    if found is None:
        return line
    text = found.group(0)
    value = float(text)
    same = [repr(value).encode(), b"%se0" % text, b"%sE-0" % text, b"%.17e" % value]
    same.append(text + b".0" if b"." not in text and b"e" not in text.lower() else text + b"0")
    spelling = draw(st.sampled_from(same + _NUMBERS))
    return line[: found.start()] + spelling + line[found.end() :]


def misspell_number(draw: st.DrawFn, line: bytes) -> bytes:
    """A number replaced by what JSON does not allow (or Python alone reads)."""
    found = _one_of(draw, line, _NUMBER)
    if found is None:
        return line
    return line[: found.start()] + draw(st.sampled_from(_NOT_NUMBERS)) + line[found.end() :]


_STRING_VALUE = re.compile(rb'":"')
_STRING_START = re.compile(rb'[:\[,]"')
_VALID_TEXT = [
    b"\xed\x9f\xbf",  # U+D7FF, the last before the surrogates
    b"\xee\x80\x80",  # U+E000, the first after them
    b"\xf4\x8f\xbf\xbf",  # U+10FFFF
    b"\xef\xbb\xbf",  # a byte order mark inside text
    b"\xe2\x80\xa8",  # U+2028
    b"\xc2\x85",  # U+0085
    b"\xef\xbf\xbe",  # U+FFFE
    b"\xf0\x9f\x98\x80",  # an emoji
    b"\xc3\xa9",
    b"\x7f",
    b"\\u0001",
    b"\\ud83d\\ude00",
    b"\\uDBFF\\uDFFF",
    b"\\u00e9",
    b"\\u2028",
    b"\\/",
    b"\\b\\f\\n\\r\\t",
    b'\\"',
    b"\\\\",
    b" ",
    b"x" * 40,
]
_BROKEN_TEXT = [
    b"\xc0\xaf",  # overlong "/"
    b"\xe0\x80\xaf",  # overlong, three bytes
    b"\xed\xa0\x80",  # an encoded high surrogate
    b"\xed\xbf\xbf",  # an encoded low surrogate
    b"\xf4\x90\x80\x80",  # past U+10FFFF
    b"\xe2\x82",  # cut short
    b"\xf0\x9f\x98",  # cut short
    b"\x80",  # a lone continuation byte
    b"\xff",
    b"\x00",
    b"\x1b",
    b"\\u0000",
    b"\\ud800",
    b"\\udc00",
    b"\\ud83d",
    b"\\ud83d\\u0041",
    b"\\x41",
    b"\\u12",
    b"\\U0041",
    b"\\",
    b"sk-" + b"a" * 24,  # secret-shaped
]


def valid_text(draw: st.DrawFn, line: bytes) -> bytes:
    """Valid text at the edges of UTF-8 and of JSON's escapes, inside a string value."""
    found = _one_of(draw, line, _STRING_VALUE)
    at = found.end() if found is not None else _position(draw, line)
    return line[:at] + draw(st.sampled_from(_VALID_TEXT)) + line[at:]


def broken_text(draw: st.DrawFn, line: bytes) -> bytes:
    """Text neither UTF-8 nor JSON allows (or only Python reads), inside a string or a key."""
    found = _one_of(draw, line, _STRING_START)
    at = found.end() if found is not None else _position(draw, line)
    at += draw(st.integers(0, 3))
    return line[:at] + draw(st.sampled_from(_BROKEN_TEXT)) + line[at:]


_SCALAR = re.compile(rb':(-?\d[\d.eE+-]*|true|false|null|"[^"\\]{0,40}")(?=[,}\]])')


def nest(draw: st.DrawFn, line: bytes) -> bytes:
    """A scalar value wrapped in arrays or objects, around the scanner's depth limit (256)."""
    found = _one_of(draw, line, _SCALAR)
    if found is None:
        return line
    depth = draw(st.sampled_from([1, 2, 63, 64, 65, 254, 255, 256, 257, 300, 2000]))
    opening, closing = draw(st.sampled_from([(b"[", b"]"), (b'{"a":', b"}"), (b'[{"a":', b"}]")]))
    value = opening * depth + found.group(1) + closing * depth
    return line[: found.start(1)] + value + line[found.end(1) :]


_BOUNDARY = re.compile(rb"[{\[,:]|(?=[}\]])")


def json_whitespace(draw: st.DrawFn, line: bytes) -> bytes:
    """Whitespace JSON allows, after or before a bracket, brace, comma or colon."""
    found = _one_of(draw, line, _BOUNDARY)
    at = found.end() if found is not None else 0
    return line[:at] + draw(st.sampled_from([b" ", b"\t", b"\r", b"  \t "])) + line[at:]


def other_whitespace(draw: st.DrawFn, line: bytes) -> bytes:
    """Line ends, and whitespace JSON does not allow, anywhere."""
    at = _position(draw, line)
    space = draw(st.sampled_from([b"\n", b"\r\n", b"\r", b"\x0b", b"\x0c", b"\xc2\xa0"]))
    return line[:at] + space + line[at:]


KEEPING: tuple[Mutation, ...] = (respell_number, valid_text, json_whitespace, nest, repeat_key)
"""Mutations that mostly leave valid JSON (the scorer may still reject what it holds)."""
BREAKING: tuple[Mutation, ...] = (
    flip_bit,
    insert_bytes,
    delete_bytes,
    truncate,
    swap_bytes,
    copy_slice,
    misspell_number,
    broken_text,
    other_whitespace,
)
"""Mutations that mostly break the JSON, or its UTF-8."""


@st.composite
def mutated_lines(draw: st.DrawFn) -> bytes:
    """A valid observation line with one to three mutations, as likely to keep it JSON as to
    break it."""
    line = draw(st.sampled_from(seed_lines()))
    mutations = st.sampled_from(KEEPING) | st.sampled_from(BREAKING)
    for mutation in draw(st.lists(mutations, min_size=1, max_size=3)):
        line = mutation(draw, line)
    return line


_BOM = b"\xef\xbb\xbf"


_BUNDLE_INFO = BundleInfo(id=BUNDLE, kind="override")

#: Each output the C scorer writes, with how a chunk's output and summary are compared.
_OUTPUTS = (
    ("jsonl", _text_and_summary),
    ("records", _records_and_summary),
    (ROWS, _rows_and_summary),
)


def check_line(raw: bytes, catalog: Catalog, policy: Policy | None = None) -> int:
    """Each line of ``raw`` (a mutation may have split it; a byte order mark starting one is
    taken off, as only a file's first line may have one): the C path declines it (and may: the
    Python path would not read it as a plainly valid observation in runner order) or gives the
    Python path's bytes and counts. How many lines C answered."""
    answered = 0
    for _, line in numbered_lines(raw, 2):
        while line.startswith(_BOM):
            line = line[len(_BOM) :]
        if line and not line.isspace():
            answered += assert_same_or_declined(line, catalog, policy or Policy())
            # the record C writes of it (findings, failure, source and all), or a decline
            assert_same_record_or_declined(line, catalog, policy or Policy(), _BUNDLE_INFO)
    return answered


def check_block(lines: list[bytes], first_line: int, catalog: Catalog) -> None:
    """``lines`` joined into one block: its text and its rows (audit gating on and off) are
    the general path's, errors and line numbers included; the rows with every line's detail
    are the same rows."""
    block = b"\n".join(lines)
    chunk = Chunk("t.jsonl", BundleInfo(id=BUNDLE, kind="override"), block, first_line)
    for policy in (Policy(), Policy(audit_gate=True)):
        for output, compare in _OUTPUTS:
            scorer = ChunkScorer(catalog, policy, output)
            assert scorer.fast is not None
            compiled = compare(chunk, scorer)
            scorer.fast = None
            assert compiled == compare(chunk, scorer)
        fast = ChunkScorer(catalog, policy, ROWS).fast
        assert fast is not None
        detailed = fast.score_rows(block, first_line, BUNDLE, {}, 2, audit_gates=True)
        plain = fast.score_rows(block, first_line, BUNDLE, {}, 0, audit_gates=True)
        assert detailed[1] == plain[1]
        assert repr([piece[:2] for piece in detailed[0]]) == repr([piece[:2] for piece in plain[0]])


def check_array(lines: list[bytes], pretty: bool, catalog: Catalog) -> None:
    """``lines`` as the elements of one ``.json`` array (each line an element; compact, or on
    lines of their own between CRLF-indented brackets): its text and rows are the general
    path's, errors included, whether the C scorer took the file whole or declined it."""
    separator, opening, closing = (
        (b",\r\n  ", b"[\r\n  ", b"\r\n]\r\n") if pretty else (b",", b"[", b"]")
    )
    whole = opening + separator.join(lines) + closing
    chunk = Chunk("t.json", BundleInfo(id=BUNDLE, kind="override"), whole_file=whole)
    for output, compare in _OUTPUTS:
        scorer = ChunkScorer(catalog, Policy(), output)
        assert scorer.fast is not None
        compiled = compare(chunk, scorer)
        scorer.fast = None
        assert compiled == compare(chunk, scorer)
