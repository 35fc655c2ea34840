"""One piece of work done on a forked process while this one goes on with another.

:func:`in_background` forks (on Linux only) a process that does ``work`` with everything this
process holds at that moment, sends back the pickled result and exits; :meth:`Background.result`
reads it. The child lives by the workers' rules (:mod:`._lifetime`: it ignores SIGINT and dies
with this process), and a result that does not come back whole (no fork on this platform, the
child failed, raised or was killed, a result that does not pickle) is simply computed here
instead: the background is only a way to use a second core, never another answer.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Generic, TypeVar

from ._lifetime import start_worker_lifetime

__all__ = ["Background", "in_background"]

T = TypeVar("T")


class Background(Generic[T]):
    """Work started by :func:`in_background`; :meth:`result` gives what it returned."""

    def __init__(self, work: Callable[[], T], child: int | None, reader: int | None) -> None:
        self._work = work
        self._child = child
        self._reader = reader
        self._owner = os.getpid()

    def result(self) -> T:
        """The work's result: the child's, or computed here when the child gave none (an
        exception the work raises is raised here, by doing the work here)."""
        received = self._received()
        if received is not None:
            return received[0]
        return self._work()

    def cancel(self) -> None:
        """End the child, if it is still running (its result is not wanted)."""
        if self._child is not None:
            with contextlib.suppress(OSError):
                os.kill(self._child, signal.SIGKILL)
        self._received()

    def _received(self) -> tuple[T] | None:
        if self._child is None or self._reader is None or os.getpid() != self._owner:
            return None  # (another process forked since sees the child, but it is not its own)
        child, reader = self._child, self._reader
        self._child = self._reader = None
        chunks = []
        try:
            with os.fdopen(reader, "rb") as pipe:
                while chunk := pipe.read(1 << 20):
                    chunks.append(chunk)
        except OSError:
            chunks = []
        finally:
            _, status = os.waitpid(child, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0 or not chunks:
            return None
        try:
            found = pickle.loads(b"".join(chunks))
        except Exception:  # a result that does not unpickle is no result
            return None
        return found if isinstance(found, tuple) and len(found) == 1 else None


def in_background(work: Callable[[], T]) -> Background[T]:
    """Start ``work`` on a forked child process (Linux; elsewhere it is done when its result is
    asked for). ``work`` must be a pure function of what this process holds now: the child
    sees this process as it is at the fork, and nothing the child does reaches back here but
    the returned value."""
    if not sys.platform.startswith("linux"):
        return Background(work, None, None)
    parent = os.getpid()
    reader, writer = os.pipe()
    try:
        child = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return Background(work, None, None)
    if child == 0:  # pragma: no cover - the child's exit ends what coverage could see
        code = 1
        try:
            os.close(reader)
            start_worker_lifetime(parent)
            data = pickle.dumps((work(),), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(data)
            code = 0
        finally:
            os._exit(code)  # never this process's exit handlers, buffers or tests
    os.close(writer)
    return Background(work, child, reader)
