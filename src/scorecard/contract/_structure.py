"""pydantic validation errors as located, secret-free errors (of the family the caller names).

Every model of :mod:`scorecard.contract` reports its first problem through
:func:`structural_error`: a stable ``rule``, the JSON Pointer of the field, and a message that
describes the expectation, never the input (the input may hold a secret).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from ._errors import ScorecardError
from ._pointer import pointer_from_location
from ._secrets import redact

__all__ = ["structural_error"]

Located = TypeVar("Located", bound=ScorecardError)

_RULE_BY_PYDANTIC_TYPE = {
    "missing": "missing_field",
    "extra_forbidden": "unknown_field",
    "null_not_allowed": "null_not_allowed",
    "literal_error": "invalid_value",
    "enum": "invalid_value",
    "union_tag_invalid": "invalid_value",
    "union_tag_not_found": "missing_field",
    "finite_number": "non_finite_number",
    "not_unique": "duplicate_items",
    "too_short": "too_short",
    "string_too_short": "too_short",
    "greater_than_equal": "out_of_range",
    "less_than_equal": "out_of_range",
}


def _rule_for(error: ErrorDetails) -> str:
    kind = error["type"]
    if kind in _RULE_BY_PYDANTIC_TYPE:
        return _RULE_BY_PYDANTIC_TYPE[kind]
    if kind.endswith("_type") or kind.endswith("_parsing") or kind == "model_attributes_type":
        return "wrong_type"
    return kind


def _message_for(error: ErrorDetails) -> str:
    kind = error["type"]
    if kind == "union_tag_invalid":
        expected = error.get("ctx", {}).get("expected_tags", "")
        return f"unknown kind; expected one of {expected}"
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field (this contract is closed)"
    # pydantic's messages describe the expectation, not the input; redact anyway as a backstop.
    return redact(str(error["msg"]))


def structural_error(
    error: ValidationError, document: Any, error_type: type[Located], *, what: str
) -> Located:
    """The first problem of a pydantic ``ValidationError`` as a located, secret-free error."""
    problems = error.errors(include_input=False, include_url=False)
    first = problems[0]
    pointer = pointer_from_location(document, first["loc"])
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    return error_type(f"{what} {_message_for(first)}{more}", rule=_rule_for(first), pointer=pointer)
