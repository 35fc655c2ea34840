"""``explain``: why runs lost points, field by field, as data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from scorecard.contract import InputError, InputErrors, Takes, arguments

from ._inputs import (
    PathLike,
    PolicySource,
    check_bundles_before_scoring,
    check_known,
    is_parquet_input,
    policy_file,
    scoring_catalog_of,
)

if TYPE_CHECKING:
    from scorecard.contract import Catalog
    from scorecard.core import ScoredRecord
    from scorecard.store import Store

__all__ = ["explain", "explanation_text"]


def _failure(record: ScoredRecord) -> dict[str, Any] | None:
    """The observation's failure (code, category, message; secret-shaped text redacted)."""
    from scorecard.contract import redact

    failure = record.observation.get("failure")
    if not failure:
        return None
    return {
        "code": failure.get("code"),
        "category": failure.get("category"),
        "retryable": failure.get("retryable"),
        "message": redact(str(failure.get("message", ""))),
    }


def explanation_text(explanation: dict[str, Any]) -> str:
    """One explanation as text for people (``scorecard explain``'s default format)."""
    from scorecard.contract import printable
    from scorecard.core import render_explanation

    text = render_explanation(explanation)
    failure = explanation.get("failure")
    if failure is None:
        return text
    lines = text.split("\n")
    shown = f"  failure {failure['code']} ({failure['category']}): {failure['message']}"
    lines.insert(2, printable(shown))
    return "\n".join(lines)


@arguments(
    paths=Takes.paths,
    case_ids=Takes.texts,
    candidates=Takes.texts,
    bundle=Takes.optional_text,
    policy=Takes.policy_source,
    bundle_id=Takes.optional_text,
    cases=Takes.optional_path,
    workers=Takes.workers,
)
def explain(
    paths: Sequence[PathLike] = (),
    *,
    store: PathLike | Store | None = None,
    case_ids: Sequence[str] = (),
    candidates: Sequence[str] = (),
    bundle: str | None = None,
    failing_only: bool = False,
    policy: PolicySource = None,
    bundle_id: str | None = None,
    cases: PathLike | None = None,
    workers: int | None = None,
) -> list[dict[str, Any]]:
    """Each matching run of the observations under ``paths`` explained: its scorecard, the
    failing dimensions with the fields behind every reason (JSON Pointers), the case-assertion
    audit, and an infrastructure failure's code and message (``docs/audit.md``).

    With ``store``, the runs are the store's (``bundle`` only, when given), explained as the
    same folders' are.

    Rejected records and unknown ``candidates``, ``case_ids`` or ``bundle`` raise
    :class:`InputErrors` (the latter naming the known ids)."""
    from scorecard.engine import collection_paused

    # Every run is kept, with its explanation: objects without reference cycles, which each
    # full collection would walk again for nothing (docs/performance.md).
    with collection_paused():
        return _explain_runs(
            paths, store=store, case_ids=case_ids, candidates=candidates, bundle=bundle,
            failing_only=failing_only, policy=policy, bundle_id=bundle_id, cases=cases,
            workers=workers,
        )  # fmt: skip


def _explain_runs(
    paths: Sequence[PathLike],
    *,
    store: PathLike | Store | None,
    case_ids: Sequence[str],
    candidates: Sequence[str],
    bundle: str | None,
    failing_only: bool,
    policy: PolicySource,
    bundle_id: str | None,
    cases: PathLike | None,
    workers: int | None,
) -> list[dict[str, Any]]:
    """:func:`explain`'s work (its arguments, checked)."""
    import os

    from scorecard.engine import default_workers, score_run

    records: list[ScoredRecord] = []
    if store is not None:
        from ._store import open_campaign_store

        opened = open_campaign_store(store, policy=policy)
        catalog = opened.catalog
        if bundle is not None:
            check_known(
                "bundle", [bundle], [entry.id for entry in opened.bundles()], option="--bundle"
            )
        records = list(opened.scored_records(None if bundle is None else [bundle]))
        return _explained(records, catalog, case_ids, candidates, bundle, failing_only)
    given = [os.fspath(path) for path in paths]
    scored = next((path for path in given if is_parquet_input(path)), None)
    if scored is not None:
        raise InputError(
            "explain reads observations; Parquet holds scores but no reasons, pointers or "
            "audit findings (explain the observations it was scored from)",
            rule="not_observations",
            source=scored,
        )
    catalog = scoring_catalog_of(cases)
    settings = policy_file(policy)
    check_bundles_before_scoring(given, [bundle_id] if bundle_id else [], [("--bundle", bundle)])
    run = score_run(
        given,
        catalog=catalog,
        policy=settings.policy,
        workers=workers or default_workers(),
        bundle_id=bundle_id,
    )
    errors: list[InputError] = []
    for result in run.records():
        if isinstance(result, InputError):
            errors.append(result)
        else:
            records.append(result)
    if errors:
        raise InputErrors(errors)
    return _explained(records, catalog, case_ids, candidates, bundle, failing_only)


def _explained(
    records: list[ScoredRecord],
    catalog: Catalog,
    case_ids: Sequence[str],
    candidates: Sequence[str],
    bundle: str | None,
    failing_only: bool,
) -> list[dict[str, Any]]:
    from scorecard.core import explain_record

    cards = [record.scorecard for record in records]
    check_known(
        "candidate", candidates, sorted({c.candidate_id for c in cards}), option="--candidate"
    )
    check_known("case", case_ids, sorted({c.case_id for c in cards}), option="--case-id")
    check_known(
        "bundle",
        [bundle] if bundle else [],
        sorted({c.bundle_id for c in cards}),
        option="--bundle",
    )
    explanations = []
    for record, card in zip(records, cards, strict=True):
        if case_ids and card.case_id not in case_ids:
            continue
        if candidates and card.candidate_id not in candidates:
            continue
        if bundle is not None and card.bundle_id != bundle:
            continue
        if failing_only and card.overall.passed is not False:
            continue
        explanation = explain_record(record, catalog)
        failure = _failure(record)
        if failure is not None:
            explanation["failure"] = failure
        explanations.append(explanation)
    return explanations
