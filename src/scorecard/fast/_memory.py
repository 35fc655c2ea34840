"""The allocator settings of a scoring process (the command line's, and its forked workers').

A run reads its input, and writes its output, in chunks of a few MiB. glibc's allocator serves
each such block with a fresh memory mapping and returns it when it is freed (or trims the top of
its heap past a few MiB free), so the next chunk faults in new pages for memory the process just
gave back: on a 50,000-line run, about 36,000 page faults and a few hundredths of a second of
system time (docs/performance.md, "The chunks' memory"). Keeping freed blocks below :data:`MMAP_THRESHOLD` for reuse,
and up to :data:`TRIM_THRESHOLD` bytes free at the top of the heap, removes them. It changes the
whole process, so nothing asks for it unless the user does: the command line applies it when
``SCORECARD_REUSE_FREED_MEMORY=1`` is set, and a library user's process is left as it is.
"""

from __future__ import annotations

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "reuse_freed_memory"]

MMAP_THRESHOLD = 8 << 20
"""Blocks smaller than this come from the heap (and are reused once freed): a chunk, its output
and the parts of a long line are a few MiB each."""
TRIM_THRESHOLD = 32 << 20
"""Free bytes at the top of the heap kept before any is returned to the system."""


def reuse_freed_memory() -> bool:
    """Keep this process's freed blocks for reuse (glibc; elsewhere, or without the compiled
    extension, or with ``SCORECARD_ENGINE=python``, nothing changes). Whether the settings were
    applied."""
    from ._extension import extension

    if extension is None:
        return False
    return extension.reuse_freed_memory(MMAP_THRESHOLD, TRIM_THRESHOLD)
