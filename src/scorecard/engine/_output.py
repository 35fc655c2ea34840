"""Outputs: the one atomic writer (text, bytes, folders) and the one guard on output paths.

Readers see either the old file or the complete new one: writes go to a temporary file beside
the target that replaces it only when the block finishes and the data is on disk, flushed in the
background while it grows. A special file (a terminal, ``/dev/null``, a FIFO, a link to
``/dev/stdout``) is written to in place, never replaced. :func:`output_problems` is checked by
every command before any work: an output must never be one of the inputs (``score in.jsonl
--out in.jsonl`` would replace the observations with scorecards), never a folder, and never
twice the same file.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from scorecard.contract import InputError, raise_if_stopped, stops_deferred

__all__ = [
    "SYNC_EVERY",
    "atomic_binary_writer",
    "atomic_folder",
    "atomic_writer",
    "is_special_file",
    "output_problems",
]

#: Suffixes discovery reads as observation or records inputs inside a folder.
_INPUT_SUFFIXES = frozenset({".json", ".jsonl"})


def is_special_file(path: str | Path) -> bool:
    """Whether ``path`` (links followed) exists and is neither a regular file nor a folder."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


def _bad(option: str, message: str) -> InputError:
    return InputError(message, rule="bad_output", source=option)


def _read_as_input(output: Path, inputs: Sequence[str]) -> bool:
    """Whether the existing file ``output`` is one of ``inputs`` or found inside one of them."""
    identity = _identity(output)
    if identity is None or not output.is_file():
        return False
    resolved = output.resolve()
    for given in inputs:
        if given == "-":
            continue
        source = Path(given)
        if _identity(source) == identity:
            return True
        if source.is_dir() and output.suffix in _INPUT_SUFFIXES:
            folder = source.resolve()
            if folder in resolved.parents:
                return True
    return False


def output_problems(
    outputs: Mapping[str, Path | None],
    inputs: Sequence[str] = (),
    *,
    folders: Sequence[str] = (),
) -> list[InputError]:
    """What is wrong with the output paths (option name -> path, None when not given).

    ``folders`` names the options whose path is a folder to write into (``plot all --out``, a
    partitioned dataset); every other output must be a file.
    """
    problems: list[InputError] = []
    seen: dict[tuple[int, int] | str, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        if is_special_file(path):
            continue  # written to in place, whatever else reads it
        if path.is_dir() and option not in folders:
            problems.append(_bad(option, "the output path is a folder; give a file name"))
            continue
        parent = path.parent
        if parent.exists() and not parent.is_dir():
            problems.append(_bad(option, "the output's folder is a file"))
            continue
        if _read_as_input(path, inputs):
            problems.append(
                _bad(option, "the output is one of the inputs; writing it would replace them")
            )
            continue
        key: tuple[int, int] | str = _identity(path) or str(path.resolve())
        if key in seen:
            problems.append(_bad(option, f"the output is also the {seen[key]} output"))
            continue
        seen[key] = option
    return problems


SYNC_EVERY = 8 << 20
"""Characters (bytes, for a binary file) an atomic write takes between two background flushes
to disk."""


class _BackgroundSync:
    """Hands a growing file's data to the operating system every :data:`SYNC_EVERY` characters
    (or bytes) and waits for ``fdatasync`` in a background thread, so the ``fsync`` that ends an
    atomic write waits for the last stretch only, instead of for the whole file after the work
    is done. The thread starts at the first flush: a short write never has one (and
    ``scorecard score`` forks its worker processes before it)."""

    def __init__(self, handle: int, flush: Callable[[], None]) -> None:
        self._handle = handle
        self._flush = flush
        self._unsynced = 0
        self._wanted = threading.Event()
        self._stopping = False
        self._syncer: threading.Thread | None = None

    def wrote(self, count: int) -> None:
        """Note ``count`` more characters (or bytes) written."""
        self._unsynced += count
        if self._unsynced >= SYNC_EVERY:
            self._unsynced = 0
            self._flush()
            if self._syncer is None:
                self._syncer = threading.Thread(target=self._sync, name="sync", daemon=True)
                self._syncer.start()
            self._wanted.set()

    def _sync(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._stopping:
                return
            try:
                _fdatasync(self._handle)
            except OSError:
                return  # the closing fsync, in the writing thread, reports it

    def stop(self) -> None:
        """Wait for the background flush to finish (before the file is closed)."""
        if self._syncer is not None:
            self._stopping = True
            self._wanted.set()
            self._syncer.join()
            self._syncer = None


class _SyncingText(io.TextIOWrapper):
    """A text file whose data the operating system writes to disk while it grows."""

    def __init__(self, handle: int, encoding: str) -> None:
        super().__init__(io.BufferedWriter(io.FileIO(handle, "w")), encoding=encoding, newline="\n")
        self.background = _BackgroundSync(handle, self.flush)

    def write(self, text: str) -> int:
        written = super().write(text)
        self.background.wrote(written)
        return written

    def close(self) -> None:
        self.background.stop()
        super().close()


class _SyncingBytes(io.BufferedWriter):
    """A binary file whose data the operating system writes to disk while it grows."""

    def __init__(self, handle: int) -> None:
        super().__init__(io.FileIO(handle, "w"))
        self.background = _BackgroundSync(handle, self.flush)

    def write(self, data: Any) -> int:
        written = super().write(data)
        self.background.wrote(written)
        return written

    def close(self) -> None:
        self.background.stop()
        super().close()


_fdatasync = getattr(os, "fdatasync", os.fsync)


@contextlib.contextmanager
def _synced(stream: _SyncingText | _SyncingBytes) -> Iterator[None]:
    """Close ``stream`` at the end of the block, its data on disk first unless the block failed."""
    with stream:
        yield
        stream.background.stop()
        stream.flush()
        os.fsync(stream.fileno())


@contextlib.contextmanager
def atomic_writer(path: str | Path, *, encoding: str = "utf-8") -> Iterator[IO[str]]:
    """Open ``path`` for writing text so that readers see either the old file or the complete
    new one.

    Writes go to a temporary file beside ``path`` that replaces it only when the block finishes
    and the data is on disk; on any exception (including Ctrl-C) the temporary file is removed
    and ``path`` is untouched. A large file is flushed to disk while it is written. A special
    file (``/dev/null``, a FIFO, a link to ``/dev/stdout``) is written to in place instead.
    """
    if is_special_file(path):
        with open(path, "w", encoding=encoding, newline="\n") as special:
            yield special
        return
    with _replacing(path) as handle:
        stream = _SyncingText(handle, encoding)
        with _synced(stream):
            yield stream


@contextlib.contextmanager
def atomic_binary_writer(path: str | Path) -> Iterator[IO[bytes]]:
    """:func:`atomic_writer` for bytes (images, Parquet files): the same temporary file, the
    same flushing while it grows, the same replacement at the end (or, for a special file, the
    same writing in place)."""
    if is_special_file(path):
        with open(path, "wb") as special:
            yield special
        return
    with _replacing(path) as handle:
        stream = _SyncingBytes(handle)
        with _synced(stream):
            yield stream


@contextlib.contextmanager
def atomic_folder(path: str | Path) -> Iterator[Path]:
    """A new folder to fill that replaces the file or folder ``path`` when the block finishes
    (a Parquet dataset), or is removed with everything in it on any exception."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    umask = os.umask(0)
    os.umask(umask)
    staging: Path | None = None
    try:
        with stops_deferred():  # a stop comes after the folder is in this block's charge
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        os.chmod(staging, 0o777 & ~umask)
        yield staging
        raise_if_stopped()  # a stopped run never replaces an output
        if target.exists():
            # A folder cannot replace a folder in one step: move the old one aside first.
            retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
            os.replace(target, retired / "old")
            os.replace(staging, target)
            shutil.rmtree(retired)
        else:
            os.replace(staging, target)
    except BaseException:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        raise


@contextlib.contextmanager
def _replacing(path: str | Path) -> Iterator[int]:
    """A new file beside ``path`` (its handle) that replaces ``path`` when the
    block finishes, or is removed on any exception (including Ctrl-C)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp makes the file private (0600); give it the mode a plain open() would.
    umask = os.umask(0)
    os.umask(umask)
    temporary: str | None = None
    try:
        with stops_deferred():  # a stop comes after the file is in this block's charge
            handle, temporary = tempfile.mkstemp(
                prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
            )
        os.chmod(temporary, 0o666 & ~umask)
        yield handle
        raise_if_stopped()  # a stopped run never replaces an output
        os.replace(temporary, target)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        raise
