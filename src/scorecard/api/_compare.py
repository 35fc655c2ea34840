"""``compare``: a campaign's newest bundle against the one before, one bundle's candidates side
by side, or one candidate across bundles, as the view the command renders."""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from scorecard.contract import InputError, Takes, arguments

from ._inputs import (
    Campaign,
    PathLike,
    PolicySource,
    check_bundles_before_scoring,
    check_known,
    gate_rules_of,
    load_campaign,
    policy_file,
)
from ._receipts import compare_receipt
from ._store import open_campaign_store, store_campaign

if TYPE_CHECKING:
    from scorecard.aggregate import ComparisonSettings
    from scorecard.contract import Receipt
    from scorecard.gate import GateRules
    from scorecard.report import BundleView, CampaignView, GateStatus, TrendView
    from scorecard.store import Store

__all__ = ["Comparison", "compare", "comparison_settings", "gate_statuses"]

DEFAULT_TOLERANCE = 0.05
"""The gate's default drop tolerance (``GateRules.tolerance``), which compare uses too."""


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare` found: the view to render, and notes for the person reading it."""

    view: BundleView | TrendView | CampaignView
    """The campaign view (current against baseline), a bundle's side-by-side view, or one
    candidate's trend."""
    notes: list[str] = field(default_factory=list)
    """Choices made for the caller (e.g. which bundle was shown), one sentence each."""
    inputs_receipt: Receipt | None = field(default=None, repr=False)
    """:attr:`receipt` before its payload digest: what the view was computed from."""

    @functools.cached_property
    def receipt(self) -> Receipt | None:
        """What the view was computed from (``docs/receipts.md``), naming the digest of the
        view's JSON payload; None for a campaign given in memory. Digested when first asked
        for: a table or CSV of the view writes no receipt, and the digest of a campaign view's
        JSON is a tenth of a large comparison's time."""
        if self.inputs_receipt is None:
            return None
        from scorecard.report import view_document

        return self.inputs_receipt.with_payload(view_document(self.view))


def comparison_settings(
    rules: GateRules, *, seed: int, tolerance: float | None
) -> ComparisonSettings:
    """The gate's comparison settings (its policy section), ``tolerance`` overriding."""
    settings = rules.settings(seed)
    return settings if tolerance is None else dataclasses.replace(settings, tolerance=tolerance)


def gate_statuses(
    frame: Any, baseline: str, current: str, rules: GateRules, seed: int
) -> Mapping[str, GateStatus]:
    """The gate's status of each candidate of ``current`` judged against ``baseline``.

    The runs are the records frame's (no reasons, failure texts or audit findings: the rows'
    effective gate already holds the audit when it gates), so the checks are the gate's on the
    same runs, read as columns.
    """
    from scorecard.aggregate import select_rows
    from scorecard.gate import evaluate_gate, frame_side
    from scorecard.report import GateStatus

    result = evaluate_gate(
        frame_side(select_rows(frame, bundle=current), source=current),
        frame_side(select_rows(frame, bundle=baseline), source=baseline),
        rules,
        seed=seed,
    )
    order = {"fail": 0, "inconclusive": 1, "warn": 2, "pass": 3}
    statuses: dict[str, GateStatus] = {}
    for check in result.checks:
        if check.candidate is None or not check.required:
            continue
        known = statuses.get(check.candidate)
        if known is not None and order[known.status] < order[check.status]:
            continue
        summary = "; ".join(o.summary for o in check.outcomes if o.status == check.status)
        if known is not None and known.status == check.status and known.summary:
            summary = "; ".join(part for part in (known.summary, summary) if part)
        statuses[check.candidate] = GateStatus(check.status, summary)
    return statuses


def _check_options(
    *,
    baseline: str | None,
    bundle: str | None,
    by: str | None,
    candidates: Sequence[str],
    across_bundles: str | None,
) -> bool:
    """Whether the options ask for one bundle side by side; conflicting ones raise."""
    side_by_side = bool(candidates) or by is not None or (bundle is not None and not baseline)
    if across_bundles is not None and (side_by_side or bundle is not None or baseline):
        raise InputError(
            "--across-bundles follows one candidate over every bundle; drop --candidate, "
            "--by, --bundle and --baseline",
            rule="conflicting_options",
        )
    if side_by_side and baseline is not None:
        raise InputError(
            "--baseline judges a bundle against another; --candidate and --by compare "
            "within one bundle",
            rule="conflicting_options",
        )
    if len(set(candidates)) != len(candidates):
        raise InputError("a --candidate is given twice", rule="conflicting_options")
    return side_by_side


@arguments(
    paths=Takes.paths,
    candidates=Takes.texts,
    seed=Takes.seed,
    policy=Takes.policy_source,
    cases=Takes.optional_path,
    workers=Takes.workers,
    bundle_ids=Takes.texts,
    baseline=Takes.optional_text,
    bundle=Takes.optional_text,
    across_bundles=Takes.optional_text,
    scheduler=Takes.optional_text,
)
def compare(
    paths: Sequence[PathLike] = (),
    *,
    baseline: str | None = None,
    bundle: str | None = None,
    by: str | None = None,
    candidates: Sequence[str] = (),
    across_bundles: str | None = None,
    gate: bool = True,
    seed: int = 0,
    tolerance: float | None = None,
    policy: PolicySource = None,
    cases: PathLike | None = None,
    workers: int | None = None,
    bundle_ids: Sequence[str] = (),
    on_file: Callable[[str], None] | None = None,
    campaign: Campaign | None = None,
    store: PathLike | Store | None = None,
    scheduler: str | None = None,
) -> Comparison:
    """Compare the runs of ``paths`` (observations scored here, records files, Parquet) or of
    ``campaign`` or ``store`` (a campaign store's runs, night order): by default the newest bundle against the one before it
    (``baseline``: a bundle id, or a path read as one more input), every candidate paired by
    case with a verdict per metric, the gate's status of each (``gate``) and every candidate's
    trend; with ``candidates``, ``by`` or ``bundle`` alone, one bundle's candidates (or
    providers) side by side; with ``across_bundles``, one candidate over every bundle.

    Bad options, unknown ids and rejected records raise (:class:`InputError`,
    :class:`InputErrors`); the view is the same whatever ``workers`` is. The comparison carries
    its receipt (``docs/receipts.md``) unless ``campaign`` was given in memory.

    ``scheduler`` (with ``store`` only: a Dask scheduler's address, or ``local`` for a
    cluster of processes here) reads the store's nights into the campaign frame on that
    cluster, a task per night; the comparison is the same, byte for byte.
    """
    from scorecard.aggregate import analyze_campaign, observed_categories
    from scorecard.report import bundle_view, campaign_view, trend_view

    baseline_given = baseline

    chosen = list(candidates)
    if by not in (None, "candidate", "provider"):
        raise InputError("by must be candidate or provider", rule="usage", source="--by")
    side_by_side = _check_options(
        baseline=baseline,
        bundle=bundle,
        by=by,
        candidates=chosen,
        across_bundles=across_bundles,
    )
    settings_file = policy_file(policy)
    rules = gate_rules_of(settings_file)
    opened = None
    receipted = campaign is None  # a campaign given in memory names no input to re-read
    if scheduler is not None and store is None:
        raise InputError(
            "--scheduler reads a campaign store on the cluster: give --store too",
            rule="usage",
            source="--scheduler",
        )
    if store is not None:
        opened = open_campaign_store(store, policy=settings_file)
        if scheduler is None:
            campaign = store_campaign(opened)
        else:
            from ._distributed import cluster_client

            with cluster_client(scheduler) as client:
                campaign = store_campaign(opened, client=client)
    given = list(paths)
    baseline_path = campaign is None and baseline is not None and Path(baseline).exists()
    if baseline_path and any(
        Path(path).resolve() == Path(baseline or "").resolve() for path in given
    ):
        raise InputError(
            "--baseline names a path that is also an input; give its bundle id instead "
            "(or leave it out: the bundle before the current one is the default)",
            rule="conflicting_options",
            source="--baseline",
        )
    if campaign is None:
        ids = list(bundle_ids)
        if not baseline_path:
            asked = [("--bundle", bundle), ("--baseline", baseline)]
            check_bundles_before_scoring(given, ids, asked)
        campaign = load_campaign(
            [baseline, *given] if baseline_path and baseline is not None else given,
            cases=cases,
            policy=settings_file.policy,
            workers=workers,
            bundle_ids=(["", *ids] if baseline_path and len(ids) > 1 else ids),
            on_file=on_file,
        )
    analysis = analyze_campaign(
        campaign.frame, comparison_settings(rules, seed=seed, tolerance=tolerance)
    )
    known_candidates = observed_categories(campaign.frame["candidate"])
    check_known("candidate", chosen, known_candidates, option="--candidate")
    if across_bundles is not None:
        check_known("candidate", [across_bundles], known_candidates, option="--across-bundles")
    bundles = list(analysis.bundles)
    if bundle is not None:
        check_known("bundle", [bundle], bundles, option="--bundle")
    if baseline_path:
        baseline = campaign.bundle_order[0]  # the --baseline path was read first
    elif baseline is not None:
        check_known("bundle", [baseline], bundles, option="--baseline")
    notes: list[str] = []

    def done(view: BundleView | TrendView | CampaignView, notes: list[str]) -> Comparison:
        if not receipted:
            return Comparison(view, notes)
        sources = {
            **(
                {"store": _store_path(store, opened), "bundles": list(analysis.bundles)}
                if opened is not None
                else {"paths": [os.fspath(path) for path in given], "bundleIds": list(bundle_ids)}
            ),
            "baseline": baseline_given,
            "bundle": bundle,
            "by": by,
            "candidates": chosen,
            "acrossBundles": across_bundles,
            "gate": gate,
            "tolerance": tolerance,
            "policy": os.fspath(policy) if isinstance(policy, str | os.PathLike) else None,
            "cases": None if cases is None else os.fspath(cases),
        }
        receipt = compare_receipt(
            sources,
            opened,
            [*([baseline_given] if baseline_path and baseline_given else []), *given],
            bundle_ids,
            cases=cases,
            policy=settings_file.policy,
            rules=rules,
            seed=seed,
        )
        return Comparison(view, notes, receipt)

    if across_bundles is not None:
        return done(trend_view(analysis, across_bundles), notes)
    if side_by_side or (len(bundles) == 1 and baseline is None):
        shown = bundle
        if shown is None and len(bundles) > 1:
            shown = bundles[-1]
            notes.append(f"showing bundle {shown}, the last one (choose: --bundle)")
        grouped: Literal["candidate", "provider"] = "provider" if by == "provider" else "candidate"
        view = bundle_view(analysis, bundle=shown, by=grouped, candidates=chosen)
        return done(view, notes)
    current = bundle or bundles[-1]
    before = baseline or analysis.previous_bundle(current)
    statuses = (
        gate_statuses(campaign.frame, before, current, rules, seed)
        if gate and before is not None
        else {}
    )
    return done(campaign_view(analysis, current=current, baseline=before, gate=statuses), notes)


def _store_path(given: PathLike | Store | None, opened: Store) -> str:
    return os.fspath(given) if isinstance(given, str | os.PathLike) else str(opened.path)
