"""``bundle-id``: the id of a bundle manifest."""

from __future__ import annotations

import os

from scorecard.contract import ManifestError, Takes, arguments

from ._inputs import PathLike

__all__ = ["bundle_id"]


@arguments(manifest=Takes.path)
def bundle_id(manifest: PathLike) -> str:
    """The bundle id of the manifest file ``manifest`` (``docs/bundles.md``: content-addressed
    for ``eval-bundle.v1``, the stated id of a campaign manifest); an unreadable or invalid one
    raises a located :class:`ManifestError`."""
    from scorecard.contract import parse_manifest

    source = os.fspath(manifest)
    try:
        with open(source, encoding="utf-8-sig") as stream:
            text = stream.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ManifestError(
            f"cannot read manifest: {type(error).__name__}", rule="unreadable", source=source
        ) from None
    return parse_manifest(text, source=source).id
