"""What changed in a case: one page per candidate x case x night, the night's runs beside the
runs of the nights before it (at most :data:`NIGHTS_BEFORE`), aligned row by row.

Rows (a night whose runs agree shows the value once, "all N: ..."; a cell shows at most
:data:`VALUES_SHOWN` values, :data:`VALUES_SHOWN_BEFORE` for a night before the page's, the
failing ones first, and counts the rest, so a page does not grow with a night's runs): each run's outcome and overall (linked to its page); expected, observed and forbidden
calls; every check of the observation's ``lifecycle``, ``continuation`` and ``presentation``
sections; each dimension's score, pass and reasons; the audit findings not passed; the failure.
A row whose value passed on every earlier run that has one (an unscored run has no dimension
verdicts) and fails on a run of the night is marked ``changed`` ("passed then, failing now").
Every value comes from the scored records and their explanations, as the run pages show them
(:mod:`._site_values`; a site of one night works out those of the nights before as it reads
their runs, and keeps only them); every string is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scorecard.contract import DIMENSIONS, OBSERVATION_SCHEMA_ID

from ._site_assets import page
from ._site_data import SiteData, SiteRun
from ._site_paths import (
    PAGE_INDEX,
    candidate_page_path,
    case_page_path,
    change_page_path,
)
from ._site_pieces import esc, link_to
from ._site_values import ChangeValues, Value, change_values

__all__ = ["NIGHTS_BEFORE", "VALUES_SHOWN", "VALUES_SHOWN_BEFORE", "ChangePages", "nights_before"]

#: Earlier nights a change page shows beside its night.
NIGHTS_BEFORE = 7


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
        #: Each run's values worked out here (a run the site kept whole, or packed without
        #: them): a run shows on its night's page and again on the pages of the nights after
        #: it. Values are shared among runs, so this holds about a reference a run.
        self._values: dict[str, ChangeValues] = {}

    def runs_shown(self, bundle: str, candidate: str, case: str) -> int:
        """How many runs the change page of ``candidate`` x ``case`` on ``bundle`` shows (what
        making it costs, about)."""
        nights = [*nights_before(self.site, bundle), bundle]
        return sum(len(self._grouped.get((night, candidate, case), ())) for night in nights)

    def page(self, bundle: str, candidate: str, case: str) -> bytes:
        """The change page of ``candidate`` x ``case`` on the night ``bundle``."""
        nights = [*nights_before(self.site, bundle), bundle]
        columns = [
            sorted(self._grouped.get((night, candidate, case), []), key=_repetition)
            for night in nights
        ]
        return _page(self.site, bundle, candidate, case, nights, columns, self._alike(columns))

    def _alike(self, columns: list[list[SiteRun]]) -> list[Night]:
        """Each night's runs grouped by their change values, the groups in the order of their
        first runs, each with its runs' numbers (ascending, as the runs come): runs with equal
        values share one object of them (:func:`~._site_values.shared_change_values`), so a
        row's value is looked up once per group, not once per run."""
        as_dict: dict[int, dict[str, Value]] = {}
        nights = []
        for runs in columns:
            groups: dict[int, tuple[dict[str, Value], list[int]]] = {}
            for run in runs:
                values = self.values_of(run)
                group = groups.get(id(values))
                if group is None:
                    kept = as_dict.get(id(values))
                    if kept is None:
                        kept = as_dict[id(values)] = dict(values)
                    group = groups[id(values)] = (kept, [])
                group[1].append(run.facts.repetition)
            nights.append(Night(list(groups.values()), len(runs)))
        return nights

    def values_of(self, run: SiteRun) -> ChangeValues:
        """What the change pages show of ``run``: kept with it (a site of one night keeps
        them as it reads its runs), else worked out from its record (read back, if packed,
        and not kept) once."""
        if run.changes is not None:
            return run.changes
        kept = self._values.get(run.path)
        if kept is None:
            record = run.unpacked().record
            kept = self._values[run.path] = change_values(record, run.facts, run.catalog)
        return kept


def _repetition(run: SiteRun) -> int:
    return run.facts.repetition


_HEAD_ROWS = ("outcome", "expected calls", "observed calls", "forbidden calls invoked")
_DIMENSION_ROWS = tuple(f"dimension {name}" for name in DIMENSIONS)
_TAIL_ROWS = ("audit findings not passed", "failure")
_NO_VALUE: Value = ("-", None)


@dataclass(frozen=True)
class Night:
    """A night's runs on a change page, grouped by their change values
    (:meth:`ChangePages._alike`)."""

    groups: list[tuple[dict[str, Value], list[int]]]
    """Each distinct values' rows (by label) and the numbers of the runs that have them."""
    runs: int


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


def _values_kept(groups: dict[Value, list[int]], limit: int) -> list[tuple[Value, list[int]]]:
    """The values a cell shows, in the order their runs came: all of them, or past ``limit``
    the failing ones first, then those of the most runs."""
    items = list(groups.items())
    if len(items) <= limit:
        return items
    ranked = sorted(
        range(len(items)), key=lambda at: (items[at][0][1] is not False, -len(items[at][1]), at)
    )
    return [items[at] for at in sorted(ranked[:limit])]


def _row(label: str, nights: Sequence[Night]) -> str:
    """One aligned row: per night, each run's value (the last night, the page's own, shows up
    to :data:`VALUES_SHOWN` values, each night before it :data:`VALUES_SHOWN_BEFORE`); marked
    when every earlier run passed and a run of the night fails. A check a run's observation
    does not have has no value there ("-")."""
    cells = []
    verdicts: list[set[bool | None]] = []
    for position, night in enumerate(nights):
        groups: dict[Value, list[int]] = {}
        merged = set()
        for values, repetitions in night.groups:  # in the order of their first runs
            item = values.get(label, _NO_VALUE)
            known = groups.get(item)
            if known is None:
                groups[item] = repetitions
            else:  # another group's runs with this value: the runs' numbers in their order
                groups[item] = [*known, *repetitions]
                merged.add(item)
        for item in merged:
            groups[item].sort()
        verdicts.append({passed for _, passed in groups})
        last = position == len(nights) - 1
        kept = _values_kept(groups, VALUES_SHOWN if last else VALUES_SHOWN_BEFORE)
        shown = []
        for (text, passed), repetitions in kept:  # each value once, with its runs
            css = "" if passed is None else (' class="pass"' if passed else ' class="fail"')
            shown.append(
                f"<div><span{css}>{_runs_named(repetitions, night.runs)}: {esc(text)}</span></div>"
            )
        if len(kept) < len(groups):
            others = len(groups) - len(kept)
            hidden = night.runs - sum(len(repetitions) for _, repetitions in kept)
            shown.append(
                f'<div class="note">and {others} other value{"s" if others > 1 else ""} on '
                f"{hidden} run{'s' if hidden > 1 else ''} (each run's page shows its own)</div>"
            )
        cells.append("".join(shown) or '<span class="note">no runs</span>')
    then = {passed for night in verdicts[:-1] for passed in night} - {None}
    changed = then == {True} and False in verdicts[-1]
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
    alike: list[Night],
) -> bytes:
    path = change_page_path(bundle, candidate, case)
    checks = sorted(
        {
            label
            for night in alike
            for values, _ in night.groups
            for label in values
            if label.startswith("check ")
        }
    )
    head = "".join(
        f'<th scope="col">{esc(night)}{" (this night)" if night == bundle else ""}</th>'
        for night in nights
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
        *(_row(label, alike) for label in [*_HEAD_ROWS, *checks, *_DIMENSION_ROWS, *_TAIL_ROWS]),
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
