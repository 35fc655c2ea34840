"""Each bundle's input files under some paths, as discovery finds them, and the digest of their
bytes: what makes a bundle the same bundle again (a campaign store's idempotence; verdict
receipts).

A bundle's digest is SHA-256 over its manifest (when it has one) and its observation files in
the order a scoring run reads them, each framed by its name relative to the bundle's folder and
its length (:class:`~scorecard.contract.FramedDigest`, ``docs/store.md``). So the digest does
not depend on how the bundle was pointed at (``observations/`` or the bundle's own folder), nor
on where the folder lies, only on the bytes and their names inside it.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from scorecard.contract import BundleInfo, FramedDigest, InputError

from ._io import STDIN, Discovery

__all__ = ["BundleFiles", "bundle_files", "file_state", "input_digest"]


@dataclass(frozen=True)
class BundleFiles:
    """One bundle's inputs under the paths given, in the order a scoring run reads them."""

    id: str
    """The bundle id (a manifest's, the folder's, or the one given to override them)."""
    info: BundleInfo
    """What discovery knows of it (its roster, from a campaign manifest)."""
    folders: tuple[str, ...]
    """The bundle's folder (the manifest's, or the observations' without one); more than one
    when folders of the same id were given (``-`` stands for standard input)."""
    manifests: tuple[str, ...]
    """Its manifest file(s) (``bundle.json``), if any."""
    files: tuple[str, ...] = field(default=())
    """The observation files, as given or found (``-``: standard input)."""
    names: tuple[str, ...] = field(default=())
    """Each file's name relative to its bundle folder, ``/``-separated."""

    @property
    def folder_name(self) -> str:
        """The name of the bundle's (first) folder; empty for standard input."""
        folder = self.folders[0] if self.folders else STDIN
        return "" if folder == STDIN else Path(folder).resolve().name


def _folder_and_manifest(info: BundleInfo, path: str) -> tuple[str, str | None]:
    if path == STDIN or info.source is None:
        return STDIN, None
    if os.path.isfile(info.source):  # a manifest's bundle: its folder is the manifest's
        return os.path.dirname(info.source) or ".", info.source
    return info.source, None


def _relative(path: str, folder: str) -> str:
    if path == STDIN:
        return STDIN
    return Path(os.path.relpath(path, folder)).as_posix()


def bundle_files(
    paths: Iterable[str | Path], *, bundle_id: str | None = None
) -> tuple[list[BundleFiles], list[InputError]]:
    """The bundles under ``paths`` (files, folders, ``-``) in the order their first file is
    read, each with its files, and the errors discovery meets (a path not found, a broken
    manifest: its files belong to no bundle). ``bundle_id`` overrides every bundle's id."""
    found: dict[str, BundleFiles] = {}
    errors: list[InputError] = []
    discovery = Discovery(bundle_id=bundle_id)
    for given in paths:
        for item in discovery.inputs(str(given)):
            if isinstance(item, InputError):
                errors.append(item)
                continue
            folder, manifest = _folder_and_manifest(item.bundle, item.path)
            known = found.get(item.bundle.id)
            if known is None:
                known = BundleFiles(item.bundle.id, item.bundle, (), ())
            folders = known.folders if folder in known.folders else (*known.folders, folder)
            manifests = known.manifests
            if manifest is not None and manifest not in manifests:
                manifests = (*manifests, manifest)
            found[item.bundle.id] = BundleFiles(
                known.id,
                known.info,
                folders,
                manifests,
                (*known.files, item.path),
                (*known.names, _relative(item.path, folder)),
            )
    return list(found.values()), errors


def file_state(path: str) -> tuple[int, int, int] | None:
    """(size, modification time in ns, inode) of a file, to tell whether it changed while it
    was read; None for standard input."""
    if path == STDIN:
        return None
    found = os.stat(path)
    return found.st_size, found.st_mtime_ns, found.st_ino


def input_digest(bundle: BundleFiles, stdin: bytes | None = None) -> str:
    """SHA-256 (hex) over the bundle's manifest(s) and files, each framed by its name relative
    to the bundle folder and its length; ``stdin`` is what ``-`` holds. An unreadable or
    changing file raises :class:`OSError`."""
    digest = FramedDigest()
    for manifest in bundle.manifests:
        folder = os.path.dirname(manifest) or "."
        with open(manifest, "rb") as stream:
            digest.add_stream(
                _relative(manifest, folder), stream, os.fstat(stream.fileno()).st_size
            )
    for path, name in zip(bundle.files, bundle.names, strict=True):
        if path == STDIN:
            data = stdin or b""
            digest.add_stream(name, io.BytesIO(data), len(data))
            continue
        with open(path, "rb") as stream:
            digest.add_stream(name, stream, os.fstat(stream.fileno()).st_size)
    return digest.hexdigest()
