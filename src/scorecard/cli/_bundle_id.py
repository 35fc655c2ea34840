"""``scorecard bundle-id MANIFEST``: print the id of a bundle manifest, alone on one line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ._common import library_errors

ManifestArgument = Annotated[
    Path, typer.Argument(help="A bundle.json (eval-bundle.v1 or campaign).")
]


def bundle_id(manifest: ManifestArgument) -> None:
    """Print the bundle id of MANIFEST (content-addressed for eval-bundle.v1 manifests)."""
    from scorecard.api import bundle_id as manifest_id

    with library_errors():
        sys.stdout.write(manifest_id(manifest) + "\n")


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("bundle-id")(bundle_id)
