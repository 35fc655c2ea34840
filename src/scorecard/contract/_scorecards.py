"""Pydantic models of the scorecards (``eval-scorecard.v1`` and ``v2``), closed like the cases
(:mod:`scorecard.contract._models`). Scoring writes scorecards as text; these models read them
back (``ScoredRecord.scorecard``, ``score_observation``) and are imported only where that
happens.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from ._models import Classification, DimensionName, NonEmptyStr, _WireModel
from ._names import DIMENSIONS

__all__ = ["DimensionScore", "Overall", "ScorecardV1", "ScorecardV2"]


class DimensionScore(_WireModel):
    """One scored dimension of a scorecard."""

    dimension: str
    """Dimension name (repeats the key)."""
    score: float | None = Field(ge=0, le=1)
    """Score in [0, 1]; null when the run was not scoreable."""
    passed: bool | None
    """Score reached the dimension's threshold; null when not scoreable."""
    gate: bool
    """Whether the dimension is a gate (weight 0, must pass for any overall score)."""
    weight: float = Field(ge=0)
    """Weight in the overall score."""
    reasons: list[str]
    """Why the dimension lost points, in order."""

    _nullable = frozenset({"score", "passed"})


class Overall(_WireModel):
    """Overall result of a scorecard."""

    score: float | None = Field(ge=0, le=1)
    """Weighted mean of the non-gate dimensions when the gates passed, else 0; null if unscored."""
    gate_passed: bool | None
    """Both gate dimensions passed; null if unscored."""
    passed: bool | None
    """Gates passed and every dimension passed; null if unscored."""

    _nullable = frozenset({"score", "gate_passed", "passed"})


class ScorecardV2(_WireModel):
    """Eight-dimension workflow scorecard (``eval-scorecard.v2``), closed."""

    schema_: Literal["paperclip.runner.eval-scorecard.v2"] = Field(alias="schema")
    """Contract id."""
    bundle_id: NonEmptyStr
    """Bundle the run belongs to."""
    case_id: NonEmptyStr
    """Case id."""
    candidate_id: NonEmptyStr
    """Candidate id."""
    classification: Classification
    """How the run ended."""
    dimensions: dict[DimensionName, DimensionScore]
    """The eight dimensions, keyed in canonical order."""
    overall: Overall
    """Overall result."""

    @field_validator("dimensions")
    @classmethod
    def _every_dimension(cls, value: dict[str, DimensionScore]) -> dict[str, DimensionScore]:
        # The published schema requires all eight (unknown names the key type rejects).
        missing = [name for name in DIMENSIONS if name not in value]
        if missing:
            raise PydanticCustomError(
                "missing_dimensions", "missing dimensions: {names}", {"names": ", ".join(missing)}
            )
        return value


class ScorecardV1(_WireModel):
    """Five-dimension scorecard of an observation's ``base`` (``eval-scorecard.v1``), closed."""

    schema_: Literal["paperclip.runner.eval-scorecard.v1"] = Field(alias="schema")
    """Contract id."""
    bundle_id: NonEmptyStr
    """Bundle the run belongs to."""
    case_id: NonEmptyStr
    """Case id."""
    dimensions: dict[str, DimensionScore]
    """hard_invariants, semantic_outcome, trajectory_restraint, trace_completeness,
    quality_efficiency."""
    overall: Overall
    """Overall result."""
