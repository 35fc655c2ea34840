"""Notices: what a record carries that does not reject it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Notice"]


@dataclass(frozen=True)
class Notice:
    """Something worth telling the user that does not reject the record (an unknown field)."""

    pointer: str
    message: str
