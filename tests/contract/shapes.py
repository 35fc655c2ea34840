"""Shapes of pydantic models and ``TypedDict`` views, for tests that walk a contract.

``model_fields`` gives a model's fields by wire key with their presence and kind (the
observation test that fills in every field uses it); ``differences`` names, by JSON Pointer,
every way a view differs from a model (the scorecard's views against its models).
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin, is_typeddict

from annotated_types import Ge, MinLen
from pydantic import BaseModel


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
