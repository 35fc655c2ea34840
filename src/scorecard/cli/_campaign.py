"""What compare, plot and explain share: inputs (stdin, ``--bundle-id``), a policy file's
comparison settings, and the gate's checks of a bundle pair."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorecard.contract import InputError

from ._common import policy_text, write_errors
from ._exit_codes import failure

if TYPE_CHECKING:
    from scorecard.aggregate import ComparisonSettings
    from scorecard.contract import Policy
    from scorecard.engine import LoadedRecords
    from scorecard.gate import GateRules
    from scorecard.report import GateStatus

#: The gate's default drop tolerance (``GateRules.tolerance``): compare and plot use it too, so
#: the same comparison gets the same verdict in every view. A literal, not an import, so that
#: ``--help`` does not load the gate and pandas.
DEFAULT_TOLERANCE = 0.05


def input_paths(paths: Sequence[str] | None) -> list[str]:
    """``paths``, or ``-`` (stdin) when none is given and stdin is not a terminal."""
    if paths:
        return list(paths)
    if not sys.stdin.isatty():
        return ["-"]
    raise InputError("give PATH... (files or folders), or pipe JSON Lines into stdin", rule="usage")


def rules_from(policy_file: Path | None) -> tuple[Policy | None, GateRules]:
    """The scoring policy and the gate rules of a policy file (both sections; the defaults
    without one). A bad file raises a located :class:`PolicyError`. Every command that reads a
    policy file with a gate section (compare, plot, gate, report) reads it here."""
    from scorecard.gate import GateRules, gate_policy

    if policy_file is None:
        return None, GateRules()
    return gate_policy(policy_text(policy_file), source=str(policy_file))


def comparison_settings(
    rules: GateRules, *, seed: int, tolerance: float | None
) -> ComparisonSettings:
    """The gate's comparison settings (its policy section), ``--tolerance`` overriding."""
    import dataclasses

    settings = rules.settings(seed)
    return settings if tolerance is None else dataclasses.replace(settings, tolerance=tolerance)


def load_inputs(
    paths: Sequence[str],
    *,
    cases: Path | None,
    policy: object | None,
    workers: int,
    bundle_ids: Sequence[str] = (),
    errors_file: Path | None = None,
    on_file: Callable[[str], None] | None = None,
) -> LoadedRecords:
    """Every row of ``paths`` (records files, Parquet, observations scored here); one
    ``--bundle-id`` names every record's bundle, one per path names each path's. Rejected
    records end the command (listed, and written to ``errors_file``)."""
    from scorecard.contract import Policy
    from scorecard.engine import LoadedRecords, load_records, scoring_catalog

    if len(bundle_ids) > 1 and len(bundle_ids) != len(paths):
        raise InputError(
            f"give one --bundle-id for every record, or one per PATH ({len(paths)}); got "
            f"{len(bundle_ids)}",
            rule="usage",
        )
    catalog = scoring_catalog(cases)
    chosen = policy if isinstance(policy, Policy) else None
    groups: list[tuple[list[str], str | None]]
    if len(bundle_ids) > 1:
        groups = [([path], name) for path, name in zip(paths, bundle_ids, strict=True)]
    else:
        groups = [(list(paths), bundle_ids[0] if bundle_ids else None)]
    loaded = LoadedRecords()
    for group, name in groups:
        part = load_records(group, catalog=catalog, policy=chosen, on_file=on_file, workers=workers)
        loaded.errors.extend(part.errors)
        for row in part.rows:
            loaded.add(row if name is None else (name, *row[1:]))
    if loaded.errors:
        write_errors(errors_file, loaded.errors)
        raise failure(loaded.errors)
    if not loaded.rows:
        raise InputError("no scored records found in the inputs", rule="no_records")
    return loaded


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
