"""Package names that load their module on first use (PEP 562), for every package's ``__init__``.

A command imports only what it runs: ``scorecard score`` of a JSONL file never loads the
statistics, and ``import scorecard`` costs next to nothing until a name is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    namespace: dict[str, Any], exports: Mapping[str, str], *, base: str
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__``: name N of ``exports`` (name -> module) is
    read from module ``base.exports[N]`` on first use and then kept in ``namespace`` (the
    package's ``globals()``), so the next read is an ordinary attribute; ``dir`` lists
    ``namespace["__all__"]``."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{base}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(namespace["__all__"])

    return __getattr__, __dir__
