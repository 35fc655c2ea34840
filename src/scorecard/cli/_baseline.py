"""``scorecard baseline approve|show --store STORE``: the approved baseline of a campaign store
(the commands live with ``label``'s, in :mod:`scorecard.cli._label`)."""

from __future__ import annotations

import typer

from ._label import register_baseline


def register(app: typer.Typer) -> None:
    """Add ``baseline`` to ``app``."""
    register_baseline(app)
