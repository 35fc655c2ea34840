"""What the tests of runs kept elsewhere (by scoring workers, by a store's workers) check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scorecard.report import PackedRecord


def assert_kept_as_here(here: Sequence[Any], kept: Sequence[Any]) -> None:
    """``kept`` (what workers kept, numbered here) is ``here`` (what ``keep_for_site`` keeps
    of each numbered record in this process), run by run: facts, row, change values and
    documents (by ``repr``: kinds and signs too), some runs detailed and some not; and what
    came from the workers shares its names and repeated values here, as runs kept here do."""
    assert len(kept) == len(here) > 0
    detailed = 0
    for mine, theirs in zip(here, kept, strict=True):
        assert isinstance(mine, PackedRecord)
        assert isinstance(theirs, PackedRecord)
        assert repr(theirs.facts) == repr(mine.facts)
        assert repr(theirs.row) == repr(mine.row)
        assert theirs.changes == mine.changes
        assert theirs.source == mine.source
        if mine.packed is None:
            assert theirs.packed is None
            continue
        detailed += 1
        assert theirs.packed is not None
        assert theirs.record() == mine.record()
        assert theirs.record().repetition == mine.facts.repetition
    assert 0 < detailed < len(here)
    names: dict[str, int] = {}
    values: dict[Any, int] = {}
    for item in kept:
        for name in (item.facts.candidate, item.facts.case, item.row[0]):
            assert names.setdefault(name, id(name)) == id(name)
        assert values.setdefault(item.facts.scores, id(item.facts.scores)) == id(item.facts.scores)
        assert item.changes is not None
        assert values.setdefault(item.changes, id(item.changes)) == id(item.changes)
