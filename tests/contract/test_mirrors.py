"""The observation contract has one source, the pydantic models; every restatement matches it.

The recogniser's closed msgspec structs (``core/_recognize.py``), the ``TypedDict`` views the
scorer reads (``contract/_wire.py``) and the fields the C fast path reads (``NAMES`` in
``src/fastscore/fastscore.h``) are each compared with the models, field by field: same wire
key, same presence (required or optional), same kind of value. A field added to one of them only
makes these tests fail, naming it.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin, is_typeddict

import msgspec
from annotated_types import Ge, MinLen
from pydantic import BaseModel

from scorecard.contract._models import DimensionName, WorkflowObservation
from scorecard.contract._scorecards import DimensionScore, Overall, ScorecardV2
from scorecard.contract._wire import DimensionDict, ObservationDict, OverallDict, ScorecardDict
from scorecard.core._recognize import PlainObservation
from tests.conftest import c_only


def _without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [arg for arg in get_args(annotation) if arg is not type(None)]
        return rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007
    return annotation


def model_shape(annotation: Any, metadata: list[Any]) -> Any:
    """A model field's value as (kind, detail): constraints the recogniser must repeat."""
    annotation = _without_none(annotation)
    if get_origin(annotation) is Annotated:
        inner, *extra = get_args(annotation)
        found = [item for info in extra for item in getattr(info, "metadata", [info])]
        return model_shape(inner, [*metadata, *found])
    nonnegative = any(isinstance(item, Ge) and item.ge >= 0 for item in metadata)
    min_length = max([item.min_length for item in metadata if isinstance(item, MinLen)] or [0])
    if get_origin(annotation) is Literal:
        return ("literal", frozenset(get_args(annotation)))
    if get_origin(annotation) is list:
        return ("list", model_shape(get_args(annotation)[0], []))
    if get_origin(annotation) is dict:
        value = get_args(annotation)[1]
        if isinstance(value, type) and issubclass(value, BaseModel):
            return ("map", model_shape(value, []))
        return ("object", None)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ("fields", annotation)
    kinds = {str: ("string", min_length), bool: ("boolean", None)}
    kinds |= {int: ("integer", nonnegative), float: ("number", nonnegative)}
    return kinds[annotation]


def model_fields(model: type[BaseModel]) -> dict[str, tuple[bool, Any]]:
    """Wire key -> (required, shape) of a model's declared fields."""
    return {
        field.alias or name: (field.is_required(), model_shape(field.annotation, field.metadata))
        for name, field in model.model_fields.items()
    }


def struct_shape(info: Any) -> Any:
    """A recogniser struct field's value in the same terms (its extra upper bounds aside)."""
    inspect = msgspec.inspect
    if isinstance(info, inspect.UnionType):
        kinds = [struct_shape(member) for member in info.types]
        assert {kind for kind, _ in kinds} == {"integer", "number"}, info
        return ("number", all(nonnegative for _, nonnegative in kinds))
    if isinstance(info, inspect.StrType):
        return ("string", info.min_length or 0)
    if isinstance(info, inspect.BoolType):
        return ("boolean", None)
    if isinstance(info, inspect.IntType | inspect.FloatType):
        kind = "integer" if isinstance(info, inspect.IntType) else "number"
        return (kind, info.ge is not None and info.ge >= 0)
    if isinstance(info, inspect.LiteralType):
        return ("literal", frozenset(info.values))
    if isinstance(info, inspect.ListType):
        return ("list", struct_shape(info.item_type))
    if isinstance(info, inspect.DictType):
        return ("object", None)
    assert isinstance(info, inspect.StructType), info
    return ("fields", info)


def struct_fields(info: Any) -> dict[str, tuple[bool, Any]]:
    return {field.encode_name: (field.required, struct_shape(field.type)) for field in info.fields}


def view_shape(annotation: Any) -> Any:
    """A TypedDict value's kind (views carry no constraints: the models checked them)."""
    annotation = _without_none(annotation)
    if get_origin(annotation) in (typing.NotRequired, typing.Required):
        return view_shape(get_args(annotation)[0])
    if get_origin(annotation) is Literal:
        return ("literal", frozenset(get_args(annotation)))
    if get_origin(annotation) is list:
        return ("list", view_shape(get_args(annotation)[0]))
    if get_origin(annotation) is dict:
        value = get_args(annotation)[1]
        return ("map", view_shape(value)) if is_typeddict(value) else ("object", None)
    if is_typeddict(annotation):
        return ("fields", annotation)
    return ({str: "string", bool: "boolean", int: "integer", float: "number"}[annotation], None)


def _view_required(view: Any, annotation: Any) -> bool:
    # ``__required_keys__`` cannot see NotRequired in postponed annotations; the hints can.
    if get_origin(annotation) is typing.NotRequired:
        return False
    return bool(view.__total__) or get_origin(annotation) is typing.Required


def view_fields(view: Any) -> dict[str, tuple[bool, Any]]:
    hints = typing.get_type_hints(view, include_extras=True)
    return {key: (_view_required(view, hint), view_shape(hint)) for key, hint in hints.items()}


def coarse(shape: Any) -> Any:
    """A model shape as a view states it: the kind only (a Literal of strings may be str)."""
    kind, detail = shape
    if kind == "list":
        return ("list", coarse(detail))
    if kind in ("string", "integer", "number", "boolean", "object"):
        return (kind, None)
    if kind == "literal" and all(isinstance(value, str) for value in detail):
        return ("string", None)
    return shape


def differences(
    model: type[BaseModel], other: Any, fields_of: Any, path: str, *, exact: bool
) -> list[str]:
    """Every way ``other`` (a struct or view) differs from ``model``, by JSON Pointer."""
    found: list[str] = []
    mine, theirs = model_fields(model), fields_of(other)
    for key in mine.keys() - theirs.keys():
        found.append(f"{path}/{key}: in the models only")
    for key in theirs.keys() - mine.keys():
        found.append(f"{path}/{key}: not in the models")
    for key in mine.keys() & theirs.keys():
        (required, shape), (their_required, their_shape) = mine[key], theirs[key]
        if required != their_required:
            found.append(f"{path}/{key}: required {required} in the models, {their_required} here")
        found += _compare(shape, their_shape, fields_of, f"{path}/{key}", exact=exact)
    return found


def _compare(shape: Any, theirs: Any, fields_of: Any, path: str, *, exact: bool) -> list[str]:
    if shape[0] == "fields" and theirs[0] == "fields":
        return differences(shape[1], theirs[1], fields_of, path, exact=exact)
    if shape[0] == theirs[0] and shape[0] in ("list", "map"):
        return _compare(shape[1], theirs[1], fields_of, f"{path}/*", exact=exact)
    if not exact and theirs[0] != "literal":
        shape = coarse(shape)
    if shape != theirs:
        return [f"{path}: {shape} in the models, {theirs} here"]
    return []


def all_keys(model: type[BaseModel]) -> set[str]:
    keys = set()
    pending: list[Any] = [("fields", model)]
    while pending:
        kind, detail = pending.pop()
        if kind in ("list", "map"):
            pending.append(detail)
        elif kind == "fields":
            for key, (_, shape) in model_fields(detail).items():
                keys.add(key)
                pending.append(shape)
    return keys


def test_the_recogniser_restates_the_observation_models_exactly() -> None:
    """Same keys, presence, kinds, enum values, lower bounds and non-empty strings."""
    info = msgspec.inspect.type_info(PlainObservation)
    assert differences(WorkflowObservation, info, struct_fields, "", exact=True) == []


def test_the_typed_views_list_every_model_field() -> None:
    """The scorer's TypedDict views have every field of the models, no other, with its kind."""
    assert differences(WorkflowObservation, ObservationDict, view_fields, "", exact=False) == []


def test_the_scorecard_views_list_every_scorecard_model_field_in_contract_order() -> None:
    """What the scorer builds (``ScorecardDict``) is what ``ScorecardV2`` reads back: the same
    keys at every level, with their kinds, in the order the contract writes them."""
    assert differences(ScorecardV2, ScorecardDict, view_fields, "", exact=False) == []
    pairs: list[tuple[type[BaseModel], Any]] = [
        (ScorecardV2, ScorecardDict),
        (DimensionScore, DimensionDict),
    ]
    for model, view in pairs:
        assert list(view_fields(view)) == list(model_fields(model))
    assert (
        list(view_fields(OverallDict))
        == list(model_fields(Overall))
        == [
            "score",
            "gatePassed",
            "passed",
        ]
    )


@c_only("the C extension's field table is read from the extension")
def test_the_c_code_reads_only_fields_the_models_define() -> None:
    """Every field name the C fast path looks up is a field of the observation models."""
    from scorecard.fast import _fastscore

    names = set(_fastscore.FIELD_NAMES)
    assert len(names) == len(_fastscore.FIELD_NAMES) > 50
    assert names - all_keys(WorkflowObservation) == set()


def test_a_field_added_to_a_model_only_is_named() -> None:
    """The comparison finds a model field that the others lack (what these tests rely on)."""

    class Grown(WorkflowObservation):
        extra_field: int | None = None

    info = msgspec.inspect.type_info(PlainObservation)
    assert differences(Grown, info, struct_fields, "", exact=True) == [
        "/extraField: in the models only"
    ]
    assert differences(Grown, ObservationDict, view_fields, "", exact=False) == [
        "/extraField: in the models only"
    ]


def test_a_field_added_to_a_scorecard_dimension_only_is_named() -> None:
    """The comparison looks inside the dimensions' map, not only at its keys' container."""

    class GrownDimension(DimensionScore):
        extra_field: int | None = None

    class GrownScorecard(ScorecardV2):
        dimensions: dict[DimensionName, GrownDimension]  # type: ignore[assignment]

    assert differences(GrownScorecard, ScorecardDict, view_fields, "", exact=False) == [
        "/dimensions/*/extraField: in the models only"
    ]
