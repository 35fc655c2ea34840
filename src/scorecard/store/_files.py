"""A store's files read and written safely: small JSON files read with located errors, files
made durable (``fsync``) and replaced atomically, a bundle's files found where a commit left
them, and Parquet files opened as the store's own or refused by name.

Every problem with a file of the store is a :class:`~scorecard.contract.StoreError` naming the
file (and the JSON Pointer inside it): a corrupt index, a truncated or foreign Parquet file, a
missing file are reported, never a traceback or a wrong number.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from scorecard.contract import StoreError

from ._layout import METADATA_KEY, PENDING

T = TypeVar("T")

__all__ = [
    "Vanished",
    "checked_stamp",
    "corrupt",
    "durable",
    "existing_file",
    "file_label",
    "footer_stamp",
    "open_parquet",
    "read_json_file",
    "replace_file",
    "sync_folder",
]


class Vanished(Exception):
    """A file a snapshot lists is gone: a concurrent commit may have moved or replaced it (the
    reader takes a fresh snapshot)."""

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path


def corrupt(source: str, message: str, pointer: str = "") -> StoreError:
    """The located error of a store file that does not hold what it must."""
    return StoreError(message, rule="corrupt_file", pointer=pointer, source=source)


def read_json_file(path: Path, *, missing_rule: str = "missing_file") -> Any:
    """A small JSON file of the store, parsed; unreadable or not JSON: a located error."""
    source = str(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise StoreError(
            "no such file"
            if missing_rule == "missing_file"
            else "not a scorecard store "
            "(no store.json: make one with open_store(..., create=True))",
            rule=missing_rule,
            source=source,
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise StoreError(
            f"cannot read: {getattr(error, 'strerror', None) or type(error).__name__}",
            rule="unreadable",
            source=source,
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise StoreError(
            f"not JSON ({error.msg})", rule="corrupt_file", source=source, line=error.lineno
        ) from None


def sync_folder(folder: Path) -> None:
    """Make the folder's entries (names just made, renamed or removed) durable."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def durable(path: Path) -> None:
    """Make a written file's data durable."""
    with open(path, "rb") as stream:
        os.fsync(stream.fileno())


def replace_file(temporary: Path, target: Path) -> None:
    """Put a written, durable file in ``target``'s place in one step, and make that durable:
    readers see the old file or the new one."""
    os.replace(temporary, target)
    sync_folder(target.parent)


def existing_file(root: Path, relative: str) -> Path:
    """Where a file the index lists is: its place, or ``pending/`` when the commit that made
    it stopped before moving it (the next writer moves it); :class:`Vanished` if neither."""
    final = root / relative
    for place in (final, root / PENDING / relative, final):  # it may move between two looks
        if place.exists():
            return place
    raise Vanished(final)


def file_label(root: Path, path: Path) -> str:
    """A store file's name as errors give it: the store folder, then the file inside it."""
    with contextlib.suppress(ValueError):
        return str(root / path.relative_to(root))
    return str(path)


def open_parquet(path: Path, *, bundle: str, digest: str, kind: str) -> pq.ParquetFile:
    """A bundle's Parquet file, checked to be the store's file of that bundle and digest
    (its key-value metadata); truncated, foreign or another bundle's: a located error."""
    opened = _parquet(path, pq.ParquetFile)
    checked_stamp(path, opened.metadata, bundle=bundle, digest=digest, kind=kind)
    return opened


def footer_stamp(path: Path, *, bundle: str, digest: str, kind: str) -> dict[str, Any]:
    """The stamp of a bundle's Parquet file, read from its footer alone and checked as
    :func:`open_parquet` checks it."""
    metadata = _parquet(path, pq.read_metadata)
    return checked_stamp(path, metadata, bundle=bundle, digest=digest, kind=kind)


def _parquet(path: Path, reader: Callable[[Path], T]) -> T:
    """``reader(path)``; a vanished file :class:`Vanished`, an unreadable one located."""
    try:
        return reader(path)
    except FileNotFoundError:
        raise Vanished(path) from None
    except (OSError, ValueError, pa.ArrowException) as error:
        raise StoreError(
            f"not a readable Parquet file ({type(error).__name__}): truncated or overwritten?",
            rule="corrupt_file",
            source=str(path),
        ) from None


def checked_stamp(
    path: Path, metadata: pq.FileMetaData, *, bundle: str, digest: str, kind: str
) -> dict[str, Any]:
    """The file's stamp, which must say it is the ``kind`` file of ``bundle`` and ``digest``."""
    try:
        stamp = json.loads((metadata.metadata or {})[METADATA_KEY])
    except (KeyError, ValueError):
        stamp = None
    expected = {"kind": kind, "bundle": bundle, "digest": digest}
    if not isinstance(stamp, dict) or any(stamp.get(k) != v for k, v in expected.items()):
        raise StoreError(
            f"not this store's {kind} file of bundle {bundle} (another file in its place)",
            rule="foreign_file",
            source=str(path),
        )
    return stamp
