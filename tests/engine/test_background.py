"""Work in the background (:func:`scorecard.engine.in_background`): done on a forked child where
the platform forks, and the same answer here whenever the child gives none."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from scorecard.engine import in_background

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")


@linux_only
def test_the_work_is_done_on_another_process_and_its_result_comes_back() -> None:
    """The child's pid, which only the child knows, comes back as the result."""
    parent = os.getpid()

    def where() -> tuple[int, list[int]]:
        return os.getpid(), list(range(100_000))

    child, numbers = in_background(where).result()

    assert child != parent
    assert numbers == list(range(100_000))  # larger than a pipe's buffer


@linux_only
def test_the_child_sees_this_process_as_it_was_at_the_fork() -> None:
    """What this process changes after the fork does not reach the child."""
    state = {"value": 1}
    started = in_background(lambda: state["value"])
    state["value"] = 2

    assert started.result() == 1


def test_an_exception_of_the_work_is_raised_when_the_result_is_asked_for() -> None:
    """The child fails; the work is done here and raises here, as it would have without a
    background."""

    def fails() -> int:
        raise ValueError("no such plot")

    started = in_background(fails)

    with pytest.raises(ValueError, match="no such plot"):
        started.result()


def test_a_result_that_does_not_pickle_is_computed_here() -> None:
    """A function returned cannot travel through the pipe; the result is then this process's."""
    parent = os.getpid()

    def made() -> Callable[[], int]:
        here = os.getpid()
        return lambda: here

    assert in_background(made).result()() == parent


@linux_only
def test_cancel_ends_a_child_still_working(tmp_path: Path) -> None:
    """A cancelled child is killed and reaped at once, not waited for."""
    named = tmp_path / "pid"

    def sleeps() -> None:
        named.write_text(str(os.getpid()))
        time.sleep(60)

    started = in_background(sleeps)
    while not named.exists() or not named.read_text():
        time.sleep(0.01)
    began = time.monotonic()

    started.cancel()

    assert time.monotonic() - began < 10
    with pytest.raises(ProcessLookupError):  # killed, and reaped: no such process any more
        os.kill(int(named.read_text()), 0)


@linux_only
def test_a_process_forked_later_works_the_result_out_itself() -> None:
    """A background started here and asked for in another child forked since: that process
    computes the work itself (the child is not its own, the pipe not its to read), and the
    result still comes back here whole."""
    started = in_background(lambda: ("from the first child", os.getpid()))
    asked = in_background(lambda: (started.result(), os.getpid()))
    (said, computed_by), asker = asked.result()
    assert said == "from the first child"
    assert computed_by == asker  # the later child did the work itself
    text, child = started.result()
    assert text == "from the first child"
    assert child not in (os.getpid(), asker)
