"""Notices: what a record (or a run) carries that does not reject it.

A notice is a warning: an unknown field kept in an open observation, an input that held no
observation. It is located like an :class:`~scorecard.contract.InputError` (file, line or
index, JSON Pointer, rule) and printed and written the same way, secret-shaped text redacted,
so a person reads ``warning: runs.jsonl:3 /presentation/commentcount: ...`` where an error
would read ``error: ...``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from scorecard.contract import printable, redact, written_name

__all__ = ["Notice"]


@dataclass(frozen=True)
class Notice:
    """Something worth telling the user that does not reject the record (an unknown field)."""

    pointer: str
    """RFC 6901 JSON Pointer of the field inside the record (``""``: the whole input)."""
    message: str
    """What is noticed and, where one exists, a hint (``did you mean commentCount?``)."""
    rule: str = "unknown_field"
    """A stable machine-readable name, as an error's rule."""
    source: str | None = None
    line: int | None = None
    index: int | None = None

    def located(
        self, *, source: str | None, line: int | None = None, index: int | None = None
    ) -> Notice:
        """The same notice, in its file (an array element's pointer points into the file, as
        an error's does)."""
        pointer = self.pointer if index is None else f"/{index}{self.pointer}"
        return replace(self, source=source, line=line, index=index, pointer=pointer)

    def location(self) -> str:
        """``file:line`` (or ``file[index]``) followed by the pointer."""
        where = self.source or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.index is not None:
            where += f"[{self.index}]"
        if self.pointer:
            where += f" {self.pointer}"
        return where

    def __str__(self) -> str:
        return printable(f"{redact(self.location())}: {redact(self.message)} [{self.rule}]")

    def to_record(self) -> dict[str, object]:
        """The notice as an ``--errors``-shaped JSON object, marked ``"level": "warning"``."""
        return {
            "source": None if self.source is None else written_name(self.source),
            "line": self.line,
            "index": self.index,
            "pointer": written_name(self.pointer),
            "rule": self.rule,
            "message": written_name(self.message),
            "level": "warning",
        }
