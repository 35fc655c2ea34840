"""The scanner that decides which lines the fast path may read (``src/fastscore/strict.c``).

It passes a text only when the general path's strict parser would read it without objection and
into the value msgspec reads: no repeated key, no integer past 2**53, no number from 1e308 up,
no lone surrogate, nothing but UTF-8, one JSON value. Expected answers here come from how the
texts are built, never from the scanner.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorecard.fast._extension import ENGINE_VARIABLE
from tests.conftest import PYTHON_ONLY

if PYTHON_ONLY:  # before the import below, which that pass refuses
    pytest.skip(
        f"{ENGINE_VARIABLE}=python: these test the C scanner itself", allow_module_level=True
    )

from scorecard.fast._fastscore import is_unambiguous

PROFILE = settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)

_SAFE = 2**53
# Any JSON value with distinct keys (a dict has them), integers JavaScript holds exactly,
# finite doubles below 1e308 in magnitude, any text (hypothesis never draws lone surrogates).
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-_SAFE, _SAFE)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda value: abs(value) < 1e308)
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    _LEAVES,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=6), children, max_size=6)
    ),
    max_leaves=30,
)
_SPACE = st.sampled_from(["", " ", "\t", "\r", "\n", " \t"])


class _Writer:
    """Writes JSON as some producer might: keys in the dict's order, insignificant whitespace
    anywhere between tokens, each character of a string raw or escaped (a character beyond the
    BMP as a surrogate pair, hex digits in either case), numbers in json.dumps' spelling."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def string(self, text: str) -> str:
        out: list[str] = []
        for character in text:
            if character in '"\\' or ord(character) < 0x20 or self.draw(st.booleans()):
                units = character.encode("utf-16-be")
                case = self.draw(st.sampled_from("xX"))
                out.extend(
                    f"\\u{int.from_bytes(units[at : at + 2], 'big'):04{case}}"
                    for at in range(0, len(units), 2)
                )
            else:
                out.append(character)
        return '"' + "".join(out) + '"'

    def member(self, key: str, value: Any) -> str:
        space = self.draw
        return (
            f"{space(_SPACE)}{self.string(key)}{space(_SPACE)}:{space(_SPACE)}{self.value(value)}"
        )

    def value(self, node: Any) -> str:
        if isinstance(node, dict):
            members = [self.member(key, item) for key, item in node.items()]
            return "{" + ",".join(members) + self.draw(_SPACE) + "}"
        if isinstance(node, list):
            items = [self.draw(_SPACE) + self.value(item) for item in node]
            return "[" + ",".join(items) + self.draw(_SPACE) + "]"
        if isinstance(node, str):
            return self.string(node)
        return json.dumps(node)


@st.composite
def spelt(draw: st.DrawFn, value: Any) -> str:
    """``value`` as some producer might write it (see ``_Writer``), between whitespace."""
    return draw(_SPACE) + _Writer(draw).value(value) + draw(_SPACE)


def _same(one: Any, other: Any) -> bool:
    """Equal values of equal types, floats bit for bit."""
    if type(one) is not type(other):
        return False
    if isinstance(one, dict):
        return list(one) == list(other) and all(_same(one[key], other[key]) for key in one)
    if isinstance(one, list):
        return len(one) == len(other) and all(map(_same, one, other))
    if isinstance(one, float):
        return struct.pack("<d", one) == struct.pack("<d", other)
    return bool(one == other)


@PROFILE
@given(data=st.data())
def test_any_spelling_of_a_value_with_distinct_keys_passes_and_both_parsers_read_it_alike(
    data: st.DataObject,
) -> None:
    """Whitespace, escapes and key order never decline a text, and what passes is what the fast
    path relies on: msgspec reads it into json.loads' value, types and float bits included."""
    value = data.draw(JSON_VALUES)
    text = data.draw(spelt(value)).encode()
    assert is_unambiguous(text)
    assert _same(msgspec.json.decode(text), json.loads(text))
    assert _same(json.loads(text), value)


@st.composite
def repeated(draw: st.DrawFn) -> tuple[str, str]:
    """A text with one object, at some depth, repeating one of its keys (each time spelt its
    own way, with its own value), and the same text with the second key renamed apart."""
    writer = _Writer(draw)
    key = draw(st.text(min_size=1, max_size=4))
    others = draw(st.dictionaries(st.text(max_size=4), JSON_VALUES, max_size=4))
    others.pop(key, None)
    middle = [writer.member(name, value) for name, value in others.items()]
    first = writer.member(key, draw(JSON_VALUES))
    again = writer.member(key, draw(JSON_VALUES))
    apart = writer.member(key + "\x00apart", draw(JSON_VALUES))
    with_repeat = "{" + ",".join([first, *middle, again]) + "}"
    without = "{" + ",".join([first, *middle, apart]) + "}"
    for level in range(draw(st.integers(0, 4))):
        # Wrapped in arrays and objects that hold the same keys at other depths.
        if level % 2:
            with_repeat, without = (f'[1,{text},"x"]' for text in (with_repeat, without))
        else:
            with_repeat, without = (
                '{"a":1,"b":' + text + ',"c":{"b":2}}' for text in (with_repeat, without)
            )
    return with_repeat, without


@PROFILE
@given(texts=repeated())
def test_a_repeated_key_at_any_depth_is_declined_however_it_is_spelt(
    texts: tuple[str, str],
) -> None:
    """A key that comes twice in one object (raw, escaped, or both) declines the text; the same
    text with the second key renamed passes."""
    with_repeat, without = texts
    assert not is_unambiguous(with_repeat.encode())
    assert is_unambiguous(without.encode())


@pytest.mark.parametrize(
    "text",
    [
        b'{"a":1,"a":1}',
        b'{"a":1,"\\u0061":2}',
        b'{"\\u00e9":1,"\xc3\xa9":2}',
        b'{"\\ud83d\\ude00":1,"\xf0\x9f\x98\x80":2}',
        b'{"\\n":1,"\\u000A":2}',
        b'{"\\/":1,"/":2}',
        b'{"a":{"b":1},"a":2}',
        b'[{"x":[{"y":1,"y":2}]}]',
        b'{"":1,"":2}',
    ],
)
def test_repeated_keys_are_declined(text: bytes) -> None:
    """Keys equal once unescaped are the same key."""
    assert not is_unambiguous(text)


@pytest.mark.parametrize(
    "text",
    [
        b'[{"a":1},{"a":1}]',
        b'{"a":{"a":1}}',
        b'{"a":{"b":1},"b":2}',
        b'{"a":1,"A":2,"\\u00e9":3,"e\\u0301":4}',
        b'{"a\\u0000":1,"a":2}',
    ],
)
def test_the_same_key_in_different_objects_or_different_keys_pass(text: bytes) -> None:
    """Only a repeat within one object declines."""
    assert is_unambiguous(text)


@pytest.mark.parametrize("count", [17, 200, 5000])
def test_large_objects_are_checked_for_repeats_too(count: int) -> None:
    """Past 16 keys the check hashes the keys: a repeat is still found, at either end."""
    keys = [f'"k{index}":{index}' for index in range(count)]
    assert is_unambiguous(("{" + ",".join(keys) + "}").encode())
    assert not is_unambiguous(("{" + ",".join([*keys, '"k0":0']) + "}").encode())
    assert not is_unambiguous(("{" + ",".join(['"\\u006b7":0', *keys]) + "}").encode())


@pytest.mark.parametrize(
    ("text", "passes"),
    [
        (b"9007199254740992", True),
        (b"-9007199254740992", True),
        (b"9007199254740993", False),
        (b"-9007199254740993", False),
        (b"10000000000000000", False),
        (b"123456789012345678901234567890", False),
        (b"0", True),
        (b"-0", True),
        (b"9007199254740993.0", True),  # a float: the double 2**53
        (b"1e308", False),
        (b"1.7976931348623157e308", False),  # the largest double: declined, conservatively
        (b"9.999e307", True),
        (b"-9.999E+307", True),
        (b"1e400", False),
        (b"-1e400", False),
        (b"0.0000001e314", True),  # 1e307
        (b"100000000e300", False),  # 1e308
        (b"1e-400", True),  # zero for both parsers
        (b"0e999999999999", True),
        (b"0.000e-5", True),
        (b"NaN", False),
        (b"Infinity", False),
        (b"-Infinity", False),
        (b"01", False),
        (b"1.", False),
        (b".5", False),
        (b"+1", False),
        (b"1e", False),
        (b"1e+", False),
        (b"-", False),
        (b"0x10", False),
    ],
)
def test_numbers(text: bytes, passes: bool) -> None:
    """Integers JavaScript holds exactly and doubles below 1e308 pass; everything else the
    general path reads otherwise (as an exact big integer, as infinity) or refuses declines."""
    assert is_unambiguous(text) is passes
    assert is_unambiguous(b'{"n":[' + text + b"]}") is passes


def test_hard_to_round_doubles_are_read_alike() -> None:
    """What the scanner lets through, msgspec rounds as float() does, also for the midpoints
    between two doubles and long digit strings (the fast path relies on it)."""
    texts = [
        b"2.2250738585072011e-308",
        b"2.2250738585072012e-308",
        b"4.9406564584124654e-324",
        b"2.4703282292062328e-324",  # just above half the smallest subnormal
        b"9007199254740993.0",
        b"0.1000000000000000055511151231257827021181583404541015625",
        b"1." + b"0" * 400 + b"1",
        b"8.98846567431158e307",
        b"1.00000000000000011102230246251565404236316680908203125",  # a midpoint: to even
        b"1.00000000000000011102230246251565404236316680908203126",
    ]
    for text in texts:
        assert is_unambiguous(text)
        assert struct.pack("<d", msgspec.json.decode(text)) == struct.pack("<d", float(text))
    assert math.isfinite(msgspec.json.decode(texts[-3]))


@pytest.mark.parametrize(
    ("text", "passes"),
    [
        (b'"\\ud83d\\ude00"', True),
        (b'"\\uDBFF\\uDFFF"', True),
        (b'"\\uD800\\uDC00"', True),
        (b'"\\ud800"', False),
        (b'"\\udc00"', False),
        (b'"\\udfff\\ud800"', False),
        (b'"\\ud800\\u0041"', False),
        (b'"\\ud800\\ud800"', False),
        (b'"\\ud800x"', False),
        (b'"\\ud800\\"', False),
        (b'"\\ud80"', False),
        (b'"\\u00G0"', False),
        (b'"\\x41"', False),
        (b'"\\U0041"', False),
        (b'"\\"', False),
        (b'"\\', False),
        (b'"\\b\\f\\n\\r\\t\\"\\\\\\/"', True),
    ],
)
def test_escapes(text: bytes, passes: bool) -> None:
    """Escapes are JSON's; a surrogate escape passes only as a high-low pair."""
    assert is_unambiguous(text) is passes
    assert is_unambiguous(b'{"k":' + text + b"}") is passes
    assert is_unambiguous(b"{" + text + b":1}") is passes


@pytest.mark.parametrize(
    ("text", "passes"),
    [
        ("é ŵ € 𝄞 😀 日本".encode(), True),
        (
            b"\xc2\x80 \xdf\xbf \xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 \xf0\x90\x80\x80 \xf4\x8f\xbf\xbf",
            True,
        ),
        (b"\xc0\xaf", False),  # overlong
        (b"\xc1\xbf", False),
        (b"\xe0\x80\x80", False),
        (b"\xe0\x9f\xbf", False),
        (b"\xed\xa0\x80", False),  # an encoded surrogate
        (b"\xed\xbf\xbf", False),
        (b"\xf0\x80\x80\x80", False),
        (b"\xf4\x90\x80\x80", False),  # past U+10FFFF
        (b"\xf5\x80\x80\x80", False),
        (b"\xff", False),
        (b"\x80", False),
        (b"\xc3", False),  # cut short
        (b"\xe2\x82", False),
        (b"\xf0\x9f\x98", False),
        (b"\xc3\x28", False),
        (b"a\x01b", False),  # a raw control character
        (b"a\x1fb", False),
        (b"a\x7fb", True),
    ],
)
def test_utf8(text: bytes, passes: bool) -> None:
    """Strings are well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF,
    no raw control characters), wherever in an 8-byte word the bad byte falls."""
    for padding in range(9):
        pad = b"x" * padding
        assert is_unambiguous(b'"' + pad + text + pad + b'"') is passes
        assert is_unambiguous(b'{"' + pad + text + b'":"' + text + pad + b'"}') is passes


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b" ",
        b"{}x",
        b"{} {}",
        b'{"a":1} ,',
        b"[1,]",
        b"[,1]",
        b"[1 2]",
        b'{"a":1,}',
        b'{"a"}',
        b'{"a" 1}',
        b'{"a":}',
        b"{1:1}",
        b"{'a':1}",
        b'"open',
        b"[",
        b"{",
        b'{"a":[1}',
        b"[1}",
        b"tru",
        b"nul",
        b"True",
        b"\xef\xbb\xbf{}",
        b"\x0c{}",
        b"\x00",
        b"{}\x00",
    ],
)
def test_anything_but_one_json_value_between_whitespace_is_declined(text: bytes) -> None:
    """Broken JSON, trailing text, a byte order mark, whitespace JSON does not allow."""
    assert not is_unambiguous(text)


@pytest.mark.parametrize(
    "text", [b"{}", b"[]", b" \t\r\n[ ]\r\n", b"true", b"false", b"null", b'""', b'{"a":[{}]}']
)
def test_small_values_pass(text: bytes) -> None:
    """Every JSON value, empty containers and insignificant whitespace included."""
    assert is_unambiguous(text)


def test_nesting_up_to_256_levels_passes() -> None:
    """Deeper nesting is left to the general path (which allows far more, or says too_deep)."""
    assert is_unambiguous(b"[" * 256 + b"]" * 256)
    assert not is_unambiguous(b"[" * 257 + b"]" * 257)
    assert is_unambiguous(b'{"a":' * 256 + b"1" + b"}" * 256)
    assert not is_unambiguous(b'{"a":' * 257 + b"1" + b"}" * 257)
    assert not is_unambiguous(b"[" * 100_000)


def test_a_long_line_with_many_escaped_keys_passes() -> None:
    """The unescaped keys of one line share one buffer sized to the line."""
    keys = ",".join(
        f'"\\u006b\\ud83d\\ude00{index}":{{"\\u0078":[{index}]}}' for index in range(3000)
    )
    text = ("{" + keys + "}").encode()
    assert is_unambiguous(text)
    assert not is_unambiguous(text[:-1] + b',"k\xf0\x9f\x98\x802999":0}')


def test_only_bytes_are_scanned() -> None:
    """The scanner reads raw lines."""
    with pytest.raises(TypeError):
        is_unambiguous("{}")  # type: ignore[arg-type]
