"""The ``scorecard`` command line: a typer veneer. Each command parses, calls one library
function, prints, and chooses the exit code.
"""

from ._app import app, main

__all__ = [
    "app",
    "main",
]
