"""Output lines of scored records, assembled from the scorecard's known shape.

:func:`scorecard.contract.js_json` is general: it walks any value to respell its numbers as
JavaScript does, then serialises it. A scorecard has a fixed shape and a handful of numbers, so
its line is put together from cached pieces instead, at a fraction of the cost.
``tests/core/test_lines.py`` checks every line equals ``js_json`` of the same data, byte for byte.
"""

from __future__ import annotations

import re
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from scorecard.contract import format_js_number, js_json, js_string, redact

if TYPE_CHECKING:
    from scorecard.contract import DimensionDict, ScorecardDict

__all__ = [
    "dimension_json",
    "json_scalar",
    "json_string",
    "reason_json",
    "scorecard_line",
]

_SAFE = 2**53
_SURROGATE = re.compile("[\ud800-\udfff]")
_FLOATS: dict[float, str] = {}
_STRINGS: dict[str, str] = {}
_DIMENSION_HEADS: dict[tuple[Any, ...], str] = {}
_REASONS: dict[str, str] = {}
_CACHE_LIMIT = 4096


def _remember(cache: dict[Any, str], key: Any, text: str) -> str:
    """Keep ``text`` under ``key``; a full cache starts over (bounded memory, no bookkeeping)."""
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = text
    return text


def json_string(text: str) -> str:
    """``text`` quoted as ``JSON.stringify`` quotes it."""
    cached = _STRINGS.get(text)
    if cached is not None:
        return cached
    if text.isascii() or not _SURROGATE.search(text):
        quoted = encode_basestring(text)
    else:
        quoted = js_string(text)
    # Ids, statuses and dimension names repeat on every line; free text mostly does not.
    return _remember(_STRINGS, text, quoted) if len(text) <= 64 else quoted


def reason_json(text: str) -> str:
    """A reason redacted and quoted (cached: reasons repeat from run to run)."""
    cached = _REASONS.get(text)
    if cached is not None:
        return cached
    quoted = json_string(redact(text))
    return _remember(_REASONS, text, quoted) if len(text) <= 256 else quoted


def _float(value: float) -> str:
    cached = _FLOATS.get(value)
    # -0.0 and 0.0 share an entry: both are "0".
    return cached if cached is not None else _remember(_FLOATS, value, format_js_number(value))


def json_scalar(value: Any) -> str:
    """A JSON scalar as ``JSON.stringify`` spells it; containers take the general path."""
    kind = type(value)
    if kind is str:
        return json_string(value)
    if kind is float:
        return _float(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value) if -_SAFE <= value <= _SAFE else format_js_number(value)
    if value is None:
        return "null"
    return js_json(value)


def _dimension_head(name: str, dimension: DimensionDict) -> str:
    """Everything of one dimension entry before its reasons (cached: a few dozen distinct)."""
    key = (
        name,
        dimension["dimension"],
        dimension["score"],
        dimension["passed"],
        dimension["gate"],
        dimension["weight"],
    )
    head = _DIMENSION_HEADS.get(key)
    if head is not None:
        return head
    return _remember(
        _DIMENSION_HEADS,
        key,
        f'{json_string(name)}:{{"dimension":{json_string(dimension["dimension"])},'
        f'"score":{json_scalar(dimension["score"])},'
        f'"passed":{json_scalar(dimension["passed"])},'
        f'"gate":{json_scalar(dimension["gate"])},'
        f'"weight":{json_scalar(dimension["weight"])},"reasons":[',
    )


def dimension_json(name: str, dimension: DimensionDict) -> str:
    """One ``"name":{...}`` entry of a scorecard's dimensions, reasons redacted."""
    reasons = ",".join([reason_json(reason) for reason in dimension["reasons"]])
    return f"{_dimension_head(name, dimension)}{reasons}]}}"


def scorecard_line(card: ScorecardDict) -> str:
    """The v2 scorecard as one JSON line (reasons redacted), equal to ``js_json`` of it.

    ``card`` must hold the types :class:`~scorecard.contract.ScorecardDict` declares (booleans only
    in ``passed`` and ``gate``): the cache of dimension heads relies on it, since ``True == 1``.
    """
    overall = card["overall"]
    dimensions = ",".join(
        dimension_json(name, dimension) for name, dimension in card["dimensions"].items()
    )
    return (
        f'{{"schema":{json_string(card["schema"])},"bundleId":{json_string(card["bundleId"])},'
        f'"caseId":{json_string(card["caseId"])},'
        f'"candidateId":{json_string(card["candidateId"])},'
        f'"classification":{json_string(card["classification"])},"dimensions":{{{dimensions}}},'
        f'"overall":{{"score":{json_scalar(overall["score"])},'
        f'"gatePassed":{json_scalar(overall["gatePassed"])},'
        f'"passed":{json_scalar(overall["passed"])}}}}}'
    )
