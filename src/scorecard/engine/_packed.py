"""A scored record as bytes: its card, observation and audit findings marshalled, its other
fields as they are. What a worker sends its main process for each record (pickling the parsed
documents cost some 65 us a record there and 69 us to read back here; marshal 11 and 22), and
what a report keeps of a run that only some of its pages show (about a quarter of what the
parsed documents weigh)."""

from __future__ import annotations

import dataclasses
import marshal
from typing import Any

from scorecard.core import Finding, ScoredRecord

__all__ = ["PackedDocuments"]

#: The fields of a record kept as they are beside its marshalled documents (the bundle is one
#: object for all the records of a chunk a worker sends, and for all its runs in a report).
_REST = tuple(
    item.name
    for item in dataclasses.fields(ScoredRecord)
    if item.name not in ("card", "observation", "findings")
)

_REPETITION = _REST.index("repetition")


class PackedDocuments:
    """A :class:`~scorecard.core.ScoredRecord` packed (:meth:`of`) and read back
    (:meth:`record`): ``marshal.dumps((card, observation, findings))``, each finding a plain
    tuple, gives the same values, types and key order back; ``compressed``, those bytes in
    LZ4 (smaller by a third or more: ``tests/engine/test_run.py`` checks it on the sample)."""

    __slots__ = ("documents", "rest", "size")

    def __init__(self, documents: bytes, rest: tuple[Any, ...], size: int = 0) -> None:
        self.documents = documents
        self.rest = rest
        """The record's other fields, in :data:`_REST`'s order."""
        self.size = size
        """The marshalled bytes' length when :attr:`documents` holds them compressed, else 0."""

    @classmethod
    def of(cls, record: ScoredRecord, *, compressed: bool = False) -> PackedDocuments | None:
        """``record`` packed; None when a value is not one marshal writes (not from JSON)."""
        findings = tuple(tuple(finding) for finding in record.findings)
        try:
            documents = marshal.dumps((record.card, record.observation, findings))  # type: ignore[arg-type]
        except ValueError:
            return None
        rest = tuple(getattr(record, name) for name in _REST)
        if not compressed:
            return cls(documents, rest)
        import pyarrow

        return cls(pyarrow.compress(documents, "lz4", asbytes=True), rest, len(documents))

    def numbered(self, repetition: int) -> PackedDocuments:
        """The record packed as run number ``repetition`` (its documents are the same bytes:
        a record's run number is one of its other fields)."""
        rest = list(self.rest)
        rest[_REPETITION] = repetition
        return PackedDocuments(self.documents, tuple(rest), self.size)

    @property
    def source(self) -> str:
        """The record's ``source``, without reading it back."""
        return str(self.rest[_REST.index("source")])

    def record(self) -> ScoredRecord:
        """The record, a new one each call."""
        documents = self.documents
        if self.size:
            import pyarrow

            documents = pyarrow.decompress(
                documents, decompressed_size=self.size, codec="lz4", asbytes=True
            )
        card, observation, findings = marshal.loads(documents)
        return ScoredRecord(
            card=card,
            observation=observation,
            findings=tuple(Finding._make(finding) for finding in findings),
            **dict(zip(_REST, self.rest, strict=True)),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (PackedDocuments, (self.documents, self.rest, self.size))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PackedDocuments)
            and self.documents == other.documents
            and self.rest == other.rest
            and self.size == other.size
        )

    __hash__ = None  # type: ignore[assignment]
