"""Strict JSON text parsing: located syntax errors, no NaN/Infinity, no duplicate keys.

Python's ``json`` accepts ``NaN`` and ``Infinity`` and silently keeps the last of two equal
keys; neither is JSON a runner should emit, and both can hide a mis-score, so both are errors
here, reported with the JSON Pointer of where they stand.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import InputError
from .pointer import join

__all__ = ["parse_json_document"]


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


def _find_problem(node: Any, pointer: str) -> tuple[str, str] | None:
    if isinstance(node, _Duplicates):
        return pointer + join(node.duplicate), "duplicate_key"
    if isinstance(node, _NonFinite):
        return pointer, "non_finite_number"
    if isinstance(node, dict):
        for key, value in node.items():
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
    "non_finite_number": "NaN and Infinity are not JSON numbers",
}


def parse_json_document(
    text: str,
    *,
    source: str | None = None,
    line: int | None = None,
    error_type: type[InputError] = InputError,
) -> Any:
    """Parse one JSON document strictly; problems raise ``error_type`` located in the input."""
    hooks = _Hooks()
    try:
        document = json.loads(text, object_pairs_hook=hooks.pairs, parse_constant=hooks.constant)
    except json.JSONDecodeError as error:
        raise error_type(
            f"malformed JSON: {error.msg} at column {error.colno}",
            rule="malformed_json",
            source=source,
            line=(line if line is not None else error.lineno),
        ) from None
    except RecursionError:
        raise error_type(
            "JSON nested too deeply", rule="too_deep", source=source, line=line
        ) from None
    problem = _find_problem(document, "") if hooks.flagged else None
    if problem is not None:
        pointer, rule = problem
        raise error_type(_MESSAGES[rule], rule=rule, pointer=pointer, source=source, line=line)
    return document
