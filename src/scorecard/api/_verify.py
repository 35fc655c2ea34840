"""``verify``: an output's receipt checked against what its inputs give now (``docs/receipts.md``).

The output's own payload is hashed first (an output edited after it was written); then the
inputs the receipt names are read again (the paths as given, or the bundles a store kept) and
their digests compared, before anything is recomputed, so a changed input is named even when it
no longer scores; then the computation runs again and the catalog, policy, seed, version and
payload are compared, in that order. The engine is no identity: a difference in it is a note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorecard.contract import (
    InputError,
    Receipt,
    ReceiptDifference,
    StoreError,
    Takes,
    arguments,
)

from ._inputs import PathLike
from ._receipts import compare_inputs, path_inputs, store_inputs

if TYPE_CHECKING:
    from scorecard.contract import ReceiptInput
    from scorecard.store import Store

__all__ = ["Verification", "verify"]


@dataclass(frozen=True)
class Verification:
    """What :func:`verify` found."""

    output: str
    """The output checked."""
    receipt: Receipt
    """Its receipt, as read."""
    difference: ReceiptDifference | None
    """The first difference (None: identical)."""
    notes: tuple[str, ...] = ()
    """Facts that are no difference (another engine)."""

    @property
    def identical(self) -> bool:
        """Whether the inputs, catalog, policy, seed, version and payload are the receipt's."""
        return self.difference is None

    @property
    def line(self) -> str:
        """``identical``, or ``differs: CAUSE: what differs``."""
        if self.difference is None:
            return "identical"
        return f"differs: {self.difference.cause}: {self.difference.message}"


def _read_output(path: str) -> Any:
    from scorecard.contract import parse_json_document

    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise InputError(
            f"cannot read the output: {reason or type(error).__name__}",
            rule="unreadable",
            source=path,
        ) from None
    return parse_json_document(text, source=path)


def _sides(receipt: Receipt, source: str) -> tuple[str, list[str]]:
    current, baselines = receipt.sources.get("current"), receipt.sources.get("baselines")
    if not isinstance(current, str) or not isinstance(baselines, list):
        raise InputError(
            "must name the current bundle and the baselines",
            rule="bad_receipt",
            pointer="/receipt/sources",
            source=source,
        )
    return current, [str(item) for item in baselines]


def _compare_paths(receipt: Receipt, source: str) -> list[str]:
    """The paths a comparison read, a ``--baseline`` path first (as ``compare`` reads it)."""
    paths, baseline = receipt.sources.get("paths"), receipt.sources.get("baseline")
    if not isinstance(paths, list) or not all(isinstance(path, str) for path in paths):
        raise InputError(
            "must name the paths compared",
            rule="bad_receipt",
            pointer="/receipt/sources/paths",
            source=source,
        )
    if isinstance(baseline, str) and os.path.exists(baseline):
        return [baseline, *paths]
    return list(paths)


def _site_files(folder: Path) -> dict[str, bytes]:
    """Every file of a site folder by ``/``-separated name (its receipt too)."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _parquet_receipt(path: str) -> tuple[Receipt, str]:
    """The receipt stamped on Parquet written by ``score`` and its rows' digest now."""
    from scorecard.contract import (
        RECEIPT_METADATA_KEY,
        RowsDigest,
        parse_json_document,
        read_receipt,
    )
    from scorecard.engine.parquet import parquet_metadata_value, read_parquet_rows

    stamped = parquet_metadata_value(path, RECEIPT_METADATA_KEY)
    document = {} if stamped is None else parse_json_document(stamped.decode("utf-8"), source=path)
    receipt = read_receipt(None if stamped is None else {"receipt": document}, source=path)
    digest = RowsDigest()
    for row in read_parquet_rows(path):
        digest.add(row)
    return receipt, digest.hexdigest()


def _scored_again(receipt: Receipt, workers: int | None) -> Receipt:
    import tempfile

    from ._score import score

    sources = receipt.sources
    with tempfile.TemporaryDirectory(prefix="scorecard-verify-") as folder:
        out = Path(folder) / "again.parquet"
        score(
            [str(path) for path in sources.get("paths") or []],
            out=out,
            policy=sources.get("policy"),
            cases=sources.get("cases"),
            bundle_id=sources.get("bundleId"),
            workers=workers,
            partition_by_bundle=bool(sources.get("partitionByBundle")),
        )
        return _parquet_receipt(str(out))[0]


def _report_inputs(receipt: Receipt, store: Store | None) -> list[ReceiptInput] | ReceiptDifference:
    sources = receipt.sources
    if store is not None:
        bundles = [str(bundle) for bundle in sources.get("bundles") or []]
        try:
            return store_inputs(store, [("input", bundle) for bundle in bundles])
        except StoreError as error:
            return ReceiptDifference("input", f"{error.message} (store {store.path})")
    found: list[ReceiptInput] = []
    bundle_id = sources.get("bundleId")
    for path in [str(path) for path in sources.get("paths") or []]:
        if not os.path.exists(path):
            return ReceiptDifference("input", f"input {path} is not there any more")
        found.extend(path_inputs("input", path, bundle_id if isinstance(bundle_id, str) else None))
    return found


def _reported_again(receipt: Receipt, store: Store | None, workers: int | None) -> Receipt:
    from scorecard.contract import parse_json_document, read_receipt

    from ._report import SITE_RECEIPT, build_report

    sources = receipt.sources
    options: dict[str, Any] = {"policy": sources.get("policy"), "seed": receipt.seed or 0}
    if store is not None:
        bundles = [str(bundle) for bundle in sources.get("bundles") or []]
        site = build_report(
            store=store,
            current=bundles[-1] if bundles else None,
            baseline=",".join(bundles[:-1]) or "previous",
            **options,
        )
    else:
        site = build_report(
            [str(path) for path in sources.get("paths") or []],
            bundle_id=sources.get("bundleId"),
            cases=sources.get("cases"),
            workers=workers,
            **options,
        )
    document = parse_json_document(site.files[SITE_RECEIPT].decode(), source=SITE_RECEIPT)
    return read_receipt(document, source=SITE_RECEIPT)


def _inputs_now(
    receipt: Receipt, store: Store | None, source: str
) -> list[ReceiptInput] | ReceiptDifference:
    """The inputs the receipt names, read again; a path or bundle gone is a difference."""
    if receipt.command in ("report", "score"):
        return _report_inputs(receipt, store)
    if receipt.command == "compare":
        paths = [] if store is not None else _compare_paths(receipt, source)
        for path in paths:
            if not os.path.exists(path):
                return ReceiptDifference("input", f"input {path} is not there any more")
        ids = receipt.sources.get("bundleIds")
        return compare_inputs(store, paths, ids if isinstance(ids, list) else [])
    current, baselines = _sides(receipt, source)
    if store is not None:
        roles = [("current", current), *(("baseline", bundle) for bundle in baselines)]
        try:
            return store_inputs(store, roles)
        except StoreError as error:
            return ReceiptDifference("input", f"{error.message} (store {store.path})")
    found: list[ReceiptInput] = []
    sources = receipt.sources
    for role, path, bundle_id in (
        ("current", current, sources.get("bundleId")),
        *(("baseline", path, sources.get("baselineBundleId")) for path in baselines),
    ):
        if not os.path.exists(path):
            return ReceiptDifference("input", f"{role} {path} is not there any more")
        found.extend(path_inputs(role, path, bundle_id if isinstance(bundle_id, str) else None))
    return found


def _store_of(receipt: Receipt, given: PathLike | Store | None) -> Store | None:
    from ._store import open_campaign_store

    if given is not None:
        return open_campaign_store(given)
    recorded = receipt.sources.get("store")
    return None if recorded is None else open_campaign_store(str(recorded))


def _judged_again(receipt: Receipt, store: Store | None, workers: int | None) -> Receipt:
    from ._gate import judge

    sources = receipt.sources
    current, baselines = _sides(receipt, "")
    options: dict[str, Any] = {
        "policy": sources.get("policy"),
        "tolerance": sources.get("tolerance"),
        "fail_on_inconclusive": bool(sources.get("failOnInconclusive")),
        "seed": receipt.seed or 0,
    }
    if store is not None:
        judged = judge(current, ",".join(baselines), store=store, **options)
    else:
        judged = judge(
            current,
            baselines,
            bundle_id=sources.get("bundleId"),
            baseline_bundle_id=sources.get("baselineBundleId"),
            cases=sources.get("cases"),
            workers=workers,
            judge_valid=sources.get("judgeValid") is True,
            **options,
        )
    if judged.result.receipt is None:  # pragma: no cover - judge always writes one
        raise AssertionError("judge wrote no receipt")
    return judged.result.receipt


def _compared_again(receipt: Receipt, store: Store | None, workers: int | None) -> Receipt:
    from ._compare import compare

    sources = receipt.sources
    paths = sources.get("paths") or []
    found = compare(
        [] if store is not None else [path for path in paths if isinstance(path, str)],
        store=store,
        baseline=sources.get("baseline"),
        bundle=sources.get("bundle"),
        by=sources.get("by"),
        candidates=sources.get("candidates") or [],
        across_bundles=sources.get("acrossBundles"),
        gate=bool(sources.get("gate", True)),
        seed=receipt.seed or 0,
        tolerance=sources.get("tolerance"),
        policy=sources.get("policy"),
        cases=sources.get("cases"),
        workers=workers,
        bundle_ids=sources.get("bundleIds") or [],
    )
    if found.receipt is None:  # pragma: no cover - compare of paths or a store writes one
        raise AssertionError("compare wrote no receipt")
    return found.receipt


_COMMANDS = ("gate", "compare", "report", "score")


@arguments(output=Takes.path, workers=Takes.workers)
def verify(
    output: PathLike, *, store: PathLike | Store | None = None, workers: int | None = None
) -> Verification:
    """Check ``output`` (a gate's or ``compare``'s JSON, a report site's folder or its
    ``receipt.json``, or Parquet written by ``score``) against its receipt: the output's payload, then the
    inputs it names read again (the paths as given, relative to the working folder; with a
    store, the bundles it kept: ``store`` overrides the store the receipt names), then the
    verdict computed again on ``workers`` processes. The result says ``identical`` or names
    the first difference; an output without a receipt, or inputs that no longer read, raise
    a located :class:`~scorecard.contract.ScorecardError`."""
    from scorecard.contract import (
        engine_note,
        first_difference,
        input_difference,
        payload_digest,
        read_receipt,
        site_payload_digest,
    )

    source = os.fspath(output)
    parquet_payload: str | None = None
    if source.endswith(".parquet"):  # scored rows: the receipt is in the file's metadata
        recorded, parquet_payload = _parquet_receipt(source)
        document: Any = {}
    else:
        if os.path.isdir(source):  # a report site: its receipt.json
            source = os.path.join(source, "receipt.json")
        document = _read_output(source)
        recorded = read_receipt(document, source=source)
    if recorded.command not in _COMMANDS:
        raise InputError(
            f"names the command {recorded.command!r}, which verify cannot run again (it runs "
            f"{', '.join(_COMMANDS)})",
            rule="bad_receipt",
            pointer="/receipt/command",
            source=source,
        )
    if parquet_payload is not None:
        payload = parquet_payload
    elif recorded.command == "report":
        payload = site_payload_digest(_site_files(Path(source).parent))
    else:
        payload = payload_digest(document)
    if payload != recorded.payload:
        changed = ReceiptDifference(
            "payload",
            "the output is not the one its receipt names: it was changed after it was written",
            "/receipt/payload",
        )
        return Verification(source, recorded, changed)
    for index, item in enumerate(recorded.inputs):
        if item.digest is None:
            raise InputError(
                "names standard input, which cannot be read again: only outputs of files, "
                "folders or a store can be verified",
                rule="unverifiable",
                pointer=f"/receipt/inputs/{index}",
                source=source,
            )
    opened = _store_of(recorded, store)
    inputs = _inputs_now(recorded, opened, source)
    if isinstance(inputs, ReceiptDifference):
        return Verification(source, recorded, inputs)
    difference = input_difference(recorded.inputs, inputs)
    if difference is not None:
        return Verification(source, recorded, difference)
    try:
        if recorded.command == "score":
            again = _scored_again(recorded, workers)
        elif recorded.command == "report":
            again = _reported_again(recorded, opened, workers)
        elif recorded.command == "compare":
            again = _compared_again(recorded, opened, workers)
        else:
            again = _judged_again(recorded, opened, workers)
    except (TypeError, ValueError) as error:  # sources of the wrong type: an edited receipt
        raise InputError(
            f"do not name a run that can be repeated ({error})",
            rule="bad_receipt",
            pointer="/receipt/sources",
            source=source,
        ) from None
    note = engine_note(recorded, again)
    return Verification(
        source, recorded, first_difference(recorded, again), () if note is None else (note,)
    )
