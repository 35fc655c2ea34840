"""``.json`` arrays through the C scorer: ``array_lines`` puts each element of a top-level array
on a line of its own, and a file whose every element the C scorer scores is scored so; a file
with any element it declines, or that it cannot split surely, takes the general path whole. Either
way a file gives the bytes, rows, counts and errors the general path gives (the reference)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorecard.engine._pipeline import RunSummary, score_record
from scorecard.engine._run import score_run
from scorecard.fast import _fastpath as fastpath
from scorecard.fast._extension import extension
from tests.conftest import ROOT, c_only

SAMPLE = ROOT / "observations" / "2026-11-01-nightly"
BOM = b"\xef\xbb\xbf"


def _documents() -> list[Any]:
    lines = (SAMPLE / "observations.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:40]]


def _pretty(documents: list[Any]) -> bytes:
    return json.dumps(documents, indent=2, ensure_ascii=False).encode()


def _with_raw_newline(documents: list[Any]) -> bytes:
    """The pretty array with a raw newline inside the first string value of element 3: invalid
    JSON that a splitter turning newlines into spaces would make valid."""
    text = _pretty(documents[:3]).decode()
    fourth = json.dumps(documents[3])
    key = '"caseId": "'
    at = fourth.index(key) + len(key)
    broken = fourth[:at] + "\n" + fourth[at:]
    return (text[: text.rindex("]")] + ",\n" + broken + "\n]").encode()


def _variants() -> dict[str, bytes]:
    documents = _documents()
    unknown = [dict(document) for document in documents]
    unknown[5] = {**unknown[5], "commentcount": 3}
    invalid = list(documents)
    invalid[7] = {"schema": 1}
    deep: Any = {"a": 1}
    for _ in range(300):
        deep = [deep]
    deepest = [*documents[:2], {**documents[2], "provenance": deep}]
    pretty = _pretty(documents)
    return {
        "compact": json.dumps(documents, separators=(",", ":"), ensure_ascii=False).encode(),
        "pretty": pretty,
        "pretty-crlf": pretty.replace(b"\n", b"\r\n"),
        "bom-tabs": BOM + json.dumps(documents, indent="\t").encode(),
        "escaped": json.dumps(documents, indent=1, ensure_ascii=True).encode(),
        "one-unknown-field": _pretty(unknown),
        "one-invalid-element": _pretty(invalid),
        "raw-newline-in-string": _with_raw_newline(documents),
        "trailing-text": pretty + b"\nx",
        "trailing-comma": pretty[: pretty.rindex(b"]")].rstrip() + b",\n]",
        "unclosed": pretty[: pretty.rindex(b"]")],
        "empty": b"[\n]",
        "one-object": json.dumps(documents[0], indent=2).encode(),
        "not-utf8": pretty.replace(b'"caseId"', b'"case\xffId"', 1),
        "deep": _pretty(deepest),
        "duplicate-key": pretty.replace(b'"caseId"', b'"caseId": "x", "caseId"', 1),
    }


VARIANTS = _variants()
CLEAN = ("compact", "pretty", "pretty-crlf", "bom-tabs", "escaped")
#: What each variant must give (scored records, rejected ones), written out by hand.
SCORED_REJECTED = {
    "compact": (40, 0),
    "pretty": (40, 0),
    "pretty-crlf": (40, 0),
    "bom-tabs": (40, 0),
    "escaped": (40, 0),
    "one-unknown-field": (40, 0),
    "one-invalid-element": (39, 1),
    "raw-newline-in-string": (0, 1),  # not an array of elements: one error for the file
    "trailing-text": (0, 1),
    "trailing-comma": (0, 1),
    "unclosed": (0, 1),
    "empty": (0, 0),
    "one-object": (1, 0),
    "not-utf8": (0, 1),
    "deep": (3, 0),
    "duplicate-key": (39, 1),
}


@pytest.fixture
def night(tmp_path: Path) -> Callable[[str], Path]:
    def write(variant: str) -> Path:
        folder = tmp_path / variant
        folder.mkdir()
        shutil.copy(SAMPLE / "bundle.json", folder / "bundle.json")
        (folder / "observations.json").write_bytes(VARIANTS[variant])
        return folder

    return write


def _scored(folder: Path, workers: int | None) -> tuple[str, list[str], list[Any], RunSummary]:
    summary = RunSummary()
    pieces = list(score_run([folder], workers=workers, summary=summary).text())
    text = "".join(piece for piece in pieces if isinstance(piece, str))
    errors = [str(piece) for piece in pieces if not isinstance(piece, str)]
    rows = [row if isinstance(row, tuple) else str(row) for row in score_run([folder]).rows()]
    return text, errors, rows, summary


@pytest.mark.parametrize("workers", [None, 2])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_json_file_scores_as_the_general_path_scores_it(
    night: Callable[[str], Path], variant: str, workers: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = night(variant)
    with_c = _scored(folder, workers)
    monkeypatch.setattr(fastpath, "_fastscore", None)
    general = _scored(folder, workers)
    assert with_c == general
    text, errors, rows, summary = with_c
    assert (summary.scored, summary.rejected) == SCORED_REJECTED[variant]
    assert len(rows) == len(errors) + summary.scored
    assert text.count("\n") == summary.scored
    if variant == "one-unknown-field":
        assert list(summary.notices.values()) == [1]


@c_only("checks which path scored the records")
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_only_a_cleanly_split_array_of_plain_records_is_scored_in_c(
    night: Callable[[str], Path], variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = night(variant)
    general: list[object] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        general.append(args[0])
        return score_record(*args, **kwargs)

    monkeypatch.setattr("scorecard.engine._chunk_scorer.score_record", counted)
    list(score_run([folder]).text())
    list(score_run([folder]).rows())
    if variant in CLEAN or variant == "empty":  # an empty array holds nothing to score
        assert general == []
    else:
        assert general, "a file the C scorer cannot take whole goes to the general path"


@c_only("the splitter is C code")
@pytest.mark.parametrize(
    ("data", "lines"),
    [
        (b"[1,2]", b"1\n2"),
        (b' [ {"a" :\n 1},\r\n {"b":[1,\n2]} ]\n', b'{"a":1}\n{"b":[1,2]}'),
        (b'[{"a b" : " c\\" d " }]', b'{"a b":" c\\" d "}'),
        # Two literals or numbers keep one space: joined they would read as one token.
        (b"[1 2]", b"1 2"),
        (b"[tru  e, - 1, 1\n.5]", b"tru e\n- 1\n1 .5"),
        (b'[{"a": 1 \t"b"}]', b'{"a":1"b"}'),
        (b'[ "a"  "b" ]', b'"a""b"'),
        (b'["a\\"b", "c]", "d,e"]', b'"a\\"b"\n"c]"\n"d,e"'),
        (b'[{"k\\\\": "\\\\"}]', b'{"k\\\\":"\\\\"}'),
        (b"[\t1\t]", b"1"),
        (b"[" + b" " * 40 + b"1" + b"\n" * 40 + b"]", b"1"),
        (
            b'["' + b"x" * 40 + b'\\"' + b"y" * 40 + b'"]',
            b'"' + b"x" * 40 + b'\\"' + b"y" * 40 + b'"',
        ),
        (b"[]", None),
        (b"[ ]", None),
        (b"[1,]", None),
        (b"[1,,2]", None),
        (b"[,1]", None),
        (b'["a\nb"]', None),
        (b'["a\\\nb"]', None),
        (b'["a\tb"]', None),
        (b'["' + b"x" * 40 + b'\x1f"]', None),
        (b"[1] x", None),
        (b"[1] ]", None),
        (b"[1", None),
        (b'["abc', None),
        (b'["abc\\', None),
        (b"{}", None),
        (b"", None),
        (b"   ", None),
        (b"[}]", None),
        (b"[{]}]", None),
    ],
)
def test_array_lines_splits_only_what_it_can_split_surely(data: bytes, lines: bytes | None) -> None:
    assert extension is not None
    assert extension.array_lines(data) == lines


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False), st.text()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
_SPACE = st.text(alphabet=" \t\r\n", max_size=3)


@st.composite
def _spaced_arrays(draw: st.DrawFn) -> bytes:
    """A JSON array of any values with any JSON whitespace between any two tokens; sometimes
    one byte of it changed, so the text may be invalid."""
    values = draw(st.lists(_VALUES, max_size=4))
    text = json.dumps(values, indent=draw(st.sampled_from([None, 0, 2, "\t"])))
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|[^\s"]+?(?=[\s,:\[\]{}"]|$)|[,:\[\]{}]', text)
    data = "".join(token + draw(_SPACE) for token in tokens).encode()
    if data and draw(st.booleans()):
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.sampled_from(b' \n,:[]{}"\\x1e0'))]) + data[at + 1 :]
    return data


def _parsed(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return "invalid"


_STRING = rb'"(?:[^"\\]|\\.)*"'


@c_only("the splitter is C code")
@settings(max_examples=400, deadline=None, derandomize=True)
@given(_spaced_arrays())
def test_array_lines_keep_every_token_of_the_array(data: bytes) -> None:
    """Dropping the whitespace between tokens changes neither the elements' values nor whether
    the text is JSON at all: the lines, read back as an array, parse as the original does; and
    of a valid array no whitespace is left outside strings."""
    assert extension is not None
    lines = extension.array_lines(data)
    if lines is None:
        return
    parsed = _parsed(data)
    assert _parsed(b"[" + lines.replace(b"\n", b",") + b"]") == parsed
    if parsed != "invalid":
        assert len(lines.split(b"\n")) == len(parsed)
        assert not re.search(rb"[ \t\r]", re.sub(_STRING, b"", lines))
