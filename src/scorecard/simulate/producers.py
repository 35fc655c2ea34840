"""One JSON document as other producers write it: Node in another key order, ``json.dumps``
defaults, sorted keys, shuffled keys, everything escaped.

Each writer takes a parsed document (any JSON value, also a corrupted observation) and returns
one JSON Lines record (no newline inside). The runners' own spelling is what
:func:`~scorecard.simulate.observation_line` writes. The fast path's tests compare both scoring
paths on every spelling, and ``benchmarks/producer_benchmark.py`` times each: one definition of
each producer for both.
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Callable
from typing import Any

__all__ = [
    "WRITERS",
    "escaped",
    "node",
    "python_default",
    "shuffle_keys",
    "shuffled",
    "sorted_keys",
]


def _reordered(value: Any) -> Any:
    """Objects built in another order, as a JavaScript producer might build them: ``schema``
    last at the top, ``provenance`` after ``trace`` in ``base``, wire events starting with
    ``schema``, ``checks`` last; every other object's keys in reverse."""
    if isinstance(value, list):
        return [_reordered(item) for item in value]
    if not isinstance(value, dict):
        return value
    keys = list(reversed(value))
    if "schema" in value and "eventType" in value:
        keys = ["schema", *(key for key in value if key != "schema")]
    elif "provenance" in value and "trace" in value:
        keys = [key for key in value if key != "provenance"]
        keys.insert(keys.index("trace") + 1, "provenance")
    elif "checks" in value:
        keys = [*(key for key in value if key != "checks"), "checks"]
    elif "schema" in value and "classification" in value:
        keys = [*(key for key in value if key != "schema"), "schema"]
    return {key: _reordered(value[key]) for key in keys}


def node(document: Any) -> bytes:
    """``JSON.stringify`` of objects built in another key order: compact, UTF-8 kept raw."""
    return json.dumps(_reordered(document), separators=(",", ":"), ensure_ascii=False).encode()


def python_default(document: Any) -> bytes:
    """``json.dumps`` with its defaults: ``", "`` and ``": "``, non-ASCII as ``\\u`` escapes."""
    return json.dumps(document).encode()


def sorted_keys(document: Any) -> bytes:
    """``json.dumps(sort_keys=True)``, otherwise its defaults."""
    return json.dumps(document, sort_keys=True).encode()


def shuffle_keys(value: Any, rng: random.Random) -> Any:
    """``value`` with every object's keys in an order drawn from ``rng`` (lists keep theirs)."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: shuffle_keys(item, rng) for key, item in items}
    if isinstance(value, list):
        return [shuffle_keys(item, rng) for item in value]
    return value


def shuffled(document: Any) -> bytes:
    """Every object's keys in a seeded random order (the seed is the document's own compact
    text, so the same document always comes out the same), compact."""
    seed = zlib.crc32(json.dumps(document, separators=(",", ":")).encode())
    return json.dumps(shuffle_keys(document, random.Random(seed)), separators=(",", ":")).encode()


_SPACE = (" ", "\t", "\r", "  ", "")


def _escaped_string(text: str) -> str:
    units = text.encode("utf-16-le", "surrogatepass")
    return (
        '"'
        + "".join(
            f"\\u{int.from_bytes(units[at : at + 2], 'little'):04X}"
            for at in range(0, len(units), 2)
        )
        + '"'
    )


def _escaped_number(number: int | float) -> str:
    if isinstance(number, int):
        return str(number)
    text = json.dumps(number)  # repr: the shortest digits that read back as this double
    if "e" in text:
        mantissa, exponent = text.split("e")
        return f"{mantissa}E{int(exponent):+d}"
    return text + "0" if "." in text else text  # 0.25 as 0.250: the same double


def _escaped_value(value: Any, rng: random.Random) -> str:
    def space() -> str:
        return rng.choice(_SPACE)

    if isinstance(value, dict):
        items = [
            f"{space()}{_escaped_string(key)}{space()}:{space()}{_escaped_value(item, rng)}{space()}"
            for key, item in value.items()
        ]
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return (
            "[" + ",".join(f"{space()}{_escaped_value(item, rng)}{space()}" for item in value) + "]"
        )
    if isinstance(value, str):
        return _escaped_string(value)
    if value is True or value is False or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return (
            json.dumps(value)
            if value != value or value in (float("inf"), float("-inf"))
            else _escaped_number(value)
        )
    raise TypeError(type(value).__name__)


def escaped(document: Any) -> bytes:
    """Every character of every string and key as a ``\\u`` escape (characters beyond the BMP as
    surrogate pairs), upper-case hex, insignificant spaces, tabs and carriage returns between
    tokens, floats with a trailing zero or an ``E+``/``E-`` exponent: all valid, all plain ASCII."""
    seed = zlib.crc32(json.dumps(document, separators=(",", ":")).encode())
    return _escaped_value(document, random.Random(seed)).encode("ascii")


WRITERS: dict[str, Callable[[Any], bytes]] = {
    "node": node,
    "python": python_default,
    "sorted": sorted_keys,
    "shuffled": shuffled,
    "escaped": escaped,
}
"""The other producers, by name (the runners' spelling is ``runner_line`` in the tests)."""
