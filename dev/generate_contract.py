"""Write the observation contract's derived forms from its one definition, the pydantic models.

Usage, from the repository root::

    python dev/generate_contract.py           # write the generated files
    python dev/generate_contract.py --check   # exit 1 naming each generated file that is stale

The observation contract (``workflow-observation.v1``: every field, its wire key, whether it is
required, its type, enum values and bounds) is written once, as the pydantic models of
``src/scorecard/contract/_observation.py``. The hot path cannot use them (building models is the
most expensive part of a run, and a run of plain lines never imports pydantic), so three forms
are made from them here, each file headed "generated":

- ``src/scorecard/core/_plain_observation.py``: closed msgspec structs, the recogniser's decoder
  (a document they accept the models accept, with no unknown field);
- ``src/scorecard/contract/_observation_views.py``: the ``TypedDict`` views the scorer reads;
- ``src/fastscore/fields.h``: ``NAMES``, every wire key, from which the C code gets its interned
  ``s_<key>`` names (a C line reading a key the contract lacks does not compile). It carries the
  SHA-256 of the models' file, which ``setup.py`` checks before it compiles the extension.

``tests/contract/test_generated.py`` fails when a generated file is not what this writes now,
and checks that a changed model changes each form. A type this script has no form for stops it,
named by its JSON Pointer, rather than being restated loosely.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import sys
import tempfile
import types
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, Union, get_args, get_origin

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "scorecard" / "contract" / "_observation.py"
STRUCTS = ROOT / "src" / "scorecard" / "core" / "_plain_observation.py"
VIEWS = ROOT / "src" / "scorecard" / "contract" / "_observation_views.py"
HEADER = ROOT / "src" / "fastscore" / "fields.h"
DIGEST_LINE = "   source SHA-256: "
"""How the header records the digest of the models' file (``setup.py`` reads it back)."""

VIEW_NAMES = {
    "WorkflowObservation": "ObservationDict",
    "BaseObservation": "BaseDict",
    "TraceEvidence": "TraceDict",
    "AuthorizationOutcome": "AuthorizationDict",
    "LifecycleEvidence": "LifecycleDict",
    "PresentationEvidence": "PresentationDict",
}
"""Views named otherwise than ``<model>Dict`` (the names the scorer has always imported)."""


class ContractShapeError(Exception):
    """A model field this script has no derived form for."""


class Kind(NamedTuple):
    """A field's value in the terms every derived form is written in."""

    name: str
    """string, integer, number, boolean, literal, list, object (free-form) or model."""
    detail: Any = None
    """string: its least length; integer and number: whether it is non-negative; literal: its
    values; list: the item's Kind; model: the model class."""


class Field(NamedTuple):
    """One field of a model as it is on the wire."""

    key: str
    required: bool
    kind: Kind


def _without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(rest) != 1:
            return annotation
        return rest[0]
    return annotation


def kind_of(annotation: Any, metadata: list[Any], pointer: str) -> Kind:
    """The Kind of a model field's annotation (with the constraints pydantic moved out of it)."""
    from annotated_types import Ge, MinLen
    from pydantic import BaseModel

    annotation = _without_none(annotation)
    if get_origin(annotation) is Annotated:
        inner, *extra = get_args(annotation)
        found = [item for info in extra for item in getattr(info, "metadata", [info])]
        return kind_of(inner, [*metadata, *found], pointer)
    nonnegative = any(isinstance(item, Ge) and item.ge == 0 for item in metadata)
    if any(isinstance(item, Ge) and item.ge != 0 for item in metadata):
        raise ContractShapeError(f"{pointer}: a lower bound other than 0 has no derived form")
    min_length = max([item.min_length for item in metadata if isinstance(item, MinLen)] or [0])
    if min_length > 1 or (min_length and annotation is not str):
        raise ContractShapeError(f"{pointer}: a least length has a derived form on strings only")
    if get_origin(annotation) is Literal:
        values = get_args(annotation)
        if not all(type(value) is str for value in values):
            raise ContractShapeError(f"{pointer}: only string enums have a derived form")
        return Kind("literal", values)
    if get_origin(annotation) is list:
        return Kind("list", kind_of(get_args(annotation)[0], [], f"{pointer}/*"))
    if get_origin(annotation) is dict and get_args(annotation) == (str, Any):
        return Kind("object")
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return Kind("model", annotation)
    simple = {str: "string", bool: "boolean", int: "integer", float: "number"}
    if annotation in simple:
        detail = (
            min_length if annotation is str else nonnegative if annotation in (int, float) else None
        )
        return Kind(simple[annotation], detail)
    raise ContractShapeError(f"{pointer}: the type {annotation!r} has no derived form")


def fields_of(model: type[Any], pointer: str = "") -> list[Field]:
    """A model's fields in declaration order (a parent model's first), as on the wire."""
    return [
        Field(
            key=(key := info.alias or name),
            required=info.is_required(),
            kind=kind_of(info.annotation, list(info.metadata), f"{pointer}/{key}"),
        )
        for name, info in model.model_fields.items()
    ]


def models_in_order(root: type[Any]) -> list[type[Any]]:
    """Every model reachable from ``root``, each after the models its fields hold (and after
    its parent model), in field order. Every field's type is checked on the way, a type with no
    derived form named by the JSON Pointer where it is first reached."""
    ordered: list[type[Any]] = []

    def visit(model: type[Any], pointer: str) -> None:
        if model in ordered:
            return
        parent = _parent(model)
        if parent is not None:
            visit(parent, pointer)
        for field in fields_of(model, pointer):
            for held, where in _nested(field.kind, f"{pointer}/{field.key}"):
                visit(held, where)
        ordered.append(model)

    visit(root, "")
    return ordered


def _nested(kind: Kind, pointer: str) -> list[tuple[type[Any], str]]:
    """The model a field holds (itself or as a list's items) and its pointer."""
    if kind.name == "list":
        return _nested(kind.detail, f"{pointer}/*")
    return [(kind.detail, pointer)] if kind.name == "model" else []


def _parent(model: type[Any]) -> type[Any] | None:
    """The observation model ``model`` extends, if any (lifecycle extends the evidence)."""
    parent = model.__mro__[1]
    public = parent.__module__ == model.__module__ and not parent.__name__.startswith("_")
    return parent if public else None


def all_keys(root: type[Any]) -> list[str]:
    """Every wire key of the contract, once each, sorted."""
    return sorted({field.key for model in models_in_order(root) for field in fields_of(model)})


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(json.dumps(value) for value in values)


# --- the recogniser's structs ---------------------------------------------------------------

STRUCTS_HEAD = '''"""Closed msgspec structs of a plainly valid observation, the recogniser's decoder.

GENERATED by dev/generate_contract.py from the observation models (contract/_observation.py):
do not edit; change the models and run the script. A struct accepts exactly what its model
accepts, with no unknown field and no null; ``core/_recognize.py`` uses them, and the C fast
path reads the decoded structs' fields (``src/fastscore/fields.h``, generated alongside).
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

__all__ = ["PlainObservation"]

_SAFE = 2**53
# Numbers JavaScript holds exactly; larger integers go to the models (and their error).
_Count = Annotated[int, Meta(ge=0, le=_SAFE)]
_LARGEST = sys.float_info.max
# Bounds keep infinities out (NaN fails every comparison); the parsers never make them, callers of
# the Python API might.
_Number = (
    Annotated[int, Meta(ge=-_SAFE, le=_SAFE)] | Annotated[float, Meta(ge=-_LARGEST, le=_LARGEST)]
)
_NonNegative = _Count | Annotated[float, Meta(ge=0, le=_LARGEST)]
_NonEmpty = Annotated[str, Meta(min_length=1)]


class _Closed(Struct, forbid_unknown_fields=True, gc=False):
    """An object with exactly the listed fields; absent optional fields stay ``UNSET``.

    Fields are in the models' order, the order runners write them; the decoder reads any order.
    ``gc=False``: parsed JSON holds no cycles, and untracked structs cost less to make.
    """
'''


def struct_type(kind: Kind) -> str:
    """The struct annotation of a Kind."""
    if kind.name == "string":
        return "_NonEmpty" if kind.detail else "str"
    if kind.name == "integer":
        return "_Count" if kind.detail else "int"
    if kind.name == "number":
        return "_NonNegative" if kind.detail else "_Number"
    if kind.name == "literal":
        return f"Literal[{_quoted(kind.detail)}]"
    if kind.name == "list":
        return f"list[{struct_type(kind.detail)}]"
    if kind.name == "object":
        return "dict[str, Any]"
    if kind.name == "model":
        return f"_{kind.detail.__name__}"
    return "bool"


def render_structs(root: type[Any]) -> str:
    """The text of ``core/_plain_observation.py``."""
    parts = [STRUCTS_HEAD]
    for model in models_in_order(root):
        fields = fields_of(model)
        # A required field after an optional one needs keyword-only construction.
        pairs = itertools.pairwise(field.required for field in fields)
        keywords = ", kw_only=True" if any(not first and then for first, then in pairs) else ""
        lines = [f"class _{model.__name__}(_Closed{keywords}):"]
        for field in fields:
            annotation = struct_type(field.kind)
            lines.append(
                f"    {field.key}: {annotation}"
                if field.required
                else f"    {field.key}: {annotation} | UnsetType = UNSET"
            )
        parts.append("\n\n" + "\n".join(lines) + "\n")
    parts.append(
        f"\n\nPlainObservation = _{root.__name__}\n"
        '"""A plainly valid observation, as the recogniser decodes it (read-only use)."""\n'
    )
    return "".join(parts)


# --- the scorer's views ---------------------------------------------------------------------

VIEWS_HEAD = '''"""``TypedDict`` views of a validated observation, what the scorer and the audit read.

GENERATED by dev/generate_contract.py from the observation models (contract/_observation.py):
do not edit; change the models and run the script. Each view has its model's fields, wire keys,
presence and value types; open objects may carry more keys than listed.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

'''


def view_name(model: type[Any]) -> str:
    return VIEW_NAMES.get(model.__name__, f"{model.__name__}Dict")


def view_type(kind: Kind) -> str:
    """The view annotation of a Kind (views carry no bounds: the models checked them)."""
    if kind.name == "literal":
        return f"Literal[{_quoted(kind.detail)}]"
    if kind.name == "list":
        return f"list[{view_type(kind.detail)}]"
    if kind.name == "model":
        return view_name(kind.detail)
    simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
    return simple.get(kind.name, "dict[str, Any]")


def render_views(root: type[Any]) -> str:
    """The text of ``contract/_observation_views.py``."""
    models = models_in_order(root)
    names = sorted(view_name(model) for model in models)
    parts = [VIEWS_HEAD, "__all__ = [\n", *(f'    "{name}",\n' for name in names), "]\n"]
    for model in models:
        parent = _parent(model)
        inherited = {field.key for field in fields_of(parent)} if parent else set()
        summary = (model.__doc__ or "").strip().splitlines()[0]
        lines = [
            f"class {view_name(model)}({view_name(parent) if parent else 'TypedDict'}):",
            f'    """{summary}"""',
            "",
        ]
        for field in fields_of(model):
            if field.key in inherited:
                continue
            annotation = view_type(field.kind)
            lines.append(
                f"    {field.key}: {annotation if field.required else f'NotRequired[{annotation}]'}"
            )
        parts.append("\n\n" + "\n".join(lines) + "\n")
    return "".join(parts)


# --- the C names ----------------------------------------------------------------------------


def source_digest(path: Path = SOURCE) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def render_header(root: type[Any], digest: str) -> str:
    """The text of ``src/fastscore/fields.h``."""
    entries = [f"X({key})" for key in all_keys(root)]
    rows: list[str] = []
    for entry in entries:
        if rows and len(rows[-1]) + len(entry) + 1 <= 92:
            rows[-1] += " " + entry
        else:
            rows.append(entry)
    body = " \\\n".join(f"    {row}" for row in rows)
    return (
        "/* Every wire key of the observation contract (workflow-observation.v1), sorted: the C\n"
        "   code's interned names s_<key> are made from NAMES (module.c), so a line reading a key\n"
        "   the contract lacks does not compile.\n"
        "\n"
        "   GENERATED by dev/generate_contract.py from src/scorecard/contract/_observation.py: do\n"
        "   not edit; change the models and run the script. setup.py refuses to build when the\n"
        "   models' file no longer has this digest.\n"
        f"{DIGEST_LINE}{digest} */\n"
        "\n"
        "#ifndef SCORECARD_FIELDS_H\n"
        "#define SCORECARD_FIELDS_H\n"
        "\n"
        f"#define NAMES(X) \\\n{body}\n"
        "\n"
        "#endif\n"
    )


# --- the files ------------------------------------------------------------------------------


def render(root: type[Any] | None = None, digest: str | None = None) -> dict[Path, str]:
    """Each generated file's text, made from the models (``root``: the observation model)."""
    if root is None:
        from scorecard.contract._observation import WorkflowObservation

        root = WorkflowObservation
    return {
        STRUCTS: render_structs(root),
        VIEWS: render_views(root),
        HEADER: render_header(root, source_digest() if digest is None else digest),
    }


def stale(files: dict[Path, str]) -> list[Path]:
    """The generated files whose text on disk is not ``files``'s."""
    return [
        path
        for path, text in files.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def _write(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def main(arguments: list[str] | None = None) -> int:
    """Write the generated files, or with ``--check`` say which are stale."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is out of date")
    options = parser.parse_args(arguments)
    try:
        files = render()
    except ContractShapeError as error:
        print(f"dev/generate_contract.py: {error}", file=sys.stderr)
        return 1
    if options.check:
        for path in stale(files):
            print(
                f"{path.relative_to(ROOT)} is out of date: run python dev/generate_contract.py",
                file=sys.stderr,
            )
        return 1 if stale(files) else 0
    for path in stale(files):
        _write(path, files[path])
    return 0


if __name__ == "__main__":
    sys.exit(main())
