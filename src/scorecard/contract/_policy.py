"""Scoring policy: per-dimension weights and thresholds overlaid on the reference defaults."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ._errors import PolicyError
from ._gate_section import gate_problems
from ._hints import close_field_name, did_you_mean
from ._names import DIMENSIONS, GATE_DIMENSIONS, DimensionName
from ._pointer import join
from ._problems import PolicyErrors, raise_policy_problems
from ._yaml import parse_yaml

__all__ = [
    "DEFAULT_THRESHOLDS",
    "DEFAULT_WEIGHTS",
    "SCORING_KEYS",
    "Policy",
    "PolicyErrors",
    "PolicyFile",
    "parse_policy_file",
    "scoring_policy",
]

#: Reference default weights (gates always weigh 0).
DEFAULT_WEIGHTS: Mapping[DimensionName, float] = MappingProxyType(
    {
        "hard_invariants": 0.0,
        "lifecycle_integrity": 0.0,
        "semantic_outcome": 0.2,
        "trajectory_restraint": 0.15,
        "trace_completeness": 0.1,
        "quality_efficiency": 0.1,
        "continuation_integrity": 0.2,
        "presentation_fidelity": 0.25,
    }
)
#: Reference default thresholds: a dimension passes only at a perfect score.
DEFAULT_THRESHOLDS: Mapping[DimensionName, float] = MappingProxyType(dict.fromkeys(DIMENSIONS, 1.0))


@dataclass(frozen=True)
class Policy:
    """Weights and thresholds in force for one scoring run.

    Build one with :meth:`from_overrides` (validates and overlays on the defaults); the default
    instance reproduces the reference scorer. ``audit_gate`` makes failed audit findings fail the
    gate in reports (never inside the v2 scorecard, whose eight dimensions stay the reference's).
    """

    weights: Mapping[DimensionName, float] = field(default_factory=lambda: DEFAULT_WEIGHTS)
    thresholds: Mapping[DimensionName, float] = field(default_factory=lambda: DEFAULT_THRESHOLDS)
    audit_gate: bool = False

    @classmethod
    def from_overrides(
        cls,
        weights: Mapping[str, Any] | None = None,
        thresholds: Mapping[str, Any] | None = None,
        *,
        source: str | None = None,
        require_positive_total: bool = True,
        audit_gate: bool = False,
    ) -> Policy:
        """Validate overrides and overlay them on the defaults.

        Unknown dimensions (with the one most likely meant), weights on gate dimensions,
        negative or non-finite weights, thresholds outside [0, 1] and (unless
        ``require_positive_total`` is false, as the reference allows) weights summing to zero
        are :class:`PolicyError`; several, all at once (:class:`PolicyErrors`).
        """
        problems: list[PolicyError] = []
        policy = cls._overlaid(
            weights, thresholds, source, require_positive_total, audit_gate, {}, problems
        )
        raise_policy_problems(problems)
        return policy

    @classmethod
    def _overlaid(
        cls,
        weights: Mapping[str, Any] | None,
        thresholds: Mapping[str, Any] | None,
        source: str | None,
        require_positive_total: bool,
        audit_gate: bool,
        lines: Mapping[str, int],
        problems: list[PolicyError],
    ) -> Policy:
        """The overrides overlaid on the defaults, each problem added to ``problems`` (located
        at its line in ``lines``) and its value left at the default."""
        merged_weights: dict[DimensionName, float] = dict(DEFAULT_WEIGHTS)
        merged_thresholds: dict[DimensionName, float] = dict(DEFAULT_THRESHOLDS)
        found = len(problems)

        def bad(message: str, rule: str, pointer: str) -> None:
            problems.append(
                PolicyError(
                    message, rule=rule, pointer=pointer, source=source, line=lines.get(pointer)
                )
            )

        for key, overrides, target in (
            ("weights", weights, merged_weights),
            ("thresholds", thresholds, merged_thresholds),
        ):
            if overrides is None:
                continue
            if not isinstance(overrides, Mapping):
                bad(f"{key} must be a mapping of dimension to number", "policy_shape", f"/{key}")
                continue
            for name, value in overrides.items():
                pointer = join(key, str(name))
                dimension = _dimension(name)
                if dimension is None:
                    bad(_unknown_dimension(name), "policy_unknown_dimension", pointer)
                    continue
                number, problem = _number(value)
                if problem is not None:
                    bad(problem, "policy_type", pointer)
                    continue
                if key == "weights":
                    if dimension in GATE_DIMENSIONS:
                        bad(
                            f"{dimension} is a gate dimension; its weight is always 0",
                            "policy_gate_weight",
                            pointer,
                        )
                        continue
                    if number < 0:
                        bad("weights must be >= 0", "policy_negative_weight", pointer)
                        continue
                elif not 0 <= number <= 1:
                    bad("thresholds must lie in [0, 1]", "policy_threshold_range", pointer)
                    continue
                target[dimension] = number
        # Weights summing to zero are a problem of their own only when every weight was read.
        zero = require_positive_total and math.fsum(merged_weights.values()) <= 0
        if zero and len(problems) == found:
            bad(
                "weights sum to zero, so no overall score could be computed",
                "policy_zero_weights",
                "/weights",
            )
        return cls(
            MappingProxyType(merged_weights), MappingProxyType(merged_thresholds), audit_gate
        )

    def to_json(self) -> dict[str, Any]:
        """The effective policy, every dimension spelled out."""
        return {
            "weights": {str(name): value for name, value in self.weights.items()},
            "thresholds": {str(name): value for name, value in self.thresholds.items()},
            "auditGate": self.audit_gate,
        }


def _dimension(name: object) -> DimensionName | None:
    for dimension in DIMENSIONS:
        if name == dimension:
            return dimension
    return None


def _unknown_dimension(name: object) -> str:
    if not isinstance(name, str) or len(name) > 64:
        return "unknown dimension" + did_you_mean("", DIMENSIONS)
    return f"unknown dimension {name!r}" + did_you_mean(name, DIMENSIONS)


def _number(value: object) -> tuple[float, str | None]:
    """The number, or the problem with it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0, "must be a number"
    if not math.isfinite(value):
        return 0.0, "must be finite"
    return value, None


SCORING_KEYS = ("weights", "thresholds", "auditGate")
"""The keys of a policy file's scoring section (``scorecard score --policy``)."""


@dataclass(frozen=True)
class PolicyFile:
    """A policy file's sections, checked as far as the contract knows them."""

    policy: Policy | None
    """The scoring section as a :class:`Policy`; None when the file has no scoring key."""
    gate: Mapping[str, Any]
    """The ``gate`` section's checked values by ``GateRules`` field name (empty when absent)."""
    lines: Mapping[str, int]
    """Line of each value by JSON Pointer."""


def parse_policy_file(text: str, *, source: str) -> PolicyFile:
    """The sections of a policy file's text (YAML or JSON): ``weights``, ``thresholds`` and
    ``auditGate`` (``docs/policy.md``), and a ``gate`` section (``docs/gate.md``).

    One file serves every command and every section is checked whoever reads it, so every entry
    point refuses the same files. Any other key (with the key most likely meant), a document
    that is not a mapping and a bad value in any section are a :class:`PolicyError` located by
    JSON Pointer and line; every problem of the file is found, and several are raised at once
    (:class:`PolicyErrors`, one located error each).
    """
    parsed = parse_yaml(text, source=source, error_type=PolicyError)
    document = parsed.data
    sections = (*SCORING_KEYS, "gate")
    if not isinstance(document, dict):
        raise PolicyError(
            "a policy must be a mapping (weights, thresholds, auditGate and/or gate)",
            rule="policy_shape",
            source=source,
            line=1,
        )
    problems: list[PolicyError] = []
    for key in document:
        if key not in sections:
            pointer = join(str(key))
            close = close_field_name(key, sections) if isinstance(key, str) else None
            expected = "weights, thresholds, auditGate and/or gate"
            problems.append(
                PolicyError(
                    f"unknown policy key; did you mean {close}? (expected {expected})"
                    if close is not None
                    else f"unknown policy key; expected {expected}",
                    rule="policy_unknown_key",
                    pointer=pointer,
                    source=source,
                    line=parsed.lines.get(pointer),
                )
            )
    policy = None
    if any(key in document for key in SCORING_KEYS):
        policy = _scoring_section(document, source=source, lines=parsed.lines, problems=problems)
    gate = gate_problems(document.get("gate"), source=source, lines=parsed.lines, problems=problems)
    raise_policy_problems(problems)
    return PolicyFile(policy, MappingProxyType(gate), parsed.lines)


def scoring_policy(
    document: Mapping[str, Any], *, source: str | None, lines: Mapping[str, int]
) -> Policy:
    """The scoring section (``weights``, ``thresholds``, ``auditGate``) of a parsed policy
    document, errors located at the line of the offending value (several: all at once)."""
    problems: list[PolicyError] = []
    policy = _scoring_section(document, source=source, lines=lines, problems=problems)
    raise_policy_problems(problems)
    return policy


def _scoring_section(
    document: Mapping[str, Any],
    *,
    source: str | None,
    lines: Mapping[str, int],
    problems: list[PolicyError],
) -> Policy:
    audit_gate = document.get("auditGate", False)
    if not isinstance(audit_gate, bool):
        problems.append(
            PolicyError(
                "auditGate must be true or false",
                rule="policy_type",
                pointer="/auditGate",
                source=source,
                line=lines.get("/auditGate"),
            )
        )
        audit_gate = False
    return Policy._overlaid(
        document.get("weights"),
        document.get("thresholds"),
        source,
        True,
        audit_gate,
        lines,
        problems,
    )
