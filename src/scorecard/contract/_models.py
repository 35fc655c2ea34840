"""Pydantic wire models of the paperclip runner contracts.

Wire keys are camelCase exactly as published; Python attributes are snake_case. Two families:

* **Observations** (`WorkflowObservation` and everything under it) are an *open* format written
  by runners: unknown fields are kept (``model_extra``) and reported as notices, never dropped.
* **Cases, scorecards and policies** are *closed*: an unknown field is an error.

Every model is strict (no silent coercion of ``"1"`` to ``1``), rejects ``NaN``/``Infinity``, and
rejects an explicit ``null`` where the contract expects a value or an absent key.

This module defines the common configuration and the case models, which every scoring run
validates (the catalog). The observation models (:mod:`._observation`) and the scorecard models
(:mod:`._scorecards`) are defined there and load on first use of their names here (PEP 562): a
run whose lines all take the compiled fast path never creates them (``docs/performance.md``,
start-up).
"""

# No ``from __future__ import annotations`` here: with the annotations left as strings, pydantic
# evaluates each one again when it creates the class, a few milliseconds of every start for
# these models (docs/performance.md, start-up). Every name an annotation uses is defined above it.

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    field_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from ._lazy import lazy_exports
from ._names import (
    CASE_IDS,
    CASE_SCHEMA,
    DIMENSIONS,
    GATE_DIMENSIONS,
    OBSERVATION_SCHEMA,
    PROVIDERS,
    SCORECARD_V1_SCHEMA,
    SCORECARD_V2_SCHEMA,
    CaseId,
    Classification,
    DimensionName,
    Provider,
)

__all__ = [
    "CASE_IDS",
    "CASE_SCHEMA",
    "DIMENSIONS",
    "GATE_DIMENSIONS",
    "OBSERVATION_SCHEMA",
    "PROVIDERS",
    "SCORECARD_V1_SCHEMA",
    "SCORECARD_V2_SCHEMA",
    "BaseObservation",
    "Budget",
    "CaseAssertions",
    "Check",
    "Classification",
    "DimensionName",
    "DimensionScore",
    "Efficiency",
    "Evidence",
    "Failure",
    "LifecycleEvidence",
    "Metrics",
    "Overall",
    "PresentationEvidence",
    "Provider",
    "ScorecardV1",
    "ScorecardV2",
    "TraceAssertion",
    "TraceEvidence",
    "TraceLineage",
    "WireEvent",
    "WorkflowCase",
    "WorkflowObservation",
]

NonEmptyStr = Annotated[str, Field(min_length=1)]
NonNegativeInt = Annotated[int, Field(ge=0)]
NonNegativeNumber = Annotated[float, Field(ge=0)]


class _WireModel(BaseModel):
    """Common configuration: camelCase aliases, strict types, finite numbers, no nulls."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        strict=True,
        allow_inf_nan=False,
        frozen=True,
        extra="forbid",
        # Validators are built on first use (the cases' by the catalog's first validation),
        # which is most of the cost of a model otherwise. The observation and scorecard classes
        # are not even created by a run of plain observations (their modules load on first use).
        defer_build=True,
    )

    _nullable: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _reject_null(cls, value: Any, info: ValidationInfo) -> Any:
        # Optional fields default to None when absent; an explicit null is a contract violation
        # unless the contract itself says null (scorecards of unscoreable runs).
        if value is None and info.field_name not in cls._nullable:
            raise PydanticCustomError("null_not_allowed", "null is not allowed here")
        return value


# --- cases ----------------------------------------------------------------------------------


class RunStartStep(_WireModel):
    """Start the run."""

    kind: Literal["run_start"]
    """Step kind."""
    task_mode: Literal["ask", "execute", "plan"]
    """Task mode the run starts in."""


class InteractionResponseStep(_WireModel):
    """Answer a governed interaction."""

    kind: Literal["interaction_response"]
    """Step kind."""
    interaction: Literal["questions", "suggest_tasks", "checkbox", "item_verdicts"]
    """Interaction answered."""
    partial: bool | None = None
    """Whether the answer is partial."""


class SteerStep(_WireModel):
    """Steer the agent mid-run."""

    kind: Literal["steer"]
    """Step kind."""
    delivery: Literal["queued", "active_turn"]
    """How the steering message is delivered."""
    duplicate: bool | None = None
    """Whether the message is delivered twice."""


class ReviewDecisionStep(_WireModel):
    """Approve or reject a review."""

    kind: Literal["review_decision"]
    """Step kind."""
    decision: Literal["approve", "reject"]
    """Review decision."""


class PermissionDecisionStep(_WireModel):
    """Answer a permission request."""

    kind: Literal["permission_decision"]
    """Step kind."""
    decision: Literal["allow_once", "accept_for_session", "deny"]
    """Permission decision."""


class CancelStep(_WireModel):
    """Cancel the run."""

    kind: Literal["cancel"]
    """Step kind."""
    actor: Literal["operator", "control_plane"]
    """Who cancels."""


class ProcessRestartStep(_WireModel):
    """Restart the runner process."""

    kind: Literal["process_restart"]
    """Step kind."""
    phase: Literal["provider_turn", "semantic_result", "finalization"]
    """Phase in which the restart happens."""


class ChildCompletionStep(_WireModel):
    """Complete a delegated child task."""

    kind: Literal["child_completion"]
    """Step kind."""
    child_provider: Provider
    """Provider that runs the child."""


def _step_kind(value: Any) -> Any:
    return value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)


# A callable discriminator: the null-rejecting before-validator rules out pydantic's inference.
Step = Annotated[
    Annotated[RunStartStep, Tag("run_start")]
    | Annotated[InteractionResponseStep, Tag("interaction_response")]
    | Annotated[SteerStep, Tag("steer")]
    | Annotated[ReviewDecisionStep, Tag("review_decision")]
    | Annotated[PermissionDecisionStep, Tag("permission_decision")]
    | Annotated[CancelStep, Tag("cancel")]
    | Annotated[ProcessRestartStep, Tag("process_restart")]
    | Annotated[ChildCompletionStep, Tag("child_completion")],
    Discriminator(_step_kind),
]


def _no_names() -> list[str]:
    # A default factory pydantic can inspect cheaply: the signature of the builtin ``list`` is
    # parsed from its text signature through :mod:`tokenize`, whose first use compiles a large
    # regular expression (milliseconds of every start; docs/performance.md, start-up).
    return []


class TraceAssertion(_WireModel):
    """What the case expects of provider trace capture and lineage."""

    capture: Literal["on", "off", "either"] = "either"
    """Capture expectation (quote ``"on"``/``"off"`` in YAML: unquoted they are booleans)."""
    digest_verified: bool | None = None
    """Frame digests must verify."""
    ordered: bool | None = None
    """Frames must be strictly ordered."""
    dispositions: list[NonEmptyStr] = Field(default_factory=_no_names)
    """Dispositions the trace must exercise."""
    lineage: list[NonEmptyStr] = Field(default_factory=_no_names)
    """Lineage shapes the trace must exercise."""


class CaseAssertions(_WireModel):
    """Everything a case asserts about a run (only ``trace`` feeds the v2 scorecard)."""

    issue_status: str | None = None
    """Expected final issue status."""
    run_status: str | None = None
    """Expected final run status."""
    semantic_disposition: str | None = None
    """Expected semantic disposition."""
    max_attempts: NonNegativeInt | None = None
    """Upper bound on attempts."""
    max_runs: NonNegativeInt | None = None
    """Upper bound on runs."""
    recovery_owner: str | None = None
    """Expected recovery owner."""
    comment_count: NonNegativeInt | None = None
    """Expected number of comments."""
    response_source: str | None = None
    """Expected source of the final response."""
    ordered_markers: list[NonEmptyStr] | None = None
    """Markers that must appear in this order (as a subsequence)."""
    required_prp_event_types: list[NonEmptyStr] | None = None
    """PRP event types that must be observed."""
    forbidden_prp_event_types: list[NonEmptyStr] | None = None
    """PRP event types that must not be observed."""
    required_activity_families: list[NonEmptyStr] | None = None
    """Activity families that must be rendered."""
    artifact_digests: list[NonEmptyStr] | None = None
    """Artifact digests that must be produced."""
    required_operation_ids: list[NonEmptyStr] | None = None
    """Operations the agent must call."""
    trace: TraceAssertion | None = None
    """Provider trace expectations."""


class WorkflowCase(_WireModel):
    """A workflow eval case (``workflow-eval-case.v1``), closed."""

    schema_: Literal["paperclip.runner.workflow-eval-case.v1"] = Field(alias="schema")
    """Contract id."""
    id: CaseId
    """One of the 12 catalog ids."""
    title: NonEmptyStr
    """Human-readable title."""
    version: Literal[1]
    """Case version."""
    tags: list[NonEmptyStr]
    """Tags (unique)."""
    providers: list[Provider] = Field(min_length=1)
    """Providers the case runs on (unique)."""
    steps: list[Step] = Field(min_length=1)
    """Steps the harness drives, in order."""
    assertions: CaseAssertions
    """What the run must show."""

    @field_validator("tags", "providers")
    @classmethod
    def _unique(cls, values: list[str]) -> list[str]:
        if len(set(values)) != len(values):
            raise PydanticCustomError("not_unique", "items must be unique")
        return values


#: Models defined in their own modules (name -> module), read from there on first use.
_EXPORTS = {
    "BaseObservation": "_observation",
    "Budget": "_observation",
    "Check": "_observation",
    "Efficiency": "_observation",
    "Evidence": "_observation",
    "Failure": "_observation",
    "LifecycleEvidence": "_observation",
    "Metrics": "_observation",
    "PresentationEvidence": "_observation",
    "TraceEvidence": "_observation",
    "TraceLineage": "_observation",
    "WireEvent": "_observation",
    "WorkflowObservation": "_observation",
    "DimensionScore": "_scorecards",
    "Overall": "_scorecards",
    "ScorecardV1": "_scorecards",
    "ScorecardV2": "_scorecards",
}

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, base="scorecard.contract")

if TYPE_CHECKING:
    from ._observation import (
        BaseObservation,
        Budget,
        Check,
        Efficiency,
        Evidence,
        Failure,
        LifecycleEvidence,
        Metrics,
        PresentationEvidence,
        TraceEvidence,
        TraceLineage,
        WireEvent,
        WorkflowObservation,
    )
    from ._scorecards import DimensionScore, Overall, ScorecardV1, ScorecardV2
