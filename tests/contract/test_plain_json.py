"""The compiled plain-JSON parser agrees with the strict parser on everything it accepts."""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorecard.contract._errors import InputError
from scorecard.contract._json import NOT_PLAIN, parse_json_document, parse_plain_json
from tests.conftest import ROOT

PROFILE = settings(
    max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def identical(left: Any, right: Any) -> bool:
    """Equal values of equal types: ``1`` is not ``1.0`` and ``-0.0`` is not ``0.0``."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float):
        return struct.pack("<d", left) == struct.pack("<d", right)
    if isinstance(left, dict):
        return list(left) == list(right) and all(identical(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(identical, left, right))
    return bool(left == right)


def strict(raw: bytes) -> Any:
    """What the strict parser makes of ``raw`` (an InputError when it refuses it)."""
    try:
        return parse_json_document(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        return InputError(str(error), rule="invalid_utf8")
    except InputError as error:
        return error


def assert_agrees(raw: bytes) -> None:
    """Plain implies: the strict parser accepts ``raw`` and gives the identical value."""
    fast = parse_plain_json(raw)
    if fast is NOT_PLAIN:
        return
    slow = strict(raw)
    assert not isinstance(slow, InputError), (raw[:200], slow)
    assert identical(fast, slow), raw[:200]


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(min_value=-1e-300, max_value=1e-300)
    | st.text()
    | st.sampled_from(["é", "\u2028", "\x7f", '"', "\\", "\x00", "\ud800", 'a":b'])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5)
    ),
    max_leaves=30,
)


def spellings(value: Any) -> list[bytes]:
    """The ways producers write ``value``: compact or spaced, raw UTF-8 or ASCII escapes."""
    texts = [
        json.dumps(value, separators=(",", ":"), ensure_ascii=False),
        json.dumps(value, ensure_ascii=False),
        json.dumps(value, separators=(",", ":")),
        json.dumps(value, separators=(",", " :")),
    ]
    return [text.encode("utf-8", "surrogatepass") for text in texts]


@PROFILE
@given(values)
def test_plain_values_parse_as_the_strict_parser_parses_them(value: Any) -> None:
    """Whatever is accepted equals the strict parse, type for type and bit for bit."""
    for raw in spellings(value):
        assert_agrees(raw)


@PROFILE
@given(values, st.data())
def test_repeated_keys_are_never_plain(value: Any, data: st.DataObject) -> None:
    """An object with a key written twice is left to the strict parser, which rejects it."""
    key = data.draw(st.text(max_size=4))
    repeated = json.dumps({key: value}, separators=(",", ":"), ensure_ascii=False)
    raw = ("{" + repeated[1:-1] + "," + repeated[1:-1] + "}").encode("utf-8", "surrogatepass")
    assert parse_plain_json(raw) is NOT_PLAIN
    assert isinstance(strict(raw), InputError)


@PROFILE
@given(values, st.data())
def test_corrupted_text_is_never_accepted_wrongly(value: Any, data: st.DataObject) -> None:
    """Bytes dropped, inserted or replaced anywhere: plain still implies the strict parse."""
    raw = bytearray(spellings(value)[0])
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        position = data.draw(st.integers(min_value=0, max_value=len(raw)))
        action = data.draw(st.sampled_from(["drop", "insert", "replace"]))
        byte = data.draw(st.sampled_from(b'{}[]",:\\0-.eE+ \x80\xff\xed' + b"aN"))
        if action == "drop" and position < len(raw):
            del raw[position]
        elif action == "insert":
            raw.insert(position, byte)
        elif position < len(raw):
            raw[position] = byte
    assert_agrees(bytes(raw))


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a":1,"a":1}',
        b'{"a":NaN}',
        b'{"a":Infinity}',
        b"[1e400]",
        b"[-0]",
        b"[1.0e2]",
        b'"\\u00e9"',
        b'"\\ud800"',
        b'{"a":"\xff"}',
        b" {}",
        b"[" + b"7" * 5000 + b"]",
        b"[" * 100_000 + b"]" * 100_000,
    ],
)
def test_text_the_strict_parser_must_judge_is_not_plain(raw: bytes) -> None:
    """Duplicates, non-finite or inexact numbers, escapes, bad UTF-8, deep nesting: not plain."""
    assert parse_plain_json(raw) is NOT_PLAIN


def test_a_number_with_too_many_digits_is_a_located_error() -> None:
    """Python refuses integers of over 4,300 digits: that is an error, not a traceback."""
    with pytest.raises(InputError) as caught:
        parse_json_document('{"a":' + "7" * 5000 + "}", source="x.jsonl", line=3)
    assert caught.value.rule == "malformed_json"
    assert "too many digits" in str(caught.value)


def test_the_sample_observations_are_plain() -> None:
    """What runners write (compact JSON Lines) takes the compiled parser."""
    paths = sorted((ROOT / "observations").glob("*/observations.jsonl"))
    lines = [line for path in paths for line in path.read_bytes().splitlines()]
    assert len(lines) >= 560
    for line in lines:
        fast = parse_plain_json(line)
        assert fast is not NOT_PLAIN
        assert identical(fast, json.loads(line))
