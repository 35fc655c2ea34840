"""Bundles: one eval campaign per folder, identified by its ``bundle.json`` manifest.

Two manifest kinds are understood (told apart by their ``schema`` string):

* ``paperclip.runner.eval-bundle.v1``: the upstream eval configuration. Its id is content
  addressed: ``evb-`` + the first 16 hex digits of SHA-256 over its canonical JSON.
* ``scorecard.campaign.v1``: a campaign manifest stating its own ``id`` plus runner version,
  prompt policy, provider versions, schedule seed and the candidate roster.

A folder without a manifest is a bundle too; its id is ``local-`` + the folder's name (see
``docs/bundles.md``). Manifests carrying secret-shaped values are rejected without echoing them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ._arguments import arguments, check_optional_text, check_text
from ._errors import ManifestError
from ._jsformat import canonical_json, js_json
from ._pointer import join
from ._secrets import find_secret, is_secret_key, redact

if TYPE_CHECKING:
    from ._campaign import CampaignManifest, CandidateSpec

__all__ = [
    "CAMPAIGN_SCHEMA",
    "EVAL_BUNDLE_SCHEMA",
    "MANIFEST_NAME",
    "BundleInfo",
    "eval_bundle_id",
    "folder_bundle_id",
    "parse_manifest",
]

MANIFEST_NAME = "bundle.json"
EVAL_BUNDLE_SCHEMA = "paperclip.runner.eval-bundle.v1"
CAMPAIGN_SCHEMA = "scorecard.campaign.v1"


@dataclass(frozen=True)
class BundleInfo:
    """A discovered bundle: its id, where it came from and, for campaigns, its roster."""

    id: str
    kind: Literal["eval-bundle", "campaign", "folder", "stdin", "override"]
    source: str | None = None
    campaign: CampaignManifest | None = None
    candidates: dict[str, CandidateSpec] = field(default_factory=dict)


def eval_bundle_id(manifest: Any) -> str:
    """The content-addressed id of a parsed ``eval-bundle.v1`` manifest (SCORING.md section 5)."""
    digest = hashlib.sha256(canonical_json(manifest).encode("utf-8", "surrogatepass"))
    return "evb-" + digest.hexdigest()[:16]


def folder_bundle_id(folder_name: str) -> str:
    """The documented id of a folder without a manifest: ``local-<folder name>``.

    A secret-shaped folder name is redacted (``local-redacted``): the id is written in every
    output, Parquet partition names included.
    """
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", redact(folder_name)).strip("-") or "root"
    if find_secret(cleaned) is not None:  # a secret that only the cleaning put together
        cleaned = "redacted"
    return "local-" + cleaned


def _carries_value(item: Any) -> bool:
    """Whether a credential-named field holds something: anything but null, a flag or emptiness."""
    if item is None or isinstance(item, bool):
        return False
    if isinstance(item, (str, list, dict)):
        return len(item) > 0
    return True


def _reject_secrets(value: Any, pointer: str, source: str | None) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            child = pointer + join(str(key))
            if is_secret_key(str(key)) and _carries_value(item):
                raise ManifestError(
                    "manifest carries a credential-named field (value withheld)",
                    rule="secret_in_manifest",
                    pointer=child,
                    source=source,
                )
            _reject_secrets(item, child, source)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _reject_secrets(item, f"{pointer}/{index}", source)
    elif isinstance(value, str):
        pattern = find_secret(value)
        if pattern is not None:
            raise ManifestError(
                f"manifest carries a secret-shaped value ({pattern}; value withheld)",
                rule="secret_in_manifest",
                pointer=pointer,
                source=source,
            )


#: Deepest nesting a manifest may have; the real ones are four levels deep. The checks and the
#: content id walk the document recursively, so a deeper one is refused before them.
MAX_MANIFEST_DEPTH = 64


def _too_deep(document: Any) -> str | None:
    """The pointer of the first value nested deeper than :data:`MAX_MANIFEST_DEPTH`, else None."""
    pending: list[tuple[Any, str, int]] = [(document, "", 0)]
    while pending:
        value, pointer, depth = pending.pop()
        if depth > MAX_MANIFEST_DEPTH:
            return pointer
        if isinstance(value, dict):
            pending.extend((item, pointer + join(key), depth + 1) for key, item in value.items())
        elif isinstance(value, list):
            pending.extend(
                (item, pointer + join(index), depth + 1) for index, item in enumerate(value)
            )
    return None


@arguments(text=check_text, source=check_optional_text)
def parse_manifest(text: str, *, source: str | None = None) -> BundleInfo:
    """Parse a ``bundle.json`` text into a :class:`BundleInfo`, or raise :class:`ManifestError`."""
    from ._json import parse_json_document

    try:
        document = parse_json_document(text, source=source, error_type=ManifestError)
    except RecursionError:
        raise ManifestError("manifest nested too deeply", rule="too_deep", source=source) from None
    if not isinstance(document, dict):
        raise ManifestError(
            "a bundle manifest must be a JSON object", rule="wrong_type", source=source
        )
    deep = _too_deep(document)
    if deep is not None:
        raise ManifestError(
            f"manifest nested deeper than {MAX_MANIFEST_DEPTH} levels",
            rule="too_deep",
            pointer=deep,
            source=source,
        )
    _reject_secrets(document, "", source)
    schema = document.get("schema")
    if schema == EVAL_BUNDLE_SCHEMA:
        return BundleInfo(id=eval_bundle_id(document), kind="eval-bundle", source=source)
    if schema == CAMPAIGN_SCHEMA:
        from pydantic import ValidationError

        from ._campaign import CampaignManifest
        from ._structure import structural_error

        try:
            campaign = CampaignManifest.model_validate(document)
        except ValidationError as error:
            problem = structural_error(error, document, ManifestError, what="manifest field:")
            raise problem.located(source=source) from None
        candidates: dict[str, CandidateSpec] = {}
        for index, candidate in enumerate(campaign.candidates):
            if candidate.id in candidates:
                raise ManifestError(
                    "candidate id repeats in the roster",
                    rule="duplicate_candidate_id",
                    pointer=f"/candidates/{index}/id",
                    source=source,
                )
            candidates[candidate.id] = candidate
        return BundleInfo(
            id=campaign.id,
            kind="campaign",
            source=source,
            campaign=campaign,
            candidates=candidates,
        )
    raise ManifestError(
        f"unknown manifest schema; expected {EVAL_BUNDLE_SCHEMA} or {CAMPAIGN_SCHEMA}",
        rule="unsupported_schema",
        pointer="/schema",
        source=source,
    )


def manifest_json(campaign: CampaignManifest) -> str:
    """A campaign manifest as stable, human-friendly JSON (two-space indent, trailing newline)."""
    return js_json(campaign.model_dump(by_alias=True, exclude_none=True), 2) + "\n"
