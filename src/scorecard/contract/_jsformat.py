"""JavaScript-compatible text for numbers and JSON.

The reference scorer is written in TypeScript, so two of its outputs depend on how JavaScript
spells values: budget reasons (``latencyMs 1500 exceeds budget 1000``) and the canonical JSON that
bundle ids hash. ``format_js_number`` follows ECMAScript ``Number::toString`` and
``canonical_json`` follows ``JSON.stringify`` over an object with sorted keys.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import msgspec

__all__ = ["canonical_json", "format_js_number", "js_json", "js_string"]


def format_js_number(value: float | int) -> str:
    """Spell a number the way JavaScript's ``String(value)`` does.

    Integers are treated as the double JavaScript would parse them into. Both Python's ``repr``
    and JavaScript produce the shortest digit string that round-trips, so only the placement of
    the decimal point and the exponent differ; that is what this function redoes.
    """
    number = float(value)
    if math.isnan(number) or math.isinf(number):
        raise ValueError("non-finite numbers have no JSON spelling")
    if number == 0:
        return "0"  # covers -0.0, which JavaScript prints as "0"
    sign = "-" if number < 0 else ""
    digits, exponent = _shortest_digits(abs(number))
    # `digits` (k of them) times 10**(exponent - k): ECMAScript calls the position n.
    k = len(digits)
    n = exponent
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        power = n - 1
        body = f"{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"
    return sign + body


def _shortest_digits(number: float) -> tuple[str, int]:
    """Return (significant digits, n) with number == 0.digits * 10**n, shortest round trip."""
    mantissa, _, exponent_text = repr(number).partition("e")
    exponent = int(exponent_text) if exponent_text else 0
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    point = len(whole) + exponent
    stripped = raw.lstrip("0")
    point -= len(raw) - len(stripped)
    return stripped.rstrip("0"), point


def js_string(text: str) -> str:
    """Quote a string as ``JSON.stringify`` does (non-ASCII kept, lone surrogates escaped)."""
    quoted = json.dumps(text, ensure_ascii=False)
    if _SURROGATE.search(quoted):
        quoted = "".join(
            f"\\u{ord(char):04x}" if 0xD800 <= ord(char) <= 0xDFFF else char for char in quoted
        )
    return quoted


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def canonical_json(value: Any) -> str:
    """Serialise parsed JSON canonically: sorted keys (UTF-16 order), no spaces, JS numbers.

    ``json.dumps(sort_keys=True)`` writes every part that Python and JavaScript spell alike and
    sort alike (keys without a character past U+FFFF, whose UTF-16 order is their code points'
    order); the rest is written level by level, as :func:`_canonical_slow` writes everything,
    which stays the definition (``tests/contract/test_jsformat.py`` checks the two agree). A
    receipt's payload digest reads a whole report this way."""
    text = _plain_json(value, sort_keys=True)
    return _canonical_level(value, canonical_json) if text is None else text


def _plain_json(value: Any, *, sort_keys: bool) -> str | None:
    """``value`` written compactly by ``json.dumps``, or None when Python would spell or (with
    ``sort_keys``) order any part of it otherwise than JavaScript: a number or key
    :func:`_js_compatible` declines, a lone surrogate, or a key past U+FFFF to sort."""
    try:
        normalized = _js_compatible(value)
    except _NeedsSlowPath:
        return None
    text = json.dumps(normalized, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
    return None if (_SURROGATE_OR_ASTRAL if sort_keys else _SURROGATE).search(text) else text


def _canonical_slow(value: Any) -> str:
    """:func:`canonical_json` written level by level all the way down: the definition."""
    return _canonical_level(value, _canonical_slow)


def _canonical_level(value: Any, inner: Callable[[Any], str]) -> str:
    """``value`` canonically: a scalar as JavaScript spells it, a container's brackets and keys
    (sorted by their UTF-16 code units) here and each item by ``inner``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return format_js_number(value)
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(inner(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=_utf16_key)
        return "{" + ",".join(f"{js_string(key)}:{inner(value[key])}" for key in keys) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


class _NeedsSlowPath(Exception):
    """A number whose Python and JavaScript spellings differ was found."""


def _js_compatible(value: Any) -> Any:
    """``value`` with integral floats as ints, so ``json.dumps`` spells numbers as JS does.

    Python's ``repr`` and JavaScript agree on every other double except those below 1e-4 in
    magnitude (Python switches to exponent notation earlier) and integers beyond 2**53 (which
    JavaScript spells with its shortest digits, ``2.0**60`` as ``1152921504606847000``); those,
    keys that are not strings and values of any other type than JSON's own (``json.dumps``
    spells numpy's ``float64(1.0)`` as ``1.0``) raise :class:`_NeedsSlowPath`.
    """
    kind = type(value)
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise _NeedsSlowPath  # json.dumps spells True as "true", the slow path as str() does
        return {key: _js_compatible(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_js_compatible(item) for item in value]
    if kind is float:
        if value.is_integer():
            if abs(value) <= 2**53:
                return int(value)
            raise _NeedsSlowPath
        if abs(value) < 1e-4 or not math.isfinite(value):
            raise _NeedsSlowPath
        return value
    if kind is int and abs(value) > 2**53:
        raise _NeedsSlowPath
    if kind not in _PLAIN:
        raise _NeedsSlowPath  # a subclass (numpy's float64, an enum) is spelt by the slow path
    return value


_PLAIN = frozenset({str, int, bool, type(None)})


_SURROGATE = re.compile("[\ud800-\udfff]")
#: A lone surrogate (escaped by JavaScript), or a character past U+FFFF (in a key, sorted by its
#: UTF-16 surrogates, below U+E000, where code points put it last).
_SURROGATE_OR_ASTRAL = re.compile("[\ud800-\udfff\U00010000-\U0010ffff]")


def js_json(value: Any, indent: int | None = None) -> str:
    """Serialise like ``JSON.stringify(value, null, indent)``: key order kept, JS numbers.

    ``json.dumps`` writes every part that Python and JavaScript spell alike; only the containers
    on the way to a number or string they spell differently (:func:`_js_compatible`) are written
    level by level, as :func:`_js_json_slow` writes everything, which stays the definition
    (``tests/contract/test_jsformat.py`` checks the two agree). So one small p-value in a large
    report does not send all of it to the slow writer."""
    return _js_json_at(value, indent or None, 0)  # an indent of 0 is none, as in JavaScript


def _js_json_at(value: Any, indent: int | None, depth: int) -> str:
    """:func:`js_json` of ``value`` standing ``depth`` levels deep."""
    text = _plain_json(value, sort_keys=False)
    if text is None:
        return _one_level(value, indent, depth, _js_json_at)
    if indent:
        # json.dumps' indented writer is pure Python; the compact one is C, and msgspec lays its
        # text out as json.dumps(indent=..., separators=(",", ": ")) would.
        text = msgspec.json.format(text, indent=indent)
    # Its lines indented as deep as it stands (a string holds no raw line break).
    return text.replace("\n", "\n" + " " * (indent * depth)) if indent and depth else text


def _js_json_slow(value: Any, indent: int | None = None, _depth: int = 0) -> str:
    """``JSON.stringify`` written level by level all the way down: the definition."""
    return _one_level(value, indent, _depth, _js_json_slow)


def _one_level(
    value: Any, indent: int | None, depth: int, inner: Callable[[Any, int | None, int], str]
) -> str:
    """``value`` standing ``depth`` deep: a scalar or empty container as JavaScript spells it, a
    container's brackets, keys and layout here and each item by ``inner``."""
    if isinstance(value, dict) and value:
        items = [
            f"{js_string(str(key))}:{_space(indent)}{inner(item, indent, depth + 1)}"
            for key, item in value.items()
        ]
        return "{" + _wrap(items, indent, depth) + "}"
    if isinstance(value, list | tuple) and value:
        items = [inner(item, indent, depth + 1) for item in value]
        return "[" + _wrap(items, indent, depth) + "]"
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    return canonical_json(value)


def _space(indent: int | None) -> str:
    return " " if indent else ""


def _wrap(items: list[str], indent: int | None, depth: int) -> str:
    if not indent:
        return ",".join(items)
    inner = "\n" + " " * (indent * (depth + 1))
    return inner + ("," + inner).join(items) + "\n" + " " * (indent * depth)
