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

from scorecard.contract import InputError, OutputError, raise_if_stopped, stops_deferred

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


def _folder_problem(folder: Path) -> str | None:
    """Why the folder ``folder`` cannot be made or written into, or None."""
    existing = folder
    while not existing.exists():
        if existing.is_symlink():
            return "the output's folder is a broken link"
        if existing == existing.parent:
            break
        existing = existing.parent
    if not existing.is_dir():
        return (
            "the output's folder is a file"
            if existing == folder
            else "a folder on the output's path is a file"
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        return (
            "the output's folder cannot be written"
            if existing == folder
            else "the output's folder cannot be made"
        )
    return None


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
        if str(path) == "" or path.name in ("", ".", ".."):
            problems.append(_bad(option, "the output path is empty or a folder; give a file name"))
            continue
        folder_problem = _folder_problem(path.parent)
        if folder_problem is not None:
            problems.append(_bad(option, folder_problem))
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

    def __init__(self, handle: int, flush: Callable[[], None], *, enabled: bool = True) -> None:
        self._enabled = enabled
        self._handle = handle
        self._flush = flush
        self._unsynced = 0
        self._wanted = threading.Event()
        self._stopping = False
        self._syncer: threading.Thread | None = None

    def wrote(self, count: int) -> None:
        """Note ``count`` more characters (or bytes) written."""
        self._unsynced += count
        if self._enabled and self._unsynced >= SYNC_EVERY:
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


def unwritable(target: str | Path, error: OSError | UnicodeEncodeError) -> OutputError:
    """The located error of an output that could not be written (a full disk, a file too
    large, a folder that cannot be made, text its encoding cannot hold)."""
    if isinstance(error, UnicodeEncodeError):
        reason = f"the text cannot be encoded as {error.encoding}"
    else:
        reason = error.strerror or type(error).__name__
    return OutputError(f"cannot write: {reason}", rule="unwritable", source=str(target))


@contextlib.contextmanager
def _writing(target: str | Path) -> Iterator[None]:
    """Turn an error of writing ``target`` (the operating system's, or text the file's encoding
    cannot hold, which would otherwise surface as a bare ``ValueError``) into its
    :class:`OutputError`."""
    try:
        yield
    except (OSError, UnicodeEncodeError) as error:
        raise unwritable(target, error) from None


class _SyncingWrites:
    """What :class:`_SyncingText` and :class:`_SyncingBytes` add to their ``io`` class: each
    write tells the background sync how much was written, and a failed write, flush or close
    raises the target's :class:`OutputError`."""

    target: str | Path
    background: _BackgroundSync

    def write(self, data: Any) -> int:
        with _writing(self.target):
            written: int = super().write(data)  # type: ignore[misc]
        self.background.wrote(written)
        return written

    def flush(self) -> None:
        with _writing(self.target):
            super().flush()  # type: ignore[misc]

    def close(self) -> None:
        self.background.stop()
        with _writing(self.target):
            super().close()  # type: ignore[misc]


class _SyncingText(_SyncingWrites, io.TextIOWrapper):
    """A text file whose data the operating system writes to disk while it grows (unless
    ``sync`` is off: a special file); a failed write raises the target's :class:`OutputError`."""

    def __init__(self, handle: int, encoding: str, target: str | Path, *, sync: bool = True):
        super().__init__(io.BufferedWriter(io.FileIO(handle, "w")), encoding=encoding, newline="\n")
        self.target = target
        self.background = _BackgroundSync(handle, self.flush, enabled=sync)


class _SyncingBytes(_SyncingWrites, io.BufferedWriter):
    """:class:`_SyncingText` for bytes."""

    def __init__(self, handle: int, target: str | Path, *, sync: bool = True) -> None:
        super().__init__(io.FileIO(handle, "w"))
        self.target = target
        self.background = _BackgroundSync(handle, self.flush, enabled=sync)


_fdatasync = getattr(os, "fdatasync", os.fsync)


@contextlib.contextmanager
def _synced(stream: _SyncingText | _SyncingBytes) -> Iterator[None]:
    """Close ``stream`` at the end of the block, its data on disk first unless the block failed."""
    try:
        yield
        stream.background.stop()
        stream.flush()
        with _writing(stream.target):
            os.fsync(stream.fileno())
    except BaseException:
        with contextlib.suppress(OutputError):
            stream.close()  # what failed first is what is reported
        raise
    stream.close()


def _open_special(path: str | Path, flags: int) -> int:
    with _writing(path):
        return os.open(path, flags)


@contextlib.contextmanager
def atomic_writer(path: str | Path, *, encoding: str = "utf-8") -> Iterator[IO[str]]:
    """Open ``path`` for writing text so that readers see either the old file or the complete
    new one.

    Writes go to a temporary file beside ``path`` that replaces it only when the block finishes
    and the data is on disk; on any exception (including Ctrl-C and SIGTERM) the temporary file
    is removed and ``path`` is untouched. A large file is flushed to disk while it is written. A
    special file (``/dev/null``, a FIFO, a link to ``/dev/stdout``) is written to in place
    instead. A failed write (a full disk, a file too large) raises :class:`OutputError`.
    """
    if is_special_file(path):
        special = _SyncingText(
            _open_special(path, os.O_WRONLY | os.O_TRUNC), encoding, path, sync=False
        )
        with special:
            yield special
            special.flush()
        return
    with _replacing(path) as handle:
        stream = _SyncingText(handle, encoding, path)
        with _synced(stream):
            yield stream


@contextlib.contextmanager
def atomic_binary_writer(path: str | Path) -> Iterator[IO[bytes]]:
    """:func:`atomic_writer` for bytes (images, Parquet files): the same temporary file, the
    same flushing while it grows, the same replacement at the end (or, for a special file, the
    same writing in place), the same :class:`OutputError`."""
    if is_special_file(path):
        special = _SyncingBytes(_open_special(path, os.O_WRONLY | os.O_TRUNC), path, sync=False)
        with special:
            yield special
            special.flush()
        return
    with _replacing(path) as handle:
        stream = _SyncingBytes(handle, path)
        with _synced(stream):
            yield stream


@contextlib.contextmanager
def atomic_folder(path: str | Path) -> Iterator[Path]:
    """A new folder to fill that replaces the file or folder ``path`` when the block finishes
    (a Parquet dataset), or is removed with everything in it on any exception."""
    target = Path(path)
    umask = os.umask(0)
    os.umask(umask)
    staging: Path | None = None
    try:
        with stops_deferred(), _writing(target):  # a stop comes after the folder is in charge
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        os.chmod(staging, 0o777 & ~umask)
        try:
            yield staging
        except OSError as error:  # what pyarrow raises when a partition cannot be written
            raise unwritable(target, error) from None
        raise_if_stopped()  # a stopped run never replaces an output
        with _writing(target):
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
    block finishes, or is gone on any exception (including Ctrl-C and SIGTERM).

    Where the platform and file system allow it (Linux, ``O_TMPFILE``), the file has no name
    until it is complete: it is linked in (``linkat`` through ``/proc/self/fd``) only when the
    block finishes, so even SIGKILL, which no cleanup survives, leaves nothing beside ``path``.
    Elsewhere it is a named temporary file, ``.NAME.XXXX.tmp``, removed on any exception."""
    target = Path(path)
    with stops_deferred(), _writing(target):  # a stop comes after the file is in charge
        target.parent.mkdir(parents=True, exist_ok=True)
        unnamed = _unnamed_file(target.parent)
        # The stream closes its handle when its block ends; a second handle keeps the file
        # alive until it is linked in (closing the last handle of an unnamed file frees it).
        kept = os.dup(unnamed) if unnamed is not None else None
    if unnamed is None or kept is None:
        with _named_replacing(target) as handle:
            yield handle
        return
    try:
        yield unnamed
        raise_if_stopped()  # a stopped run never replaces an output
        with _writing(target):
            _link_in(kept, target)
    finally:
        os.close(kept)


def _unnamed_file(folder: Path) -> int | None:
    """The handle of a new file in ``folder`` that has no name (``O_TMPFILE``), with the mode a
    plain ``open()`` gives, or None where the platform, the file system or a missing ``/proc``
    does not allow one to be linked in later."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        handle = os.open(folder, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError:  # EOPNOTSUPP, EISDIR (no support), EINVAL...: a named file instead
        return None
    return handle


def _link_in(handle: int, target: Path) -> None:
    """Give the unnamed file of ``handle`` the name ``target``, replacing what is there: one
    ``linkat`` where nothing is; else a link under a temporary name renamed over ``target`` (a
    link cannot replace), the only moment a name of its own exists."""
    # linkat(fd of /proc/self/fd, "N", ..., AT_SYMLINK_FOLLOW): os.link calls plain link(2),
    # which does not follow the magic link, unless a directory handle is given.
    fds = os.open("/proc/self/fd", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            os.link(str(handle), target, src_dir_fd=fds, follow_symlinks=True)
            return
        except FileExistsError:
            pass
        while True:
            temporary = target.parent / f".{target.name}.{os.urandom(4).hex()}.tmp"
            try:
                os.link(str(handle), temporary, src_dir_fd=fds, follow_symlinks=True)
                break
            except FileExistsError:
                continue
    finally:
        os.close(fds)
    try:
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def _named_replacing(target: Path) -> Iterator[int]:
    """:func:`_replacing` with a named temporary file (no ``O_TMPFILE``): SIGKILL leaves it."""
    # mkstemp makes the file private (0600); give it the mode a plain open() would.
    umask = os.umask(0)
    os.umask(umask)
    temporary: str | None = None
    try:
        with stops_deferred(), _writing(target):  # a stop comes after the file is in charge
            handle, temporary = tempfile.mkstemp(
                prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
            )
        os.chmod(temporary, 0o666 & ~umask)
        yield handle
        raise_if_stopped()  # a stopped run never replaces an output
        with _writing(target):
            os.replace(temporary, target)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        raise
