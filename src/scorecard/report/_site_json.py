"""An observation as indented JSON in HTML, the fields reasons point at highlighted.

Each referenced JSON Pointer gets an anchor (:func:`~scorecard.report._site_paths.anchor_id`)
on the member or item it names, wrapped in ``<mark class="hl" data-pointer="...">``. A pointer
naming a field the observation does not have marks the nearest field it does have (class
``hl near``), so a reason about a missing field still leads somewhere. Strings are redacted and
stripped of control characters, then HTML-escaped; keys too.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ._escape import html_text
from ._site_paths import anchor_id

__all__ = ["parse_pointer", "render_json", "resolve_pointer"]

_STRING_LIMIT = 2000
_MISSING = object()


def parse_pointer(pointer: str) -> list[str] | None:
    """The reference tokens of an RFC 6901 pointer (None when it is not one)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        return None
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def _child(node: Any, token: str) -> Any:
    if isinstance(node, Mapping):
        return node.get(token, _MISSING)
    if isinstance(node, list) and token.isdigit() and (token == "0" or token[0] != "0"):
        index = int(token)
        return node[index] if index < len(node) else _MISSING
    return _MISSING


def resolve_pointer(document: Any, pointer: str) -> tuple[tuple[str, ...], bool]:
    """The tokens of the deepest field of ``document`` on ``pointer``'s path, and whether that
    is the field itself (False: the pointer names something absent, or is not a pointer)."""
    tokens = parse_pointer(pointer)
    if tokens is None:
        return (), False
    found: list[str] = []
    node = document
    for token in tokens:
        child = _child(node, token)
        if child is _MISSING:
            return tuple(found), False
        found.append(token)
        node = child
    return tuple(found), True


@functools.lru_cache(maxsize=8192)
def _string(text: str) -> str:
    """A JSON string literal, redacted and escaped (keys and values repeat: cached)."""
    return html_text(json.dumps(text, ensure_ascii=False), _STRING_LIMIT)


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return '<span class="s">' + _string(value) + "</span>"
    if value is None or isinstance(value, bool):
        return f'<span class="k">{json.dumps(value)}</span>'
    return f'<span class="n">{html_text(json.dumps(value))}</span>'


class _Renderer:
    def __init__(self, marks: Mapping[tuple[str, ...], tuple[list[str], list[str]]]) -> None:
        # path -> (pointers naming it exactly, pointers naming something absent below it)
        self.marks = marks
        self.parts: list[str] = []

    def value(self, value: Any, path: tuple[str, ...], indent: str) -> None:
        write = self.parts.append
        inner = indent + "  "
        if isinstance(value, Mapping) and value:
            write("{\n")
            items = list(value.items())
            for position, (key, item) in enumerate(items):
                child = (*path, str(key))
                write(inner)
                opened = self.open(child)
                write('<span class="key">' + _string(str(key)) + "</span>: ")
                self.value(item, child, inner)
                if opened:
                    write("</mark>")
                write(",\n" if position < len(items) - 1 else "\n")
            write(indent + "}")
        elif isinstance(value, list) and value:
            write("[\n")
            for position, item in enumerate(value):
                child = (*path, str(position))
                write(inner)
                opened = self.open(child)
                self.value(item, child, inner)
                if opened:
                    write("</mark>")
                write(",\n" if position < len(value) - 1 else "\n")
            write(indent + "]")
        elif isinstance(value, Mapping):
            write("{}")
        elif isinstance(value, list):
            write("[]")
        else:
            write(_scalar(value))

    def open(self, path: tuple[str, ...]) -> bool:
        """Open the mark of ``path`` if a pointer names it (anchors first); whether it did."""
        if path not in self.marks:
            return False
        exact, near = self.marks[path]
        for pointer in [*exact[1:], *near]:
            self.parts.append(f'<span class="anchor" id="{anchor_id(pointer)}"></span>')
        title = html_text(", ".join([*exact, *near]))
        if exact:
            self.parts.append(
                f'<mark class="hl" id="{anchor_id(exact[0])}" data-pointer="{html_text(exact[0])}" title="{title}">'
            )
        else:
            self.parts.append(
                f'<mark class="hl near" data-pointer="{html_text(near[0])}" title="{title}">'
            )
        return True


def render_json(document: Any, pointers: Iterable[str]) -> str:
    """``document`` as indented JSON (HTML, for a ``<pre>``), each of ``pointers`` marked.

    The root itself is never wrapped (its anchors go first); every other pointer is marked at
    the field it names, or at the nearest field on its path the document has."""
    marks: dict[tuple[str, ...], tuple[list[str], list[str]]] = {}
    root_anchors: list[str] = []
    for pointer in dict.fromkeys(pointers):
        path, exact = resolve_pointer(document, pointer)
        if not path:
            root_anchors.append(pointer)
            continue
        entry = marks.setdefault(path, ([], []))
        (entry[0] if exact else entry[1]).append(pointer)
    renderer = _Renderer(marks)
    for pointer in root_anchors:
        renderer.parts.append(f'<span class="anchor" id="{anchor_id(pointer)}"></span>')
    renderer.value(document, (), "")
    return "".join(renderer.parts)
