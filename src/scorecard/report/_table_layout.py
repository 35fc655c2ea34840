"""Tables for terminals of any width: the widest layout that fits, never a cut id.

A view offers layouts from the fullest to the most compact (:func:`print_fitting`); the first
whose natural width fits the console is printed. Numbers never wrap (an interval stays on one
line); ids are never shortened with an ellipsis: the most compact layouts abbreviate them (``c1``,
``c2``, ...) and print a legend naming each in full (:class:`Abbreviations`), and a legend line
longer than the console wraps rather than losing characters.

The width is the caller's, else ``COLUMNS`` when set (as a terminal or a CI log says), else the
terminal's, else (files and pipes) a fixed default wide enough for the full layout, so golden
files do not depend on where the tests run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import IO

from rich import box
from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from scorecard.contract import printable

__all__ = [
    "Abbreviations",
    "Layout",
    "compact_table",
    "full_table",
    "output_console",
    "print_fitting",
]

Layout = Callable[[], Sequence[RenderableType]]
"""A way to draw a view: the renderables it prints, in order."""


def _columns_variable() -> int | None:
    text = os.environ.get("COLUMNS", "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


def output_console(stream: IO[str], width: int | None, *, default: int) -> Console:
    """The console a table is printed on: ``width``, else ``COLUMNS``, else the terminal's
    width, else ``default`` (not a terminal)."""
    if width is None:
        width = _columns_variable()
    if width is None and not stream.isatty():
        width = default
    return Console(file=stream, width=width, highlight=False, soft_wrap=False)


def natural_width(console: Console, renderable: RenderableType) -> int:
    """The width ``renderable`` takes when nothing is wrapped or shortened."""
    if isinstance(renderable, Text):
        return 0  # plain lines (legends, notes) wrap at spaces; they always fit
    unbounded = console.options.update_width(100_000)
    return Measurement.get(console, unbounded, renderable).maximum


def print_fitting(console: Console, layouts: Sequence[Layout]) -> None:
    """Print the first of ``layouts`` whose every table fits ``console`` (else the last)."""
    chosen: Sequence[RenderableType] = ()
    for layout in layouts:
        chosen = layout()
        if all(natural_width(console, part) <= console.width for part in chosen):
            break
    for part in chosen:
        console.print(part)


def full_table(title: str | Text | None = None, caption: str | None = None) -> Table:
    """The bordered table of wide terminals."""
    return Table(title=_text(title), caption=caption)


def compact_table(
    title: str | Text | None = None, caption: str | None = None, *, gap: int = 2
) -> Table:
    """A table without vertical rules (one line under the header), for narrower terminals:
    ``gap`` spaces between columns (1 or 2)."""
    return Table(
        title=_text(title),
        caption=caption,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0) if gap == 2 else 0,
    )


def _text(title: str | Text | None) -> Text | None:
    # A title holds ids: text, never rich markup.
    return Text(title) if isinstance(title, str) else title


class Abbreviations:
    """Short names (``prefix`` + a number) for ids, in first-use order, with their legend."""

    def __init__(self, prefix: str, ids: Iterable[str]) -> None:
        self.prefix = prefix
        self.names: dict[str, str] = {}
        for name in ids:
            if name not in self.names:
                self.names[name] = f"{prefix}{len(self.names) + 1}"

    def __call__(self, name: str) -> str:
        return self.names.get(name, printable(name))

    def legend(self, label: str) -> Text:
        """One line naming every abbreviation (wraps between entries, never inside one)."""
        entries = [f"{short}={printable(name)}" for name, short in self.names.items()]
        return Text(f"{label}: " + "  ".join(entries))
