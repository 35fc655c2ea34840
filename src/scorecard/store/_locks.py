"""Writers: one commit at a time (``flock`` on ``.lock``), each ingest staging its files in a
folder of its own under ``tmp/`` that it holds a lock on while it lives, and the next writer
cleaning what a killed one left.

Readers take no lock: they read ``index.json`` once and the files it lists. Writers score and
write their Parquet files without the lock (two ingests score at once), and take it only to
commit: the few renames and the new index. A writer killed at any moment leaves the store as
the index says it is:

- killed while scoring: its staging folder stays under ``tmp/``; its lock is gone with it, so
  the next writer removes the folder;
- killed during a commit, before the new index: the bundle's new files (and a replaced
  bundle's old ones, moved aside) wait under ``pending/``, which no reader globbing ``runs/``
  sees; readers of the index find the old files there (:func:`~._files.existing_file`); the
  next writer moves the listed ones back and removes the rest;
- killed after the new index, before the files were moved into place: readers find them under
  ``pending/``; the next writer moves them and removes the replaced ones.

So ``runs/`` never holds a file the index does not list (a tool globbing it may miss a bundle
for the milliseconds of a commit, never count one twice). Every ingest starts by putting right
what a killed writer left.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ._files import sync_folder
from ._index import Index
from ._layout import KINDS, LOCK, PENDING, TMP

__all__ = ["Staging", "clean_store", "remove_empty_folders", "writer_lock"]

_ALIVE = ".alive"


@contextlib.contextmanager
def writer_lock(root: Path) -> Iterator[None]:
    """Hold the store's writer lock (wait for another writer's commit)."""
    handle = os.open(root / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # releases the lock


class Staging:
    """A writer's staging folder under ``tmp/``, with a lock held on it while the writer lives
    (made under the writer lock, so no cleaner sees it half made)."""

    def __init__(self, root: Path) -> None:
        with writer_lock(root):
            (root / TMP).mkdir(exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix="ingest-", dir=root / TMP))
            self._handle = os.open(self.path / _ALIVE, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(self._handle, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def folder(self, name: str) -> Path:
        """A new, empty folder inside the staging folder."""
        made = self.path / name
        made.mkdir()
        return made

    def close(self) -> None:
        """Remove the staging folder and what is left in it."""
        shutil.rmtree(self.path, ignore_errors=True)
        os.close(self._handle)


def _dead(folder: Path) -> bool:
    """Whether the writer of a staging folder is gone (nobody holds its lock)."""
    try:
        handle = os.open(folder / _ALIVE, os.O_RDWR)
    except OSError:
        return True  # never finished making: made under the writer lock, so its writer died
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(handle)
    return True


def _files_under(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        yield from (path for path in folder.rglob("*") if path.is_file())


def remove_empty_folders(folder: Path) -> None:
    """Remove the empty folders under ``folder`` (never ``folder`` itself)."""
    if not folder.is_dir():
        return
    for path in sorted(folder.rglob("*"), key=lambda item: len(item.parts), reverse=True):
        if path.is_dir():
            with contextlib.suppress(OSError):
                path.rmdir()


def clean_store(root: Path, index: Index) -> None:
    """What killed writers left, put right (under the writer lock): staging folders of dead
    writers removed; files of the index still under ``pending/`` moved into place, the others
    there removed; files under ``runs/``, ``detail/`` and ``rejects/`` that the index does not
    list (a replaced bundle's, left by a writer killed before removing them) removed."""
    staging = root / TMP
    if staging.is_dir():
        for folder in staging.iterdir():
            if folder.is_dir() and _dead(folder):
                shutil.rmtree(folder, ignore_errors=True)
    listed = set(index.files())
    pending = root / PENDING
    moved = False
    for path in list(_files_under(pending)):
        relative = path.relative_to(pending).as_posix()
        if relative in listed and not (root / relative).exists():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, root / relative)
            moved = True
        else:
            path.unlink()
    remove_empty_folders(pending)
    with contextlib.suppress(OSError):
        pending.rmdir()
    removed = False
    for kind in KINDS:
        for path in list(_files_under(root / kind)):
            if path.relative_to(root).as_posix() not in listed:
                path.unlink()
                removed = True
        remove_empty_folders(root / kind)
    if moved or removed:
        for kind in KINDS:
            if (root / kind).is_dir():
                sync_folder(root / kind)
