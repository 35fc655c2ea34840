"""pydantic validation errors as located, secret-free errors (of the family the caller names).

Every model of :mod:`scorecard.contract` reports its problems through
:func:`structural_error`: a stable ``rule``, the JSON Pointer of the (first) field, and a message
that describes the expectation and the JSON type seen (``expected a number, got a string``),
never the input itself (the input may hold a secret). Further problems of the same document are
listed in the message, each with its pointer, so one run shows everything that is wrong.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from ._errors import ScorecardError
from ._hints import close_field_name, json_type_name
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

#: What a pydantic type error expected, in JSON's words.
_EXPECTED = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "a string",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}

PROBLEMS_LISTED = 5
"""Further problems of one document named in its error's message; the rest are counted."""


def _rule_for(error: ErrorDetails) -> str:
    kind = error["type"]
    if kind in _RULE_BY_PYDANTIC_TYPE:
        return _RULE_BY_PYDANTIC_TYPE[kind]
    if kind.endswith("_type") or kind.endswith("_parsing") or kind == "model_attributes_type":
        return "wrong_type"
    return kind


def _missing_hint(document: Any, location: tuple[str | int, ...]) -> str:
    """`` (did you write it as X?)`` when the object a required field is missing from holds an unknown
    key that looks like it (``traceLinage`` for ``traceLineage``)."""
    node = document
    for token in location[:-1]:
        in_object = isinstance(node, dict) and isinstance(token, str) and token in node
        in_array = isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node)
        if not (in_object or in_array):
            return ""
        node = node[token]
    name = location[-1] if location else None
    if not isinstance(node, dict) or not isinstance(name, str):
        return ""
    for key in node:
        if isinstance(key, str) and close_field_name(key, [name]) == name:
            return f" (did you write it as {key}?)"
    return ""


def _message_for(error: ErrorDetails, document: Any) -> str:
    kind = error["type"]
    if kind == "union_tag_invalid":
        expected = error.get("ctx", {}).get("expected_tags", "")
        return f"unknown kind; expected one of {expected}"
    if kind == "missing":
        return "required field is missing" + _missing_hint(document, tuple(error["loc"]))
    if kind == "extra_forbidden":
        return "unknown field (this contract is closed)"
    seen = json_type_name(error["input"]) if "input" in error else None
    if kind in _EXPECTED and seen is not None:
        return f"expected {_EXPECTED[kind]}, got {seen}"
    # pydantic's messages describe the expectation, not the input; redact anyway as a backstop.
    message = redact(str(error["msg"]))
    if kind == "literal_error" and seen is not None and seen != "a string":
        message += f" (got {seen})"
    return message


def structural_error(
    error: ValidationError, document: Any, error_type: type[Located], *, what: str
) -> Located:
    """The problems of a pydantic ``ValidationError`` as one located, secret-free error: the
    first one's pointer and rule; its message, then each further problem's pointer and message
    (up to :data:`PROBLEMS_LISTED`, the rest counted)."""
    problems = error.errors(include_url=False)
    first = problems[0]
    pointer = pointer_from_location(document, first["loc"])
    message = f"{what} {_message_for(first, document)}"
    others = [
        f"{pointer_from_location(document, problem['loc']) or '/'}: "
        f"{_message_for(problem, document)}"
        for problem in problems[1 : 1 + PROBLEMS_LISTED]
    ]
    if others:
        hidden = len(problems) - 1 - len(others)
        message += f"; also: {'; '.join(others)}"
        if hidden:
            message += f"; and {hidden} more problem(s)"
    expected, observed = expected_and_observed(first)
    return error_type(
        message, rule=_rule_for(first), pointer=pointer, expected=expected, observed=observed
    )


_BOUNDS = {
    "greater_than_equal": ">=",
    "less_than_equal": "<=",
    "greater_than": ">",
    "less_than": "<",
}


def _number(value: Any) -> str | None:
    """A JSON number as JSON writes it; None for anything else (never echoed)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return repr(value) if isinstance(value, float) else str(value)


def expected_and_observed(error: ErrorDetails) -> tuple[str | None, str | None]:
    """The runner output contract's ``expected`` and ``observed`` of one pydantic problem, in
    words: what the schema wants, and the JSON type (or number, or length) seen. A string's
    content is never echoed (it may be a secret)."""
    kind = error["type"]
    context = error.get("ctx", {})
    seen = json_type_name(error["input"]) if "input" in error else None
    if kind == "missing":
        return "a value (a required field)", "missing"
    if kind == "extra_forbidden":
        return "no such field (the contract is closed)", seen
    if kind in _EXPECTED:
        return _EXPECTED[kind], seen
    if kind in ("literal_error", "enum"):
        choices = str(context.get("expected", ""))
        return f"one of {choices}", "another string" if seen == "a string" else seen
    if kind == "union_tag_invalid":
        return f"one of {context.get('expected_tags', '')}", "another kind"
    if kind in _BOUNDS:
        bound = next(
            (value for key, value in context.items() if key in ("ge", "le", "gt", "lt")), None
        )
        number = _number(error.get("input"))
        return f"a number {_BOUNDS[kind]} {_number(bound) or bound}", number or seen
    if kind in ("too_short", "string_too_short"):
        least = context.get("min_length")
        return f"length at least {least}", f"length {context.get('actual_length', 0)}"
    if kind == "finite_number":
        return "a finite number", "NaN or an infinity"
    return None, seen
