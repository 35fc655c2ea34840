"""The scored record (``scorecard.record.v1``) and its flat row: one column table.

:data:`ROW_COLUMNS` is the single definition of a row (``docs/records.md``): each column's name
(row field, frame column and Parquet column), its kind, which gives the Python type and the
Arrow type, and the JSON Pointer of its value in a record. Everything else is made from it:
:data:`ROW_FIELDS`, the Parquet schema (``engine/parquet.py``), the frame's dtypes, and
:func:`record_row`, the one parser of records into rows, whose straight-line code is generated
from the table when this module is imported (as :mod:`dataclasses` generates ``__init__``).
Well-formed records take exact type tests only; anything else goes through the kind's check,
which converts what it may (an ``int`` score to ``float``) and raises a pointed
:class:`InputError` for the rest.

:data:`RECORD_KEYS` is the order of a record's keys, which the record writers
(``core/_record.py``) follow.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple, get_args

from ._errors import InputError
from ._names import DIMENSIONS, Classification

__all__ = [
    "CLASSIFICATIONS",
    "METRIC_KEYS",
    "RECORD_KEYS",
    "RECORD_SCHEMA",
    "ROW_COLUMNS",
    "ROW_FIELDS",
    "Column",
    "ColumnKind",
    "Row",
    "record_row",
    "row_of",
]

RECORD_SCHEMA = "scorecard.record.v1"
"""Schema name of the scored record (``docs/records.md``)."""
RECORD_KEYS = (
    "schema",
    "bundleId",
    "caseId",
    "candidateId",
    "provider",
    "model",
    "tier",
    "repetition",
    "classification",
    "metrics",
    "failure",
    "source",
    "gatePassed",
    "audit",
    "scorecard",
)
"""The keys of a scored record, in the order the writers write them."""
METRIC_KEYS = (
    "attempts",
    "toolCount",
    "timeToFirstVisibleProgressMs",
    "settlementMs",
    "totalTokens",
    "costUsd",
)
"""The observation metrics a record carries, in this order."""
CLASSIFICATIONS: tuple[str, ...] = get_args(Classification)
"""How a run ended, in the contract's order."""

ColumnKind = Literal["id", "label", "run", "classification", "score", "flag", "measure", "count"]
#: Per kind: the Python type of the row value, the Arrow type (a ``pyarrow`` factory name), and
#: whether the record may leave the value out.
KIND_TYPES: dict[ColumnKind, tuple[Any, str, bool]] = {
    "id": (str, "string", False),  # non-empty text
    "label": (str | None, "string", True),  # non-empty text or null
    "run": (int, "int64", False),  # a positive integer
    "classification": (str, "string", False),  # one of CLASSIFICATIONS
    "score": (float, "float64", False),  # finite number; null is NaN
    "flag": (bool | None, "bool_", False),  # true, false or null
    "measure": (float, "float64", True),  # non-negative finite number; absent or null is NaN
    "count": (int, "int64", False),  # non-negative integer
}


class Column(NamedTuple):
    """One column of a row: where its value is in a record and what it may be."""

    name: str
    """Row field, frame column and Parquet column."""
    kind: ColumnKind
    """What the value may be (:data:`KIND_TYPES`)."""
    pointer: str
    """JSON Pointer of the value in a ``scorecard.record.v1``."""

    @property
    def python_type(self) -> Any:
        """The type of the value in a row (NaN stands for a missing number)."""
        return KIND_TYPES[self.kind][0]

    @property
    def arrow_type(self) -> str:
        """The Arrow type, as the name of its ``pyarrow`` factory (``pa.float64``...)."""
        return KIND_TYPES[self.kind][1]


ROW_COLUMNS: tuple[Column, ...] = (
    Column("bundle", "id", "/bundleId"),
    Column("candidate", "id", "/candidateId"),
    Column("provider", "id", "/provider"),
    Column("model", "label", "/model"),
    Column("tier", "label", "/tier"),
    Column("case", "id", "/caseId"),
    Column("repetition", "run", "/repetition"),
    Column("classification", "classification", "/classification"),
    *(
        Column(f"score_{name}", "score", f"/scorecard/dimensions/{name}/score")
        for name in DIMENSIONS
    ),
    *(
        Column(f"passed_{name}", "flag", f"/scorecard/dimensions/{name}/passed")
        for name in DIMENSIONS
    ),
    Column("overall_score", "score", "/scorecard/overall/score"),
    # The effective gate (the scorecard's, and the audit's when the policy lets it gate): the
    # rate every view shows is the rate the gate judges.
    Column("gate_passed", "flag", "/gatePassed"),
    Column("passed", "flag", "/scorecard/overall/passed"),
    Column("settlement_ms", "measure", "/metrics/settlementMs"),
    Column("first_progress_ms", "measure", "/metrics/timeToFirstVisibleProgressMs"),
    Column("total_tokens", "measure", "/metrics/totalTokens"),
    Column("cost_usd", "measure", "/metrics/costUsd"),
    Column("attempts", "count", "/metrics/attempts"),
    Column("tool_count", "count", "/metrics/toolCount"),
)
"""The row, column by column (``docs/records.md``)."""
ROW_FIELDS: tuple[str, ...] = tuple(column.name for column in ROW_COLUMNS)
"""Column names in row order."""
#: One scored record flattened in :data:`ROW_FIELDS` order (``scoreable`` is derived later).
Row = tuple[Any, ...]


# --- the checks behind each kind: convert what may be converted, else a pointed error --------

_MISSING = object()


def _bad(message: str, pointer: str, rule: str = "record_field") -> InputError:
    return InputError(message, rule=rule, pointer=pointer)


def _missing(value: Any, pointer: str) -> None:
    if value is _MISSING:
        raise _bad("required field is missing", pointer, "record_missing_field")


def _object(value: Any, pointer: str) -> Mapping[str, Any]:
    _missing(value, pointer)
    if not isinstance(value, Mapping):
        raise _bad("must be an object", pointer)
    return value


def _finite(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer no double holds
        return False


def _id(value: Any, pointer: str) -> str:
    _missing(value, pointer)
    if not isinstance(value, str) or not value:
        raise _bad("must be a non-empty string", pointer)
    return value


def _label(value: Any, pointer: str) -> str | None:
    return None if value is None else _id(value, pointer)


def _run(value: Any, pointer: str) -> int:
    _missing(value, pointer)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _bad("must be a positive integer", pointer)
    return value


def _classification(value: Any, pointer: str) -> str:
    _missing(value, pointer)
    if value not in CLASSIFICATIONS:
        raise _bad("must be one of " + ", ".join(CLASSIFICATIONS), pointer)
    return str(value)


def _score(value: Any, pointer: str) -> float:
    _missing(value, pointer)
    if value is None:
        return math.nan
    if not _finite(value):
        raise _bad("must be a finite number or null", pointer)
    return float(value)


def _flag(value: Any, pointer: str) -> bool | None:
    _missing(value, pointer)
    if value is not None and not isinstance(value, bool):
        raise _bad("must be true, false or null", pointer)
    return value


def _measure(value: Any, pointer: str) -> float:
    if value is None:
        return math.nan
    if not _finite(value) or value < 0:
        raise _bad("must be a non-negative number or null", pointer)
    return float(value)


def _count(value: Any, pointer: str) -> int:
    _missing(value, pointer)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad("must be a non-negative integer", pointer)
    return value


_CHECKS: dict[ColumnKind, Callable[[Any, str], Any]] = {
    "id": _id,
    "label": _label,
    "run": _run,
    "classification": _classification,
    "score": _score,
    "flag": _flag,
    "measure": _measure,
    "count": _count,
}
# When the value is already what the row holds, in exact types (``{v}`` is the value): the only
# test a well-formed record pays for. Otherwise the kind's check converts or raises; numbers
# written without a fraction (JSON has no floats) and nulls are converted in line.
_ACCEPTED: dict[ColumnKind, str] = {
    "id": "type({v}) is str and {v}",
    "label": "{v} is None or (type({v}) is str and {v})",
    "run": "type({v}) is int and {v} >= 1",
    "classification": "type({v}) is str and {v} in _CLASSES",
    "score": "type({v}) is float and {v} - {v} == 0",
    "flag": "{v} is True or {v} is False or {v} is None",
    "measure": "type({v}) is float and {v} >= 0 and {v} - {v} == 0",
    "count": "type({v}) is int and {v} >= 0",
}
_CONVERTED: dict[ColumnKind, str] = {
    "score": "float({v}) if type({v}) is int else _NAN if {v} is None else {check}",
    "measure": "float({v}) if type({v}) is int and {v} >= 0 else _NAN if {v} is None else {check}",
}


def _record(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _bad("a scored record must be a JSON object", "", "record_shape")
    if value.get("schema") != RECORD_SCHEMA:
        raise _bad(f"expected schema {RECORD_SCHEMA}", "/schema", "unsupported_schema")
    return value


_PATHS = tuple(tuple(column.pointer.split("/")[1:]) for column in ROW_COLUMNS)


def walk_row(record: Any) -> Row:
    """The row of ``record``, read column by column as the table says: what the generated
    :func:`record_row` does in straight-line code. It locates the first problem, in column
    order, when that code meets a missing key or a value that is not an object."""
    record = _record(record)
    values = []
    for column, (*path, key) in zip(ROW_COLUMNS, _PATHS, strict=True):
        parent, pointer = record, ""
        for token in path:
            pointer += "/" + token
            parent = _object(parent.get(token, _MISSING), pointer)
        optional = KIND_TYPES[column.kind][2]
        value = parent.get(key) if optional else parent.get(key, _MISSING)
        values.append(_CHECKS[column.kind](value, column.pointer))
    return tuple(values)


def _parser_source(columns: tuple[Column, ...]) -> str:
    """The source of :func:`record_row` for ``columns``: each parent object looked up once, each
    value tested in exact types, the kind's check called only when that test fails; a missing
    key, a parent that is not an object or an integer too large for a double hands the record to
    :func:`walk_row`."""
    body: list[str] = []
    parents: dict[tuple[str, ...], str] = {(): "record"}
    for index, column in enumerate(columns):
        *path, key = column.pointer.split("/")[1:]
        for depth in range(1, len(path) + 1):
            if tuple(path[:depth]) not in parents:
                name = f"p{len(parents)}"
                body.append(f"{name} = {parents[tuple(path[: depth - 1])]}[{path[depth - 1]!r}]")
                parents[tuple(path[:depth])] = name
        parent, value = parents[tuple(path)], f"c{index}"
        optional = KIND_TYPES[column.kind][2]
        check = f"_check_{column.kind}({value}, {column.pointer!r})"
        body += [
            f"{value} = {parent}.get({key!r})" if optional else f"{value} = {parent}[{key!r}]",
            f"if not ({_ACCEPTED[column.kind].format(v=value)}):",
            f"    {value} = {_CONVERTED.get(column.kind, '{check}').format(v=value, check=check)}",
        ]
    values = "".join(f"c{index}, " for index in range(len(columns)))
    return "\n".join(
        [
            "def record_row(record):",
            "    if type(record) is not dict or record.get('schema') != _SCHEMA:",
            "        return _walk(record)",
            "    try:",
            *(f"        {line}" for line in body),
            "    except (KeyError, TypeError, AttributeError, OverflowError):",
            "        return _walk(record)",
            f"    return ({values})",
            "",
        ]
    )


def _compile_parser(columns: tuple[Column, ...]) -> Callable[[Any], Row]:
    namespace: dict[str, Any] = {
        "_SCHEMA": RECORD_SCHEMA,
        "_MISSING": _MISSING,
        "_CLASSES": frozenset(CLASSIFICATIONS),
        "_walk": walk_row,
        "_NAN": math.nan,
        **{f"_check_{kind}": check for kind, check in _CHECKS.items()},
    }
    exec(_parser_source(columns), namespace)  # the source is made above, from the column table only
    parser: Callable[[Any], Row] = namespace["record_row"]
    parser.__module__ = __name__
    parser.__doc__ = (
        "Check one ``scorecard.record.v1`` mapping and flatten it into a :data:`Row`; "
        "problems raise an :class:`InputError` pointed at the value."
    )
    return parser


record_row = _compile_parser(ROW_COLUMNS)


def row_of(
    *,
    bundle_id: str,
    case_id: str,
    candidate_id: str,
    provider: str,
    model: str | None,
    tier: str | None,
    repetition: int,
    classification: str,
    metrics: Mapping[str, Any],
    scorecard: Mapping[str, Any],
    gate_passed: bool | None,
) -> Row:
    """The row of a record with these values (the keys :data:`ROW_COLUMNS` reads), checked as
    :func:`record_row` checks a record."""
    return record_row(
        {
            "schema": RECORD_SCHEMA,
            "bundleId": bundle_id,
            "caseId": case_id,
            "candidateId": candidate_id,
            "provider": provider,
            "model": model,
            "tier": tier,
            "repetition": repetition,
            "classification": classification,
            "metrics": metrics,
            "gatePassed": gate_passed,
            "scorecard": scorecard,
        }
    )
