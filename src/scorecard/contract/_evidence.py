"""The runner output contract of one problem or failing check (the seed's contract): the field
as an RFC 6901 JSON Pointer, what was expected and what was observed (in words), the pointer of
the case assertion it checks where there is one, and the ``$id`` of the published JSON Schema
applied. One definition for every output that says why something failed: an ``--errors``
record (:meth:`ScorecardError.to_record`), an explanation's reasons, a gate failure's reasons,
the report site's run and change pages.

Values are written the one way ``--errors`` writes them (:func:`written`): secret-shaped text
redacted, undecodable file-name bytes spelt as escapes. What the words hold is the producer's
choice: an input error says a JSON type and never a string's content; a dimension reason may
name what its reference wording already names (a call, a state), redacted the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._printable import written_name
from ._secrets import redact

__all__ = ["EVIDENCE_KEYS", "Evidence", "written"]

#: The keys of :meth:`Evidence.to_json`, in order.
EVIDENCE_KEYS = ("pointer", "expected", "observed", "assertion", "schema")


def written(text: str | None) -> str | None:
    """``text`` as every output of the contract holds it (None stays None): secret-shaped text
    redacted, lone surrogates spelt as escapes."""
    return None if text is None else written_name(redact(text))


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a check failed and why, as the runner output contract says it."""

    pointer: str
    """RFC 6901 JSON Pointer of the field (into the observation, or the input); empty for a
    whole input."""
    expected: str | None = None
    """What the contract (or the case) wants there, in words; None where the rule does not
    say."""
    observed: str | None = None
    """What was there, in words; None where the rule does not say."""
    assertion: str | None = None
    """JSON Pointer of the case assertion checked (``/assertions/trace/lineage/0``), if any."""
    schema: str | None = None
    """``$id`` of the published JSON Schema applied, if any."""

    def to_json(self) -> dict[str, str | None]:
        """The contract's keys (:data:`EVIDENCE_KEYS`), every text written as ``--errors``
        writes it."""
        return {
            "pointer": written_name(self.pointer),
            "expected": written(self.expected),
            "observed": written(self.observed),
            "assertion": None if self.assertion is None else written_name(self.assertion),
            "schema": self.schema,
        }
