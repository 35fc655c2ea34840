"""A size budget for bounded markdown (the job summary and the PR comment).

Pieces are added in order of importance while they fit; the first that does not ends the text
(nothing after it is added, so what is shown is in order, with nothing skipped to fit something
later), and what was left out is counted by kind: sections, table rows, detail blocks, those a
renderer chose not to show at all included. A closing note says how much.

A piece may *refer* to a detail block added later ("details below"). A reference is written as
a placeholder and settled when the text is made: the words for a kept block when that block was
added, other words when it was left out, so no reference points at nothing. Placeholders are
spelt with NUL, which no escaped untrusted text can hold (:func:`scorecard.report._escape.clean`
replaces it), and sized as their longer wording, so settling never makes the text longer than
what was measured.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["LeftOut", "MarkdownBudget", "markdown_row"]

_PLACEHOLDER = re.compile("\x00([0-9]+)\x00")


@dataclass(frozen=True)
class LeftOut:
    """What a bounded text left out, by kind."""

    sections: int
    """Headings, paragraphs and tables (a table's rows are counted as rows too)."""
    rows: int
    """Table rows."""
    details: int
    """Detail blocks (a run's untrusted text in a fence)."""
    references: int
    """References shown whose detail block was left out (worded to say so)."""

    def __bool__(self) -> bool:
        return bool(self.sections or self.rows or self.details)


def markdown_row(cells: Sequence[str]) -> str:
    """A table row of already escaped ``cells``."""
    return f"| {' | '.join(cells)} |\n"


class MarkdownBudget:
    """Collects markdown pieces until ``limit`` bytes (UTF-8) less ``reserve`` (kept for the
    closing note); counts what did not fit."""

    def __init__(self, limit: int, reserve: int) -> None:
        self.limit = max(limit, 2 * reserve)
        self._room = self.limit - reserve
        self._parts: list[str] = []
        self._size = 0
        self._sections = self._rows = self._details = 0
        self._stopped = False
        self._wordings: list[tuple[str, str, str]] = []  # (block key, kept, left out)
        self._shown: list[int] = []  # the references in the pieces added
        self._kept: set[str] = set()

    @property
    def full(self) -> bool:
        """Whether a piece did not fit (nothing more is added then)."""
        return self._stopped

    def reference(self, key: str, kept: str, dropped: str) -> str:
        """A placeholder for a reference to detail block ``key``: ``kept`` when that block is
        added, ``dropped`` otherwise."""
        self._wordings.append((key, kept, dropped))
        return f"\x00{len(self._wordings) - 1}\x00"

    def _measure(self, text: str) -> int:
        if "\x00" in text:

            def longest(match: re.Match[str]) -> str:
                _, kept, dropped = self._wordings[int(match.group(1))]
                return max(kept, dropped, key=lambda words: len(words.encode("utf-8")))

            text = _PLACEHOLDER.sub(longest, text)
        return len(text.encode("utf-8"))

    def add(self, text: str, *, kind: str = "section", key: str | None = None) -> bool:
        """Add ``text`` (whole lines) if it fits, else count it as one left-out ``kind``
        (``section``, ``row`` or ``detail``). A detail block names its ``key`` so references to
        it can say it is there."""
        size = self._measure(text)
        if self._stopped or self._size + size > self._room:
            self._stopped = True
            self.leave_out(kind)
            return False
        self._parts.append(text)
        self._size += size
        if "\x00" in text:
            self._shown += [int(number) for number in _PLACEHOLDER.findall(text)]
        if key is not None:
            self._kept.add(key)
        return True

    def leave_out(self, kind: str, count: int = 1) -> None:
        """Count ``count`` pieces of ``kind`` as left out without making them (pieces past
        the budget, or that a renderer chose not to show: more can be added after these)."""
        if kind == "row":
            self._rows += count
        elif kind == "detail":
            self._details += count
        else:
            self._sections += count

    def table(self, heading: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        """A table (with ``heading`` before it) whose rows are added while they fit; a table
        that cannot show its first row is left out whole (a section and its rows)."""
        if not rows:
            return
        top = f"{heading}\n\n| {' | '.join(header)} |\n|{'---|' * len(header)}\n"
        first, *rest = rows
        if not self.add(top + markdown_row(first)):
            self.leave_out("row", len(rows))
            return
        for row in rest:
            self.add(markdown_row(row), kind="row")
        if not self.full:
            self.add("\n")

    def fold(self, opening: str, pieces: Sequence[str], closing: str, *, kind: str = "row") -> None:
        """``opening`` with the first of ``pieces``, the other pieces while they fit, then
        ``closing``, whose room is kept from the start: a fold opened (``<details>``) is always
        closed. When the opening and first piece do not fit, the fold is left out whole (a
        section and its pieces)."""
        if not pieces:
            return
        reserved = self._measure(closing)
        self._room -= reserved
        first, *rest = pieces
        if self.add(opening + first):
            for piece in rest:
                self.add(piece, kind=kind)
            self._parts.append(closing)
            self._size += reserved
        else:
            self.leave_out(kind, len(pieces))
        self._room += reserved

    def left_out(self) -> LeftOut:
        """What was left out so far."""
        dropped = sum(self._wordings[index][0] not in self._kept for index in self._shown)
        return LeftOut(self._sections, self._rows, self._details, dropped)

    def text(self, note: Callable[[LeftOut], str]) -> str:
        """The pieces with every reference settled, and ``note(left_out)`` at the end when
        something was left out (it must fit in the reserve)."""
        text = "".join(self._parts)
        if "\x00" in text:

            def settle(match: re.Match[str]) -> str:
                key, kept, dropped = self._wordings[int(match.group(1))]
                return kept if key in self._kept else dropped

            text = _PLACEHOLDER.sub(settle, text)
        left_out = self.left_out()
        return text + note(left_out) if left_out else text
