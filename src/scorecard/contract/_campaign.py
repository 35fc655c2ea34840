"""Pydantic models of the ``scorecard.campaign.v1`` manifest (:mod:`._bundles`), closed like
every manifest field. Imported by the first campaign manifest read (:func:`._bundles.parse_manifest`),
not with the bundles: a run over files without a ``bundle.json`` never creates them
(docs/performance.md, start-up).
"""

from __future__ import annotations

import datetime
from typing import Literal

from pydantic import Field, field_validator

from ._models import Provider, _WireModel

__all__ = ["CampaignManifest", "CandidateBudget", "CandidateSpec"]

_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"


class CandidateBudget(_WireModel):
    """Budget a candidate runs under."""

    max_latency_ms: float = Field(ge=0)
    """Latency limit in milliseconds."""
    max_attempts: int = Field(ge=0)
    """Attempt limit."""
    max_cost_usd: float = Field(ge=0)
    """Cost limit in US dollars."""
    max_total_tokens: float = Field(ge=0)
    """Token limit."""


class CandidateSpec(_WireModel):
    """One entry of a campaign's candidate roster."""

    id: str = Field(pattern=_ID_PATTERN)
    """Candidate id as observations carry it."""
    slot: int = Field(ge=0)
    """Position in the campaign schedule."""
    adapter: str = Field(min_length=1)
    """Runner adapter (``codex-app-server``, ``opencode-server``, ``acp-json-rpc``)."""
    provider: Provider
    """Provider the candidate runs on."""
    model: str = Field(min_length=1)
    """Model id."""
    tier: Literal["strong", "inexpensive"]
    """Price/quality tier."""
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    """Reasoning effort, for models that take one."""
    budget: CandidateBudget
    """Budget limits."""


class CampaignManifest(_WireModel):
    """``scorecard.campaign.v1``: what a campaign bundle was run with (closed)."""

    schema_: Literal["scorecard.campaign.v1"] = Field(alias="schema")
    """Contract id."""
    id: str = Field(pattern=_ID_PATTERN)
    """Bundle id (stated, not derived)."""
    night: str | None = Field(default=None, pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
    """The night the campaign ran, an ISO date (``YYYY-MM-DD``): where the bundle stands in a
    store's history (``docs/store.md``), whenever it was ingested."""
    runner_version: str = Field(min_length=1)
    """paperclip runner version the campaign ran on."""
    prompt_policy: str = Field(min_length=1)
    """Prompt policy id."""
    provider_versions: dict[Provider, str]
    """Version of each provider adapter."""
    schedule_seed: int
    """Seed of the run schedule (and of the generator for synthetic data)."""
    candidates: list[CandidateSpec] = Field(min_length=1)
    """The candidate roster."""

    @field_validator("night")
    @classmethod
    def _a_real_date(cls, night: str | None) -> str | None:
        if night is not None:
            try:
                datetime.date.fromisoformat(night)
            except ValueError:
                raise ValueError("must be a calendar date (YYYY-MM-DD)") from None
        return night
