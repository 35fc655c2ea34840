"""The ``scorecard`` command line: a typer veneer. Each command parses, calls one library
function, prints, and chooses the exit code.

``app`` (every command registered) is built on first use: the console script builds only the
command it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._app import main

__all__ = [
    "app",
    "main",
]

if TYPE_CHECKING:
    from ._app import app


def __getattr__(name: str) -> Any:
    if name == "app":
        from ._app import full_app

        return full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
