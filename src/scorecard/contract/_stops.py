"""Stop requests (SIGINT, SIGTERM): never lost, never cutting two steps that belong together.

A stop request raises :class:`Stopped` (a :class:`KeyboardInterrupt`, so no ``except
Exception`` catches it) in the main thread and is remembered. Python can swallow an exception
raised in a finaliser or an at-fork hook (``Exception ignored in ...``), so the remembered request
is checked again wherever an output would be committed (:func:`raise_if_stopped`): a stopped run
never replaces an output, whatever swallowed the first raise. Code that must not be cut between
two steps (creating a temporary file and taking charge of removing it) runs in
:func:`stops_deferred`. A process forked by one that handles stops ignores SIGINT (the main
process decides) and dies of SIGTERM. Only the command line installs the handlers; this module
is light, so it may (``--help`` stays fast).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = [
    "Stopped",
    "install_stop_handlers",
    "raise_if_stopped",
    "stop_requested",
    "stops_deferred",
]

_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(KeyboardInterrupt):
    """The process was asked to stop (SIGINT or SIGTERM); ``signal`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signal = signum


_requested: int | None = None
_deferred = 0
_installed = False


def _on_stop(signum: int, _frame: FrameType | None) -> None:
    global _requested
    if _requested is None:
        _requested = signum
    if _deferred == 0:
        raise Stopped(signum)


def install_stop_handlers() -> None:
    """Make SIGINT and SIGTERM raise :class:`Stopped` in this (main) process and remember it."""
    global _installed
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _STOP_SIGNALS:
        signal.signal(signum, _on_stop)
    _installed = True


def stop_requested() -> int | None:
    """The signal that asked this process to stop, or None."""
    return _requested


def raise_if_stopped() -> None:
    """Raise :class:`Stopped` when a stop was requested, even if its first raise was swallowed."""
    if _requested is not None:
        raise Stopped(_requested)


@contextlib.contextmanager
def stops_deferred() -> Iterator[None]:
    """Hold a stop that arrives inside the block until its end (then it is raised)."""
    global _deferred
    _deferred += 1
    try:
        yield
    finally:
        _deferred -= 1
    if _deferred == 0:
        raise_if_stopped()


def _in_child_after_fork() -> None:
    global _requested, _deferred, _installed
    if _installed:  # a child of the command line: the main process alone handles stops
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _requested, _deferred, _installed = None, 0, False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_in_child_after_fork)
