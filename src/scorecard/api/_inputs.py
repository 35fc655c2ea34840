"""What every call reads its runs and settings from: a policy file (or none), the case catalog,
and paths (observation files and folders, scored-records files, Parquet) made into one records
frame; unknown ids named with the closest known one."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from scorecard.contract import InputError, InputErrors, PolicyFile, Takes, arguments

if TYPE_CHECKING:
    from scorecard.contract import Catalog, Policy
    from scorecard.gate import GateRules

__all__ = [
    "NO_POLICY",
    "Campaign",
    "PathLike",
    "PolicySource",
    "check_known",
    "gate_rules_of",
    "load_campaign",
    "policy_file",
    "scoring_catalog_of",
]

PathLike = str | os.PathLike[str]
"""A path, as text or as a :class:`pathlib.Path`."""
PolicySource = PathLike | PolicyFile | None
"""A policy file's path, a :class:`~scorecard.contract.PolicyFile` already read, or None (the
reference defaults and the gate's default rules)."""

NO_POLICY = PolicyFile(None, MappingProxyType({}), MappingProxyType({}))
"""The policy of a call given none: the reference scoring defaults, the default gate rules."""


@arguments(policy=Takes.policy_source)
def policy_file(policy: PolicySource) -> PolicyFile:
    """``policy`` read and checked (every section, whoever reads which) by the one policy
    reader, :func:`scorecard.engine.read_policy_file`."""
    if policy is None:
        return NO_POLICY
    if isinstance(policy, PolicyFile):
        return policy
    if not isinstance(policy, str | os.PathLike):
        raise TypeError(f"policy must be a path or a PolicyFile, not {type(policy).__name__}")
    from scorecard.engine import read_policy_file

    return read_policy_file(Path(policy))


def gate_rules_of(policy: PolicyFile) -> GateRules:
    """The gate's rules of a policy file (its ``gate`` section over the defaults)."""
    from scorecard.gate import GateRules

    return GateRules(**policy.gate)


def scoring_catalog_of(cases: PathLike | None) -> Catalog:
    """The case catalog observations are scored with: ``cases``, or the default one."""
    from scorecard.engine import scoring_catalog

    return scoring_catalog(None if cases is None else Path(cases))


def suggestion(kind: str, given: str, known: Sequence[str], *, option: str) -> InputError:
    """An unknown id given as an option: the error lists the known ids and the closest one."""
    from scorecard.contract import printable

    close = difflib.get_close_matches(given, list(known), n=1, cutoff=0.6)
    hint = f"; did you mean {printable(close[0])!r}?" if close else ""
    listed = ", ".join(printable(name) for name in known) or "none"
    return InputError(
        f"no {kind} {printable(given)!r} in the records{hint} (known: {listed})",
        rule=f"unknown_{kind.replace(' ', '_')}",
        source=option,
    )


def check_known(kind: str, given: Sequence[str], known: Sequence[str], *, option: str) -> None:
    """Every id of ``given`` is one of ``known``, else :class:`InputErrors` naming each unknown
    one with the known ones and the closest."""
    problems = [suggestion(kind, name, known, option=option) for name in given if name not in known]
    if problems:
        raise InputErrors(problems)


def check_bundles_before_scoring(
    paths: Sequence[PathLike], bundle_ids: Sequence[str], asked: Sequence[tuple[str, str | None]]
) -> None:
    """Each bundle id asked for (``(option, id)``; None: not asked) is one the observation
    inputs ``paths`` will hold, read from their manifests before anything is scored
    (:func:`~scorecard.engine.input_bundles`); else the error :func:`check_known` gives after
    the scoring. Inputs that are not only observations are checked once read, as before."""
    from scorecard.engine import input_bundles

    wanted = [(option, name) for option, name in asked if name is not None]
    if not wanted:
        return
    if len(bundle_ids) > 1:  # one per path: they are the bundles
        if len(bundle_ids) != len(paths):
            return  # a usage error, which the reading says
        known: list[str] | None = list(dict.fromkeys(bundle_ids))
    else:
        given = [os.fspath(path) for path in paths]
        known = input_bundles(given, bundle_ids[0] if bundle_ids else None)
    if known is None:
        return
    problems = [
        suggestion("bundle", name, known, option=option)
        for option, name in wanted
        if name not in known
    ]
    if problems:
        raise InputErrors(problems)


@dataclass(frozen=True)
class Campaign:
    """The runs a comparison reads: one records frame, and its bundles in order."""

    frame: Any
    """The records frame (:func:`scorecard.aggregate.records_frame`), bundles in order."""
    bundle_order: list[str]
    """Bundle ids in the order the inputs first hold them (a store: night order)."""


def is_parquet_input(path: str) -> bool:
    """Whether ``path`` is read as Parquet: the name, and a file or dataset folder there."""
    return Path(path).suffix == ".parquet" and Path(path).exists()


@arguments(
    paths=Takes.paths,
    cases=Takes.optional_path,
    policy=Takes.policy,
    workers=Takes.workers,
    bundle_ids=Takes.texts,
)
def load_campaign(
    paths: Sequence[PathLike],
    *,
    cases: PathLike | None = None,
    policy: Policy | None = None,
    workers: int | None = None,
    bundle_ids: Sequence[str] = (),
    on_file: Callable[[str], None] | None = None,
) -> Campaign:
    """The records frame of ``paths``: scored-records files and Parquet as they are,
    observation files and folders scored here (with ``cases`` and ``policy``, on ``workers``
    processes). One ``bundle_ids`` entry names every record's bundle, one per path each path's.
    Parquet inputs alone (no ``bundle_ids``) are read column by column through Arrow, never as
    Python rows; the frame is the same. Rejected records raise :class:`InputErrors` (each
    located); no records at all, an :class:`InputError`."""
    from scorecard.aggregate import records_frame

    given = [os.fspath(path) for path in paths]
    if bundle_ids or not all(is_parquet_input(path) for path in given):
        rows, order = _scored_rows(given, cases, policy, workers, bundle_ids, on_file)
        return Campaign(records_frame(rows, bundle_order=order), order)
    if cases is not None:
        scoring_catalog_of(cases)  # a bad catalog is the error it is for any input
    from scorecard.engine.parquet import parquet_bundle_order, parquet_input_error

    errors = [error for error in map(parquet_input_error, given) if error is not None]
    if errors:
        raise InputErrors(errors)
    order = list(dict.fromkeys(bundle for path in given for bundle in parquet_bundle_order(path)))
    frame = records_frame([Path(path) for path in given], bundle_order=order)
    for path in given:
        if on_file is not None:
            on_file(path)
    if not len(frame):
        raise InputError("no scored records found in the inputs", rule="no_records")
    return Campaign(frame, order)


def _scored_rows(
    paths: list[str],
    cases: PathLike | None,
    policy: Policy | None,
    workers: int | None,
    bundle_ids: Sequence[str],
    on_file: Callable[[str], None] | None,
) -> tuple[Any, list[str]]:
    from scorecard.engine import LoadedRecords, default_workers, load_records

    if len(bundle_ids) > 1 and len(bundle_ids) != len(paths):
        raise InputError(
            f"give one --bundle-id for every record, or one per PATH ({len(paths)}); got "
            f"{len(bundle_ids)}",
            rule="usage",
            source="--bundle-id",
        )
    catalog = scoring_catalog_of(cases)
    groups: list[tuple[list[str], str | None]]
    if len(bundle_ids) > 1:
        groups = [([path], name) for path, name in zip(paths, bundle_ids, strict=True)]
    else:
        groups = [(list(paths), bundle_ids[0] if bundle_ids else None)]
    loaded = LoadedRecords()
    for group, name in groups:
        part = load_records(
            group,
            catalog=catalog,
            policy=policy,
            on_file=on_file,
            workers=workers or default_workers(),
        )
        loaded.errors.extend(part.errors)
        for row in part.rows:
            loaded.add(row if name is None else (name, *row[1:]))
    if loaded.errors:
        raise InputErrors(loaded.errors)
    if not loaded.rows:
        raise InputError("no scored records found in the inputs", rule="no_records")
    return loaded, loaded.bundle_order
