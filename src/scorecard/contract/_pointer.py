"""RFC 6901 JSON Pointers and pydantic error locations turned into them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["escape", "join", "pointer_from_location"]

_MISSING = object()


def escape(token: str | int) -> str:
    """One reference token, escaped (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def join(*tokens: str | int) -> str:
    """A pointer from unescaped reference tokens: ``join("a", 0)`` -> ``/a/0``."""
    return "".join("/" + escape(token) for token in tokens)


def pointer_from_location(document: Any, location: Iterable[str | int]) -> str:
    """Turn a pydantic error ``loc`` into a pointer into ``document``.

    pydantic inserts the tag of a discriminated union (``steps/0/run_start/taskMode``) and type
    names of plain unions into ``loc``; walking the raw document tells real keys from those. A
    token that names no existing member is kept only when it is the last one (a missing field).
    """
    tokens: list[str | int] = []
    node = document
    items = list(location)
    for position, token in enumerate(items):
        child: Any = _MISSING
        if isinstance(node, dict) and isinstance(token, str):
            child = node.get(token, _MISSING)
        elif isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node):
            child = node[token]
        if child is not _MISSING:
            tokens.append(token)
            node = child
        elif position == len(items) - 1 and isinstance(node, dict) and isinstance(token, str):
            tokens.append(token)  # a missing field: point where it should be
    return join(*tokens)
