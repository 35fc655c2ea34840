"""``store.json``: what a store scores with, fixed when it is made: the scoring policy (every
value spelt out) and the catalog, whose case files are kept in ``catalog/`` as they were read.

An ingest under another policy or catalog is refused, naming the first difference: numbers
scored under two policies would sit side by side in every view as if they were comparable.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from scorecard.contract import (
    GATE_DIMENSIONS,
    Catalog,
    Policy,
    PolicyError,
    StoreError,
    canonical_json,
    read_case_files,
)

from ._files import corrupt, read_json_file
from ._layout import CATALOG, STORE_JSON, STORE_SCHEMA

__all__ = ["StoreMeta", "catalog_files", "meta_document", "policy_digest", "read_meta"]


def policy_digest(policy: Policy) -> str:
    """SHA-256 (hex) of the policy's canonical JSON, every value spelt out."""
    return hashlib.sha256(canonical_json(policy.to_json()).encode()).hexdigest()


def catalog_files(catalog: Catalog) -> list[tuple[str, bytes]]:
    """(base name, bytes) of each case file the catalog was read from; a catalog built in
    memory has none, and cannot be a store's."""
    if catalog.files is None:
        raise StoreError(
            "a store scores with a catalog read from case files (load_catalog or "
            "scoring_catalog), not one built in memory",
            rule="catalog_without_files",
        )
    return [(Path(path).name, data) for path, data in catalog.files.files]


def meta_document(catalog: Catalog, policy: Policy) -> dict[str, Any]:
    """``store.json`` of a new store scoring with ``catalog`` and ``policy``."""
    files = catalog_files(catalog)
    return {
        "schema": STORE_SCHEMA,
        "policy": policy.to_json(),
        "policyDigest": policy_digest(policy),
        "catalog": {
            "digest": catalog.files.digest if catalog.files is not None else "",
            "files": [
                {"name": name, "sha256": hashlib.sha256(data).hexdigest()} for name, data in files
            ],
        },
    }


@dataclass(frozen=True)
class StoreMeta:
    """A store's ``store.json``, read and checked."""

    root: Path
    policy: Policy
    """The scoring policy every bundle was scored with."""
    policy_digest: str
    catalog_digest: str
    """:attr:`~scorecard.contract.CaseFiles.digest` of the catalog every bundle was scored with."""
    catalog_hashes: Mapping[str, str]
    """SHA-256 of each case file, by name."""

    @cached_property
    def catalog(self) -> Catalog:
        """The store's catalog, read from its ``catalog/`` folder (checked against the digest)."""
        from scorecard.engine import scoring_catalog

        folder = self.root / CATALOG
        try:
            files = read_case_files(folder)
        except Exception as error:  # a CaseError, located in the store's own files
            raise StoreError(
                f"cannot read the store's catalog: {error}",
                rule="corrupt_catalog",
                source=str(folder),
            ) from None
        if files.digest != self.catalog_digest:
            raise StoreError(
                "the store's case files are not the ones it was made with (digest differs)",
                rule="corrupt_catalog",
                source=str(folder),
            )
        return scoring_catalog(folder)

    def check_policy(self, policy: Policy) -> None:
        """Refuse ``policy`` unless it is the store's, naming the first difference."""
        mine, given = self.policy.to_json(), policy.to_json()
        for section in ("weights", "thresholds"):
            for name, value in mine[section].items():
                if given[section][name] != value:
                    raise StoreError(
                        f"the store scores with {section} {name} {value!r}, the policy given "
                        f"says {given[section][name]!r} (a store keeps one scoring policy: "
                        "use another store)",
                        rule="policy_differs",
                        pointer=f"/{section}/{name}",
                        source=str(self.root / STORE_JSON),
                    )
        if mine["auditGate"] != given["auditGate"]:
            raise StoreError(
                f"the store scores with auditGate {str(mine['auditGate']).lower()}, the policy "
                f"given says {str(given['auditGate']).lower()} (a store keeps one scoring "
                "policy: use another store)",
                rule="policy_differs",
                pointer="/auditGate",
                source=str(self.root / STORE_JSON),
            )

    def check_catalog(self, catalog: Catalog) -> None:
        """Refuse ``catalog`` unless its case files are the store's, naming the first
        difference."""
        files = catalog_files(catalog)
        if catalog.files is not None and catalog.files.digest == self.catalog_digest:
            return
        given = {name: hashlib.sha256(data).hexdigest() for name, data in files}
        for name in sorted(set(given) | set(self.catalog_hashes)):
            if name not in given:
                problem = f"the catalog given lacks the store's case file {name}"
            elif name not in self.catalog_hashes:
                problem = f"the catalog given has a case file the store's lacks: {name}"
            elif given[name] != self.catalog_hashes[name]:
                problem = f"case file {name} differs from the store's"
            else:
                continue
            break
        else:
            problem = "the catalog given differs from the store's"
        raise StoreError(
            problem + " (a store keeps one catalog: use another store)",
            rule="catalog_differs",
            pointer="/catalog",
            source=str(self.root / STORE_JSON),
        )


def _policy_of(document: Any, source: str) -> Policy:
    if not isinstance(document, Mapping):
        raise corrupt(source, "must be an object", "/policy")
    weights = document.get("weights")
    thresholds = document.get("thresholds")
    if not isinstance(weights, Mapping) or not isinstance(thresholds, Mapping):
        raise corrupt(source, "must hold weights and thresholds", "/policy")
    audit_gate = document.get("auditGate")
    if not isinstance(audit_gate, bool):
        raise corrupt(source, "must be true or false", "/policy/auditGate")
    try:
        policy = Policy.from_overrides(
            {name: value for name, value in weights.items() if name not in GATE_DIMENSIONS},
            thresholds,
            audit_gate=audit_gate,
            require_positive_total=False,
        )
    except PolicyError as error:
        raise corrupt(source, error.message, "/policy" + error.pointer) from None
    if policy.to_json() != dict(document):
        raise corrupt(source, "is not a whole scoring policy", "/policy")
    return policy


def _text(document: Mapping[str, Any], key: str, source: str, pointer: str) -> str:
    value = document.get(key)
    if not isinstance(value, str) or not value:
        raise corrupt(source, "must be a non-empty string", f"{pointer}/{key}")
    return value


def read_meta(root: Path) -> StoreMeta:
    """The store's ``store.json``, checked; every problem a located :class:`StoreError`."""
    path = root / STORE_JSON
    source = str(path)
    document = read_json_file(path, missing_rule="not_a_store")
    if not isinstance(document, dict):
        raise corrupt(source, "must be a JSON object", "")
    if document.get("schema") != STORE_SCHEMA:
        raise StoreError(
            f"not a {STORE_SCHEMA} store file (another schema, or another tool's file)",
            rule="unsupported_schema",
            pointer="/schema",
            source=source,
        )
    policy = _policy_of(document.get("policy"), source)
    digest = _text(document, "policyDigest", source, "")
    if digest != policy_digest(policy):
        raise corrupt(source, "is not the digest of the policy", "/policyDigest")
    catalog = document.get("catalog")
    if not isinstance(catalog, dict) or not isinstance(catalog.get("files"), list):
        raise corrupt(source, "must be an object with the case files", "/catalog")
    hashes: dict[str, str] = {}
    for index, item in enumerate(catalog["files"]):
        pointer = f"/catalog/files/{index}"
        if not isinstance(item, dict):
            raise corrupt(source, "must be an object", pointer)
        hashes[_text(item, "name", source, pointer)] = _text(item, "sha256", source, pointer)
    return StoreMeta(root, policy, digest, _text(catalog, "digest", source, "/catalog"), hashes)


def meta_text(document: Mapping[str, Any]) -> str:
    """``store.json``'s text: indented JSON, keys in the order written, a final newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
