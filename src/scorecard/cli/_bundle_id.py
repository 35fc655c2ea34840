"""``scorecard bundle-id MANIFEST``: print the id of a bundle manifest, alone on one line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from scorecard.contract import ManifestError


def bundle_id(
    manifest: Annotated[Path, typer.Argument(help="A bundle.json (eval-bundle.v1 or campaign).")],
) -> None:
    """Print the bundle id of MANIFEST (content-addressed for eval-bundle.v1 manifests)."""
    try:
        text = manifest.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise ManifestError(
            f"cannot read manifest: {type(error).__name__}", rule="unreadable", source=str(manifest)
        ) from None
    from scorecard.contract import parse_manifest

    sys.stdout.write(parse_manifest(text, source=str(manifest)).id + "\n")


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("bundle-id")(bundle_id)
