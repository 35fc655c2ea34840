"""``index.json``: the store's bundles in night order, each with its digest, counts and files.

The index is the store's commit point: a bundle is in the store when the index lists it, and a
writer replaces the whole file in one rename, so a reader that reads it once has a consistent
snapshot. It holds no clock time and no random name: the same ingests in the same order give
the same bytes (``generation`` counts the commits).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorecard.contract import StoreError, js_json

from ._files import corrupt, read_json_file
from ._layout import INDEX, INDEX_SCHEMA, KINDS

__all__ = ["BundleEntry", "Index", "index_text", "read_index"]

_HEX = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class BundleEntry:
    """One bundle of a store, as its index lists it."""

    id: str
    """The bundle id."""
    night: str | None
    """The night it ran (ISO date): its manifest's ``night``, or the one given to ingest."""
    folder: str
    """The name of the folder it was read from (empty for standard input)."""
    digest: str
    """SHA-256 of its input bytes (manifest and observation files, framed by name)."""
    runs: int
    """Runs scored."""
    rejected: int
    """Records rejected and kept with it (only when ingested with ``keep_rejected``)."""
    files: Mapping[str, str]
    """Its files in the store by kind (``runs``, ``detail``, ``rejects`` if any), ``/``-separated."""
    sizes: Mapping[str, int]
    """Each file's size in bytes, by kind."""
    scorecard_version: str
    """The scorecard version that scored it."""
    catalog_digest: str
    """The catalog it was scored with (the store's)."""
    policy_digest: str
    """The scoring policy it was scored with (the store's)."""
    inputs: tuple[str, ...] = field(default=())
    """Its input files' names inside the bundle folder, in reading order (manifest first)."""
    manifest: str | None = None
    """Its manifest's kind (``campaign``, ``eval-bundle``), or None."""

    @property
    def order_key(self) -> tuple[str, str]:
        """Where it stands in night order: its night, else its folder's name; then its id."""
        return (self.night or self.folder, self.id)

    def to_json(self) -> dict[str, Any]:
        """Its entry in ``index.json``."""
        return {
            "id": self.id,
            "night": self.night,
            "folder": self.folder,
            "digest": self.digest,
            "runs": self.runs,
            "rejected": self.rejected,
            "files": dict(self.files),
            "bytes": dict(self.sizes),
            "scorecardVersion": self.scorecard_version,
            "catalogDigest": self.catalog_digest,
            "policyDigest": self.policy_digest,
            "inputs": list(self.inputs),
            "manifest": self.manifest,
        }


@dataclass(frozen=True)
class Index:
    """The index as read: the bundles in night order, and how many commits made it."""

    generation: int = 0
    bundles: tuple[BundleEntry, ...] = ()

    def get(self, bundle_id: str) -> BundleEntry | None:
        """The bundle of this id, or None."""
        return next((entry for entry in self.bundles if entry.id == bundle_id), None)

    def with_entry(self, entry: BundleEntry) -> Index:
        """The next index: ``entry`` added, or in place of its bundle's entry, in night order."""
        kept = [known for known in self.bundles if known.id != entry.id]
        bundles = sorted([*kept, entry], key=lambda known: known.order_key)
        return Index(self.generation + 1, tuple(bundles))

    def files(self) -> Iterator[str]:
        """Every file the index lists."""
        for entry in self.bundles:
            yield from entry.files.values()

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": INDEX_SCHEMA,
            "generation": self.generation,
            "bundles": [entry.to_json() for entry in self.bundles],
        }


def index_text(index: Index) -> str:
    """``index.json``'s text: two-space indented JSON, a final newline."""
    return js_json(index.to_json(), 2) + "\n"


class _Reader:
    """Checks one index document, each problem located by its JSON Pointer."""

    def __init__(self, source: str) -> None:
        self.source = source

    def bad(self, pointer: str, message: str) -> StoreError:
        return corrupt(self.source, message, pointer)

    def text(self, value: Any, pointer: str, *, empty: bool = False) -> str:
        if not isinstance(value, str) or (not value and not empty):
            raise self.bad(pointer, "must be a non-empty string" if not empty else "must be text")
        return value

    def count(self, value: Any, pointer: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.bad(pointer, "must be a non-negative integer")
        return value

    def digest(self, value: Any, pointer: str) -> str:
        if not isinstance(value, str) or not _HEX.match(value):
            raise self.bad(pointer, "must be 64 lowercase hex digits")
        return value

    def entry(self, value: Any, pointer: str) -> BundleEntry:
        if not isinstance(value, dict):
            raise self.bad(pointer, "must be an object")
        night = value.get("night")
        if night is not None:
            self.text(night, f"{pointer}/night")
        files = value.get("files")
        sizes = value.get("bytes")
        if not isinstance(files, dict) or not {"runs", "detail"} <= files.keys():
            raise self.bad(f"{pointer}/files", "must name the runs and detail files")
        if not isinstance(sizes, dict) or sizes.keys() != files.keys():
            raise self.bad(f"{pointer}/bytes", "must give each file's size")
        for kind in files:
            if kind not in KINDS:
                raise self.bad(f"{pointer}/files/{kind}", "is not a kind of bundle file")
            name = self.text(files[kind], f"{pointer}/files/{kind}")
            if ".." in Path(name).parts or Path(name).is_absolute() or name.split("/")[0] != kind:
                raise self.bad(f"{pointer}/files/{kind}", f"must be a file under {kind}/")
            self.count(sizes[kind], f"{pointer}/bytes/{kind}")
        inputs = value.get("inputs", [])
        if not isinstance(inputs, list):
            raise self.bad(f"{pointer}/inputs", "must be a list of names")
        manifest = value.get("manifest")
        if manifest is not None:
            self.text(manifest, f"{pointer}/manifest")
        return BundleEntry(
            id=self.text(value.get("id"), f"{pointer}/id"),
            night=night,
            folder=self.text(value.get("folder"), f"{pointer}/folder", empty=True),
            digest=self.digest(value.get("digest"), f"{pointer}/digest"),
            runs=self.count(value.get("runs"), f"{pointer}/runs"),
            rejected=self.count(value.get("rejected"), f"{pointer}/rejected"),
            files=dict(files),
            sizes=dict(sizes),
            scorecard_version=self.text(
                value.get("scorecardVersion"), f"{pointer}/scorecardVersion"
            ),
            catalog_digest=self.digest(value.get("catalogDigest"), f"{pointer}/catalogDigest"),
            policy_digest=self.digest(value.get("policyDigest"), f"{pointer}/policyDigest"),
            inputs=tuple(
                self.text(name, f"{pointer}/inputs/{index}") for index, name in enumerate(inputs)
            ),
            manifest=manifest,
        )


def read_index(root: Path) -> Index:
    """The store's index, checked (no index yet: an empty store); every problem a located
    :class:`StoreError`."""
    path = root / INDEX
    if not path.exists():
        return Index()
    document = read_json_file(path)
    reader = _Reader(str(path))
    if not isinstance(document, dict):
        raise reader.bad("", "must be a JSON object")
    if document.get("schema") != INDEX_SCHEMA:
        raise StoreError(
            f"not a {INDEX_SCHEMA} index (another schema, or another tool's file)",
            rule="unsupported_schema",
            pointer="/schema",
            source=str(path),
        )
    generation = reader.count(document.get("generation"), "/generation")
    bundles = document.get("bundles")
    if not isinstance(bundles, list):
        raise reader.bad("/bundles", "must be a list")
    entries = tuple(reader.entry(item, f"/bundles/{index}") for index, item in enumerate(bundles))
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if entry.id in seen:
            raise reader.bad(f"/bundles/{index}/id", "repeats a bundle listed before")
        seen.add(entry.id)
    if list(entries) != sorted(entries, key=lambda entry: entry.order_key):
        raise reader.bad("/bundles", "must be in night order")
    return Index(generation, entries)
