"""Pydantic wire models of the paperclip runner contracts.

Wire keys are camelCase exactly as published; Python attributes are snake_case. Two families:

* **Observations** (`WorkflowObservation` and everything under it) are an *open* format written
  by runners: unknown fields are kept (``model_extra``) and reported as notices, never dropped.
* **Cases, scorecards and policies** are *closed*: an unknown field is an error.

Every model is strict (no silent coercion of ``"1"`` to ``1``), rejects ``NaN``/``Infinity``, and
rejects an explicit ``null`` where the contract expects a value or an absent key.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

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

OBSERVATION_SCHEMA = "paperclip.runner.workflow-observation.v1"
CASE_SCHEMA = "paperclip.runner.workflow-eval-case.v1"
SCORECARD_V1_SCHEMA = "paperclip.runner.eval-scorecard.v1"
SCORECARD_V2_SCHEMA = "paperclip.runner.eval-scorecard.v2"

#: The 12 workflow case ids, in canonical catalog order.
CASE_IDS: tuple[str, ...] = (
    "final-response",
    "rich-activity",
    "verification-policy",
    "governed-interaction",
    "steering-causality",
    "planning-lifecycle",
    "review-lifecycle",
    "delegation-return",
    "completion-robustness",
    "restart-recovery",
    "cancellation-permissions",
    "trace-lineage",
)
PROVIDERS: tuple[str, ...] = ("codex", "opencode", "acpx")

DimensionName = Literal[
    "hard_invariants",
    "lifecycle_integrity",
    "semantic_outcome",
    "trajectory_restraint",
    "trace_completeness",
    "quality_efficiency",
    "continuation_integrity",
    "presentation_fidelity",
]
#: The eight v2 dimensions in canonical order (also the key order of ``dimensions``).
DIMENSIONS: tuple[DimensionName, ...] = (
    "hard_invariants",
    "lifecycle_integrity",
    "semantic_outcome",
    "trajectory_restraint",
    "trace_completeness",
    "quality_efficiency",
    "continuation_integrity",
    "presentation_fidelity",
)
GATE_DIMENSIONS: tuple[DimensionName, ...] = ("hard_invariants", "lifecycle_integrity")

Classification = Literal["completed", "candidate_failure", "infrastructure_failure", "skipped"]
Provider = Literal["codex", "opencode", "acpx"]
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
        # Validators are built on first use: a run of plain observations never builds the
        # observation or scorecard models, which is most of the start-up otherwise.
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


class _OpenModel(_WireModel):
    """Observation parts: unknown fields are kept in ``model_extra`` and reported as notices."""

    model_config = ConfigDict(extra="allow")


# --- observations ---------------------------------------------------------------------------


class WireEvent(_OpenModel):
    """One PRP wire event as the runner emitted it (open: envelopes carry many more fields)."""

    schema_: str | None = Field(default=None, alias="schema")
    """Envelope contract id, e.g. ``paperclip.prp.event.v1``."""
    schema_version: int | None = None
    """Envelope version."""
    source_event_id: str | None = None
    """Id of the event at its source."""
    source_seq: int | None = None
    """Sequence number at the source."""
    source_instance_id: str | None = None
    """Source instance that emitted the event."""
    source_kind: str | None = None
    """Kind of source (``runner``, ``provider``...)."""
    priority: int | None = None
    """Delivery priority."""
    emitted_at: str | None = None
    """Emission time as the source wrote it (never read by the scorer)."""
    event_type: str
    """PRP event type, e.g. ``mcp_app.tool_result`` or ``run.terminal``."""
    run_id: str | None = None
    """Run the event belongs to; the first event's value is the trace run id."""
    normalized_session_id: str | None = None
    """Provider session id after normalisation."""
    turn_id: str | None = None
    """Turn the event belongs to."""
    item_id: str | None = None
    """Item (tool call, message) the event belongs to."""
    payload: dict[str, Any] | None = None
    """Event payload as raw JSON; only a few well-known shapes are read by the scorer."""


class TraceEvidence(_OpenModel):
    """Identifiers and receipts that tie a run's tool calls to the control plane."""

    run_id: str | None = None
    """Run id (check ``runId`` passes when it is a non-empty string)."""
    session_id: str | None = None
    """Provider session id."""
    turn_id: str | None = None
    """Turn id."""
    item_id: str | None = None
    """Item id."""
    receipt_ids: list[str]
    """One receipt per observed tool call."""
    terminal_present: bool
    """Whether a terminal event was recorded."""
    wire_events: list[WireEvent] | None = None
    """Optional PRP wire events; when present (even empty) they replace the flat fields."""


class AuthorizationOutcome(_OpenModel):
    """Expected and observed authorisation of the case's operation."""

    expected: Literal["allowed", "denied", "absent"]
    """What the case declares."""
    observed: Literal["allowed", "denied", "absent"]
    """What happened."""


class FinalState(_OpenModel):
    """Expected and observed control-plane state after the run."""

    expected: Literal["unchanged", "mutated"]
    """What the case declares."""
    observed: Literal["unchanged", "mutated"]
    """What happened."""


class Efficiency(_OpenModel):
    """Resources the run used, compared with the budget."""

    latency_ms: float | None = None
    """Wall time of the run in milliseconds."""
    total_tokens: float | None = None
    """Tokens consumed."""
    cost_usd: float | None = None
    """Cost in US dollars."""
    attempts: float | None = None
    """Attempts made."""


class Budget(_OpenModel):
    """Resource limits declared for the run; absent limits are not checked."""

    max_latency_ms: float | None = None
    """Latency limit in milliseconds."""
    max_total_tokens: float | None = None
    """Token limit."""
    max_cost_usd: float | None = None
    """Cost limit in US dollars."""
    max_attempts: float | None = None
    """Attempt limit."""


class BaseObservation(_OpenModel):
    """The v1 evaluation observation: calls, state, authorisation, trace, efficiency."""

    case_id: str
    """Case id as the base harness recorded it."""
    provenance: dict[str, Any] | None = None
    """Where the observation came from; never scored."""
    control_plane_owned: bool
    """Whether the control plane (not the agent) owns the action."""
    expected_calls: list[str]
    """Tool calls the case requires, in order, duplicates meaningful."""
    observed_calls: list[str]
    """Tool calls the agent made, in order."""
    forbidden_calls: list[str]
    """Tool calls the agent must not make."""
    final_state: FinalState
    """Expected and observed control-plane state."""
    authorization: AuthorizationOutcome
    """Expected and observed authorisation."""
    trace: TraceEvidence
    """Trace identifiers, receipts and optional wire events."""
    efficiency: Efficiency | None = None
    """Observed resource use."""
    budget: Budget | None = None
    """Declared resource limits."""


class Check(_OpenModel):
    """One named check of lifecycle, continuation or presentation evidence."""

    id: NonEmptyStr
    """Check id, unique within its evidence list."""
    passed: bool
    """Whether the check passed."""
    reason: str | None = None
    """Why it failed (kept verbatim, even when empty)."""
    evidence_ids: list[str] | None = None
    """Ids of the evidence the check looked at."""


class Evidence(_OpenModel):
    """A list of checks plus descriptive fields (open)."""

    checks: list[Check]
    """Checks in the order the runner made them."""


class LifecycleEvidence(Evidence):
    """Lifecycle evidence: checks plus the issue/run outcome the runner saw."""

    issue_status: str | None = None
    """Final issue status, e.g. ``done``."""
    run_status: str | None = None
    """Final run status, e.g. ``succeeded``."""
    attempts: NonNegativeInt | None = None
    """Attempts within the run."""
    runs: NonNegativeInt | None = None
    """Runs the case took."""
    semantic_disposition: str | None = None
    """Semantic disposition the runner settled on, e.g. ``done`` or ``needs_review``."""
    recovery_owner: str | None = None
    """Who owned recovery (``none``, ``human``, ...)."""


class PresentationEvidence(Evidence):
    """Presentation evidence: checks plus what the user was shown."""

    comment_count: NonNegativeInt | None = None
    """Number of comments posted."""
    response_source: str | None = None
    """Where the final response came from."""
    markers: list[str] | None = None
    """Presentation markers in the order they were shown."""
    activity_families: list[str] | None = None
    """Activity families rendered."""


class TraceLineage(_OpenModel):
    """Provider trace capture and how its frames mapped through PRP."""

    capture: Literal["on", "off"]
    """Whether provider trace capture was on."""
    frame_count: NonNegativeInt
    """Frames captured."""
    byte_count: NonNegativeInt
    """Bytes captured."""
    digest_verified: bool
    """Whether frame digests and byte lengths verified."""
    ordered: bool
    """Whether frames and debug sequences were strictly ordered."""
    dispositions: list[str]
    """Frame dispositions exercised (``mapped``, ``generic``, ...)."""
    lineage: list[str]
    """Lineage shapes exercised (``one_to_one``, ...)."""
    trace_ref: str | None = None
    """Reference to the retained trace, if any."""


class Metrics(_OpenModel):
    """Measurements of the run, used by reports (never by the scorer)."""

    attempts: NonNegativeInt
    """Attempts made."""
    tool_count: NonNegativeInt
    """Tool calls made."""
    time_to_first_visible_progress_ms: NonNegativeNumber | None = None
    """Latency until the user first saw progress."""
    settlement_ms: NonNegativeNumber | None = None
    """Latency until the run settled."""
    total_tokens: NonNegativeNumber | None = None
    """Tokens consumed."""
    cost_usd: NonNegativeNumber | None = None
    """Cost in US dollars."""


class Failure(_OpenModel):
    """Why a run failed or was not scoreable."""

    code: NonEmptyStr
    """Machine-readable failure code."""
    category: Literal["candidate", "provider", "qualification", "orchestration"]
    """Who is to blame."""
    retryable: bool
    """Whether retrying may help."""
    message: str
    """Human-readable message (checked for secret-shaped data)."""


class WorkflowObservation(_OpenModel):
    """What one candidate run of one workflow case did (``workflow-observation.v1``)."""

    schema_: Literal["paperclip.runner.workflow-observation.v1"] = Field(alias="schema")
    """Contract id."""
    case_id: str
    """Catalog case id."""
    candidate_id: str
    """Candidate (agent/model configuration) id; must not be blank."""
    provider: str
    """Provider adapter (``codex``, ``opencode``, ``acpx``); membership is audited, not enforced."""
    classification: Classification
    """How the run ended."""
    base: BaseObservation
    """The v1 evaluation observation."""
    lifecycle: LifecycleEvidence
    """Lifecycle checks and outcome."""
    continuation: Evidence
    """Continuation checks."""
    presentation: PresentationEvidence
    """Presentation checks and what was shown."""
    trace_lineage: TraceLineage
    """Provider trace capture and lineage."""
    metrics: Metrics
    """Measurements for reports."""
    observed_prp_event_types: list[str]
    """PRP event types seen during the run."""
    artifact_digests: list[str]
    """Digests of artifacts the run produced."""
    failure: Failure | None = None
    """Required for infrastructure failures and skipped runs."""


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


class TraceAssertion(_WireModel):
    """What the case expects of provider trace capture and lineage."""

    capture: Literal["on", "off", "either"] = "either"
    """Capture expectation (quote ``"on"``/``"off"`` in YAML: unquoted they are booleans)."""
    digest_verified: bool | None = None
    """Frame digests must verify."""
    ordered: bool | None = None
    """Frames must be strictly ordered."""
    dispositions: list[NonEmptyStr] = Field(default_factory=list)
    """Dispositions the trace must exercise."""
    lineage: list[NonEmptyStr] = Field(default_factory=list)
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
    id: Literal[
        "final-response",
        "rich-activity",
        "verification-policy",
        "governed-interaction",
        "steering-causality",
        "planning-lifecycle",
        "review-lifecycle",
        "delegation-return",
        "completion-robustness",
        "restart-recovery",
        "cancellation-permissions",
        "trace-lineage",
    ]
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


# --- scorecards -----------------------------------------------------------------------------


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

    schema_: Literal["paperclip.runner.eval-scorecard.v2"] = Field(
        alias="schema", default="paperclip.runner.eval-scorecard.v2"
    )
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


class ScorecardV1(_WireModel):
    """Five-dimension scorecard of an observation's ``base`` (``eval-scorecard.v1``), closed."""

    schema_: Literal["paperclip.runner.eval-scorecard.v1"] = Field(
        alias="schema", default="paperclip.runner.eval-scorecard.v1"
    )
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
