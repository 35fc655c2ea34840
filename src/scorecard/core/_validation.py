"""Observation validation: structure (pydantic) plus the contract rules of SCORING.md section 1.

Everything here works on already-parsed JSON; :mod:`scorecard.engine._io` parses text and adds the file
and line to the errors raised here. Every error names a stable ``rule`` and a JSON Pointer and
never quotes input values, so a secret in the input cannot leak through an error message.
"""

from __future__ import annotations

import difflib
import functools
import re
from typing import TYPE_CHECKING, Any, cast

from scorecard.contract import (
    CASE_IDS,
    OBSERVATION_SCHEMA,
    ObservationDict,
    ObservationError,
    close_field_name,
    find_secret,
    join,
    json_type_name,
    matches_reference_secret,
)

from ._notice import Notice
from ._recognize import is_plainly_valid

if TYPE_CHECKING:
    from pydantic import BaseModel

    from scorecard.contract import WorkflowObservation

__all__ = [
    "Notice",
    "accept_observation",
    "check_contract_rules",
    "collect_unknown_fields",
    "validate_observation",
]

_CASE_IDS = frozenset(CASE_IDS)
_CHECK_LISTS = ("lifecycle", "continuation", "presentation")


def collect_unknown_fields(model: BaseModel, pointer: str = "") -> list[Notice]:
    """Notices for every field an open model kept without knowing it, depth first, each with a
    "did you mean" against the fields its model knows at that level."""
    from pydantic import BaseModel

    notices: list[Notice] = []
    fields = type(model).model_fields
    if model.model_extra:
        known = {field.alias or name: name for name, field in fields.items()}
        for key in model.model_extra:
            message = "unknown field kept (not read)"
            intended = close_field_name(key, known)
            if intended is not None:
                absent = getattr(model, known[intended]) is None
                message += f"; did you mean {intended}?" + (
                    f" ({intended} is absent)" if absent else ""
                )
            notices.append(Notice(f"{pointer}/{_escape(key)}", message))
    for name, field in fields.items():
        value = getattr(model, name)
        token = _escape(field.alias or name)
        if isinstance(value, BaseModel):
            notices.extend(collect_unknown_fields(value, f"{pointer}/{token}"))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, BaseModel):
                    notices.extend(collect_unknown_fields(item, f"{pointer}/{token}/{index}"))
    return notices


def _escape(token: str) -> str:
    return join(token)[1:]


# JavaScript's String.prototype.trim() whitespace (the reference trims candidate ids with it).
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def _looks_like_observations(value: Any) -> bool:
    """A non-empty array whose items are objects, some of them observations by their schema
    or their identity fields."""
    if not isinstance(value, list) or not value:
        return False
    if not all(isinstance(item, dict) for item in value):
        return False
    return any(
        item.get("schema") == OBSERVATION_SCHEMA or ("caseId" in item and "candidateId" in item)
        for item in value
    )


def _wrapped(document: dict[str, Any]) -> tuple[str, int] | None:
    """(pointer, count) of the observations an envelope object holds (``{"observations":
    [...]}``, ``{"data": [...]}``, or one object further down), or None."""
    for key, value in document.items():
        if _looks_like_observations(value):
            return join(key), len(value)
    for key, value in document.items():
        if isinstance(value, dict):
            for inner, items in value.items():
                if _looks_like_observations(items):
                    return join(key, inner), len(items)
    return None


_SCHEMA_LIKE = re.compile(r"(?=.{1,100}$)[a-z][a-z0-9\-]*(?:\.[a-z0-9\-]+)+")
"""A schema name as contracts spell them (``paperclip.runner.workflow-observation.v1``):
lowercase dotted words, at most 100 characters; anything else is named by its JSON type."""


def _schema_seen(document: dict[str, Any]) -> str:
    """What ``/schema`` held, in words: a schema-like name (another contract's, redacted where
    secret-shaped when written), else its JSON type or ``missing``."""
    if "schema" not in document:
        return "missing"
    value = document["schema"]
    if isinstance(value, str) and _SCHEMA_LIKE.fullmatch(value):
        return value
    return json_type_name(value)


def _check_schema(document: Any) -> None:
    if isinstance(document, list) and _looks_like_observations(document):
        raise ObservationError(
            f"this record is an array of {len(document)} observation(s); JSON Lines takes one "
            "observation per line (or name the file .json)",
            rule="wrapped_observations",
            expected="one observation object",
            observed=f"an array of {len(document)} observation(s)",
        )
    if not isinstance(document, dict):
        raise ObservationError(
            f"an observation must be a JSON object, not {json_type_name(document)}",
            rule="wrong_type",
            expected="an object",
            observed=json_type_name(document),
        )
    if document.get("schema") != OBSERVATION_SCHEMA:
        wrapped = _wrapped(document)
        if wrapped is not None:
            pointer, count = wrapped
            raise ObservationError(
                f"this document wraps {count} observation(s) under {pointer}; give the array "
                "itself (a .json file), or JSON Lines (one observation per line)",
                rule="wrapped_observations",
                pointer=pointer,
                expected="one observation object",
                observed=f"an object wrapping {count} observation(s) under {pointer}",
            )
        raise ObservationError(
            f"unsupported workflow observation schema; expected {OBSERVATION_SCHEMA}",
            rule="unsupported_schema",
            pointer="/schema",
            expected=OBSERVATION_SCHEMA,
            observed=_schema_seen(document),
        )


def _model(document: dict[str, Any]) -> WorkflowObservation:
    # Imported here: a run whose lines all take the fast path never creates the observation
    # models, nor imports pydantic (docs/performance.md, start-up).
    from pydantic import ValidationError

    from scorecard.contract import INTEGRAL_FLOATS, WorkflowObservation, structural_error

    context: dict[str, bool] = {}
    try:
        model = WorkflowObservation.model_validate(document, context=context)
    except ValidationError as error:
        raise structural_error(
            error, document, ObservationError, what="observation field:"
        ) from None
    if context.get(INTEGRAL_FLOATS):
        _integers_as_ints(model, document)
    return model


def _integers_as_ints(model: BaseModel, document: dict[str, Any]) -> None:
    """Write the integers the model read from integral floats (``1.0``) into ``document`` as
    ints, so everything after validation (scoring, audit, rows, records) reads the value an
    integer literal would have given, byte for byte."""
    from pydantic import BaseModel

    for name, field in type(model).model_fields.items():
        key = field.alias or name
        if key not in document:
            continue
        value, raw = getattr(model, name), document[key]
        if type(raw) is float and type(value) is int:
            document[key] = value
        elif isinstance(value, BaseModel) and isinstance(raw, dict):
            _integers_as_ints(value, raw)
        elif isinstance(value, list) and isinstance(raw, list):
            for item, raw_item in zip(value, raw, strict=False):
                if isinstance(item, BaseModel) and isinstance(raw_item, dict):
                    _integers_as_ints(item, raw_item)


def validate_observation(document: Any) -> WorkflowObservation:
    """Validate parsed JSON as a workflow observation model, or raise :class:`ObservationError`.

    Order: the schema string first (a record of another contract is not structurally checked
    against this one), then structure, then identity, check lists, failure metadata and the
    secret rule, which is the order the reference reports them in.
    """
    _check_schema(document)
    observation = _model(document)
    check_contract_rules(document)
    return observation


def accept_observation(
    document: Any, *, parsed_json: bool = False
) -> tuple[ObservationDict, tuple[Notice, ...]]:
    """The hot-path twin of :func:`validate_observation`: same rules, same errors, no model.

    Returns the document itself, typed as validated wire data, with its unknown-field notices.
    Plainly valid documents (the usual case) are recognised without building models.
    ``parsed_json=True`` promises the document is what a JSON parser returned (see
    :func:`scorecard.core._recognize.is_plainly_valid`), which spares a walk over it.
    """
    _check_schema(document)
    notices: tuple[Notice, ...] = ()
    if not is_plainly_valid(document, parsed_json=parsed_json):
        notices = tuple(collect_unknown_fields(_model(document)))
    check_contract_rules(document)
    return cast("ObservationDict", document), notices


@functools.lru_cache(maxsize=4096)
def identifier_secret(value: str) -> str | None:
    """The secret pattern an identifier matches, if any (cached: ids repeat across a run)."""
    return find_secret(value)


def _case_hint(case_id: str) -> str:
    """``(did you mean X?)`` for a near miss, else the known ids; never the given value."""
    close = difflib.get_close_matches(case_id.strip().lower(), CASE_IDS, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]}?)"
    return f" (known: {', '.join(CASE_IDS)})"


def check_contract_rules(observation: dict[str, Any]) -> None:
    """SCORING.md section 1, rules 2 to 5, on a structurally valid observation."""
    if observation["caseId"] not in _CASE_IDS:
        raise ObservationError(
            "workflow observation identity is invalid: caseId is not one of the 12 catalog ids"
            + _case_hint(observation["caseId"]),
            rule="unknown_case_id",
            pointer="/caseId",
            expected="one of the 12 catalog case ids",
            observed="another id",
        )
    candidate_id: str = observation["candidateId"]
    if not candidate_id.strip(_JS_WHITESPACE):
        raise ObservationError(
            "workflow observation identity is invalid: candidateId is blank",
            rule="blank_candidate_id",
            pointer="/candidateId",
            expected="a non-blank id",
            observed="blank",
        )
    for pointer, value in (("/candidateId", candidate_id), ("/provider", observation["provider"])):
        pattern = identifier_secret(value)
        if pattern is not None:
            # Beyond the reference: ids are echoed in every output, so they may not be secrets.
            raise ObservationError(
                f"identifier is secret-shaped ({pattern}; value withheld)",
                rule="secret_in_identifier",
                pointer=pointer,
                expected="an id that is not secret-shaped",
                observed=f"secret-shaped ({pattern}; value withheld)",
            )
    for part in _CHECK_LISTS:
        checks = observation[part]["checks"]
        if not checks:
            raise ObservationError(
                f"{part} checks must be non-empty and unique: the list is empty",
                rule="empty_checks",
                pointer=f"/{part}/checks",
                expected="at least one check",
                observed="an empty array",
            )
        seen: set[str] = set()
        for index, check in enumerate(checks):
            if check["id"] in seen:
                raise ObservationError(
                    f"{part} checks must be non-empty and unique: a check id repeats",
                    rule="duplicate_check_id",
                    pointer=f"/{part}/checks/{index}/id",
                    expected="an id no earlier check has",
                    observed="an id an earlier check has",
                )
            seen.add(check["id"])
    failure = observation.get("failure")
    if observation["classification"] in ("infrastructure_failure", "skipped") and failure is None:
        raise ObservationError(
            f"{observation['classification']} requires failure metadata",
            rule="failure_required",
            pointer="/failure",
            expected=f"failure metadata (classification {observation['classification']})",
            observed="missing",
        )
    if failure is not None and matches_reference_secret(failure["message"]):
        raise ObservationError(
            "failure metadata contains secret-shaped data (value withheld)",
            rule="secret_in_failure_message",
            pointer="/failure/message",
            expected="a message that is not secret-shaped",
            observed="secret-shaped (value withheld)",
        )
