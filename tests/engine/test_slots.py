"""Output text that comes back from a pool's workers through shared memory is the text they
scored, whether it fits in its slot or not."""

from __future__ import annotations

import contextlib
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError
from scorecard.contract._policy import Policy
from scorecard.engine import _pool
from scorecard.engine._parallel import score_text
from scorecard.engine._pipeline import RunSummary, score_paths_serially
from scorecard.engine._slots import InSlot, OutputSlots
from tests.conftest import ROOT
from tests.engine.test_parallel import lines_of

FORKS = "fork" in multiprocessing.get_all_start_methods()


def test_text_written_into_a_slot_reads_back_as_it_was() -> None:
    """Pieces of any text (multi-byte characters included) come back equal, in order, with the
    errors between them untouched and in their places."""
    slots = OutputSlots(3, 64)
    error = InputError("bad", rule="bad_json", source="a.jsonl", line=2)
    items: list[Any] = ["ab\n", error, "é✓\U0001f600\n", "", "z\n"]
    try:
        written = slots.written(items, 1)
        assert [type(item) for item in written] == [InSlot, InputError, InSlot, str, InSlot]
        assert all(64 <= item.start < 128 for item in written if isinstance(item, InSlot))
        assert slots.read(written) == items
        assert written[1] is error
    finally:
        slots.close()


def test_text_past_a_slots_end_stays_as_text() -> None:
    """What does not fit in its slot stays in the result (the pipe carries it); what does
    fit is still written. Nothing is written into the next slot."""
    slots = OutputSlots(2, 10)
    try:
        written = slots.written(["12345\n", "1234567890\n", "abc\n"], 0)
        assert written[0] == InSlot(0, 6)
        assert written[1] == "1234567890\n"
        assert written[2] == InSlot(6, 4)
        assert slots.memory[10:20] == bytes(10)
        assert slots.read(written) == ["12345\n", "1234567890\n", "abc\n"]
    finally:
        slots.close()


def test_text_that_cannot_be_encoded_travels_as_it_is() -> None:
    """A lone surrogate is not UTF-8: the piece is left to the pipe (and to the writer, which
    refuses it as it would without slots), not dropped."""
    slots = OutputSlots(1, 64)
    try:
        assert slots.written(["\ud800\n"], 0) == ["\ud800\n"]
    finally:
        slots.close()


class _Interrupted(Exception):
    """Stands for a stop (a signal's exception) that arrives while a piece is read back."""


class _StoppedMidRead:
    """A slotted item whose reading back is cut short: the exception leaves with the piece's
    view in its frames, as a stop's does."""

    def write_into(self, memory: memoryview) -> int | None:
        memory[:3] = b"abc"
        return 3

    @classmethod
    def read_from(cls, memory: memoryview) -> Any:
        raise _Interrupted


def test_a_read_cut_short_leaves_the_memory_to_be_unmapped() -> None:
    """The stopped read's exception (traceback and all, as a caller still handling it holds it)
    keeps no view of the mapping: closing unmaps it."""
    slots = OutputSlots(2, 64)
    written = slots.written([_StoppedMidRead()], 0)
    with pytest.raises(_Interrupted) as stopped:
        slots.read(written)
    assert stopped.traceback  # the frames the piece was read in are still alive here
    slots.close()
    assert slots.memory.closed


def test_slots_are_handed_out_once_until_given_back() -> None:
    """No two chunks in flight share a slot; when all are out, a chunk takes the pipe."""
    slots = OutputSlots(2, 8)
    try:
        first, second = slots.take(), slots.take()
        assert {first, second} == {0, 1}
        assert slots.take() is None
        assert second is not None
        slots.give_back(second)
        assert slots.take() == second
    finally:
        slots.close()


def _bad_lines_file(tmp_path: Path) -> Path:
    """One bundle's observations with errors between them: not JSON, not an observation."""
    bundle = tmp_path / "2026-11-01-nightly"
    bundle.mkdir()
    source = ROOT / "observations" / "2026-11-01-nightly"
    (bundle / "bundle.json").write_bytes((source / "bundle.json").read_bytes())
    lines = (source / "observations.jsonl").read_bytes().splitlines()
    mixed = [*lines[:40], b"{not json", *lines[40:90], b'{"schema": 1}', *lines[90:]]
    (bundle / "observations.jsonl").write_bytes(b"\n".join(mixed) + b"\n")
    return tmp_path


@pytest.mark.skipif(not FORKS, reason="slots are used by forked workers only")
@pytest.mark.parametrize("size", [1 << 20, 20_000, 10])
def test_a_pool_through_slots_writes_what_the_serial_run_does(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    """Two workers, their text through slots that hold all of it, part of it, or none of it
    (the rest through the pipe), give the serial run's lines, errors and counts, in order."""
    root = _bad_lines_file(tmp_path)
    monkeypatch.setattr(_pool, "slot_bytes", lambda chunk_bytes: size)
    through: list[int] = []
    read = OutputSlots.read

    def counted(self: OutputSlots, items: list[Any]) -> list[Any]:
        through.append(sum(isinstance(item, InSlot) for item in items))
        return read(self, items)

    monkeypatch.setattr(OutputSlots, "read", counted)
    serial_summary = RunSummary()
    serial = [
        result if isinstance(result, InputError) else result.render("jsonl")
        for result in score_paths_serially([str(root)], catalog=catalog, summary=serial_summary)
    ]
    summary = RunSummary()
    run = score_text(
        [str(root)],
        catalog=catalog,
        policy=Policy(),
        workers=2,
        summary=summary,
        chunk_bytes=30_000,
    )
    with contextlib.closing(run):  # a failed assertion inside still ends the pool
        lines = [
            (item.source, item.line, item.rule, item.pointer)
            if isinstance(item, InputError)
            else item
            for item in lines_of(run)
        ]
    assert lines == [
        (item.source, item.line, item.rule, item.pointer) if isinstance(item, InputError) else item
        for item in serial
    ]
    assert [item[1:3] for item in lines if isinstance(item, tuple)] == [
        (41, "malformed_json"),
        (92, "unsupported_schema"),
    ]
    assert summary == serial_summary
    assert len(through) > 1  # every chunk was given a slot
    if size == 10:  # no line fits: all of it came through the pipe
        assert sum(through) == 0
    else:
        assert sum(through) > 0
