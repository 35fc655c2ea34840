"""What a change page shows of one run: each of its rows' value, worked out once from the run's
record (:func:`change_values`).

A site of one night keeps these for the runs of the nights before it instead of their
documents: those runs show on no page but a change page, so the values are all a site needs of
them. Values, rows (label and value) and whole tuples of them are shared among runs
(:func:`change_values` interns them): a night's runs repeat the same few texts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from scorecard.contract import DIMENSIONS, Catalog
from scorecard.core import ScoredRecord, explain_failing
from scorecard.gate import RunFacts

from ._common import number_text

__all__ = [
    "ChangeValues",
    "Value",
    "change_values",
    "run_outcome",
    "shared_change_values",
]

#: A row's value on one run: (its text, passed / failed / no verdict).
Value = tuple[str, bool | None]
#: Each row a run has, (label, value), in :func:`change_values`' order.
ChangeValues = tuple[tuple[str, Value], ...]

_SECTIONS = ("lifecycle", "continuation", "presentation")
#: Interned values and tuples of them: cleared when they grow past this many (sharing saves
#: memory; it never changes a value), so a process that built a site keeps at most this many
#: of its values once the site is gone.
_SHARED_AT_MOST = 50_000
_shared_values: dict[Any, Any] = {}


def run_outcome(facts: RunFacts) -> str:
    """The run's outcome as the site says it: not scored, gate failed, passed or not passed."""
    if not facts.scoreable:
        return "not scored"
    if facts.gate_failed:
        return "gate failed"
    return "passed" if facts.passed else "not passed"


def change_values(record: ScoredRecord, facts: RunFacts, catalog: Catalog) -> ChangeValues:
    """The values of the run's rows: outcome, expected, observed and forbidden calls, each
    check of the observation (``check section/id``, sorted), each dimension (the card's order
    of :data:`~scorecard.contract.DIMENSIONS`), the audit findings not passed, the failure.
    A failing dimension's reasons are :func:`~scorecard.core.explain_failing`'s (with
    ``catalog``, the one the record was scored with), a finding's values redacted as the
    explanation's are (:meth:`~scorecard.core.Finding.to_json`)."""
    observation: Any = record.observation
    document: dict[str, Any] = observation if isinstance(observation, dict) else {}
    base = document.get("base")
    outcome = run_outcome(facts)
    dimensions = record.card["dimensions"]
    reasons = record.redacted_reasons
    failing = {item["dimension"]: item["reasons"] for item in explain_failing(record, catalog)}
    findings = record.findings_not_passed()
    rows: list[tuple[str, Value]] = [
        (
            "outcome",
            (
                f"{outcome}, overall {number_text(facts.overall)}",
                None if outcome == "not scored" else outcome == "passed",
            ),
        ),
        ("expected calls", (_calls(base, "expectedCalls"), None)),
        ("observed calls", (_calls(base, "observedCalls"), None)),
        ("forbidden calls invoked", _forbidden_invoked(base)),
        *sorted(_checks(document).items()),
        *(
            (
                f"dimension {name}",
                _dimension(dimensions.get(name), reasons.get(name, ()), failing.get(name)),
            )
            for name in DIMENSIONS
        ),
        ("audit findings not passed", _findings(findings)),
        ("failure", (facts.failure or "none", facts.failure is None)),
    ]
    return shared_change_values(rows)


def shared_change_values(rows: Iterable[tuple[str, Value]]) -> ChangeValues:
    """``rows`` as a run's change values, each value, row and the whole shared with the equal
    ones met before (by :func:`change_values`, or sent by another process: what a scoring
    worker works out comes with its own copies)."""
    shared = _shared_values
    if len(shared) >= _SHARED_AT_MOST:
        shared.clear()
    if type(rows) is tuple:
        known = shared.get(rows)
        if known is not None:
            return known  # type: ignore[no-any-return]
    values = []
    for label, value in rows:  # each (label, value) too: a night's runs repeat most of them
        pair = (label, shared.setdefault(value, value))
        values.append(shared.setdefault(pair, pair))
    whole = tuple(values)
    return shared.setdefault(whole, whole)  # type: ignore[no-any-return]


def _calls(base: Any, field: str) -> str:
    calls = base.get(field) if isinstance(base, dict) else None
    if not isinstance(calls, list):
        return "-"
    return ", ".join(str(call) for call in calls) or "none"


def _forbidden_invoked(base: Any) -> Value:
    if not isinstance(base, dict):
        return "-", None
    observed = base.get("observedCalls")
    forbidden = base.get("forbiddenCalls")
    if not isinstance(observed, list) or not isinstance(forbidden, list):
        return "-", None
    invoked = [str(call) for call in observed if call in forbidden]
    return (", ".join(invoked) or "none"), not invoked


def _checks(document: dict[str, Any]) -> dict[str, Value]:
    """The observation's checks by ``check section/id``: passed, failed or "-" (no verdict)."""
    found: dict[str, Value] = {}
    for section in _SECTIONS:
        part = document.get(section)
        checks = part.get("checks") if isinstance(part, dict) else None
        if not isinstance(checks, list):
            continue
        for check in checks:
            if isinstance(check, dict) and "id" in check:
                given = check.get("passed")
                passed = given if isinstance(given, bool) else None
                text = {True: "passed", False: "failed", None: "-"}[passed]
                found[f"check {section}/{check['id']}"] = (text, passed)
    return found


def _dimension(card: Any, reasons: tuple[str, ...], explained: Any) -> Value:
    """A dimension's value: its score, pass or fail, and its reasons (``reasons``: redacted;
    a failing dimension's, ``explained``: each with its contract words)."""
    if not isinstance(card, dict):
        return "-", None
    if explained is not None:
        said = "; ".join(_reason_words(reason) for reason in explained)
    else:
        said = "; ".join(reasons)
    passed = card.get("passed")
    text = f"{number_text(card.get('score'))} {'pass' if passed else 'fail'}"
    return (f"{text}: {said}" if said else text), passed if isinstance(passed, bool) else None


def _reason_words(reason: dict[str, Any]) -> str:
    """A failing reason as a change page cell says it: the text, then where, what was
    expected and what was observed (``contract.Evidence``'s words; the schema is the page's)."""
    parts = [f"at {reason['pointer']}"] if reason.get("pointer") else []
    if reason.get("expected") is not None:
        parts.append(f"expected {reason['expected']}")
    if reason.get("observed") is not None:
        parts.append(f"observed {reason['observed']}")
    if reason.get("assertion"):
        parts.append(f"case assertion {reason['assertion']}")
    return f"{reason['reason']} ({', '.join(parts)})" if parts else str(reason["reason"])


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _findings(findings: list[dict[str, Any]]) -> Value:
    """The findings not passed (their wire form), each with where, what was expected and
    what was observed."""
    texts = [
        f"{item['code']} ({item['status']})"
        + (
            f" at {item['pointer']}: expected {_compact(item['expected'])},"
            f" observed {_compact(item['actual'])} (case assertion {item['assertion']})"
            if item["status"] == "failed"
            else f" at {item['pointer']} (case assertion {item['assertion']})"
        )
        for item in findings
    ]
    return (", ".join(texts) or "none"), not texts
