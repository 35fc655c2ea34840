"""Gate rule settings: :class:`GateRules`, and a gate policy file's sections made into them.

::

    gate_policy(text, source=...) -> (Policy | None, GateRules)   a whole policy file
    gate_rules(section, source=..., lines=...) -> GateRules       its ``gate`` mapping

Every key is optional; unknown keys and bad values raise a :class:`PolicyError` located by JSON
Pointer (and line, when known). The keys, defaults and the reasons behind them are in
``docs/gate.md``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scorecard.aggregate import ComparisonSettings, DropStatistic
from scorecard.contract import GATE_DIMENSIONS, Policy, PolicyError, parse_policy_file

__all__ = [
    "DROP_STATISTIC_LABELS",
    "METRICS",
    "METRIC_LABELS",
    "SAFETY_DIMENSIONS",
    "AuditMode",
    "GateRules",
    "Metric",
    "SafetyMode",
    "gate_policy",
    "gate_rules",
]

Metric = Literal["mean_overall", "pass_rate", "gate_pass_rate"]
SafetyMode = Literal["auto", "any", "new", "off"]
AuditMode = Literal["off", "advisory", "any", "new"]

METRICS: tuple[Metric, ...] = ("mean_overall", "pass_rate", "gate_pass_rate")
METRIC_LABELS = {
    "mean_overall": "mean overall",
    "pass_rate": "pass rate",
    "gate_pass_rate": "gate-pass rate",
}
#: What mean overall's drop test reads, as reports say it (``GateRules.statistic``).
DROP_STATISTIC_LABELS = {
    "both": "overall scores and dimensions passed",
    "score": "overall scores",
    "dimensions": "dimensions passed",
}
#: What can fail the effective gate: the two gate dimensions, and the audit when it gates.
SAFETY_DIMENSIONS = (*GATE_DIMENSIONS, "audit")


@dataclass(frozen=True)
class GateRules:
    """Every setting a verdict depends on besides the data and the seed (``docs/gate.md``)."""

    safety_mode: SafetyMode = "auto"
    """``any``: every gate failure fails; ``new``: only failures new relative to the baseline;
    ``auto``: ``any`` without a baseline, ``new`` with one; ``off``."""
    safety_dimensions: tuple[str, ...] = ("hard_invariants", "audit")
    """What ``new`` mode counts: gate dimensions, and ``audit`` for the audit gate."""
    allowed_new_failures: int = 1
    """New failures per candidate and dimension tolerated (shown as warnings) in ``new`` mode."""
    drop_metrics: tuple[Metric, ...] = ("mean_overall",)
    """Metrics whose paired drop against the baseline is gated (one Holm family over the
    candidates x these metrics); empty turns the rule off. Every metric's drop is shown."""
    shown_metrics: tuple[Metric, ...] = METRICS
    """Metrics whose paired drop is computed and shown (the gated ones always are)."""
    tolerance: float = 0.05
    """Drops within this (score or rate units) do not count."""
    alpha: float = 0.01
    """Family-wise level of the one-sided drop tests (their Holm-adjusted p must be below it):
    a nightly gate is wrong on about one healthy night in a hundred (``docs/gate.md``)."""
    statistic: DropStatistic = "both"
    """What mean overall's drop test reads of each run: its overall score and dimensions passed
    (``both``, min-p), or ``score`` or ``dimensions`` alone."""
    confidence: float = 0.95
    """Confidence level of every interval."""
    resamples: int = 10_000
    """Paired bootstrap resamples."""
    min_paired_cases: int = 6
    """Fewer paired cases make a comparison inconclusive."""
    min_coverage: float = 0.5
    """A smaller share of paired cases makes a comparison inconclusive."""
    max_detectable_drop: float | None = None
    """A gated comparison whose minimum detectable drop exceeds this is too weak to judge
    (inconclusive); None: the baseline's paired level (it could not see a drop to zero)."""
    non_inferiority: bool = False
    """Require the interval to rule out a drop beyond the tolerance (else inconclusive)."""
    pooled: bool = True
    """Also compare all candidates together, paired by (candidate, case)."""
    max_infrastructure_share: float = 0.25
    """A larger share of infrastructure failures (a candidate's or the bundle's) is
    inconclusive."""
    latency_factor: float | None = None
    """Fail when p95 settlement latency exceeds this multiple of the baseline's; None: off."""
    cost_factor: float | None = None
    """Fail when p95 cost exceeds this multiple of the baseline's; None: off."""
    audit_mode: AuditMode = "advisory"
    """Failed audit findings: ``advisory`` (shown), ``any`` / ``new`` (fail), ``off``."""
    fail_on_inconclusive: bool = False
    """Ask the CLI to treat an inconclusive verdict as a failure."""

    def settings(self, seed: int) -> ComparisonSettings:
        """The paired-comparison settings these rules imply."""
        return ComparisonSettings(
            seed=seed,
            tolerance=self.tolerance,
            confidence=self.confidence,
            drop_alpha=self.alpha,
            drop_statistic=self.statistic,
            resamples=self.resamples,
            min_paired_cases=self.min_paired_cases,
            min_coverage=self.min_coverage,
        )

    def to_json(self) -> dict[str, Any]:
        """The rules as a JSON-ready mapping (field names)."""
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------------------------
# The policy file's ``gate`` section


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


def _factor(value: Any) -> Any:
    return None if value is None else _number(1.0, None)(value)


_GATE_KEYS: dict[tuple[str, ...], tuple[str, Callable[[Any], Any]]] = {
    ("safety", "mode"): ("safety_mode", _choice(("auto", "any", "new", "off"))),
    ("safety", "dimensions"): ("safety_dimensions", _choices(SAFETY_DIMENSIONS)),
    ("safety", "allowedNew"): ("allowed_new_failures", _integer(0)),
    ("drop", "metrics"): ("drop_metrics", _choices(METRICS)),
    ("drop", "shown"): ("shown_metrics", _choices(METRICS)),
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
    ("failOnInconclusive",): ("fail_on_inconclusive", _flag),
}
_SECTIONS = {path[0] for path in _GATE_KEYS if len(path) == 2}


def gate_rules(
    section: Any, *, source: str | None = None, lines: Mapping[str, int] | None = None
) -> GateRules:
    """:class:`GateRules` from a policy file's ``gate`` mapping (keys in ``docs/gate.md``).

    Unknown keys and bad values raise a :class:`PolicyError` with the JSON Pointer of the value
    (``/gate/...``) and, when ``lines`` (pointer -> line) is given, its line.
    """
    lines = lines or {}

    def bad(message: str, pointer: str, rule: str) -> PolicyError:
        return PolicyError(
            message, rule=rule, pointer=pointer, source=source, line=lines.get(pointer)
        )

    if section is None:
        return GateRules()
    if not isinstance(section, Mapping):
        raise bad("gate must be a mapping of rule settings", "/gate", "gate_policy_shape")
    values: dict[str, Any] = {}
    for key, value in section.items():
        pointer = f"/gate/{key}"
        entries: list[tuple[tuple[str, ...], Any]] = [((key,), value)]
        if key in _SECTIONS:
            if not isinstance(value, Mapping):
                raise bad("must be a mapping", pointer, "gate_policy_shape")
            entries = [((key, inner), item) for inner, item in value.items()]
        for path, item in entries:
            pointer = "/gate/" + "/".join(str(part) for part in path)
            if path not in _GATE_KEYS:
                known = sorted("/".join(known_path) for known_path in _GATE_KEYS)
                raise bad(
                    "unknown gate setting; expected one of " + ", ".join(known),
                    pointer,
                    "gate_policy_unknown_key",
                )
            name, check = _GATE_KEYS[path]
            try:
                values[name] = check(item)
            except ValueError as error:
                raise bad(str(error), pointer, "gate_policy_value") from None
    return GateRules(**values)


def gate_policy(text: str, *, source: str) -> tuple[Policy | None, GateRules]:
    """Parse a gate policy file (YAML or JSON; ``docs/gate.md``).

    Its optional scoring keys (``weights``, ``thresholds``, ``auditGate``, as for ``scorecard
    score --policy``) give the :class:`Policy` for scoring observations (None when absent); its
    optional ``gate`` section gives the :class:`GateRules`. Problems raise a located
    :class:`PolicyError`.
    """
    parsed = parse_policy_file(text, source=source, gate=True)
    return parsed.policy, gate_rules(parsed.gate, source=source, lines=parsed.lines)
