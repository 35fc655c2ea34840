"""Pydantic models of the observation a runner writes (``workflow-observation.v1``), the *open*
family of :mod:`scorecard.contract._models`: unknown fields are kept (``model_extra``) and
reported as notices, never dropped.

These models are the one definition of the observation contract. Its other forms (the
recogniser's msgspec structs, the scorer's ``TypedDict`` views, the C code's field names) are
generated from them by ``dev/generate_contract.py``: after changing a field here, run it
(``tests/contract/test_generated.py`` and ``setup.py`` fail until then). Types are limited to
what the script can restate exactly (docs/architecture.md, "One definition of the observation
contract").

Only the general path needs them (a line the compiled fast path declines, ``--format json`` and
``table``, and the validation errors of a bad line): they live apart from the case models every
run validates, and are imported where they are used, so a run whose lines all take the fast path
never creates these classes (``tests/cli/test_startup.py`` checks it).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, ValidationInfo

from ._models import (
    Classification,
    NonEmptyStr,
    NonNegativeNumber,
    _WireModel,
)

__all__ = [
    "INTEGRAL_FLOATS",
    "AuthorizationOutcome",
    "BaseObservation",
    "Budget",
    "Check",
    "Efficiency",
    "Evidence",
    "Failure",
    "FinalState",
    "LifecycleEvidence",
    "Metrics",
    "PresentationEvidence",
    "TraceEvidence",
    "TraceLineage",
    "WireEvent",
    "WorkflowObservation",
]


INTEGRAL_FLOATS = "integral floats"
"""The key a validation ``context`` dict is marked with when an integer field was given as a
number with a zero fractional part (``1.0``): the document should be normalised to ints."""


def _integral(value: Any, info: ValidationInfo) -> Any:
    # JSON Schema 2020-12 (the upstream schema's dialect) defines an integer as a number with
    # a zero fractional part: 1.0 is the integer 1, and 1.5 stays a wrong type.
    if type(value) is float and value.is_integer():
        if isinstance(info.context, dict):
            info.context[INTEGRAL_FLOATS] = True
        return int(value)
    return value


Integer = Annotated[int, BeforeValidator(_integral)]
"""An integer as JSON Schema counts one: ``1`` or ``1.0``."""
NonNegativeInteger = Annotated[int, BeforeValidator(_integral), Field(ge=0)]
"""A non-negative integer as JSON Schema counts one."""


class _OpenModel(_WireModel):
    """Observation parts: unknown fields are kept in ``model_extra`` and reported as notices."""

    model_config = ConfigDict(extra="allow")


class WireEvent(_OpenModel):
    """One PRP wire event as the runner emitted it (open: envelopes carry many more fields).

    Fields are in the order runners write them, as in every model here: the recogniser's structs
    are generated from these models (dev/generate_contract.py), and plain lines decode fastest
    in their structs' order.
    """

    event_type: str
    """PRP event type, e.g. ``mcp_app.tool_result`` or ``run.terminal``."""
    schema_: str | None = Field(default=None, alias="schema")
    """Envelope contract id, e.g. ``paperclip.prp.event.v1``."""
    source_event_id: str | None = None
    """Id of the event at its source."""
    source_instance_id: str | None = None
    """Source instance that emitted the event."""
    source_kind: str | None = None
    """Kind of source (``runner``, ``provider``...)."""
    emitted_at: str | None = None
    """Emission time as the source wrote it (never read by the scorer)."""
    run_id: str | None = None
    """Run the event belongs to; the first event's value is the trace run id."""
    normalized_session_id: str | None = None
    """Provider session id after normalisation."""
    turn_id: str | None = None
    """Turn the event belongs to."""
    item_id: str | None = None
    """Item (tool call, message) the event belongs to."""
    schema_version: Integer | None = None
    """Envelope version."""
    source_seq: Integer | None = None
    """Sequence number at the source."""
    priority: Integer | None = None
    """Delivery priority."""
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
    attempts: NonNegativeInteger | None = None
    """Attempts within the run."""
    runs: NonNegativeInteger | None = None
    """Runs the case took."""
    semantic_disposition: str | None = None
    """Semantic disposition the runner settled on, e.g. ``done`` or ``needs_review``."""
    recovery_owner: str | None = None
    """Who owned recovery (``none``, ``human``, ...)."""


class PresentationEvidence(Evidence):
    """Presentation evidence: checks plus what the user was shown."""

    comment_count: NonNegativeInteger | None = None
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
    frame_count: NonNegativeInteger
    """Frames captured."""
    byte_count: NonNegativeInteger
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

    attempts: NonNegativeInteger
    """Attempts made."""
    tool_count: NonNegativeInteger
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
