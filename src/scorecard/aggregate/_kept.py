"""Results of the costly resampling statistics kept by the bytes of their inputs.

The report site asks the same questions of several analyses: its own (every pair of bundles)
and the gate's on each pair (what ``scorecard gate`` computes). Their frames differ, their
comparisons of one candidate's mean overall do not: the same case differences, seed and stream
key. The statistics are pure functions of those, so a result computed once is the result; it
is kept for the process's later questions (a bounded number of the latest, copied out so no
caller can change a kept one).
"""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, ParamSpec, TypeVar

import numpy as np

__all__ = ["array_key", "kept_by_inputs"]

_Parameters = ParamSpec("_Parameters")
_Result = TypeVar("_Result")

#: Results kept per function (the latest asked): a campaign's report asks a few hundred.
KEPT = 1024


def array_key(values: Any) -> tuple[Hashable, ...]:
    """An array's exact identity as float64: its shape and a 256-bit digest of every bit of its
    values (not the bytes themselves: a kept key of a night of 50,000 runs would hold megabytes,
    and a campaign's report keeps hundreds)."""
    array = np.ascontiguousarray(values, dtype=np.float64)
    return (array.shape, hashlib.blake2b(array.tobytes(), digest_size=32).digest())


def _copied(result: Any) -> Any:
    if isinstance(result, np.ndarray):
        return result.copy()
    if isinstance(result, tuple):
        return tuple(_copied(item) for item in result)
    return result


def kept_by_inputs(
    key: Callable[_Parameters, Hashable],
) -> Callable[[Callable[_Parameters, _Result]], Callable[_Parameters, _Result]]:
    """Keep the decorated pure function's results by ``key`` of its arguments, which must name
    everything the result depends on."""

    def decorate(function: Callable[_Parameters, _Result]) -> Callable[_Parameters, _Result]:
        kept: OrderedDict[Hashable, _Result] = OrderedDict()

        @functools.wraps(function)
        def remembered(*args: _Parameters.args, **kwargs: _Parameters.kwargs) -> _Result:
            identity = key(*args, **kwargs)
            if identity in kept:
                kept.move_to_end(identity)
            else:
                kept[identity] = function(*args, **kwargs)
                if len(kept) > KEPT:
                    kept.popitem(last=False)
            return _copied(kept[identity])  # type: ignore[no-any-return]

        return remembered

    return decorate
