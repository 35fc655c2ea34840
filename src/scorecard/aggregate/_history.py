"""A campaign's history per candidate and case: each night's outcome, and the flakiness ledger
(how often the outcome flips between nights, with its interval; first and last failure).

One night's outcome of a candidate on a case, from its runs that night:

- ``gate failed``: a scoreable run failed the effective gate (hard invariants, lifecycle, or the
  audit when it gates);
- ``failed``: no gate failure, but a scoreable run did not pass every dimension;
- ``passed``: every scoreable run passed (there is at least one);
- ``not scored``: no scoreable run (infrastructure failures, skips): not counted as either.

A *flip* is a change between passing and not passing (``failed`` or ``gate failed``) from one
scored night to the next scored night of the same candidate and case; the flip rate is the
flips over the transitions between scored nights, with its Wilson interval. A case that always
passes or always fails has rate 0; one that alternates every night, 1. Nights follow the
campaign's order (a store's night order, or the order folders are given).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from ._stats import wilson_intervals

__all__ = ["COUNT_COLUMNS", "OUTCOMES", "Outcome", "history_frames", "nights_history"]

Outcome = Literal["passed", "failed", "gate failed", "not scored"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "failed", "gate failed", "not scored")
"""A night's outcome of a candidate on a case, from best to worst (``not scored`` apart)."""
_LETTERS = {"passed": "P", "failed": "F", "gate failed": "G", "not scored": "-"}


#: The columns of a campaign's night counts (:func:`nights_history` takes them).
COUNT_COLUMNS = ("candidate", "case", "bundle", "runs", "scored", "passed_runs", "gate_failures")


def _night_outcomes(frame: pd.DataFrame) -> pd.DataFrame:
    """Per candidate x case x bundle of a records frame: :data:`COUNT_COLUMNS`."""
    scoreable = frame["scoreable"].to_numpy(dtype=bool)
    gate_failed = scoreable & ~frame["gate_passed"].to_numpy(dtype=bool, na_value=True)
    failed = scoreable & ~frame["passed"].to_numpy(dtype=bool, na_value=False)
    runs = pd.DataFrame(
        {
            "candidate": frame["candidate"].astype(str).to_numpy(),
            "case": frame["case"].astype(str).to_numpy(),
            "bundle": frame["bundle"].astype(str).to_numpy(),
            "runs": np.ones(len(frame), dtype=np.int64),
            "scored": scoreable.astype(np.int64),
            "passed_runs": (scoreable & ~failed).astype(np.int64),
            "gate_failures": gate_failed.astype(np.int64),
        }
    )
    nights = runs.groupby(["candidate", "case", "bundle"], sort=False, observed=True).sum()
    return nights.reset_index()


def _with_outcomes(nights: pd.DataFrame) -> pd.DataFrame:
    """The night counts with each night's ``outcome``."""
    outcome = np.where(
        nights["scored"].to_numpy() == 0,
        "not scored",
        np.where(
            nights["gate_failures"].to_numpy() > 0,
            "gate failed",
            np.where(nights["passed_runs"] < nights["scored"], "failed", "passed"),
        ),
    )
    nights["outcome"] = outcome
    return nights


def history_frames(
    frame: pd.DataFrame,
    bundle_order: Sequence[str],
    *,
    candidates: Sequence[str] = (),
    cases: Sequence[str] = (),
    confidence: float = 0.95,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The nights and the ledger of a records frame (``candidates`` and ``cases`` only, when
    given), nights in ``bundle_order``.

    ``nights``: one row per candidate x case x night it ran: ``candidate``, ``case``,
    ``bundle``, ``night`` (0-based position in ``bundle_order``), ``runs``, ``scored``,
    ``passed_runs``, ``gate_failures``, ``outcome``. ``ledger``: one row per candidate x case:
    ``nights`` (scored), ``passed_nights``, ``flips``, ``flip_rate`` with ``flip_low`` and
    ``flip_high`` (NaN with fewer than two scored nights), ``first_failure`` and
    ``last_failure`` (bundle ids, None when it never failed), ``strip`` (one letter a night in
    order: P passed, F failed, G gate failed, - not scored; a space where it did not run).
    Rows are sorted by candidate, then case.
    """
    selected = frame
    if candidates:
        selected = selected[selected["candidate"].astype(str).isin(list(candidates))]
    if cases:
        selected = selected[selected["case"].astype(str).isin(list(cases))]
    return _nights_and_ledger(_night_outcomes(selected), bundle_order, confidence)


def nights_history(
    counts: Sequence[Sequence[Any]], bundle_order: Sequence[str], *, confidence: float = 0.95
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`history_frames` from a campaign's night counts: rows of :data:`COUNT_COLUMNS`,
    one per candidate x case x bundle it ran, of the candidates and cases wanted, names as a
    records frame holds them (what a campaign store's tallies give without reading a run)."""
    frame = pd.DataFrame(list(counts), columns=list(COUNT_COLUMNS))
    for name in COUNT_COLUMNS[3:]:
        frame[name] = frame[name].astype(np.int64)
    return _nights_and_ledger(frame, bundle_order, confidence)


def _nights_and_ledger(
    counts: pd.DataFrame, bundle_order: Sequence[str], confidence: float
) -> tuple[pd.DataFrame, pd.DataFrame]:
    position = {bundle: index for index, bundle in enumerate(bundle_order)}
    nights = _with_outcomes(counts)
    nights["night"] = nights["bundle"].map(position).astype(np.int64)
    nights = nights.sort_values(["candidate", "case", "night"], kind="stable").reset_index(
        drop=True
    )
    nights = nights[
        [
            "candidate",
            "case",
            "bundle",
            "night",
            "runs",
            "scored",
            "passed_runs",
            "gate_failures",
            "outcome",
        ]
    ]
    rows = []
    for (candidate, case), group in nights.groupby(["candidate", "case"], sort=True):
        outcomes = group["outcome"].tolist()
        bundles = group["bundle"].tolist()
        scored = [
            (bundle, outcome)
            for bundle, outcome in zip(bundles, outcomes, strict=True)
            if outcome != "not scored"
        ]
        passing = [outcome == "passed" for _, outcome in scored]
        flips = sum(1 for before, after in itertools.pairwise(passing) if before != after)
        failures = [bundle for bundle, outcome in scored if outcome != "passed"]
        letters = [" "] * len(bundle_order)
        for night, outcome in zip(group["night"].tolist(), outcomes, strict=True):
            letters[night] = _LETTERS[outcome]
        rows.append(
            {
                "candidate": candidate,
                "case": case,
                "nights": len(scored),
                "passed_nights": sum(passing),
                "flips": flips,
                "transitions": max(len(scored) - 1, 0),
                "first_failure": failures[0] if failures else None,
                "last_failure": failures[-1] if failures else None,
                "strip": "".join(letters),
            }
        )
    ledger = pd.DataFrame(
        rows,
        columns=[
            "candidate", "case", "nights", "passed_nights", "flips", "transitions",
            "first_failure", "last_failure", "strip",
        ],
    )  # fmt: skip
    rate, low, high = wilson_intervals(
        ledger["flips"].to_numpy(dtype=np.float64),
        ledger["transitions"].to_numpy(dtype=np.float64),
        confidence,
    )
    ledger.insert(5, "flip_rate", rate)
    ledger.insert(6, "flip_low", low)
    ledger.insert(7, "flip_high", high)
    return nights, ledger.drop(columns=["transitions"])
