""" "Did you mean": the known name a misspelt one most likely meant (field names, policy keys,
dimension names). A hint names only known names, never echoes the given one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

__all__ = ["close_field_name", "did_you_mean", "json_type_name"]


def _folded(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def close_field_name(given: str, known: Iterable[str]) -> str | None:
    """The known name ``given`` most likely meant: the same name in another case or with
    other separators (``commentcount``, ``comment_count`` -> ``commentCount``), else the
    closest spelling (``comentCount``), else None."""
    names = [name for name in known if name != given]
    folded = _folded(given)
    for name in names:
        if _folded(name) == folded:
            return name
    by_fold = {_folded(name): name for name in names}
    close = difflib.get_close_matches(folded, list(by_fold), n=1, cutoff=0.75)
    return by_fold[close[0]] if close else None


def did_you_mean(given: str, known: Iterable[str]) -> str:
    """``"; did you mean X?"`` for a near miss, else ``"; expected one of A, B"`` (known names
    only: the given one may be anything, a secret too)."""
    names = list(known)
    close = close_field_name(given, names)
    if close is not None:
        return f"; did you mean {close}?"
    return f"; expected one of {', '.join(names)}" if names else ""


def json_type_name(value: Any) -> str:
    """The JSON type of a parsed value, as a message names it (``a string``, ``null``, ``a
    number with a fractional part``); never the value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number" if value.is_integer() else "a number with a fractional part"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"  # a Python caller's object, not JSON
