"""One exception tree for the whole library.

::

    ScorecardError                 anything scorecard raises on purpose
    └── InputError                 bad input: carries where (source, line, index, pointer) and rule
        ├── ObservationError       an observation breaks the contract (SCORING.md section 1)
        ├── CaseError              a catalog case is malformed or the catalog is incomplete
        ├── PolicyError            a weights/thresholds policy is invalid
        ├── ManifestError          a bundle manifest is malformed
        └── OutputError            an output cannot be written (source: the path or option)
    └── StoreError                 a campaign store cannot be used as asked: a corrupt, missing or
                                   foreign file in it (source: that file), a bundle refused

Messages never contain the offending value when it may be a secret: they name the rule and the
JSON Pointer instead. Gate failures are results, not exceptions.
"""

from __future__ import annotations

from ._printable import printable, written_name
from ._secrets import redact

__all__ = [
    "CaseError",
    "InputError",
    "ManifestError",
    "ObservationError",
    "OutputError",
    "PolicyError",
    "ScorecardError",
    "StoreError",
]


class ScorecardError(Exception):
    """Base class of every error scorecard raises on purpose."""


class InputError(ScorecardError):
    """Input that cannot be used, located as precisely as the input allows.

    ``source`` is the file (or ``<stdin>``), ``line`` the 1-based line of a JSON Lines input,
    ``index`` the 0-based position in a JSON array input, ``pointer`` the RFC 6901 JSON Pointer of
    the offending field inside the record, and ``rule`` a stable machine-readable name of the
    broken rule.
    """

    def __init__(
        self,
        message: str,
        *,
        rule: str,
        pointer: str = "",
        source: str | None = None,
        line: int | None = None,
        index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.pointer = pointer
        self.source = source
        self.line = line
        self.index = index

    def __reduce__(self) -> tuple[object, ...]:
        # Errors travel between processes (``--workers``); keyword-only context needs this.
        return (
            _rebuild,
            (type(self), self.message, self.rule, self.pointer, self.source, self.line, self.index),
        )

    def located(
        self, *, source: str | None = None, line: int | None = None, index: int | None = None
    ) -> InputError:
        """Return the same error with its location in a file filled in."""
        copy = type(self)(
            self.message,
            rule=self.rule,
            pointer=self.pointer,
            source=source if source is not None else self.source,
            line=line if line is not None else self.line,
            index=index if index is not None else self.index,
        )
        return copy

    def location(self) -> str:
        """``file:line`` (or ``file[index]``) followed by the pointer, for one-line messages."""
        where = self.source or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.index is not None:
            where += f"[{self.index}]"
        if self.pointer:
            where += f" {self.pointer}"
        return where

    def __str__(self) -> str:
        # Each part redacted on its own: joined, a pointer to a credential-named key and the
        # message would read as an assignment (``/apiKey: carries ...``) and be redacted whole.
        return printable(f"{redact(self.location())}: {redact(self.message)} [{self.rule}]")

    def to_record(self) -> dict[str, object]:
        """The ``--errors`` JSON line for this error (secret-shaped text redacted)."""
        return {
            "source": None if self.source is None else written_name(self.source),
            "line": self.line,
            "index": self.index,
            "pointer": written_name(self.pointer),
            "rule": self.rule,
            "message": written_name(self.message),
        }


class ObservationError(InputError):
    """An observation breaks the workflow-observation contract."""


class CaseError(InputError):
    """A workflow case or the catalog is invalid."""


class PolicyError(InputError):
    """A scoring policy (weights, thresholds) is invalid."""


class ManifestError(InputError):
    """A bundle manifest is invalid."""


class OutputError(InputError):
    """An output (a file, a folder, standard output) cannot be written: a full disk, a file too
    large, a folder that cannot be made. ``source`` is the path (or ``<stdout>``)."""


class StoreError(ScorecardError):
    """A campaign store (``docs/store.md``) cannot be used as asked: one of its files is
    corrupt, missing or foreign, it was made under another scoring policy or catalog, or a bundle
    is refused (changed under the same id). Located as an :class:`InputError` is: ``source`` the
    file, ``pointer`` the JSON Pointer into it, ``rule`` the broken rule."""

    def __init__(
        self,
        message: str,
        *,
        rule: str,
        pointer: str = "",
        source: str | None = None,
        line: int | None = None,
        index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.pointer = pointer
        self.source = source
        self.line = line
        self.index = index

    def __reduce__(self) -> tuple[object, ...]:
        return (
            _rebuild_store,
            (self.message, self.rule, self.pointer, self.source, self.line, self.index),
        )

    def location(self) -> str:
        """``file:line`` (or ``file[index]``) followed by the pointer, as :class:`InputError`'s."""
        return InputError.location(self)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return InputError.__str__(self)  # type: ignore[arg-type]

    def to_record(self) -> dict[str, object]:
        """The error as a JSON line (``--errors``'s form; secret-shaped text redacted)."""
        return InputError.to_record(self)  # type: ignore[arg-type]


def _rebuild_store(
    message: str,
    rule: str,
    pointer: str,
    source: str | None,
    line: int | None,
    index: int | None,
) -> StoreError:
    return StoreError(message, rule=rule, pointer=pointer, source=source, line=line, index=index)


def _rebuild(
    kind: type[InputError],
    message: str,
    rule: str,
    pointer: str,
    source: str | None,
    line: int | None,
    index: int | None,
) -> InputError:
    return kind(message, rule=rule, pointer=pointer, source=source, line=line, index=index)
