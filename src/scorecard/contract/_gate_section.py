"""The ``gate`` section of a policy file: every key, what it may hold, and the field it sets.

The section is checked here, with the rest of the policy file, so that every entry point that
reads a policy file (``score``, ``explain``, ``compare``, ``plot``, ``gate``, ``report``,
``score-dask`` and :func:`scorecard.load_policy`) refuses exactly the same files. The gate
builds its :class:`~scorecard.gate.GateRules` from the checked values; the keys, defaults and
the reasons behind them are in ``docs/gate.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ._errors import PolicyError
from ._hints import close_field_name
from ._names import GATE_DIMENSIONS
from ._pointer import join
from ._problems import raise_policy_problems

__all__ = [
    "GATE_METRICS",
    "GATE_SAFETY_DIMENSIONS",
    "GateMetric",
    "gate_problems",
    "gate_settings",
]

GateMetric = Literal["mean_overall", "pass_rate", "gate_pass_rate"]
"""A metric whose paired drop the gate can compute, show and gate."""
GATE_METRICS: tuple[GateMetric, ...] = ("mean_overall", "pass_rate", "gate_pass_rate")
"""The metrics whose paired drop the gate can compute, show and gate."""
GATE_SAFETY_DIMENSIONS = (*GATE_DIMENSIONS, "audit")
"""What can fail the effective gate: the two gate dimensions, and the audit when it gates."""


def _choice(options: Sequence[str]) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value not in options:
            raise ValueError("must be one of " + ", ".join(options))
        return value

    return check


def _choices(options: Sequence[str]) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if not isinstance(value, list) or any(item not in options for item in value):
            raise ValueError("must be a list of " + ", ".join(options))
        if len(set(value)) != len(value):
            raise ValueError("lists an item twice")
        return tuple(item for item in options if item in value)

    return check


def _number(low: float, high: float | None, *, open_low: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("must be a number")
        bad_low = value <= low if open_low else value < low
        if not math.isfinite(value) or bad_low or (high is not None and value > high):
            bound = f"({low}" if open_low else f"[{low}"
            raise ValueError(f"must lie in {bound}, {'inf)' if high is None else f'{high}]'}")
        return float(value)

    return check


def _integer(low: int) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"must be an integer >= {low}")
        return value

    return check


def _flag(value: Any) -> Any:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _optional_fraction(value: Any) -> Any:
    return None if value is None else _number(0.0, 1.0, open_low=True)(value)


def _optional_days(value: Any) -> Any:
    return None if value is None else _integer(1)(value)


def _factor(value: Any) -> Any:
    return None if value is None else _number(1.0, None)(value)


#: Key path in the section -> (the :class:`~scorecard.gate.GateRules` field, its check).
GATE_KEYS: dict[tuple[str, ...], tuple[str, Callable[[Any], Any]]] = {
    ("safety", "mode"): ("safety_mode", _choice(("auto", "any", "new", "off"))),
    ("safety", "dimensions"): ("safety_dimensions", _choices(GATE_SAFETY_DIMENSIONS)),
    ("safety", "allowedNew"): ("allowed_new_failures", _integer(0)),
    ("drop", "metrics"): ("drop_metrics", _choices(GATE_METRICS)),
    ("drop", "shown"): ("shown_metrics", _choices(GATE_METRICS)),
    ("drop", "tolerance"): ("tolerance", _number(0.0, 1.0)),
    ("drop", "alpha"): ("alpha", _number(0.0, 1.0, open_low=True)),
    ("drop", "statistic"): ("statistic", _choice(("both", "score", "dimensions"))),
    ("drop", "confidence"): ("confidence", _number(0.5, 0.999)),
    ("drop", "resamples"): ("resamples", _integer(100)),
    ("drop", "minPairedCases"): ("min_paired_cases", _integer(1)),
    ("drop", "minCoverage"): ("min_coverage", _number(0.0, 1.0)),
    ("drop", "maxDetectableDrop"): ("max_detectable_drop", _optional_fraction),
    ("drop", "nonInferiority"): ("non_inferiority", _flag),
    ("drop", "pooled"): ("pooled", _flag),
    ("infrastructure", "maxShare"): ("max_infrastructure_share", _number(0.0, 1.0)),
    ("latency", "factor"): ("latency_factor", _factor),
    ("cost", "factor"): ("cost_factor", _factor),
    ("audit", "mode"): ("audit_mode", _choice(("off", "advisory", "any", "new"))),
    ("case", "historyNights"): ("case_history", _integer(0)),
    ("drift", "nights"): ("drift_nights", _integer(0)),
    ("dimension", "tolerance"): ("dimension_tolerance", _optional_fraction),
    ("baseline", "maxAgeDays"): ("baseline_age_days", _optional_days),
    ("failOnInconclusive",): ("fail_on_inconclusive", _flag),
}
_SECTIONS = {path[0] for path in GATE_KEYS if len(path) == 2}


def gate_settings(
    section: Any, *, source: str | None = None, lines: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """The checked values of a policy file's ``gate`` mapping, by ``GateRules`` field name
    (empty when the section is absent).

    Unknown keys (with the known key most likely meant) and bad values raise a
    :class:`PolicyError` with the JSON Pointer of the value (``/gate/...``) and, when ``lines``
    (pointer -> line) is given, its line; several problems, all of them at once
    (:class:`~scorecard.contract.PolicyErrors`).
    """
    problems: list[PolicyError] = []
    values = gate_problems(section, source=source, lines=lines or {}, problems=problems)
    raise_policy_problems(problems)
    return values


def gate_problems(
    section: Any, *, source: str | None, lines: Mapping[str, int], problems: list[PolicyError]
) -> dict[str, Any]:
    """:func:`gate_settings` that adds each problem to ``problems`` instead of raising: the
    values of the settings that are right."""

    def bad(message: str, pointer: str, rule: str) -> None:
        problems.append(
            PolicyError(message, rule=rule, pointer=pointer, source=source, line=lines.get(pointer))
        )

    if section is None:
        return {}
    if not isinstance(section, Mapping):
        bad("gate must be a mapping of rule settings", "/gate", "gate_policy_shape")
        return {}
    values: dict[str, Any] = {}
    for key, value in section.items():
        pointer = "/gate" + join(str(key))
        entries: list[tuple[tuple[str, ...], Any]] = [((key,), value)]
        if key in _SECTIONS:
            if not isinstance(value, Mapping):
                bad("must be a mapping", pointer, "gate_policy_shape")
                continue
            entries = [((key, inner), item) for inner, item in value.items()]
        for path, item in entries:
            pointer = "/gate" + join(*(str(part) for part in path))
            if path not in GATE_KEYS:
                bad(_unknown_setting(path), pointer, "gate_policy_unknown_key")
                continue
            name, check = GATE_KEYS[path]
            try:
                values[name] = check(item)
            except ValueError as error:
                bad(str(error), pointer, "gate_policy_value")
    return values


def _unknown_setting(path: tuple[str, ...]) -> str:
    """What an unknown gate key is told: the known key it most likely meant (within its
    section, or among sections and top-level keys), else every known key."""
    known = sorted("/".join(known_path) for known_path in GATE_KEYS)
    if len(path) == 2:
        inner = [known_path[1] for known_path in GATE_KEYS if known_path[0] == path[0]]
        close = close_field_name(str(path[1]), inner)
        if close is not None:
            return f"unknown gate setting; did you mean {path[0]}/{close}?"
    else:
        heads = sorted({known_path[0] for known_path in GATE_KEYS})
        close = close_field_name(str(path[0]), heads)
        if close is not None:
            return f"unknown gate setting; did you mean {close}?"
    return "unknown gate setting; expected one of " + ", ".join(known)
