"""Seeded randomness shared by the simulator: seeds derived from text, and the common draws.

Every ``random.Random`` of a campaign is seeded by :func:`derive_seed`, so a campaign depends on
its seed alone (never on ``hash()``, the clock or the platform).
"""

from __future__ import annotations

import hashlib
import random


def derive_seed(*parts: object) -> int:
    """A 32-bit seed from the parts' text, stable across runs, platforms and PYTHONHASHSEED."""
    text = "/".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def random_hex(rng: random.Random, digits: int) -> str:
    """``digits`` random lowercase hex digits (for run, session and receipt identifiers)."""
    return f"{rng.getrandbits(4 * digits):0{digits}x}"


def usage_spread(rng: random.Random) -> float:
    """A right-skewed factor with mean 1 (0.7 to 1.6): run-to-run variation of usage."""
    return rng.triangular(0.7, 1.6, 0.7)


def chance(rng: random.Random, probability: float) -> bool:
    """True with the given probability."""
    return rng.random() < probability
