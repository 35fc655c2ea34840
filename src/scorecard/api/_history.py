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
        counted = opened.night_counts()
        if counted is not None:
            return _from_counts(*counted, candidates, case_ids, confidence)
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
    return _history(campaign.bundle_order, nights, ledger)


def _from_counts(
    order: list[str],
    rows: list[tuple[str, str, str, int, int, int, int]],
    candidates: Sequence[str],
    case_ids: Sequence[str],
    confidence: float,
) -> History:
    """The history from a store's night counts (its tallies): the names as a records frame
    holds them, checked and chosen as the frame's are, then the frame's nights and ledger."""
    from scorecard.aggregate import nights_history
    from scorecard.contract import CASE_IDS, written_name

    shown = [
        (written_name(name), written_name(case), written_name(bundle), runs, scored, passed, gate)
        for name, case, bundle, runs, scored, passed, gate in rows
    ]
    held_candidates = {row[0] for row in shown}
    held_cases = {row[1] for row in shown}
    known_cases = [case for case in CASE_IDS if case in held_cases]
    known_cases += sorted(held_cases.difference(CASE_IDS))
    check_known("candidate", candidates, sorted(held_candidates), option="--candidate")
    check_known("case", case_ids, known_cases, option="--case-id")
    chosen = [
        row
        for row in shown
        if (not candidates or row[0] in candidates) and (not case_ids or row[1] in case_ids)
    ]
    nights, ledger = nights_history(chosen, order, confidence=confidence)
    return _history(order, nights, ledger)


def _history(order: Sequence[str], nights: Any, ledger: Any) -> History:
    return History(
        list(order),
        [
            {str(key): _plain(value) for key, value in row.items()}
            for row in nights.to_dict("records")
        ],
        [
            {str(key): _plain(value) for key, value in row.items()}
            for row in ledger.to_dict("records")
        ],
    )
