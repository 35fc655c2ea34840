"""Receipts of what each output was computed from (``docs/receipts.md``): the inputs' digests
under the paths given (or as a store kept them at ingest), the catalog, the canonical policy,
the version and the engine; the payload digest is the output's own, taken where it is made."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorecard.contract import (
    FramedDigest,
    InputError,
    Receipt,
    ReceiptInput,
    policy_digest_of,
)

from ._inputs import PathLike

if TYPE_CHECKING:
    from scorecard.contract import Catalog, Policy
    from scorecard.gate import GateRules
    from scorecard.store import Store

__all__ = [
    "compare_inputs",
    "compare_receipt",
    "new_receipt",
    "path_inputs",
    "policy_identity",
    "store_inputs",
]


def _unreadable(path: str, error: OSError) -> InputError:
    return InputError(
        f"cannot read it to take its digest: {error.strerror or type(error).__name__}",
        rule="unreadable",
        source=path,
    )


def _file_input(role: str, path: str, bundle: str | None) -> ReceiptInput:
    """An already-scored input (records file, Parquet file or dataset folder): its files'
    bytes framed by their names under it (a file: its own name)."""
    root = Path(path)
    if root.is_dir():
        files = sorted(
            item.relative_to(root).as_posix() for item in root.rglob("*") if item.is_file()
        )
        located = [(name, root / name) for name in files]
    else:
        located = [(root.name, root)]
    digest = FramedDigest()
    for name, file in located:
        with open(file, "rb") as stream:
            digest.add_stream(name, stream, os.fstat(stream.fileno()).st_size)
    return ReceiptInput(role, bundle, digest.hexdigest(), tuple(name for name, _ in located))


def path_inputs(role: str, path: str, bundle_id: str | None = None) -> list[ReceiptInput]:
    """The inputs under ``path`` as a scoring run reads them: each bundle of an observation
    file or folder with its input digest (the one a store keeps at ingest), or an
    already-scored file's. An unreadable file raises :class:`InputError`."""
    from scorecard.engine import bundle_files, input_digest, is_records_file

    try:
        if (path.endswith(".parquet") and Path(path).exists()) or is_records_file(path):
            return [_file_input(role, path, bundle_id)]
        if path == "-":  # read once, while scored: its bytes are not known here
            return [ReceiptInput(role, bundle_id, None, ("-",))]
        bundles, _ = bundle_files([path], bundle_id=bundle_id)
        return [
            ReceiptInput(
                role,
                bundle.id,
                input_digest(bundle),
                (*(Path(name).name for name in bundle.manifests), *bundle.names),
            )
            for bundle in bundles
        ]
    except OSError as error:
        raise _unreadable(path, error) from None


def store_inputs(store: Store, roles: Sequence[tuple[str, str]]) -> list[ReceiptInput]:
    """The bundles ``(role, id)`` of ``store`` with the digests it kept when they were
    ingested (the same as their folders give)."""
    found = []
    for role, bundle_id in roles:
        entry = store.bundle(bundle_id)
        found.append(ReceiptInput(role, entry.id, entry.digest, tuple(entry.inputs)))
    return found


def policy_identity(policy: Policy | None, rules: GateRules | None) -> str:
    """The canonical policy's digest: the scoring policy (None: the reference defaults) and
    the gate's rules as applied."""
    from scorecard.contract import Policy

    scoring = (policy or Policy()).to_json()
    return policy_digest_of(scoring, None if rules is None else rules.to_json())


def new_receipt(
    command: str,
    sources: Mapping[str, Any],
    inputs: Sequence[ReceiptInput],
    *,
    catalog: Catalog | str | None,
    policy: Policy | None,
    rules: GateRules | None,
    seed: int | None,
) -> Receipt:
    """A receipt without its payload digest (:meth:`Receipt.with_payload` adds it)."""
    from scorecard import __version__
    from scorecard.fast import engine_in_use

    if catalog is None or isinstance(catalog, str):
        catalog_digest = catalog
    else:
        catalog_digest = catalog.files.digest if catalog.files is not None else None
    return Receipt(
        command=command,
        sources=dict(sources),
        inputs=tuple(inputs),
        catalog=catalog_digest,
        policy=policy_identity(policy, rules),
        seed=seed,
        version=__version__,
        engine=engine_in_use(),
    )


def compare_inputs(
    store: Store | None, paths: Sequence[PathLike], bundle_ids: Sequence[str]
) -> list[ReceiptInput]:
    """What a comparison reads: every bundle of ``store``, or the inputs under ``paths`` (one
    ``bundle_ids`` entry naming every bundle, one per path each path's; a ``--baseline`` path
    read first takes none of several)."""
    if store is not None:
        return store_inputs(store, [("input", entry.id) for entry in store.bundles()])
    given = [os.fspath(path) for path in paths]
    names: list[str | None] = (
        list(bundle_ids)
        if len(bundle_ids) > 1
        else [bundle_ids[0] if bundle_ids else None] * len(given)
    )
    if len(names) < len(given):
        names = [*([None] * (len(given) - len(names))), *names]
    return [
        item
        for path, name in zip(given, names, strict=True)
        for item in path_inputs("input", path, name)
    ]


def compare_receipt(
    sources: Mapping[str, Any],
    store: Store | None,
    paths: Sequence[PathLike],
    bundle_ids: Sequence[str],
    *,
    cases: PathLike | None,
    policy: Policy | None,
    rules: GateRules,
    seed: int,
) -> Receipt:
    """The receipt of a comparison: every bundle of ``store`` (as it kept them), or the
    inputs under ``paths`` (one ``bundle_ids`` entry naming every bundle, one per path each
    path's); the catalog observations were scored with (a store's: the one it keeps)."""
    from scorecard.engine import is_records_file

    inputs = compare_inputs(store, paths, bundle_ids)
    if store is not None:
        entries = store.bundles()
        catalog: Catalog | str | None = entries[0].catalog_digest if entries else None
    else:
        given = [os.fspath(path) for path in paths]
        scored_here = any(
            not (path.endswith(".parquet") and Path(path).exists()) and not is_records_file(path)
            for path in given
        )
        catalog = _catalog_of(cases) if scored_here or cases is not None else None
    return new_receipt(
        "compare", sources, inputs, catalog=catalog, policy=policy, rules=rules, seed=seed
    )


def _catalog_of(cases: PathLike | None) -> Catalog:
    from ._inputs import scoring_catalog_of

    return scoring_catalog_of(cases)
