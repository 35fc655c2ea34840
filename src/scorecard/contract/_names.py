"""The contracts' names and ids: schemas, the 12 case ids, providers, dimensions and
classifications.

Plain constants, without pydantic: a run whose lines all take the compiled fast path and whose
catalog was checked before (``fast._plans``) reads these and never creates a model
(``docs/performance.md``, "The case plans kept between runs"). :mod:`._models` builds on them.
"""

from typing import Literal, get_args

__all__ = [
    "CASE_IDS",
    "CASE_SCHEMA",
    "DIMENSIONS",
    "GATE_DIMENSIONS",
    "OBSERVATION_SCHEMA",
    "OBSERVATION_SCHEMA_ID",
    "PROVIDERS",
    "SCORECARD_V1_SCHEMA",
    "SCORECARD_V2_SCHEMA",
    "CaseId",
    "Classification",
    "DimensionName",
    "Provider",
]

OBSERVATION_SCHEMA = "paperclip.runner.workflow-observation.v1"
OBSERVATION_SCHEMA_ID = "https://paperclip.dev/schemas/runner-workflow-observation.v1.schema.json"
"""The ``$id`` of the published observation schema (``upstream-schemas/``): what an
observation's errors name as the schema applied."""
CASE_SCHEMA = "paperclip.runner.workflow-eval-case.v1"
SCORECARD_V1_SCHEMA = "paperclip.runner.eval-scorecard.v1"
SCORECARD_V2_SCHEMA = "paperclip.runner.eval-scorecard.v2"

CaseId = Literal[
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
#: The 12 workflow case ids, in canonical catalog order.
CASE_IDS: tuple[str, ...] = get_args(CaseId)
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
DIMENSIONS: tuple[DimensionName, ...] = get_args(DimensionName)
GATE_DIMENSIONS: tuple[DimensionName, ...] = ("hard_invariants", "lifecycle_integrity")

Classification = Literal["completed", "candidate_failure", "infrastructure_failure", "skipped"]
Provider = Literal["codex", "opencode", "acpx"]
