"""Strict JSON text parsing: located syntax errors, no NaN/Infinity, no duplicate keys.

Python's ``json`` accepts ``NaN`` and ``Infinity`` and silently keeps the last of two equal
keys; neither is JSON a runner should emit, and both can hide a mis-score, so both are errors
here, reported with the JSON Pointer of where they stand. So is a lone surrogate escape
(``"\\ud800"``): valid JSON text, but not a character, so no UTF-8 output (a terminal, Parquet,
CSV, SVG) could hold it; refusing it where it is read keeps every later stage free of it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

import msgspec

from ._errors import InputError, ScorecardError
from ._pointer import join

__all__ = ["NOT_PLAIN", "parse_json_document", "parse_plain_json"]

NOT_PLAIN: Final = object()
"""What :func:`parse_plain_json` returns for text it leaves to :func:`parse_json_document`."""

_PLAIN_DECODER = msgspec.json.Decoder()
_PLAIN_ENCODER = msgspec.json.Encoder()


def parse_plain_json(raw: bytes) -> Any:
    """``raw`` parsed in compiled code when it is plain JSON, else :data:`NOT_PLAIN`.

    Plain means written the way runners write it: compact, and re-encoding the parsed value gives
    back exactly ``raw``. That equality proves what :func:`parse_json_document` would check: no
    object repeats a key (the re-encoded object would be shorter), every number is finite and
    parses to the value the standard library gives (a double re-encodes to the same shortest
    digits only if it is the correctly rounded value of those digits; integers keep every digit),
    and the text is valid UTF-8. Everything else (whitespace, escapes such as ``\\u00e9``,
    exponents, errors) is not plain and takes the strict parser, which gives the located error.
    """
    try:
        document = _PLAIN_DECODER.decode(raw)
        if _PLAIN_ENCODER.encode(document) == raw:
            return document
    except (msgspec.DecodeError, RecursionError):
        pass
    return NOT_PLAIN


class _Duplicates(dict[str, Any]):
    """An object in which a key appeared twice (marks where to point the error)."""

    duplicate: str = ""


class _NonFinite(float):
    """Stands in for NaN/Infinity while parsing so the error can point at it."""


def _first_repeated(keys: list[str]) -> str:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            return key
        seen.add(key)
    return ""


#: An escape that may spell half of a surrogate pair (decoded pairs become one character).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Hooks:
    """Parse hooks that remember whether anything needs pointing at (walk only then)."""

    def __init__(self) -> None:
        self.flagged = False

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = dict(pairs)
        if len(result) != len(pairs):
            self.flagged = True
            marked = _Duplicates(result)
            marked.duplicate = _first_repeated([key for key, _ in pairs])
            return marked
        return result

    def constant(self, _: str) -> float:
        self.flagged = True
        return _NonFinite("nan")

    def number(self, text: str) -> float:
        value = float(text)
        if math.isinf(value):  # 1e400: a JSON number, but no double holds it
            self.flagged = True
            return _NonFinite("inf")
        return value


def _find_problem(node: Any, pointer: str) -> tuple[str, str] | None:
    if isinstance(node, _Duplicates):
        return pointer + join(node.duplicate), "duplicate_key"
    if isinstance(node, _NonFinite):
        return pointer, "non_finite_number"
    if isinstance(node, str):
        return (pointer, "lone_surrogate") if _SURROGATE.search(node) else None
    if isinstance(node, dict):
        for key, value in node.items():
            if _SURROGATE.search(key):
                return pointer + join(key), "lone_surrogate"
            found = _find_problem(value, pointer + join(key))
            if found:
                return found
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found = _find_problem(value, f"{pointer}/{index}")
            if found:
                return found
    return None


_MESSAGES = {
    "duplicate_key": "duplicate object key (JSON parsers disagree on which value wins)",
    "non_finite_number": "NaN, Infinity and numbers beyond a double (1e400) are not finite",
    "lone_surrogate": "a \\u escape spells half of a UTF-16 surrogate pair: not a character "
    "(no UTF-8 output can hold it)",
}


_TRAILING_COMMA = re.compile(r",\s*$")
#: Lines of a pretty-printed document, as they look when read one by one as JSON Lines.
_PRETTY_PIECES = re.compile(r'^\s*(?:[\[{]|[\]}],?|"(?:[^"\\]|\\.)*"\s*:.*)\s*$')


def _explain_syntax(text: str, error: json.JSONDecodeError) -> str:
    """Python's message, or what a person would call the mistake when it is a common one."""
    before = text[: error.pos]
    if error.pos < len(text) and text[error.pos] in "]}" and _TRAILING_COMMA.search(before):
        return f"trailing comma before '{text[error.pos]}' (JSON allows none)"
    if "\n" not in text.strip() and _PRETTY_PIECES.match(text):
        return (
            f"{error.msg}; the line looks like part of a pretty-printed document "
            "(JSON Lines needs each document on one line; a .json file may span lines)"
        )
    return error.msg


def parse_json_document(
    text: str,
    *,
    source: str | None = None,
    line: int | None = None,
    error_type: type[ScorecardError] = InputError,
) -> Any:
    """Parse one JSON document strictly; problems raise ``error_type`` located in the input."""
    hooks = _Hooks()
    try:
        document = json.loads(
            text,
            object_pairs_hook=hooks.pairs,
            parse_constant=hooks.constant,
            parse_float=hooks.number,
        )
    except json.JSONDecodeError as error:
        raise error_type(
            f"malformed JSON: {_explain_syntax(text, error)} at column {error.colno}",
            rule="malformed_json",
            source=source,
            line=(line if line is not None else error.lineno),
        ) from None
    except RecursionError:
        raise error_type(
            "JSON nested too deeply", rule="too_deep", source=source, line=line
        ) from None
    except ValueError:
        # Python refuses integers of more than `sys.get_int_max_str_digits()` digits.
        raise error_type(
            "malformed JSON: a number has too many digits",
            rule="malformed_json",
            source=source,
            line=line,
        ) from None
    flagged = hooks.flagged or _SURROGATE_ESCAPE.search(text) is not None
    problem = _find_problem(document, "") if flagged else None
    if problem is not None:
        pointer, rule = problem
        raise error_type(_MESSAGES[rule], rule=rule, pointer=pointer, source=source, line=line)
    return document
