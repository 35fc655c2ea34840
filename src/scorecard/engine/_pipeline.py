"""The general path, record by record: records in, scorecards (or located errors) out,
streaming and in input order.

:func:`score_record` is what the chunk scorers of the one run (:func:`scorecard.engine.score_run`,
behind every command) call for each record the fast path does not take; :func:`score_records`
and :func:`score_paths` run it serially, the reference the run is tested against. The scored
record it yields is defined in :mod:`scorecard.core` (``docs/records.md``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import IO

from scorecard.contract import (
    Catalog,
    InputError,
    ObservationError,
    Policy,
    Takes,
    arguments,
    written_name,
)
from scorecard.core import (
    Notice,
    ScoredRecord,
    Tally,
    accept_observation,
    audit_observation,
    scored_wire,
)

from ._io import RawRecord, in_array, read_records

__all__ = [
    "NOTICE_KINDS_KEPT",
    "STREAMING_FORMATS",
    "RunSummary",
    "notice_kind",
    "score_paths_serially",
    "score_record",
    "score_records",
    "sequence_results",
]


STREAMING_FORMATS = ("jsonl", "records", "audit")


NOTICE_KINDS_KEPT = 100
"""Distinct kinds of notice (rule and field, array positions aside) a run keeps the first of:
the warnings stay bounded whatever the input holds; the rest are counted."""


def notice_kind(notice: Notice) -> str:
    """What notices of the same field share: the rule and the pointer inside the record,
    array positions as ``*`` (``unknown_field /lifecycle/checks/*/weight``); a notice about a
    whole input (no pointer) is a kind of its own."""
    pointer = notice.pointer
    if not pointer:  # about a whole input: one of its own
        return f"{notice.rule} {notice.source}"
    if notice.index is not None:  # a .json array element's pointer starts with its index
        pointer = pointer[len(f"/{notice.index}") :]
    tokens = ("*" if token.isdigit() else token for token in pointer.split("/"))
    return f"{notice.rule} {'/'.join(tokens)}"


@dataclass
class RunSummary:
    """Counts of one scoring run, for the one-line summary and exit codes."""

    scored: int = 0
    rejected: int = 0
    gate_failures: int = 0
    unscoreable: int = 0
    audit_failed: int = 0
    bundles: set[str] = field(default_factory=set)
    notices: Counter[str] = field(default_factory=Counter)
    """How many notices of each kind (:func:`notice_kind`) the records carried."""
    first_notices: dict[str, Notice] = field(default_factory=dict)
    """The first notice of each kind, located, in input order (at most
    :data:`NOTICE_KINDS_KEPT` kinds)."""

    def count(self, tally: Tally) -> None:
        """Add one scored record."""
        self.scored += 1
        self.bundles.add(tally.bundle_id)
        if tally.unscoreable:
            self.unscoreable += 1
        elif tally.gate_failed:
            self.gate_failures += 1
        self.audit_failed += tally.audit_failed
        for notice in tally.notices:
            self.notice(notice)

    def notice(self, notice: Notice, count: int = 1) -> None:
        """Add ``count`` notices like ``notice`` (kept when it is the first of its kind)."""
        kind = notice_kind(notice)
        self.notices[kind] += count
        if kind not in self.first_notices and len(self.first_notices) < NOTICE_KINDS_KEPT:
            self.first_notices[kind] = notice

    def merge(self, other: RunSummary) -> None:
        """Add the counts of another part of the same run (the part after this one)."""
        self.scored += other.scored
        self.rejected += other.rejected
        self.gate_failures += other.gate_failures
        self.unscoreable += other.unscoreable
        self.audit_failed += other.audit_failed
        self.bundles |= other.bundles
        for kind, count in other.notices.items():
            first = other.first_notices.get(kind)
            if first is not None and kind not in self.first_notices:
                self.notice(first, count)
            else:
                self.notices[kind] += count

    def moved_lines(self, shift: int) -> None:
        """Move the lines of the notices kept ``shift`` lines on (a chunk numbered by a worker
        that did not know where it starts in its file)."""
        for kind, notice in self.first_notices.items():
            if notice.line is not None:
                self.first_notices[kind] = replace(notice, line=notice.line + shift)

    def warnings(self) -> list[str]:
        """One line per kind of notice kept (``file:line /pointer: message [rule]``, with how
        many records carried it when more than one), in input order."""
        lines = []
        for kind, notice in self.first_notices.items():
            count = self.notices[kind]
            if count > 1:
                notice = replace(notice, message=f"{notice.message} (in {count} records)")
            lines.append(str(notice))
        kept = sum(self.notices[kind] for kind in self.first_notices)
        others = sum(self.notices.values()) - kept
        if others:
            lines.append(f"... and {others} more notice(s) of other kinds")
        return lines

    def notice_records(self) -> list[dict[str, object]]:
        """The kept notices as ``--errors``-shaped JSON objects (``source``, ``line``,
        ``index``, ``pointer``, ``rule``, ``message``), each marked ``"level": "warning"`` and
        with how many records carried its kind (``count``), in input order."""
        return [
            {**notice.to_record(), "count": self.notices[kind]}
            for kind, notice in self.first_notices.items()
        ]

    def line(self) -> str:
        """``scored N, rejected N, gate failures N (unscoreable N) in N bundle(s)``."""
        text = (
            f"scored {self.scored}, rejected {self.rejected}, gate failures {self.gate_failures}"
            f", unscoreable {self.unscoreable}, bundles {len(self.bundles)}"
            f", failed audit findings {self.audit_failed}"
        )
        unknown = sum(
            count for kind, count in self.notices.items() if kind.startswith("unknown_field ")
        )
        if unknown:
            text += f", unknown fields kept {unknown}"
        return text


def score_record(
    record: RawRecord | InputError, *, catalog: Catalog, policy: Policy
) -> ScoredRecord | InputError:
    """Validate, score and audit one record (repetition not yet known: 0)."""
    if isinstance(record, InputError):
        return record
    try:
        # A RawRecord holds a parsed JSON document (its contract): no type walk needed.
        observation, notices = accept_observation(record.document, parsed_json=True)
    except ObservationError as error:
        located = error.located(source=record.source, line=record.line)
        return located if record.index is None else in_array(located, record.index)
    case = catalog[observation["caseId"]]
    card, results = scored_wire(observation, case, bundle_id=record.bundle.id, policy=policy)
    return ScoredRecord(
        card,
        observation,
        record.bundle,
        written_name(record.source),
        record.line,
        record.index,
        0,
        notices,
        tuple(audit_observation(case, observation)),
        policy.audit_gate,
    ).remembering(case, results)


def sequence_results(
    results: Iterable[ScoredRecord | InputError], summary: RunSummary
) -> Iterator[ScoredRecord | InputError]:
    """Number each (bundle, candidate, case) run in input order and count the run summary."""
    repetitions: Counter[tuple[str, str, str]] = Counter()
    for result in results:
        if isinstance(result, InputError):
            summary.rejected += 1
            yield result
            continue
        tally = result.tally()
        repetitions[tally.run_key] += 1
        summary.count(tally)
        yield result.numbered(repetitions[tally.run_key])


@arguments(catalog=Takes.catalog, policy=Takes.policy)
def score_records(
    records: Iterable[RawRecord | InputError],
    *,
    catalog: Catalog,
    policy: Policy | None = None,
    summary: RunSummary | None = None,
) -> Iterator[ScoredRecord | InputError]:
    """Validate and score each record; errors come back located, in input order."""
    policy = policy or Policy()
    summary = summary if summary is not None else RunSummary()
    scored = (score_record(record, catalog=catalog, policy=policy) for record in records)
    yield from sequence_results(scored, summary)


def score_paths_serially(
    paths: Iterable[str],
    *,
    catalog: Catalog,
    policy: Policy | None = None,
    bundle_id: str | None = None,
    summary: RunSummary | None = None,
    stdin: IO[bytes] | None = None,
) -> Iterator[ScoredRecord | InputError]:
    """Score every observation under ``paths`` (files, folders, ``-``), streaming, record by
    record on the general path: the reference the one engine (:func:`scorecard.engine.score_run`)
    is tested against. Use :func:`scorecard.engine.score_paths`."""
    records = read_records(paths, bundle_id=bundle_id, stdin=stdin)
    yield from score_records(records, catalog=catalog, policy=policy, summary=summary)
