"""The campaign store behind the calls: ingest, the store as the runs a view reads, baselines
named by reference (``last:7``, ``approved``, ``ID,ID``), and the labels a verdict honours."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorecard.contract import InputError, StoreError

from ._inputs import Campaign, PathLike, PolicySource, policy_file, scoring_catalog_of

if TYPE_CHECKING:
    from scorecard.store import IngestReport, Label, Labels, Store

__all__ = [
    "add_label",
    "approve_baseline",
    "baseline_bundles",
    "ingest",
    "open_campaign_store",
    "query",
    "remove_labels",
    "store_campaign",
    "store_labels",
]

_LAST = re.compile(r"last:([1-9][0-9]{0,3})")


def open_campaign_store(
    store: PathLike | Store, *, policy: PolicySource = None, create: bool = False,
    cases: PathLike | None = None,
) -> Store:  # fmt: skip
    """The store at ``store`` (or ``store`` itself). A ``policy`` whose scoring section differs
    from the store's, or ``cases`` other than its catalog, is a :class:`StoreError` naming the
    difference: a store scores with one policy and catalog, fixed when it was made (with
    ``create``, from these)."""
    from scorecard.store import Store, open_store

    scoring = policy_file(policy).policy
    if isinstance(store, Store):
        if scoring is not None and scoring != store.policy:
            raise StoreError(
                "the policy's scoring section is not the store's (a store scores with one "
                "policy, fixed when it was made)",
                rule="policy_differs",
                source=str(store.path),
            )
        return store
    if not isinstance(store, str | os.PathLike):
        raise TypeError(f"store must be a path or a Store, not {type(store).__name__}")
    catalog = scoring_catalog_of(cases) if cases is not None or create else None
    return open_store(Path(store), create=create, catalog=catalog, policy=scoring)


def ingest(
    paths: Sequence[PathLike],
    store: PathLike | Store,
    *,
    policy: PolicySource = None,
    cases: PathLike | None = None,
    workers: int | None = None,
    replace: bool = False,
    bundle_id: str | None = None,
    night: str | None = None,
    keep_rejected: bool = False,
    on_file: Callable[[str], None] | None = None,
) -> IngestReport:
    """Score the bundles under ``paths`` and add each to the store at ``store`` as one unit,
    making the store (with ``policy`` and ``cases``) when the folder holds none
    (``docs/store.md``). The same bundle again is unchanged; a changed one under the same id is
    refused unless ``replace``; a bundle with rejected records is refused unless
    ``keep_rejected``. Each bundle's outcome is in the report."""
    from scorecard.engine import default_workers

    opened = open_campaign_store(store, policy=policy, cases=cases, create=True)
    return opened.ingest(
        [os.fspath(path) for path in paths],
        workers=workers or default_workers(),
        replace=replace,
        bundle_id=bundle_id,
        night=night,
        keep_rejected=keep_rejected,
        on_file=on_file,
    )


def store_campaign(
    store: Store,
    bundles: Sequence[str] | None = None,
    *,
    only: dict[str, Sequence[str]] | None = None,
    client: Any = None,
) -> Campaign:
    """The store's runs (``bundles`` only, when given) as the records frame a view reads, in
    night order: the frame of the same folders, value for value (``only``: its rows of those
    labels, as ``records_frame`` takes it, read without building the rest). With ``client``
    (a ``distributed.Client``), the frame is read and built on its Dask cluster, a task per
    night (``aggregate.distributed.cluster_frame``): the same frame."""
    from scorecard.aggregate import records_frame

    order = [entry.id for entry in store.bundles() if bundles is None or entry.id in bundles]
    if not order:
        raise InputError("the store holds no bundle yet (scorecard ingest)", rule="no_records")
    files = store.runs_files(order)
    if client is not None and not only:
        from scorecard.aggregate.distributed import cluster_frame

        return Campaign(cluster_frame(client, files, order), order)
    return Campaign(records_frame(files, bundle_order=order, only=only), order)


def current_bundle(store: Store, current: str | None) -> str:
    """``current``, checked to be one of the store's bundles, or the newest night."""
    order = [entry.id for entry in store.bundles()]
    if not order:
        raise InputError("the store holds no bundle yet (scorecard ingest)", rule="no_records")
    if current is None:
        return order[-1]
    if current not in order:
        from ._inputs import suggestion

        raise suggestion("bundle", current, order, option="--current")
    return current


def baseline_bundles(store: Store, current: str, reference: str | Sequence[str]) -> list[str]:
    """The bundles a baseline reference names for judging ``current``, in night order:

    - ``last:N``: the N nights before ``current`` (fewer when the store holds fewer);
    - ``approved``: the approved baseline (``scorecard baseline approve``);
    - ``previous``: the night before ``current``;
    - ``ID,ID,...`` (or a sequence of ids): those bundles.

    A baseline never holds ``current`` itself; an unknown id or an empty result is an
    :class:`InputError` saying what the store holds."""
    order = [entry.id for entry in store.bundles()]
    before = order[: order.index(current)] if current in order else order
    if not isinstance(reference, str) and len(reference) == 1:
        reference = reference[0]  # one --baseline: a reference, or an id
    if isinstance(reference, str):
        matched = _LAST.fullmatch(reference)
        if matched:
            chosen = before[-int(matched.group(1)) :]
        elif reference == "previous":
            chosen = before[-1:]
        elif reference == "approved":
            chosen = list(store.labels().approved)
            if not chosen:
                raise InputError(
                    "the store has no approved baseline (scorecard baseline approve ID...)",
                    rule="no_approved_baseline",
                    source="--baseline",
                )
        else:
            chosen = [part.strip() for part in reference.split(",") if part.strip()]
    else:
        chosen = list(reference)
    from ._inputs import check_known

    check_known("bundle", chosen, order, option="--baseline")
    if current in chosen:
        raise InputError(
            "the baseline holds the bundle judged", rule="conflicting_options", source="--baseline"
        )
    if not chosen:
        raise InputError(
            f"no night before {current} in the store for {reference!r}",
            rule="no_baseline",
            source="--baseline",
        )
    return sorted(dict.fromkeys(chosen), key=order.index)


def quarantined(labels: Labels, night: str | None) -> list[Label]:
    """The quarantine labels that apply to ``night`` (their runs never fail a gate)."""
    return [label for label in labels.active(night) if label.label == "quarantined"]


def label_notes(labels: Labels, night: str | None, candidates: Sequence[str]) -> list[str]:
    """What a report says of the labels of ``candidates``: each label applying to ``night``,
    and each one that expired before it (applying no more)."""
    shown = set(candidates)
    notes = [
        f"label {label.describe()}" for label in labels.active(night) if label.candidate in shown
    ]
    notes += [
        f"label expired, applies no more: {label.describe()}"
        for label in labels.expired(night)
        if label.candidate in shown
    ]
    return notes


def query(store: PathLike | Store, sql: str) -> Any:
    """The result of one read-only SQL statement over the store's views ``runs``, ``detail``
    and ``bundles`` (DuckDB), as a ``pyarrow.Table``; secret-shaped text in it redacted, and
    anything but a read refused with a :class:`StoreError` (``docs/store.md``)."""
    return open_campaign_store(store).query(sql)


def add_label(store: PathLike | Store, label: Label) -> Labels:
    """Add ``label`` to the store's labels (``scorecard label add``); returns them all."""
    return open_campaign_store(store).add_label(label)


def remove_labels(
    store: PathLike | Store, candidate: str, case: str | None = None, label: str | None = None
) -> int:
    """Remove the labels of ``candidate`` on ``case`` (the word ``label`` only, when given);
    returns how many went."""
    return open_campaign_store(store).remove_labels(candidate, case, label)


def approve_baseline(store: PathLike | Store, bundles: Sequence[str]) -> Labels:
    """Make ``bundles`` the store's approved baseline (``gate --baseline approved``)."""
    return open_campaign_store(store).approve(bundles)


def store_labels(store: PathLike | Store) -> tuple[Labels, str | None]:
    """The store's labels and approved baseline, and the newest night's date (what "applies"
    means when a listing shows them; None when the store is empty or the night has no date)."""
    opened = open_campaign_store(store)
    bundles = opened.bundles()
    return opened.labels(), (bundles[-1].night if bundles else None)
