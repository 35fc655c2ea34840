"""``history``: per candidate and case, the outcome of each night and the flakiness ledger."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._inputs import Campaign, PathLike, PolicySource, check_known, load_campaign, policy_file
from ._store import open_campaign_store, store_campaign

if TYPE_CHECKING:
    from scorecard.store import Store

__all__ = ["History", "history"]


@dataclass(frozen=True)
class History:
    """What :func:`history` found, as plain data (``aggregate.history_frames`` explains it)."""

    bundles: list[str]
    """The nights, in order."""
    nights: list[dict[str, Any]]
    """One entry per candidate x case x night it ran: its runs and outcome."""
    ledger: list[dict[str, Any]]
    """One entry per candidate x case: scored nights, passes, flips, flip rate with its
    interval (None with fewer than two scored nights), first and last failure, the strip."""


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):  # a NumPy scalar
        return _plain(value.item())
    return value


def history(
    paths: Sequence[PathLike] = (),
    *,
    candidates: Sequence[str] = (),
    case_ids: Sequence[str] = (),
    confidence: float = 0.95,
    policy: PolicySource = None,
    cases: PathLike | None = None,
    workers: int | None = None,
    bundle_ids: Sequence[str] = (),
    on_file: Callable[[str], None] | None = None,
    campaign: Campaign | None = None,
    store: PathLike | Store | None = None,
) -> History:
    """The history of the runs of ``paths`` (or ``campaign``, e.g. a store's), nights in the
    campaign's order: for each candidate x case (``candidates`` and ``case_ids`` only, when
    given; unknown ones raise naming the known ones), each night's outcome and the ledger."""
    from scorecard.aggregate import held_labels, history_frames, observed_categories

    checked = False
    if store is not None:
        opened = open_campaign_store(store, policy=policy)
        only: dict[str, Sequence[str]] = {}
        if candidates or case_ids:
            # a few candidates or cases of a long history: their rows alone become a frame
            known = held_labels(opened.runs_files(), ("candidate", "case"))
            check_known("candidate", candidates, known["candidate"], option="--candidate")
            check_known("case", case_ids, known["case"], option="--case-id")
            checked = True
            asked = (("candidate", candidates), ("case", case_ids))
            only = {name: ids for name, ids in asked if ids}
        campaign = store_campaign(opened, only=only or None)
    if campaign is None:
        campaign = load_campaign(
            paths,
            cases=cases,
            policy=policy_file(policy).policy,
            workers=workers,
            bundle_ids=bundle_ids,
            on_file=on_file,
        )
    frame = campaign.frame
    if not checked:
        check_known(
            "candidate", candidates, observed_categories(frame["candidate"]), option="--candidate"
        )
        check_known("case", case_ids, observed_categories(frame["case"]), option="--case-id")
    nights, ledger = history_frames(
        frame, campaign.bundle_order, candidates=candidates, cases=case_ids, confidence=confidence
    )
    return History(
        list(campaign.bundle_order),
        [
            {str(key): _plain(value) for key, value in row.items()}
            for row in nights.to_dict("records")
        ],
        [
            {str(key): _plain(value) for key, value in row.items()}
            for row in ledger.to_dict("records")
        ],
    )
