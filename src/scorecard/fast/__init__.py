"""What exists only for speed: the compiled scorer of plain JSON Lines blocks. It may decline any
line; declined lines are scored by :mod:`scorecard.core` in their place, with the same bytes.
"""

from ._fastpath import FastScorer, Piece, fast_scorer

__all__ = [
    "FastScorer",
    "Piece",
    "fast_scorer",
]
