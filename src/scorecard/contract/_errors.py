"""One exception tree for the whole library: a root and sibling families, one per kind of thing
that went wrong, so that ``except`` says what it means (``except InputError`` never catches a
full disk).

::

    ScorecardError                 anything scorecard raises on purpose, located (below)
    ├── InputError                 what was given to read cannot be used: observations, scored
    │   │                          records, bundle manifests, arguments and option values
    │   ├── ObservationError       an observation breaks the contract (SCORING.md section 1)
    │   ├── ManifestError          a bundle manifest is malformed
    │   └── InputErrors            several at once (rejected records, unknown ids): ``errors``
    ├── CatalogError (CaseError)   a catalog case is malformed or the catalog is incomplete
    ├── PolicyError                a policy file (weights, thresholds, the gate section) is invalid
    ├── OutputError                an output cannot be written: a full disk, a file too large, a
    │                              folder that cannot be made, standard output gone (source: the
    │                              path, or ``<stdout>``)
    └── StoreError                 a campaign store cannot be read or written as asked: a corrupt
                                   or foreign file in it (source: the store or its file)

Every error carries where it happened as keyword attributes: ``source`` (the file, an option
such as ``--out``, or ``<stdin>``), ``line`` (1-based, JSON Lines), ``index`` (0-based, a JSON
array), ``pointer`` (the RFC 6901 JSON Pointer of the field) and ``rule`` (a stable,
machine-readable name of the broken rule); where the rule knows them, ``expected`` and
``observed`` say what the field should hold and what it held, in words (a JSON type, ``missing``,
a number: never a value that may be a secret), and the class's ``schema`` names the ``$id`` of
the published JSON Schema applied (an observation's). Errors pickle with all of it, so they
travel from worker processes. Messages never contain the offending value when it may be a secret: they name
the rule and the JSON Pointer instead. Gate failures are results, not exceptions.

The command line maps each family to its exit code in one place (``scorecard.cli``'s
``_exit_codes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from ._evidence import Evidence
from ._names import OBSERVATION_SCHEMA_ID
from ._printable import printable, written_name
from ._secrets import redact

__all__ = [
    "CaseError",
    "CatalogError",
    "InputError",
    "InputErrors",
    "ManifestError",
    "ObservationError",
    "OutputError",
    "PolicyError",
    "ScorecardError",
    "StoreError",
]


class ScorecardError(Exception):
    """Base class of every error scorecard raises on purpose, located as precisely as what
    failed allows.

    ``source`` is the file (or ``<stdin>``, ``<stdout>``, an option name), ``line`` the 1-based
    line of a JSON Lines input, ``index`` the 0-based position in a JSON array input,
    ``pointer`` the RFC 6901 JSON Pointer of the offending field inside the document, and
    ``rule`` a stable machine-readable name of the broken rule.
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
        expected: str | None = None,
        observed: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.pointer = pointer
        self.source = source
        self.line = line
        self.index = index
        self.expected = expected
        self.observed = observed

    schema: str | None = None
    """The ``$id`` of the published JSON Schema whose contract the error is about, if any."""

    def __reduce__(self) -> tuple[object, ...]:
        # Errors travel between processes (``--workers``); keyword-only context needs this.
        return (
            _rebuild,
            (
                type(self),
                self.message,
                self.rule,
                self.pointer,
                self.source,
                self.line,
                self.index,
                self.expected,
                self.observed,
            ),
        )

    def located(
        self, *, source: str | None = None, line: int | None = None, index: int | None = None
    ) -> Self:
        """Return the same error with its location in a file filled in."""
        return type(self)(
            self.message,
            rule=self.rule,
            pointer=self.pointer,
            source=source if source is not None else self.source,
            line=line if line is not None else self.line,
            index=index if index is not None else self.index,
            expected=self.expected,
            observed=self.observed,
        )

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
        """The ``--errors`` JSON line for this error (secret-shaped text redacted): where, which
        rule, the message, and the runner output contract's ``expected``, ``observed`` and
        ``schema`` (null where the rule does not know them)."""
        evidence = self.evidence().to_json()
        return {
            "source": None if self.source is None else written_name(self.source),
            "line": self.line,
            "index": self.index,
            "pointer": evidence["pointer"],
            "rule": self.rule,
            "message": written_name(self.message),
            "expected": evidence["expected"],
            "observed": evidence["observed"],
            "schema": evidence["schema"],
        }

    def evidence(self) -> Evidence:
        """The runner output contract of this error (:class:`Evidence`, no case assertion: an
        input error is about the input), which every output that reports it writes."""
        return Evidence(self.pointer, self.expected, self.observed, None, self.schema)


class InputError(ScorecardError):
    """What was given to read cannot be used: an observation, a scored record, a bundle
    manifest, an input file, an argument or option value."""


class ObservationError(InputError):
    """An observation breaks the workflow-observation contract."""

    schema = OBSERVATION_SCHEMA_ID


class ManifestError(InputError):
    """A bundle manifest is invalid."""


class CatalogError(ScorecardError):
    """A workflow case or the case catalog is invalid: a malformed case file, a case defined
    twice, a catalog lacking cases, a catalog folder that cannot be found or read."""


CaseError = CatalogError
"""The name :class:`CatalogError` had before the families (the same class)."""


class PolicyError(ScorecardError):
    """A policy file or policy value is invalid: weights, thresholds, ``auditGate`` or the gate
    section, unreadable, malformed or out of range."""


class OutputError(ScorecardError):
    """An output (a file, a folder, standard output) cannot be written: a full disk, a file too
    large, a folder that cannot be made, text the output cannot hold. ``source`` is the path
    (or ``<stdout>``)."""


class StoreError(ScorecardError):
    """A campaign store (``docs/store.md``) cannot be used as asked: one of its files is
    corrupt, missing or foreign, it was made under another scoring policy or catalog, or a bundle
    is refused (changed under the same id). ``source`` is the store or its file, ``pointer`` the
    JSON Pointer into that file."""


class InputErrors(InputError):
    """Several problems found at once (rejected records, unknown ids), so nothing was judged or
    written from the inputs. ``errors`` holds each located error, in input order (the message
    counts them); the command line lists them all, and ``--errors FILE`` writes them."""

    def __init__(self, errors: Sequence[ScorecardError]) -> None:
        count = len(errors)
        super().__init__(f"{count} input error{'s' if count != 1 else ''}", rule="input_errors")
        self.errors = tuple(errors)

    def __reduce__(self) -> tuple[object, ...]:
        return (InputErrors, (self.errors,))


def _rebuild(
    kind: type[ScorecardError],
    message: str,
    rule: str,
    pointer: str,
    source: str | None,
    line: int | None,
    index: int | None,
    expected: str | None = None,
    observed: str | None = None,
) -> ScorecardError:
    return kind(
        message,
        rule=rule,
        pointer=pointer,
        source=source,
        line=line,
        index=index,
        expected=expected,
        observed=observed,
    )
