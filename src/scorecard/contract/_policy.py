"""Scoring policy: per-dimension weights and thresholds overlaid on the reference defaults."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ._errors import PolicyError
from ._gate_section import gate_settings
from ._names import DIMENSIONS, GATE_DIMENSIONS, DimensionName
from ._pointer import join
from ._yaml import parse_yaml

__all__ = [
    "DEFAULT_THRESHOLDS",
    "DEFAULT_WEIGHTS",
    "SCORING_KEYS",
    "Policy",
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

        Unknown dimensions, weights on gate dimensions, negative or non-finite weights, thresholds
        outside [0, 1] and (unless ``require_positive_total`` is false, as the reference allows)
        weights summing to zero are :class:`PolicyError`.
        """
        merged_weights: dict[DimensionName, float] = dict(DEFAULT_WEIGHTS)
        merged_thresholds: dict[DimensionName, float] = dict(DEFAULT_THRESHOLDS)
        for key, overrides, target in (
            ("weights", weights, merged_weights),
            ("thresholds", thresholds, merged_thresholds),
        ):
            if overrides is None:
                continue
            if not isinstance(overrides, Mapping):
                raise PolicyError(
                    f"{key} must be a mapping of dimension to number",
                    rule="policy_shape",
                    pointer=f"/{key}",
                    source=source,
                )
            for name, value in overrides.items():
                pointer = join(key, str(name))
                dimension = _dimension(name, pointer, source)
                number = _number(value, pointer, source)
                if key == "weights":
                    if dimension in GATE_DIMENSIONS:
                        raise PolicyError(
                            f"{dimension} is a gate dimension; its weight is always 0",
                            rule="policy_gate_weight",
                            pointer=pointer,
                            source=source,
                        )
                    if number < 0:
                        raise PolicyError(
                            "weights must be >= 0",
                            rule="policy_negative_weight",
                            pointer=pointer,
                            source=source,
                        )
                elif not 0 <= number <= 1:
                    raise PolicyError(
                        "thresholds must lie in [0, 1]",
                        rule="policy_threshold_range",
                        pointer=pointer,
                        source=source,
                    )
                target[dimension] = number
        if require_positive_total and math.fsum(merged_weights.values()) <= 0:
            raise PolicyError(
                "weights sum to zero, so no overall score could be computed",
                rule="policy_zero_weights",
                pointer="/weights",
                source=source,
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


def _dimension(name: object, pointer: str, source: str | None) -> DimensionName:
    for dimension in DIMENSIONS:
        if name == dimension:
            return dimension
    raise PolicyError(
        f"unknown dimension {name!r}; expected one of {', '.join(DIMENSIONS)}"
        if isinstance(name, str) and len(name) <= 64
        else "unknown dimension",
        rule="policy_unknown_dimension",
        pointer=pointer,
        source=source,
    )


def _number(value: object, pointer: str, source: str | None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PolicyError("must be a number", rule="policy_type", pointer=pointer, source=source)
    if not math.isfinite(value):
        raise PolicyError("must be finite", rule="policy_type", pointer=pointer, source=source)
    return value


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
    point refuses the same files. Any other key, a document that is not a mapping and a bad
    value in any section raise a :class:`PolicyError` located by JSON Pointer and line.
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
    for key in document:
        if key not in sections:
            pointer = join(str(key))
            raise PolicyError(
                "unknown policy key; expected weights, thresholds, auditGate and/or gate",
                rule="policy_unknown_key",
                pointer=pointer,
                source=source,
                line=parsed.lines.get(pointer),
            )
    policy = None
    if any(key in document for key in SCORING_KEYS):
        policy = scoring_policy(document, source=source, lines=parsed.lines)
    gate = gate_settings(document.get("gate"), source=source, lines=parsed.lines)
    return PolicyFile(policy, MappingProxyType(gate), parsed.lines)


def scoring_policy(
    document: Mapping[str, Any], *, source: str | None, lines: Mapping[str, int]
) -> Policy:
    """The scoring section (``weights``, ``thresholds``, ``auditGate``) of a parsed policy
    document, errors located at the line of the offending value."""
    audit_gate = document.get("auditGate", False)
    if not isinstance(audit_gate, bool):
        raise PolicyError(
            "auditGate must be true or false",
            rule="policy_type",
            pointer="/auditGate",
            source=source,
            line=lines.get("/auditGate"),
        )
    try:
        return Policy.from_overrides(
            document.get("weights"),
            document.get("thresholds"),
            source=source,
            audit_gate=audit_gate,
        )
    except PolicyError as error:
        raise error.located(line=lines.get(error.pointer)) from None
