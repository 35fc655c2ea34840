"""What changed in a case: one page per candidate x case x night, the night's runs beside the
runs of the nights before it (at most :data:`NIGHTS_BEFORE`), aligned row by row.

Rows (a night whose runs agree shows the value once, "all N: ..."; a cell shows at most
:data:`VALUES_SHOWN` values, :data:`VALUES_SHOWN_BEFORE` for a night before the page's, the
failing ones first, and counts the rest, so a page does not grow with a night's runs): each run's outcome and overall (linked to its page); expected, observed and forbidden
calls; every check of the observation's ``lifecycle``, ``continuation`` and ``presentation``
sections; each dimension's score, pass and reasons; the audit findings not passed; the failure.
A row whose value passed on every earlier run that has one (an unscored run has no dimension
verdicts) and fails on a run of the night is marked ``changed`` ("passed then, failing now"). Every value comes from the scored records and their
explanations, as the run pages show them; every string is escaped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from scorecard.contract import DIMENSIONS, OBSERVATION_SCHEMA_ID

from ._common import number_text
from ._site_assets import page
from ._site_data import SiteData, SiteRun
from ._site_paths import (
    PAGE_INDEX,
    candidate_page_path,
    case_page_path,
    change_page_path,
)
from ._site_pieces import esc, link_to

__all__ = ["NIGHTS_BEFORE", "VALUES_SHOWN", "VALUES_SHOWN_BEFORE", "ChangePages", "nights_before"]

#: Earlier nights a change page shows beside its night.
NIGHTS_BEFORE = 7
_SECTIONS = ("lifecycle", "continuation", "presentation")


def nights_before(site: SiteData, bundle: str) -> list[str]:
    """The nights before ``bundle`` a change page shows (oldest first)."""
    position = site.bundles.index(bundle)
    return list(site.bundles[max(0, position - NIGHTS_BEFORE) : position])


class ChangePages:
    """The change pages of a site, each made when asked for (:meth:`page`): every candidate x
    case of each detailed night that has a night before it (:attr:`keys`)."""

    def __init__(self, site: SiteData) -> None:
        self.site = site
        self._grouped: dict[tuple[str, str, str], list[SiteRun]] = {}
        for run in site.runs:
            facts = run.facts
            self._grouped.setdefault((facts.bundle, facts.candidate, facts.case), []).append(run)
        detailed = set(site.detailed)
        #: (night, candidate, case) of every change page, in the runs' order.
        self.keys = [
            key for key in self._grouped if key[0] in detailed and nights_before(site, key[0])
        ]
        self._cells = _Cells()

    def runs_shown(self, bundle: str, candidate: str, case: str) -> int:
        """How many runs the change page of ``candidate`` x ``case`` on ``bundle`` shows (what
        making it costs, about)."""
        nights = [*nights_before(self.site, bundle), bundle]
        return sum(len(self._grouped.get((night, candidate, case), ())) for night in nights)

    def page(self, bundle: str, candidate: str, case: str) -> bytes:
        """The change page of ``candidate`` x ``case`` on the night ``bundle``."""
        nights = [*nights_before(self.site, bundle), bundle]
        # A packed run is read back for this page only (SiteRun.unpacked).
        columns = [
            [
                run.unpacked()
                for run in sorted(
                    self._grouped.get((night, candidate, case), []),
                    key=lambda r: r.facts.repetition,
                )
            ]
            for night in nights
        ]
        try:
            return _page(self.site, bundle, candidate, case, nights, columns, self._cells)
        finally:
            self._cells.forget([run for runs in columns for run in runs if run.transient])


Value = Callable[[SiteRun], tuple[str, bool | None]]


class _Cells:
    """Each run's row values (text, passed), worked out once for the whole site: a run shows
    on its night's page and again on the pages of the nights after it. A packed run (every
    run of a site of some nights) is read back for each page that shows it, and what was kept
    of it here is forgotten once the page is made (:meth:`forget`)."""

    def __init__(self) -> None:
        self._kept: dict[str, dict[str, tuple[str, bool | None]]] = {}
        self._checks: dict[str, dict[str, bool | None]] = {}
        self._dimensions: dict[str, dict[str, Any]] = {}

    def of(self, row: str, value: Value) -> Value:
        """``value``, kept per run for the row named ``row`` (the same on every page)."""

        def kept(run: SiteRun) -> tuple[str, bool | None]:
            values = self._kept.setdefault(run.path, {})
            if row not in values:
                values[row] = value(run)
            return values[row]

        return kept

    def checks(self, run: SiteRun) -> dict[str, bool | None]:
        """The run's checks by ``section/id``: passed, failed or None."""
        if run.path not in self._checks:
            self._checks[run.path] = _checks(run)
        return self._checks[run.path]

    def dimensions(self, run: SiteRun) -> dict[str, Any]:
        """The run's scorecard dimensions (its reasons redacted, as the run page shows them)."""
        if run.path not in self._dimensions:
            self._dimensions[run.path] = run.record.scorecard_json()["dimensions"]
        return self._dimensions[run.path]

    def forget(self, runs: Sequence[SiteRun]) -> None:
        """Drop what was kept of ``runs`` (read back for one page)."""
        for run in runs:
            self._kept.pop(run.path, None)
            self._checks.pop(run.path, None)
            self._dimensions.pop(run.path, None)


def _observation(run: SiteRun) -> dict[str, Any]:
    document: Any = run.record.observation
    return document if isinstance(document, dict) else {}


def _calls(run: SiteRun, field: str) -> str:
    base = _observation(run).get("base")
    calls = base.get(field) if isinstance(base, dict) else None
    if not isinstance(calls, list):
        return "-"
    return ", ".join(str(call) for call in calls) or "none"


def _forbidden_invoked(run: SiteRun) -> tuple[str, bool | None]:
    base = _observation(run).get("base")
    if not isinstance(base, dict):
        return "-", None
    observed = base.get("observedCalls")
    forbidden = base.get("forbiddenCalls")
    if not isinstance(observed, list) or not isinstance(forbidden, list):
        return "-", None
    invoked = [str(call) for call in observed if call in forbidden]
    return (", ".join(invoked) or "none"), not invoked


def _checks(run: SiteRun) -> dict[str, bool | None]:
    found: dict[str, bool | None] = {}
    document = _observation(run)
    for section in _SECTIONS:
        part = document.get(section)
        checks = part.get("checks") if isinstance(part, dict) else None
        if not isinstance(checks, list):
            continue
        for check in checks:
            if isinstance(check, dict) and "id" in check:
                passed = check.get("passed")
                found[f"{section}/{check['id']}"] = passed if isinstance(passed, bool) else None
    return found


def _check_value(cells: _Cells, name: str) -> Value:
    def value(run: SiteRun) -> tuple[str, bool | None]:
        passed = cells.checks(run).get(name)
        return {True: "passed", False: "failed", None: "-"}[passed], passed

    return value


def _dimension_value(cells: _Cells, name: str) -> Value:
    return lambda run: _dimension(run, cells.dimensions(run), name)


def _dimension(run: SiteRun, dimensions: dict[str, Any], name: str) -> tuple[str, bool | None]:
    card = dimensions.get(name)
    if not isinstance(card, dict):
        return "-", None
    explained = next(
        (
            item["reasons"]
            for item in run.explanation["failingDimensions"]
            if item["dimension"] == name
        ),
        None,
    )
    if explained is not None:  # a failing dimension: each reason with its contract words
        reasons = "; ".join(_reason_words(reason) for reason in explained)
    else:
        reasons = "; ".join(str(reason) for reason in card.get("reasons") or [])
    passed = card.get("passed")
    text = f"{number_text(card.get('score'))} {'pass' if passed else 'fail'}"
    return (f"{text}: {reasons}" if reasons else text), passed if isinstance(passed, bool) else None


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


def _findings(run: SiteRun) -> tuple[str, bool | None]:
    findings = [
        f"{item['code']} ({item['status']})"
        + (
            f" at {item['pointer']}: expected {_compact(item['expected'])},"
            f" observed {_compact(item['actual'])} (case assertion {item['assertion']})"
            if item["status"] == "failed"
            else f" at {item['pointer']} (case assertion {item['assertion']})"
        )
        for item in run.explanation["audit"]["findings"]
        if item["status"] != "passed"
    ]
    return (", ".join(findings) or "none"), not findings


#: Run numbers a change page names for a value (the rest are counted).
RUNS_NAMED = 8


def _runs_named(repetitions: list[int], total: int) -> str:
    """The runs sharing a value: ``all N``, or their numbers (``r1, r3``), past
    :data:`RUNS_NAMED` counted (``12 runs: r1, r2, ... and 4 more``)."""
    if total > 1 and len(repetitions) == total:
        return f"all {total}"
    named = ", ".join(f"r{repetition}" for repetition in repetitions[:RUNS_NAMED])
    if len(repetitions) <= RUNS_NAMED:
        return named
    return f"{len(repetitions)} runs: {named} and {len(repetitions) - RUNS_NAMED} more"


#: Values a change page's cell of its own night shows (the rest are counted), so a page's
#: size does not grow with the runs of a night: a score or a reason that differs from run to
#: run is a value each.
VALUES_SHOWN = 8
#: Values a cell of each night before it shows: the page is about its night; up to seven
#: nights before it say what was usual then (a week of 50,000-run nights at eight values a
#: cell made the change pages two thirds of the site).
VALUES_SHOWN_BEFORE = 4


def _values_kept(
    groups: dict[tuple[str, bool | None], list[int]], limit: int
) -> list[tuple[tuple[str, bool | None], list[int]]]:
    """The values a cell shows, in the order their runs came: all of them, or past ``limit``
    the failing ones first, then those of the most runs."""
    items = list(groups.items())
    if len(items) <= limit:
        return items
    ranked = sorted(
        range(len(items)), key=lambda at: (items[at][0][1] is not False, -len(items[at][1]), at)
    )
    return [items[at] for at in sorted(ranked[:limit])]


def _row(label: str, columns: Sequence[Sequence[SiteRun]], value: Value) -> str:
    """One aligned row: per night, each run's value (the last night, the page's own, shows up
    to :data:`VALUES_SHOWN` values, each night before it :data:`VALUES_SHOWN_BEFORE`); marked
    when every earlier run passed and a run of the night fails."""
    cells = []
    verdicts: list[list[bool | None]] = []
    for position, runs in enumerate(columns):
        values = [value(run) for run in runs]
        verdicts.append([passed for _, passed in values])
        groups: dict[tuple[str, bool | None], list[int]] = {}
        for run, item in zip(runs, values, strict=True):
            groups.setdefault(item, []).append(run.facts.repetition)
        last = position == len(columns) - 1
        kept = _values_kept(groups, VALUES_SHOWN if last else VALUES_SHOWN_BEFORE)
        shown = []
        for (text, passed), repetitions in kept:  # each value once, with its runs
            css = "" if passed is None else (' class="pass"' if passed else ' class="fail"')
            shown.append(
                f"<div><span{css}>{_runs_named(repetitions, len(runs))}: {esc(text)}</span></div>"
            )
        if len(kept) < len(groups):
            others = len(groups) - len(kept)
            hidden = len(runs) - sum(len(repetitions) for _, repetitions in kept)
            shown.append(
                f'<div class="note">and {others} other value{"s" if others > 1 else ""} on '
                f"{hidden} run{'s' if hidden > 1 else ''} (each run's page shows its own)</div>"
            )
        cells.append("".join(shown) or '<span class="note">no runs</span>')
    then = [passed for night in verdicts[:-1] for passed in night if passed is not None]
    changed = bool(then) and all(then) and False in verdicts[-1]
    mark = ' class="changed"' if changed else ""
    note = '<br><span class="changed-note">passed then, failing now</span>' if changed else ""
    return (
        f'<tr{mark}><th scope="row">{esc(label)}{note}</th>'
        + "".join(f"<td>{cell}</td>" for cell in cells)
        + "</tr>"
    )


def _page(
    site: SiteData,
    bundle: str,
    candidate: str,
    case: str,
    nights: list[str],
    columns: list[list[SiteRun]],
    cells: _Cells,
) -> bytes:
    path = change_page_path(bundle, candidate, case)
    everyone = [run for runs in columns for run in runs]
    checks = sorted({name for run in everyone for name in cells.checks(run)})
    head = "".join(
        f'<th scope="col">{esc(night)}{" (this night)" if night == bundle else ""}</th>'
        for night in nights
    )

    def outcome(run: SiteRun) -> tuple[str, bool | None]:
        return f"{run.outcome}, overall {number_text(run.facts.overall)}", (
            None if run.outcome == "not scored" else run.outcome == "passed"
        )

    def run_links(runs: list[SiteRun]) -> str:
        if not runs:
            return '<span class="note">no runs</span>'
        links = "".join(
            f"<div>{link_to(path, run.path, f'run {run.facts.repetition}')}</div>"
            if run.facts.bundle in detailed
            else f"<div>run {run.facts.repetition}</div>"
            for run in runs[:RUNS_NAMED]
        )
        more = len(runs) - RUNS_NAMED
        return links + (f'<div class="note">and {more} more</div>' if more > 0 else "")

    detailed = set(site.detailed)
    rows = [
        '<tr><th scope="row">runs</th>'
        + "".join(f"<td>{run_links(runs)}</td>" for runs in columns)
        + "</tr>",
        *(
            _row(label, columns, cells.of(label, value))
            for label, value in [
                ("outcome", outcome),
                ("expected calls", lambda run: (_calls(run, "expectedCalls"), None)),
                ("observed calls", lambda run: (_calls(run, "observedCalls"), None)),
                ("forbidden calls invoked", _forbidden_invoked),
                *((f"check {name}", _check_value(cells, name)) for name in checks),
                *((f"dimension {name}", _dimension_value(cells, name)) for name in DIMENSIONS),
                ("audit findings not passed", _findings),
                ("failure", lambda run: (run.facts.failure or "none", run.facts.failure is None)),
            ]
        ),
    ]
    changed = sum(1 for row in rows if row.startswith('<tr class="changed">'))
    body = (
        f"<h1>{esc(case)} | {esc(candidate)} | {esc(bundle)} beside the nights before</h1>"
        f'<p id="changed-count">{changed} row(s) passed on every earlier run that has a verdict '
        "and fail on a run of this night (marked). A failing reason or finding says where"
        " (a JSON Pointer into the observation, schema"
        f" <code>{esc(OBSERVATION_SCHEMA_ID)}</code>), what was expected and what was"
        " observed.</p>"
        '<table class="change"><thead><tr><th scope="col">aspect</th>'
        + head
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )
    crumbs: list[tuple[str, str | None]] = [
        ("Overview", PAGE_INDEX),
        (f"candidate {candidate}", candidate_page_path(candidate)),
        (f"case {case}", case_page_path(case)),
        (f"{bundle} beside the nights before", None),
    ]
    return page(path, f"{case} | {candidate} | {bundle} then and now", body, crumbs)
