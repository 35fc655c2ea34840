"""The scoring run: records in, scorecards (or located errors) out, streaming and in input order.

This is the library function behind ``scorecard score``; the CLI only parses arguments, calls
:func:`score_records` and prints. It also defines the *scored record*, the richer format the
aggregation layer reads (``docs/records.md``): the v2 scorecard plus the observation facts it was
computed from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import IO, Any, NamedTuple

from .audit import AuditSummary, Finding, audit_observation, summarize_findings
from .bundles import BundleInfo
from .catalog import Catalog
from .errors import InputError, ObservationError
from .io import RawRecord, read_records
from .jsformat import js_json
from .lines import METRIC_KEYS, RECORD_SCHEMA, record_line, scorecard_line
from .models import ScorecardV2
from .policy import Policy
from .scoring import score_wire
from .secrets import redact
from .validation import Notice, accept_observation
from .wire import ObservationDict, ScorecardDict

__all__ = [
    "METRIC_KEYS",
    "RECORD_SCHEMA",
    "STREAMING_FORMATS",
    "RunSummary",
    "ScoredRecord",
    "Tally",
    "score_paths",
    "score_record",
    "score_records",
    "sequence_results",
]


@dataclass(frozen=True)
class ScoredRecord:
    """One accepted observation, its scorecard and where it came from."""

    card: ScorecardDict
    """The v2 scorecard as JSON data (reasons as scored, not yet redacted)."""
    observation: ObservationDict
    """The validated observation document."""
    bundle: BundleInfo
    source: str
    line: int | None
    index: int | None
    repetition: int
    """1-based ordinal of this (bundle, candidate, case) run in input order."""
    notices: tuple[Notice, ...] = ()
    findings: tuple[Finding, ...] = ()
    """Case-assertion audit findings (never part of the v2 scorecard)."""
    audit_gate: bool = False
    """Whether failed audit findings fail the gate (policy switch, default off)."""

    @cached_property
    def scorecard(self) -> ScorecardV2:
        """The scorecard as a validated model (built on first use)."""
        return ScorecardV2.model_validate(self.card)

    @property
    def gate_passed(self) -> bool | None:
        """The effective gate: the scorecard's, and no failed finding when the audit gates."""
        passed = self.card["overall"]["gatePassed"]
        if passed and self.audit_gate:
            return not any(finding.status == "failed" for finding in self.findings)
        return passed

    def audit_summary(self) -> AuditSummary:
        """Counts of the audit findings by status."""
        return summarize_findings(self.findings)

    def audit_json(self) -> dict[str, Any]:
        """Audit counts and every finding, for ``--format audit`` and ``explain``."""
        summary = self.audit_summary()
        return {
            "passed": summary.passed,
            "failed": summary.failed,
            "notObserved": summary.not_observed,
            "findings": [finding.to_json() for finding in self.findings],
        }

    def scorecard_json(self) -> dict[str, Any]:
        """The pure v2 scorecard as JSON-ready data (free text redacted)."""
        card: dict[str, Any] = dict(self.card)
        card["dimensions"] = {
            name: {**dimension, "reasons": [redact(reason) for reason in dimension["reasons"]]}
            for name, dimension in self.card["dimensions"].items()
        }
        return card

    def record_json(self) -> dict[str, Any]:
        """The scored record (``scorecard.record.v1``) the aggregation layer reads."""
        observation = self.observation
        candidate = self.bundle.candidates.get(observation["candidateId"])
        failure = observation.get("failure")
        metrics = observation["metrics"]
        return {
            "schema": RECORD_SCHEMA,
            "bundleId": self.card["bundleId"],
            "caseId": observation["caseId"],
            "candidateId": observation["candidateId"],
            "provider": observation["provider"],
            "model": candidate.model if candidate else None,
            "tier": candidate.tier if candidate else None,
            "repetition": self.repetition,
            "classification": observation["classification"],
            "metrics": {key: metrics[key] for key in METRIC_KEYS if key in metrics},  # type: ignore[literal-required]
            "failure": None
            if failure is None
            else {
                "code": redact(failure["code"]),
                "category": failure["category"],
                "retryable": failure["retryable"],
                "message": redact(failure["message"]),
            },
            "source": {"file": self.source, "line": self.line, "index": self.index},
            "gatePassed": self.gate_passed,
            "audit": self._record_audit(),
            "scorecard": self.scorecard_json(),
        }

    def audit_line_json(self) -> dict[str, Any]:
        """One line of ``--format audit``: which run, then its audit."""
        card = self.card
        return {
            "bundleId": card["bundleId"],
            "caseId": card["caseId"],
            "candidateId": card["candidateId"],
            "repetition": self.repetition,
            "source": {"file": self.source, "line": self.line, "index": self.index},
            **self.audit_json(),
        }

    def render(self, output_format: str) -> str:
        """The record as one output line (no newline) of a streaming format."""
        if output_format == "jsonl":
            return scorecard_line(self.card)
        if output_format == "records":
            return record_line(self)
        if output_format == "audit":
            return js_json(self.audit_line_json())
        raise ValueError(f"not a streaming format: {output_format}")

    def numbered(self, repetition: int) -> ScoredRecord:
        """This record as run number ``repetition`` (``dataclasses.replace``, spelt out: faster)."""
        return ScoredRecord(
            self.card,
            self.observation,
            self.bundle,
            self.source,
            self.line,
            self.index,
            repetition,
            self.notices,
            self.findings,
            self.audit_gate,
        )

    def tally(self) -> Tally:
        """What the run summary and the run numbering need to know of this record."""
        card = self.card
        overall = card["overall"]
        return Tally(
            card["bundleId"],
            card["candidateId"],
            card["caseId"],
            overall["score"] is None,
            overall["gatePassed"] is False,
            sum(1 for finding in self.findings if finding.status == "failed"),
            tuple(_notice_pattern(notice.pointer) for notice in self.notices),
        )

    def _record_audit(self) -> dict[str, Any]:
        audit = self.audit_json()
        # Records stay small: only what needs attention is listed.
        audit["findings"] = [f for f in audit["findings"] if f["status"] != "passed"]
        audit["gates"] = self.audit_gate
        return audit


STREAMING_FORMATS = ("jsonl", "records", "audit")


class Tally(NamedTuple):
    """The few facts of a scored record that run summaries and run numbers are made of."""

    bundle_id: str
    candidate_id: str
    case_id: str
    unscoreable: bool
    gate_failed: bool
    audit_failed: int
    notice_patterns: tuple[str, ...]

    @property
    def run_key(self) -> tuple[str, str, str]:
        """Runs of the same case by the same candidate in the same bundle are repetitions."""
        return (self.bundle_id, self.candidate_id, self.case_id)


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

    def count(self, tally: Tally) -> None:
        """Add one scored record."""
        self.scored += 1
        self.bundles.add(tally.bundle_id)
        if tally.unscoreable:
            self.unscoreable += 1
        elif tally.gate_failed:
            self.gate_failures += 1
        self.audit_failed += tally.audit_failed
        for pattern in tally.notice_patterns:
            self.notices[pattern] += 1

    def merge(self, other: RunSummary) -> None:
        """Add the counts of another part of the same run."""
        self.scored += other.scored
        self.rejected += other.rejected
        self.gate_failures += other.gate_failures
        self.unscoreable += other.unscoreable
        self.audit_failed += other.audit_failed
        self.bundles |= other.bundles
        self.notices.update(other.notices)

    def line(self) -> str:
        """``scored N, rejected N, gate failures N (unscoreable N) in N bundle(s)``."""
        text = (
            f"scored {self.scored}, rejected {self.rejected}, gate failures {self.gate_failures}"
            f", unscoreable {self.unscoreable}, bundles {len(self.bundles)}"
            f", failed audit findings {self.audit_failed}"
        )
        if self.notices:
            text += f", unknown fields kept {sum(self.notices.values())}"
        return text


def _notice_pattern(pointer: str) -> str:
    return "/".join("*" if token.isdigit() else token for token in pointer.split("/"))


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
        return error.located(source=record.source, line=record.line, index=record.index)
    case = catalog[observation["caseId"]]
    card = score_wire(observation, case, bundle_id=record.bundle.id, policy=policy)
    return ScoredRecord(
        card,
        observation,
        record.bundle,
        record.source,
        record.line,
        record.index,
        0,
        notices,
        tuple(audit_observation(case, observation)),
        policy.audit_gate,
    )


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


def score_paths(
    paths: Iterable[str],
    *,
    catalog: Catalog,
    policy: Policy | None = None,
    bundle_id: str | None = None,
    summary: RunSummary | None = None,
    stdin: IO[bytes] | None = None,
) -> Iterator[ScoredRecord | InputError]:
    """Score every observation under ``paths`` (files, folders, ``-``), streaming."""
    records = read_records(paths, bundle_id=bundle_id, stdin=stdin)
    yield from score_records(records, catalog=catalog, policy=policy, summary=summary)
