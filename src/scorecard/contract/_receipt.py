"""Receipts: what a canonical output was computed from, as SHA-256 identities (``docs/receipts.md``).

A receipt names each input's bytes (a bundle's framed input digest, :class:`FramedDigest`: names,
order and lengths bound), the case catalog as loaded, the canonical policy (every default spelt
out), the seed, the scorecard version and the SHA-256 of the output's own semantic payload (its
canonical JSON without the receipt). It also records what the user passed (``sources``: paths as
given, a store's folder, options), so ``scorecard verify`` can read the same inputs again, and
the engine that computed it, which is information and no identity: both engines give the same
bytes, so a receipt written with the C engine verifies under ``SCORECARD_ENGINE=python``.

No clock, host, user or path beyond the ones given is in it: the same inputs give the same
receipt on any machine, for any worker count, in any run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from ._errors import InputError
from ._jsformat import canonical_json

__all__ = [
    "RECEIPT_METADATA_KEY",
    "RECEIPT_SCHEMA",
    "Receipt",
    "ReceiptDifference",
    "ReceiptInput",
    "RowsDigest",
    "engine_note",
    "first_difference",
    "input_difference",
    "payload_digest",
    "policy_digest_of",
    "read_receipt",
    "receipt_line",
    "site_payload_digest",
]

RECEIPT_SCHEMA = "scorecard.receipt.v1"
"""The receipt's schema id (its ``schema`` field)."""

_HEX = frozenset("0123456789abcdef")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def payload_digest(document: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``document``'s canonical JSON (sorted keys, no spaces, JavaScript
    numbers), its ``receipt`` left out: the output's semantic payload, whatever its indent."""
    return _sha256(
        canonical_json({key: value for key, value in document.items() if key != "receipt"})
    )


def site_payload_digest(files: Mapping[str, bytes]) -> str:
    """SHA-256 (hex) of a site's files (``scorecard report``), each framed by its
    ``/``-separated name and length, in name order, its ``receipt.json`` left out."""
    from ._digest import FramedDigest

    hashed = FramedDigest()
    for name in sorted(files):
        if name != "receipt.json":
            hashed.add(name, files[name])
    return hashed.hexdigest()


class RowsDigest:
    """The payload digest of scored rows (Parquet, ``docs/receipts.md``): per bundle, SHA-256 of
    its rows' canonical JSON lines in order (a missing or NaN number as null); then those
    digests framed by bundle id, bundles in id order. So a file and a bundle-partitioned dataset
    (rows grouped by bundle as read back) of the same rows have the same payload."""

    __slots__ = ("_bundles",)

    def __init__(self) -> None:
        self._bundles: dict[str, Any] = {}

    def add(self, row: Sequence[Any]) -> None:
        """Add one row (its first value is its bundle)."""
        bundle = str(row[0])
        hashed = self._bundles.get(bundle)
        if hashed is None:
            hashed = self._bundles[bundle] = hashlib.sha256()
        plain = [None if isinstance(value, float) and value != value else value for value in row]
        hashed.update((canonical_json(plain) + "\n").encode("utf-8", "surrogatepass"))

    def hexdigest(self) -> str:
        """The digest of the rows added so far."""
        from ._digest import FramedDigest

        framed = FramedDigest()
        for bundle in sorted(self._bundles):
            framed.add(bundle, self._bundles[bundle].digest())
        return framed.hexdigest()


RECEIPT_METADATA_KEY = b"scorecard.receipt"
"""The Parquet key-value metadata key of the receipt (its JSON)."""


def policy_digest_of(scoring: Mapping[str, Any], gate: Mapping[str, Any] | None) -> str:
    """SHA-256 (hex) of the canonical policy: the scoring policy with every default spelt out
    (``weights``, ``thresholds``, ``auditGate``) and the gate's rules as applied (None for an
    output no gate rule touched)."""
    return _sha256(
        canonical_json({"scoring": dict(scoring), "gate": None if gate is None else dict(gate)})
    )


@dataclass(frozen=True)
class ReceiptInput:
    """One input an output was computed from."""

    role: str
    """``current`` or ``baseline`` (a gate's sides), ``input`` (any other output's)."""
    bundle: str | None
    """The bundle id it holds (None for an already-scored file of several bundles)."""
    digest: str | None
    """SHA-256 (hex) of its bytes: for a bundle, its manifest and observation files, each framed
    by its name inside the bundle folder and its length (a store keeps it at ingest); None for
    standard input, read once while it was scored and never kept."""
    files: tuple[str, ...]
    """Its files' names inside the bundle folder (or the file's own name), in reading order."""

    def to_json(self) -> dict[str, Any]:
        """Its entry in the receipt's ``inputs``."""
        return {
            "role": self.role,
            "bundle": self.bundle,
            "sha256": self.digest,
            "files": list(self.files),
        }

    @property
    def label(self) -> str:
        """How messages name it: ``baseline bundle campaign-2026-11-15``."""
        return (
            f"{self.role} bundle {self.bundle}"
            if self.bundle is not None
            else (f"{self.role} {', '.join(self.files) or 'input'}")
        )


@dataclass(frozen=True)
class Receipt:
    """What an output was computed from (see the module docstring)."""

    command: str
    """The computation (``gate``, ``compare``): what ``verify`` runs again."""
    sources: Mapping[str, Any]
    """What the user passed: paths as given (or a store's folder and the bundle ids read),
    options; JSON data."""
    inputs: tuple[ReceiptInput, ...]
    """Each input's identity, in the order read."""
    catalog: str | None
    """SHA-256 of the case catalog's files as loaded (framed by name); None when no input was
    scored here and none was named."""
    policy: str
    """SHA-256 of the canonical policy (:func:`policy_digest_of`)."""
    seed: int | None
    """The seed of every resampling (None for an output that resamples nothing)."""
    version: str
    """The scorecard version that computed it."""
    engine: str
    """``c`` (the compiled fast path in use) or ``python``: recorded, never an identity."""
    payload: str = ""
    """SHA-256 of the output's semantic payload (:func:`payload_digest`)."""

    def with_payload(self, document: Mapping[str, Any]) -> Receipt:
        """This receipt naming ``document``'s payload digest."""
        return replace(self, payload=payload_digest(document))

    def to_json(self) -> dict[str, Any]:
        """The receipt as JSON data, in its fixed key order."""
        return {
            "schema": RECEIPT_SCHEMA,
            "command": self.command,
            "sources": _plain(self.sources),
            "inputs": [item.to_json() for item in self.inputs],
            "catalog": self.catalog,
            "policy": self.policy,
            "seed": self.seed,
            "scorecard": self.version,
            "engine": self.engine,
            "payload": self.payload,
        }


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def receipt_line(receipt: Receipt) -> str:
    """The receipt in one line (a markdown footer): payload, inputs, catalog, policy, seed,
    version; digests shortened to 12 hex digits but the payload's."""
    inputs = _FramedInputs(receipt.inputs)
    catalog = "none" if receipt.catalog is None else receipt.catalog[:12]
    seed = "none" if receipt.seed is None else str(receipt.seed)
    return (
        f"Receipt: payload sha256 {receipt.payload} · inputs {inputs.short} "
        f"({len(receipt.inputs)}) · catalog {catalog} · policy {receipt.policy[:12]} · "
        f"seed {seed} · scorecard {receipt.version} (`scorecard verify` re-checks the JSON)"
    )


@dataclass(frozen=True)
class _FramedInputs:
    """The inputs' digests hashed together, framed by role and bundle, in order: one identity
    of every input byte (the footer shows it)."""

    inputs: Sequence[ReceiptInput]

    @property
    def digest(self) -> str:
        from ._digest import FramedDigest

        hashed = FramedDigest()
        for item in self.inputs:
            hashed.add(f"{item.role}/{item.bundle or ''}", bytes.fromhex(item.digest or ""))
        return hashed.hexdigest()

    @property
    def short(self) -> str:
        return self.digest[:12]


@dataclass(frozen=True)
class ReceiptDifference:
    """The first way a recomputed receipt differs from a recorded one."""

    cause: str
    """``input``, ``catalog``, ``policy``, ``seed``, ``version`` or ``payload``."""
    message: str
    """The difference as a sentence."""
    pointer: str = ""
    """The receipt field (JSON Pointer in the output) that differs."""


def _short(digest: str | None) -> str:
    return "none" if digest is None else digest[:16] + "..."


def input_difference(
    recorded: Sequence[ReceiptInput], found: Sequence[ReceiptInput]
) -> ReceiptDifference | None:
    """The first input whose identity differs (its bundle, its files or its bytes)."""
    for index, (was, now) in enumerate(zip(recorded, found, strict=False)):
        pointer = f"/receipt/inputs/{index}"
        if (was.role, was.bundle) != (now.role, now.bundle):
            return ReceiptDifference(
                "input",
                f"input {index + 1} is now {now.label}, the receipt names {was.label}",
                pointer,
            )
        if was.files != now.files:
            gone = [name for name in was.files if name not in now.files]
            added = [name for name in now.files if name not in was.files]
            detail = (
                f"file {gone[0]} is gone"
                if gone
                else f"file {added[0]} is new"
                if added
                else "its files are read in another order"
            )
            return ReceiptDifference("input", f"{was.label}: {detail}", pointer + "/files")
        if was.digest != now.digest:
            return ReceiptDifference(
                "input",
                f"{was.label}: its bytes changed (sha256 {_short(was.digest)} in the receipt, "
                f"{_short(now.digest)} now; files {', '.join(was.files)})",
                pointer + "/sha256",
            )
    if len(recorded) != len(found):
        return ReceiptDifference(
            "input",
            f"{len(found)} inputs now, the receipt names {len(recorded)}",
            "/receipt/inputs",
        )
    return None


def first_difference(recorded: Receipt, found: Receipt) -> ReceiptDifference | None:
    """The first identity of ``found`` (recomputed) that is not ``recorded``'s, in the order
    inputs, catalog, policy, seed, version, payload; None when all are the same. The engine
    is no identity (see :func:`engine_note`)."""
    difference = input_difference(recorded.inputs, found.inputs)
    if difference is not None:
        return difference
    for cause, was, now, pointer in (
        ("catalog", recorded.catalog, found.catalog, "/receipt/catalog"),
        ("policy", recorded.policy, found.policy, "/receipt/policy"),
    ):
        if was != now:
            return ReceiptDifference(
                cause,
                f"another {cause}: sha256 {_short(was)} in the receipt, {_short(now)} now",
                pointer,
            )
    if recorded.seed != found.seed:
        return ReceiptDifference(
            "seed",
            f"another seed: {recorded.seed} in the receipt, {found.seed} now",
            "/receipt/seed",
        )
    if recorded.version != found.version:
        return ReceiptDifference(
            "version",
            f"another version: written by scorecard {recorded.version}, this is "
            f"scorecard {found.version}",
            "/receipt/scorecard",
        )
    if recorded.payload != found.payload:
        return ReceiptDifference(
            "payload",
            f"another payload: the same inputs now give sha256 {_short(found.payload)}, the "
            f"receipt names {_short(recorded.payload)}",
            "/receipt/payload",
        )
    return None


def engine_note(recorded: Receipt, found: Receipt) -> str | None:
    """A note when the engines differ (information: both engines give the same bytes)."""
    if recorded.engine == found.engine:
        return None
    return (
        f"written with the {recorded.engine} engine, recomputed with the {found.engine} "
        "engine (the engine is no identity: both give the same bytes)"
    )


def _field(
    document: Mapping[str, Any], key: str, kinds: tuple[type, ...], pointer: str, source: str | None
) -> Any:
    value = document.get(key)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise InputError(
            "missing or of the wrong type in the receipt",
            rule="bad_receipt",
            pointer=f"{pointer}/{key}",
            source=source,
        )
    return value


def _digest_field(
    document: Mapping[str, Any],
    key: str,
    pointer: str,
    source: str | None,
    *,
    optional: bool = False,
) -> str | None:
    value = document.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) != 64 or not set(value) <= _HEX:
        raise InputError(
            "must be a SHA-256 digest (64 lowercase hex digits)",
            rule="bad_receipt",
            pointer=f"{pointer}/{key}",
            source=source,
        )
    return value


def read_receipt(document: Any, *, source: str | None = None) -> Receipt:
    """The receipt of an output document (its ``receipt`` member), checked; a missing or
    malformed one raises :class:`InputError` located by JSON Pointer."""
    if not isinstance(document, Mapping) or "receipt" not in document:
        raise InputError(
            "has no receipt: it was not written by a scorecard that writes receipts, or is not "
            "a gate or compare JSON output",
            rule="no_receipt",
            pointer="/receipt",
            source=source,
        )
    data = document["receipt"]
    where = "/receipt"
    if not isinstance(data, Mapping):
        raise InputError("must be an object", rule="bad_receipt", pointer=where, source=source)
    if data.get("schema") != RECEIPT_SCHEMA:
        raise InputError(
            f"is not {RECEIPT_SCHEMA}", rule="bad_receipt", pointer=f"{where}/schema", source=source
        )
    inputs: list[ReceiptInput] = []
    for index, item in enumerate(_field(data, "inputs", (list,), where, source)):
        at = f"{where}/inputs/{index}"
        if not isinstance(item, Mapping):
            raise InputError("must be an object", rule="bad_receipt", pointer=at, source=source)
        bundle = item.get("bundle")
        if bundle is not None and not isinstance(bundle, str):
            raise InputError(
                "must be a string or null",
                rule="bad_receipt",
                pointer=f"{at}/bundle",
                source=source,
            )
        files = _field(item, "files", (list,), at, source)
        if not all(isinstance(name, str) for name in files):
            raise InputError(
                "must be a list of names", rule="bad_receipt", pointer=f"{at}/files", source=source
            )
        inputs.append(
            ReceiptInput(
                _field(item, "role", (str,), at, source),
                bundle,
                _digest_field(item, "sha256", at, source, optional=True),
                tuple(files),
            )
        )
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise InputError(
            "must be an integer or null", rule="bad_receipt", pointer=f"{where}/seed", source=source
        )
    return Receipt(
        command=_field(data, "command", (str,), where, source),
        sources=MappingProxyType(dict(_field(data, "sources", (dict,), where, source))),
        inputs=tuple(inputs),
        catalog=_digest_field(data, "catalog", where, source, optional=True),
        policy=_digest_field(data, "policy", where, source) or "",
        seed=seed,
        version=_field(data, "scorecard", (str,), where, source),
        engine=_field(data, "engine", (str,), where, source),
        payload=_digest_field(data, "payload", where, source) or "",
    )
