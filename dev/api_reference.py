"""Write docs/api.md: every public name of scorecard with its signature and docstring summary.

Usage, from the repository root::

    python dev/api_reference.py           # write docs/api.md
    python dev/api_reference.py --check   # exit 1 when docs/api.md is not what this writes

The public names are the ``__all__`` of ``scorecard``, of each subpackage and of the public
submodules (the optional heavy backends). The page is made from the objects themselves
(:func:`inspect.signature`, the first paragraph of each docstring), sorted by name, with memory
addresses left out, so the same code always gives the same bytes. ``tests/test_public_api.py``
fails when the page is out of date: a changed public signature shows in review as a change of
docs/api.md.

A name exported by several packages is described once, under the package that defines it (the
one whose name its ``__module__`` starts with); the others point there.
"""

from __future__ import annotations

import argparse
import enum
import functools
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "api.md"

PACKAGES = (
    "scorecard",
    "scorecard.api",
    "scorecard.cli",
    "scorecard.report",
    "scorecard.plots",
    "scorecard.gate",
    "scorecard.aggregate",
    "scorecard.aggregate.distributed",
    "scorecard.simulate",
    "scorecard.store",
    "scorecard.engine",
    "scorecard.engine.parquet",
    "scorecard.engine.distributed",
    "scorecard.fast",
    "scorecard.core",
    "scorecard.contract",
)
"""The modules whose ``__all__`` is public, in layer order (docs/architecture.md), top first."""

ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
WIDTH = 100


class _Text:
    """An annotation shown as written (annotations are strings under ``from __future__``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _annotation(value: Any) -> Any:
    if value is inspect.Parameter.empty:
        return value
    return _Text(value if isinstance(value, str) else inspect.formatannotation(value))


def signature_text(name: str, function: Any) -> str | None:
    """``name(parameters) -> result``, wrapped one parameter a line past ``WIDTH``."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    signature = signature.replace(
        parameters=[
            parameter.replace(annotation=_annotation(parameter.annotation))
            for parameter in signature.parameters.values()
        ],
        return_annotation=_annotation(signature.return_annotation),
    )
    text = ADDRESS.sub("", f"{name}{signature}")
    if len(text) <= WIDTH:
        return text
    result = ""
    if signature.return_annotation is not inspect.Signature.empty:
        result = f" -> {signature.return_annotation!r}"
    parts = ADDRESS.sub("", str(signature.replace(return_annotation=inspect.Signature.empty)))
    inner = [str(part) for part in _split_parameters(parts[1:-1])]
    return f"{name}(\n" + "".join(f"    {part},\n" for part in inner) + f"){result}"


def _split_parameters(text: str) -> list[str]:
    """The parameters of a rendered signature, split at the commas outside brackets and quotes."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    current = ""
    for character in text:
        if quote is not None:
            quote = None if character == quote else quote
        elif character in "'\"":
            quote = character
        elif character in "([{":
            depth += 1
        elif character in ")]}":
            depth -= 1
        elif character == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += character
    if current.strip():
        parts.append(current.strip())
    return parts


def summary(value: Any) -> str:
    """The first paragraph of the value's own docstring, on one line ("" when it has none)."""
    documentation = inspect.getdoc(value)
    if not documentation:
        return ""
    if not (inspect.isclass(value) or inspect.isroutine(value) or inspect.ismodule(value)):
        return ""
    paragraph = documentation.strip().split("\n\n", 1)[0]
    return ADDRESS.sub("", " ".join(line.strip() for line in paragraph.splitlines()))


def home(value: Any) -> str | None:
    """The public module that defines ``value``: the longest in PACKAGES its module starts with."""
    module = getattr(value, "__module__", None)
    if not isinstance(module, str) or not (inspect.isclass(value) or inspect.isroutine(value)):
        return None
    owners = [
        package for package in PACKAGES if module == package or module.startswith(f"{package}.")
    ]
    return max(owners, key=len) if owners else None


def _members(cls: type) -> list[tuple[str, Any]]:
    """The public methods and properties a class defines itself (not what it inherits)."""
    members = []
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(
            member, property | functools.cached_property | staticmethod | classmethod
        ) or inspect.isfunction(member):
            members.append((name, member))
    return sorted(members)


def _model_fields(cls: type) -> list[str]:
    """A pydantic model's fields (its constructor takes ``**data``): name, annotation, wire key."""
    fields = getattr(cls, "model_fields", None)
    if not isinstance(fields, dict):
        return []
    lines = []
    for field, info in fields.items():
        written = next(
            (
                inspect.get_annotations(klass)[field]
                for klass in cls.__mro__
                if field in inspect.get_annotations(klass)
            ),
            None,
        )
        annotation = written if isinstance(written, str) else _annotation(info.annotation)
        alias = f"  # {info.alias}" if info.alias and info.alias != field else ""
        lines.append(ADDRESS.sub("", f"    {field}: {annotation}{alias}"))
    return lines


def describe_class(name: str, cls: type) -> list[str]:
    """A class: its bases and constructor, its own public methods and properties."""
    bases = ", ".join(base.__qualname__ for base in cls.__bases__ if base is not object)
    lines = ["```python", f"class {name}({bases})" if bases else f"class {name}"]
    if issubclass(cls, enum.Enum):
        lines += [f"    {member.name} = {member.value!r}" for member in cls]
    else:
        constructor = signature_text(name, cls)
        if constructor is not None:
            lines.append(constructor)
    lines += _model_fields(cls)
    for member_name, member in _members(cls):
        if isinstance(member, property | functools.cached_property):
            getter = member.fget if isinstance(member, property) else member.func
            result = inspect.signature(getter).return_annotation if getter else None
            shown = (
                "" if result in (None, inspect.Signature.empty) else f": {_annotation(result)!r}"
            )
            lines.append(f"    @{type(member).__name__} {member_name}{shown}")
            continue
        function = member.__func__ if isinstance(member, staticmethod | classmethod) else member
        text = signature_text(member_name, function)
        if text is not None:
            kind = (
                f"@{type(member).__name__} "
                if isinstance(member, staticmethod | classmethod)
                else ""
            )
            lines.append("    " + kind + text.replace("\n", "\n    "))
    lines.append("```")
    return lines


def describe(name: str, value: Any) -> list[str]:
    """The lines for one public name."""
    lines = [f"### `{name}`", ""]
    if inspect.isclass(value):
        lines += describe_class(name, value)
    elif inspect.isroutine(value) or (callable(value) and hasattr(value, "__wrapped__")):
        text = signature_text(name, value)
        lines += ["```python", text if text is not None else name, "```"]
    elif inspect.ismodule(value):
        lines += [f"module `{value.__name__}`"]
    else:
        shown = ADDRESS.sub("", repr(value))
        kind = type(value).__name__
        lines += [f"`{kind}`" + (f": `{shown}`" if len(shown) <= 90 and "`" not in shown else "")]
    text = summary(value)
    if text:
        lines += ["", text]
    return [*lines, ""]


def render() -> str:
    """The whole page."""
    lines = [
        "# API reference",
        "",
        "Generated by `dev/api_reference.py` from the `__all__` lists, signatures and docstrings",
        "(first paragraph) of the public modules; do not edit by hand. `tests/test_public_api.py`",
        "fails when this page is not what the script writes, so a changed public signature shows",
        "here in review. Annotations are shown as written in the source.",
        "",
    ]
    modules = {package: importlib.import_module(package) for package in PACKAGES}
    lines += [
        f"- [`{package}`](#{package.replace('.', '')}) ({len(modules[package].__all__)} names)"
        for package in PACKAGES
    ]
    lines.append("")
    for package, module in modules.items():
        lines += [f"## {package}", ""]
        module_summary = summary(module)
        if module_summary:
            lines += [module_summary, ""]
        for name in sorted(module.__all__):
            value = getattr(module, name)
            owner = home(value)
            if (
                owner is not None
                and owner != package
                and owner in modules
                and name in modules[owner].__all__
            ):
                lines += [f"- `{name}`: see [`{owner}.{name}`](#{owner.replace('.', '')})", ""]
            else:
                lines += describe(name, value)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(arguments: list[str] | None = None) -> int:
    """Write the page, or with ``--check`` say whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/api.md is out of date")
    options = parser.parse_args(arguments)
    page = render()
    if options.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != page:
            print("docs/api.md is out of date: run python dev/api_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
