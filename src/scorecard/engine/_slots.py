"""Memory a pool's workers write their output text into, shared with the main process.

A chunk's ``jsonl`` output (about 1 MiB of scorecards for 2 MiB of observations) sent back
through the pool's result pipe costs the main process its reads, copies and unpickling: CPU time
that, when the workers use every core, they lack. Instead each chunk in flight is given a slot
of one shared anonymous mapping, made before the workers are forked (they inherit it: nothing is
pickled); a worker writes its output's text into the slot as UTF-8 and sends back only where it
lies (:class:`InSlot`), and the main process decodes it from there. A slot is given to one chunk
at a time, and back only once its text has been decoded, so a worker never writes where the main
process reads. Text that does not fit stays in the result and travels through the pipe as before:
the output is the same either way.

An item that is not text may travel the same way when it knows how to write itself into memory
and read itself back (:class:`Slotted`: the campaign store's Arrow batches of a chunk's detail,
:mod:`._stored`): it is written where it fits and sent back as :class:`SlottedIn`.

Only a forked pool shares memory this way; a spawned one (not Linux) sends everything through
the pipe.
"""

from __future__ import annotations

import contextlib
import mmap
from typing import Any, NamedTuple, Protocol

__all__ = ["InSlot", "OutputSlots", "Slotted", "SlottedIn"]


class InSlot(NamedTuple):
    """Where a piece of output text lies in the shared memory: its UTF-8 bytes' offset and
    length."""

    start: int
    length: int


class Slotted(Protocol):
    """An item that writes itself into shared memory and is read back from it."""

    def write_into(self, memory: memoryview) -> int | None:
        """Write into ``memory``; how many bytes, or None when it does not fit."""

    @classmethod
    def read_from(cls, memory: memoryview) -> Any:
        """The item written into ``memory`` (copied out: the slot is used again)."""


class SlottedIn(NamedTuple):
    """Where a :class:`Slotted` item lies in the shared memory, and its class."""

    start: int
    length: int
    kind: Any
    """The item's class (its ``read_from`` reads it back)."""


class OutputSlots:
    """``count`` slots of ``size`` bytes in one shared anonymous mapping, handed out by the main
    process one chunk at a time."""

    def __init__(self, count: int, size: int):
        self.size = size
        self.memory = mmap.mmap(-1, count * size)
        self._free = list(range(count - 1, -1, -1))

    def take(self) -> int | None:
        """A free slot (None when every slot is in use: that chunk's output takes the pipe)."""
        return self._free.pop() if self._free else None

    def give_back(self, slot: int) -> None:
        """``slot`` is free again: what was written there has been read."""
        self._free.append(slot)

    def close(self) -> None:
        """Unmap the memory (workers keep their own mapping until they exit).

        A stop that arrives while a piece is read back leaves that piece's view in the frames
        of the exception on its way out; the mapping cannot be unmapped while it lives, and is
        unmapped with it instead (the stop, not this, is what the caller must hear about)."""
        with contextlib.suppress(BufferError):
            self.memory.close()

    def written(self, items: list[Any], slot: int) -> list[Any]:
        """In a worker: ``items`` with each text piece that fits written into ``slot`` and
        replaced by where it lies; other items (errors) and text past the slot's end as they
        are."""
        position = slot * self.size
        end = position + self.size
        memory = self.memory
        packed: list[Any] = []
        for item in items:
            if not isinstance(item, str) and hasattr(type(item), "write_into"):
                with memoryview(memory) as view:
                    length = item.write_into(view[position:end])
                if length is not None:
                    packed.append(SlottedIn(position, length, type(item)))
                    position += length
                    continue
            if isinstance(item, str) and item:
                try:
                    data = item.encode("utf-8")
                except UnicodeEncodeError:  # not text a file can hold: writing it fails as before
                    packed.append(item)
                    continue
                if position + len(data) <= end:
                    memory[position : position + len(data)] = data
                    packed.append(InSlot(position, len(data)))
                    position += len(data)
                    continue
            packed.append(item)
        return packed

    def read(self, items: list[Any]) -> list[Any]:
        """In the main process: ``items`` with each piece written into a slot decoded back to
        its text."""
        if not any(isinstance(item, InSlot | SlottedIn) for item in items):
            return items
        with memoryview(self.memory) as view:
            return [
                _read_back(view, item) if isinstance(item, InSlot | SlottedIn) else item
                for item in items
            ]


def _read_back(view: memoryview, item: InSlot | SlottedIn) -> Any:
    """The text or item written at ``item``'s place in ``view``; the slice of ``view`` it was
    read through is released on the way out, whatever happens (a stop included)."""
    with view[item.start : item.start + item.length] as piece:
        return str(piece, "utf-8") if isinstance(item, InSlot) else item.kind.read_from(piece)
