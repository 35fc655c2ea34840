"""A compiled recogniser of plainly valid observations, so most records skip model construction.

``is_plainly_valid(document)`` returns True only when the pydantic models would accept the
document *and* it has no unknown fields. Anything else (an error, an extra field, an unusual
number) returns False and the caller falls back to the models, which then give the exact,
located error or the unknown-field notices. The recogniser may be conservative, never lenient:
``tests/core/test_recognize.py`` checks that everything it accepts the models accept too.

The check is a decode into closed :mod:`msgspec` structs (``core/_plain_observation.py``),
which check a parsed document in compiled code instead of a hand-written Python walk. They are
generated from the pydantic models by ``dev/generate_contract.py`` (and
``tests/contract/test_generated.py`` fails when they are stale), so the models stay the one
definition. It is a *recogniser*, not a second model layer: the structs it builds are discarded
(the C fast path reads them and lets go), and nothing but this module and the fast path sees
msgspec types.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ._plain_observation import PlainObservation

__all__ = [
    "NOT_PLAIN_ERRORS",
    "OBSERVATION_DECODER",
    "PlainObservation",
    "is_plainly_valid",
]


def is_plainly_valid(document: Any, *, parsed_json: bool = False) -> bool:
    """True when the models accept ``document`` and it carries no unknown field.

    ``parsed_json=True`` promises that ``document`` holds only what a JSON parser returns (dict,
    list, str, int, float, bool, None), as every document the readers produce does. Without that
    promise the exact types are checked first: msgspec would convert a tuple or a set where a
    list is expected, which the strict models refuse.
    """
    if not parsed_json and not _json_types_only(document):
        return False
    try:
        msgspec.convert(document, PlainObservation, strict=True)
    except (msgspec.ValidationError, RecursionError):
        return False
    return True


OBSERVATION_DECODER = msgspec.json.Decoder(PlainObservation)
"""Parses and recognises a line in one pass (the typed decode of a plain observation)."""
NOT_PLAIN_ERRORS = (msgspec.DecodeError, UnicodeError, RecursionError)
"""What the decoder raises for a line that is not plainly valid.

The fast path decodes a line only after its scanner (``src/fastscore/strict.c``) found none of
what the strict parser refuses (repeated keys, inexact or non-finite numbers, lone surrogates,
invalid UTF-8); the typed decode then checks what :func:`is_plainly_valid` checks, in any key
order, whitespace and escaping.
"""


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _json_types_only(value: Any) -> bool:
    try:
        return _only_json_types(value)
    except RecursionError:
        return False


def _only_json_types(value: Any) -> bool:
    kind = type(value)
    if kind is dict:
        return all(type(key) is str and _only_json_types(item) for key, item in value.items())
    if kind is list:
        return all(_only_json_types(item) for item in value)
    return kind in _SCALARS
