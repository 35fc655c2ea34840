"""Worker lifetime: workers never outlive the run that started them.

Workers (forked or spawned by :mod:`scorecard.engine._pool`) ignore SIGINT (the main
process decides; see :mod:`scorecard.contract._stops`), die with the main process
(``PR_SET_PDEATHSIG`` on Linux; elsewhere, and as a fallback, a thread that watches the
parent's pid), a pool cut short has its workers killed (:func:`end_pool`, in a ``finally``), and
:func:`end_workers` ends every pool still alive, which the command line calls before it exits,
however it exits.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

__all__ = ["end_pool", "end_workers", "start_worker_lifetime", "track_pool"]

_pools: set[ProcessPoolExecutor] = set()


def _forget_pools() -> None:
    _pools.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)

_PR_SET_PDEATHSIG = 1
WATCH_SECONDS = 0.25
"""How often a worker checks, as a fallback, that its parent is alive."""


def _die_with_parent() -> bool:
    """Ask Linux to kill this process when its parent dies; whether it was arranged."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        # The symbols already loaded (the C library's among them): ``find_library`` would run
        # ``ldconfig -p`` in every worker as it starts, a process of its own each time.
        loaded = ctypes.CDLL(None, use_errno=True)
        return bool(loaded.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)  # the run is gone: nothing to hand results to
        time.sleep(WATCH_SECONDS)


def start_worker_lifetime(parent: int) -> None:
    """In a worker: ignore SIGINT, end with the process ``parent`` (the run's main process)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    if os.getppid() != parent:  # died before the request was in place
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="parent-watch", daemon=True).start()


def track_pool(pool: ProcessPoolExecutor) -> None:
    """Remember a live pool, for :func:`end_workers`."""
    _pools.add(pool)


def end_pool(pool: ProcessPoolExecutor, *, finished: bool) -> None:
    """Shut a pool down: wait for a finished one, kill the workers of one cut short."""
    _pools.discard(pool)
    if finished:
        pool.shutdown(wait=True)
        return
    # The pool's own table of workers (shutdown drops the pool's reference, not the table): a
    # submission racing the kill can still start a worker, so the table is read again after the
    # shutdown, which stops any more from starting.
    # The pool's manager thread also reaps the workers it sees die; a join racing it can return
    # with the worker's exit not yet recorded, so the thread is waited for too (shutdown drops
    # the pool's reference to it).
    processes: dict[Any, Any] = getattr(pool, "_processes", None) or {}
    manager = getattr(pool, "_executor_manager_thread", None)
    results = getattr(pool, "_result_queue", None)  # shutdown drops the pool's reference
    for worker in list(processes.values()):
        with contextlib.suppress(Exception):
            worker.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in list(processes.values()):
        with contextlib.suppress(Exception):
            worker.kill()
            worker.join(timeout=5)
    # A worker killed while it wrote a result leaves part of a message in the result pipe, and
    # the manager thread blocks reading the rest. With every worker gone, this process holds the
    # pipe's last write end: closing it ends that read (EOF), the thread sees a broken pool and
    # ends, and the interpreter's exit, which joins it, does not hang.
    writer = getattr(results, "_writer", None)
    if writer is not None:
        with contextlib.suppress(Exception):
            writer.close()
    if manager is not None:
        manager.join(timeout=5)


def end_workers() -> None:
    """Kill the workers of every pool still alive (before the process exits)."""
    for pool in list(_pools):
        end_pool(pool, finished=False)
