"""Digests of named byte strings: one framing for every digest scorecard takes of files.

A catalog's digest (:attr:`~scorecard.contract.CaseFiles.digest`), a bundle's input digest (the
campaign store's idempotence, ``docs/store.md``) and whatever else must say "these files, these
bytes" hash the same frames: for each part, its name's length and name (UTF-8, undecodable
bytes of a file name kept), its length, then its bytes::

    <len(name)>:<name><len(data)>:<data>

Lengths frame every part, so no two different sequences of (name, bytes) hash the same text.
"""

from __future__ import annotations

import hashlib
from typing import IO

__all__ = ["FramedDigest"]

_READ = 1 << 20


class FramedDigest:
    """SHA-256 over (name, bytes) parts, each framed by its lengths, in the order added."""

    __slots__ = ("_hash",)

    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def _frame(self, name: str, length: int) -> None:
        encoded = name.encode("utf-8", "surrogateescape")
        self._hash.update(b"%d:%s%d:" % (len(encoded), encoded, length))

    def add(self, name: str, data: bytes) -> None:
        """Add one part held in memory."""
        self._frame(name, len(data))
        self._hash.update(data)

    def add_stream(self, name: str, stream: IO[bytes], length: int) -> None:
        """Add one part of ``length`` bytes read from ``stream``; a stream that ends sooner
        raises :class:`OSError` (the file changed while it was read)."""
        self._frame(name, length)
        left = length
        while left:
            block = stream.read(min(left, _READ))
            if not block:
                raise OSError(0, "the file changed while it was read")
            self._hash.update(block)
            left -= len(block)
        if stream.read(1):
            raise OSError(0, "the file changed while it was read")

    def hexdigest(self) -> str:
        """The digest of the parts added so far, as 64 hex digits."""
        return self._hash.hexdigest()
