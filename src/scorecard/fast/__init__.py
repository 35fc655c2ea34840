"""What exists only for speed: the compiled scorer of plain JSON Lines blocks. It may decline any
line; declined lines are scored by :mod:`scorecard.core` in their place, with the same bytes.

Names load on first use (PEP 562): the allocator settings do not load the scorer.
``SCORECARD_ENGINE=python`` turns the C extension off for a whole process (:mod:`._extension`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorecard.contract import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "REPETITION_PLACEHOLDER": "_fastpath",
    "Counts": "_fastpath",
    "FastScorer": "_fastpath",
    "Piece": "_fastpath",
    "RecordPiece": "_fastpath",
    "RowPiece": "_fastpath",
    "fast_scorer": "_fastpath",
    "case_plans": "_plans",
    "count_newlines": "_extension",
    "engine_in_use": "_extension",
    "known_plans": "_plans",
    "number_records": "_fastpath",
    "reuse_freed_memory": "_memory",
}

__all__ = [
    "REPETITION_PLACEHOLDER",
    "Counts",
    "FastScorer",
    "Piece",
    "RecordPiece",
    "RowPiece",
    "case_plans",
    "count_newlines",
    "engine_in_use",
    "fast_scorer",
    "known_plans",
    "number_records",
    "reuse_freed_memory",
]

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, base=__name__)


if TYPE_CHECKING:
    from ._extension import count_newlines, engine_in_use
    from ._fastpath import (
        REPETITION_PLACEHOLDER,
        Counts,
        FastScorer,
        Piece,
        RecordPiece,
        RowPiece,
        fast_scorer,
        number_records,
    )
    from ._memory import reuse_freed_memory
    from ._plans import case_plans, known_plans
