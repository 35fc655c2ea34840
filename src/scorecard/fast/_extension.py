"""The C extension ``scorecard.fast._fastscore``, or None: where it was not built, and wherever
``SCORECARD_ENGINE=python`` asks for the Python scorer alone.

This is the one place that imports the extension and the one place that reads the variable
(once, when this module is first imported; forked workers inherit the answer, started ones read
the same environment). Every use of the extension goes through :data:`extension`: the scorer
(``_fastpath``), :func:`count_newlines` (the engine's line reader) and the allocator settings
(``_memory``). So under the switch the extension is never even imported and a run is what it is
on a machine without a C compiler; the test suite runs whole that way too
(``docs/architecture.md``, "Both engines").
"""

from __future__ import annotations

import os

from scorecard.contract import ScorecardError

__all__ = [
    "ENGINES",
    "ENGINE_VARIABLE",
    "chosen_engine",
    "count_newlines",
    "engine_in_use",
    "extension",
]

ENGINE_VARIABLE = "SCORECARD_ENGINE"
"""The environment variable that chooses the engine."""
ENGINES = ("c", "python")
"""Its values: ``c`` (the default: the C fast path where the extension was built, Python for
every line it declines) and ``python`` (the Python general path for every line)."""


def chosen_engine(value: str | None) -> str:
    """The engine a value of :data:`ENGINE_VARIABLE` chooses (unset or empty: ``c``). Any other
    value is refused: a misspelt ``python`` must not quietly test the C engine."""
    if not value:
        return "c"
    if value not in ENGINES:
        raise ScorecardError(
            "names no engine: set it to 'python' (the Python scorer alone) "
            "or 'c' (the default: the C fast path where it was built), or leave it unset",
            rule="usage",
            source=ENGINE_VARIABLE,
        )
    return value


if chosen_engine(os.environ.get(ENGINE_VARIABLE)) == "c":
    try:
        from scorecard.fast import _fastscore as extension
    except ImportError:  # pragma: no cover - built by every install that has a C compiler
        extension = None  # type: ignore[assignment]
else:
    extension = None  # type: ignore[assignment]


def count_newlines(data: bytes, end: int) -> int:
    """How many lines end in ``data[:end]`` (in C when the extension is in use: several times
    faster than ``bytes.count``)."""
    if extension is not None:
        return extension.count_newlines(data, end)
    return data.count(b"\n", 0, end)


def engine_in_use() -> str:
    """``c`` when the C extension scores (the lines it accepts), ``python`` when it is off or
    was not built: what a receipt records (``docs/receipts.md``)."""
    return "python" if extension is None else "c"
