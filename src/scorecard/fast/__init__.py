"""What exists only for speed: the compiled scorer of plain JSON Lines blocks. It may decline any
line; declined lines are scored by :mod:`scorecard.core` in their place, with the same bytes.
"""

from ._fastpath import Counts, FastScorer, Piece, RowPiece, fast_scorer

__all__ = [
    "Counts",
    "FastScorer",
    "Piece",
    "RowPiece",
    "fast_scorer",
]
