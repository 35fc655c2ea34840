"""A stop request is remembered: swallowed once, it still keeps a run from committing an output."""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

import pytest

from scorecard.contract import Stopped, _stops, raise_if_stopped, stop_requested, stops_deferred
from scorecard.engine import atomic_writer


@pytest.fixture(autouse=True)
def _no_stop_afterwards(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_stops, "_requested", None)
    monkeypatch.setattr(_stops, "_deferred", 0)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_swallowed_stop_still_keeps_the_previous_output(tmp_path: Path, signum: int) -> None:
    """The handler's raise is swallowed (as in a finaliser); the commit raises it again and the
    previous file keeps its bytes, with no temporary file left."""
    target = tmp_path / "out.jsonl"
    target.write_text("previous\n")

    def write_with_a_swallowed_stop() -> None:
        with atomic_writer(target) as stream:
            stream.write("new\n")
            with contextlib.suppress(Stopped):  # what "Exception ignored in ..." does to it
                _stops._on_stop(signum, None)
            stream.write("more\n")

    with pytest.raises(Stopped) as stopped:
        write_with_a_swallowed_stop()
    assert stopped.value.signal == signum
    assert stop_requested() == signum
    assert target.read_text() == "previous\n"
    assert [path.name for path in tmp_path.iterdir()] == ["out.jsonl"]


def test_a_stop_inside_a_deferred_block_is_raised_at_its_end() -> None:
    """Inside ``stops_deferred`` the handler only remembers; the block's end raises."""
    steps = []

    def deferred() -> None:
        with stops_deferred():
            _stops._on_stop(signal.SIGTERM, None)
            steps.append("after the signal")
        steps.append("never")

    with pytest.raises(Stopped):
        deferred()
    assert steps == ["after the signal"]
    with pytest.raises(Stopped):
        raise_if_stopped()
