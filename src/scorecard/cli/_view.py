"""``scorecard view PATH... [--port N]``: the report site served on 127.0.0.1 (see ``_report``)."""

from __future__ import annotations

import typer

from ._report import view

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("view")(view)
