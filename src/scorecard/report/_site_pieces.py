"""Pieces of the report site's pages: links, tables, the runs table with its filter bar and
JSON index, gate outcomes and comparisons, figures. Every interpolated string is escaped here
(:func:`esc`), links are relative site paths (:func:`href`)."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from scorecard.aggregate import CampaignAnalysis
from scorecard.gate import (
    ALL_CANDIDATES,
    METRIC_LABELS,
    GateResult,
)

from ._common import STATUS_WORDS, difference_text, number_text, paired_means_text
from ._dispatch import verdict_line
from ._escape import clean, html_text, shown
from ._site_assets import data_script
from ._site_data import SiteData, SiteRun
from ._site_paths import (
    candidate_page_path,
    case_page_path,
    change_page_path,
    link,
    slug,
)

__all__ = [
    "comparisons_table",
    "count_cell",
    "esc",
    "figures",
    "flag_cell",
    "gate_failures_table",
    "href",
    "html_table",
    "interval_cell",
    "link_to",
    "number_in",
    "outcome_cell",
    "outcomes_table",
    "run_index",
    "runs_table",
    "status_cell",
    "summary_rows",
    "table_records",
    "verdict_block",
]


def esc(text: object, limit: int | None = None) -> str:
    """``text`` (untrusted or not) escaped for HTML content and quoted attributes."""
    return html_text(text, limit)


def href(page_path: str, target: str) -> str:
    """The attribute value linking ``page_path`` to ``target`` (site paths are slugs: escaped,
    never redacted, so a link always names the file written)."""
    return html.escape(link(page_path, target), quote=True)


def link_to(page_path: str, target: str, text: str) -> str:
    """A link from ``page_path`` to site path ``target``; ``text`` is escaped here."""
    return f'<a href="{href(page_path, target)}">{esc(text)}</a>'


def html_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    numeric: Iterable[int] = (),
    css: str = "",
    row_attributes: Sequence[str] | None = None,
) -> str:
    """A table of already-escaped cells (``header`` is trusted text)."""
    if not rows:
        return '<p class="note">None.</p>'
    numbers = set(numeric)
    head = "".join(f"<th>{esc(cell)}</th>" for cell in header)
    body = []
    for position, row in enumerate(rows):
        cells = "".join(
            f'<td class="num">{cell}</td>' if index in numbers else f"<td>{cell}</td>"
            for index, cell in enumerate(row)
        )
        attributes = row_attributes[position] if row_attributes else ""
        body.append(f"<tr{attributes}>{cells}</tr>")
    class_attribute = f' class="{css}"' if css else ""
    return (
        f"<table{class_attribute}><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def status_cell(status: str) -> str:
    return f'<span class="status-{esc(status)}">{esc(STATUS_WORDS.get(status, status))}</span>'


def number_in(row: Mapping[str, Any], name: str) -> float | None:
    value = row.get(name)
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) else number


def interval_cell(row: Mapping[str, Any], name: str, *, percent: bool = False) -> str:
    value, low, high = (number_in(row, key) for key in (name, f"{name}_low", f"{name}_high"))
    if value is None:
        return "-"

    def show(number: float | None) -> str:
        if number is None:
            return "-"
        return f"{number:.0%}" if percent else f"{number:.3f}"

    return esc(f"{show(value)} [{show(low)}, {show(high)}]")


def count_cell(row: Mapping[str, Any], name: str) -> str:
    value = number_in(row, name)
    return "-" if value is None else str(int(value))


def table_records(table: Any) -> list[dict[str, Any]]:
    return [{str(key): value for key, value in item.items()} for item in table.to_dict("records")]


def summary_rows(analysis: CampaignAnalysis) -> list[dict[str, Any]]:
    return table_records(analysis.candidates.summary)


def flag_cell(value: bool | None, yes: str = "yes", no: str = "no") -> str:
    if value is None:
        return '<span class="note">-</span>'
    return f'<span class="pass">{yes}</span>' if value else f'<span class="fail">{no}</span>'


def outcome_cell(run: SiteRun) -> str:
    outcome = run.outcome
    css = {"passed": "pass", "gate failed": "fail", "not passed": "status-warn"}.get(
        outcome, "note"
    )
    return f'<span class="{css}">{esc(outcome)}</span>'


#: Rows a runs table shows at once (the page's HTML holds the first ones; the script pages).
RUNS_PER_PAGE = 100


_OUTCOMES = ("passed", "not passed", "gate failed", "not scored")


def run_index(site: SiteData) -> bytes:
    """The runs the site details (:attr:`SiteData.shown`), for the runs tables' script: ids
    and strings once each, a run as a few numbers (:data:`RUN_INDEX`)."""
    from scorecard.contract import DIMENSIONS

    strings: dict[str, int] = {}

    def word(text: str) -> int:
        return strings.setdefault(text, len(strings))

    classes: dict[str, int] = {}
    bundles = {bundle: position for position, bundle in enumerate(site.bundles)}
    candidates = {candidate: position for position, candidate in enumerate(site.candidates)}
    cases = {case: position for position, case in enumerate(site.cases)}
    providers: dict[str, str] = {}
    rows = []
    for run in site.shown:
        facts = run.facts
        providers.setdefault(facts.candidate, facts.provider)
        overall = facts.overall
        words = [
            *(reason for reasons in facts.reasons for reason in reasons),
            facts.failure or "",
            *(finding.code for finding in facts.findings),
        ]
        rows.append(
            [
                bundles[facts.bundle],
                candidates[facts.candidate],
                cases[facts.case],
                facts.repetition,
                classes.setdefault(shown(facts.classification), len(classes)),
                number_text(overall) if overall is not None and math.isfinite(overall) else None,
                _OUTCOMES.index(run.outcome),
                [DIMENSIONS.index(name) for name in run.failing],
                sorted({word(clean(shown(text)).lower()) for text in words if text}),
            ]
        )
    document = {
        "bundles": [[shown(bundle), slug(bundle)] for bundle in site.bundles],
        "candidates": [
            [shown(candidate), slug(candidate), shown(providers.get(candidate, ""))]
            for candidate in site.candidates
        ],
        "cases": [[shown(case), slug(case)] for case in site.cases],
        "classes": list(classes),
        "dimensions": list(DIMENSIONS),
        "strings": list(strings),
        "runs": rows,
    }
    return data_script("scorecardIndex", None, document)


def runs_table(page_path: str, runs: Sequence[SiteRun], site: SiteData, scope: str = "") -> str:
    """Runs with the filter bar (shown by the script, which reads every run of ``scope``, a
    tag such as ``candidate:ID``, from :data:`RUN_INDEX`); the first page of rows in the HTML."""
    if not runs:
        return '<p class="note">No runs.</p>'
    rows = []
    attributes = []
    for position, run in enumerate(runs[:RUNS_PER_PAGE]):  # the first page, also without script
        facts = run.facts
        attributes.append(f' data-i="{position}"')
        rows.append(
            [
                esc(facts.bundle),
                link_to(page_path, candidate_page_path(facts.candidate), facts.candidate),
                link_to(page_path, case_page_path(facts.case), facts.case),
                link_to(page_path, run.path, f"run {facts.repetition}"),
                esc(facts.classification),
                esc(number_text(facts.overall)),
                outcome_cell(run),
                esc(", ".join(run.failing) or "-"),
            ]
        )
    selects = []
    for name, label, values in (
        (
            "bundle",
            "bundle",
            [bundle for bundle in site.bundles if any(r.facts.bundle == bundle for r in runs)],
        ),
        ("candidate", "candidate", sorted({run.facts.candidate for run in runs})),
        ("case", "case", [case for case in site.cases if any(r.facts.case == case for r in runs)]),
        (
            "outcome",
            "outcome",
            ["any failure", "gate failed", "not passed", "not scored", "passed"],
        ),
        ("class", "classification", sorted({run.facts.classification for run in runs})),
    ):
        if len(values) < 2 and name != "outcome":
            continue
        options = "".join(
            f'<option value="{esc(f"{name}:{value}")}">{esc(value)}</option>' for value in values
        )
        selects.append(
            f'<label>{esc(label)} <select name="{name}" aria-label="{esc(label)}">'
            f'<option value="">all</option>{options}</select></label>'
        )
    bar = (
        '<div class="filters" id="filters" data-js hidden '
        f'data-root="{href(page_path, "index.html")[: -len("index.html")]}" '
        f'data-scope="{esc(scope)}">'
        '<label>search <input type="search" id="q" name="q" placeholder="id, reason, code..." '
        'aria-label="search runs"></label>'
        + "".join(selects)
        + '<span id="shown" class="note" role="status"></span></div>'
    )
    pager = (
        '<div class="pager" id="pager" data-js hidden>'
        '<button type="button" id="previous">previous page</button> '
        '<span id="page" class="note"></span> '
        '<button type="button" id="next">next page</button></div>'
    )
    rest = (
        f'<p class="note" data-no-js>The first {RUNS_PER_PAGE} of {len(runs)} runs; with '
        "JavaScript on, this table pages, sorts and filters them all (each candidate's and "
        "case's page lists theirs).</p>"
        if len(runs) > RUNS_PER_PAGE
        else ""
    )
    table = html_table(
        [
            "bundle",
            "candidate",
            "case",
            "run",
            "classification",
            "overall",
            "outcome",
            "failing dimensions",
        ],
        rows,
        numeric=[5],
        css="runs",
        row_attributes=attributes,
    )
    return bar + table + pager + rest


def verdict_block(result: GateResult) -> str:
    line = verdict_line(result)
    return f'<div class="verdict {esc(result.verdict)}" id="verdict">{esc(line, 1000)}</div>'


def outcomes_table(outcomes: Sequence[Any], page_path: str) -> str:
    return html_table(
        ["status", "rule", "candidate", "subject", "detail"],
        [
            [
                status_cell(item.status),
                esc(item.rule),
                "<em>all candidates</em>"
                if item.candidate is None
                else link_to(page_path, candidate_page_path(item.candidate), item.candidate),
                esc(item.subject),
                esc(item.detail, 600),
            ]
            for item in outcomes
        ],
    )


#: Gate failures a page lists (the rest are counted; the runs table filters them all).
GATE_FAILURES_SHOWN = 200


def gate_failures_table(result: GateResult, site: SiteData, page_path: str) -> str:
    rows = []
    detailed = set(site.detailed)
    for failure in result.failures[:GATE_FAILURES_SHOWN]:
        run = failure.run
        found = (
            site.run_of(run.bundle, run.candidate, run.case, run.repetition)
            if run.bundle in detailed
            else None
        )
        where = (
            link_to(page_path, found.path, f"run {run.repetition}")
            if found is not None
            else esc(f"run {run.repetition}")
        )
        earlier = site.bundles.index(run.bundle) > 0 if run.bundle in site.bundles else False
        then = (
            link_to(
                page_path,
                change_page_path(run.bundle, run.candidate, run.case),
                "then and now",
            )
            if found is not None and earlier
            else "-"
        )
        rows.append(
            [
                link_to(page_path, candidate_page_path(run.candidate), run.candidate),
                link_to(page_path, case_page_path(run.case), run.case),
                where,
                then,
                esc(", ".join(failure.dimensions)),
                "-" if failure.new is None else esc(", ".join(failure.new) or "no"),
                "yes" if failure.counted else "no",
            ]
        )
    more = len(result.failures) - GATE_FAILURES_SHOWN
    note = (
        f'<p class="note">The first {GATE_FAILURES_SHOWN} of {len(result.failures)} gate '
        "failures; "
        + (
            link_to(
                page_path,
                f"runs.html?outcome={quote('outcome:gate failed')}"
                f"&bundle={quote('bundle:' + shown(result.current_bundle))}",
                "the runs table lists them all",
            )
            if result.current_bundle in detailed
            else "the candidates' pages count them"
        )
        + ".</p>"
        if more > 0
        else ""
    )
    return (
        html_table(
            ["candidate", "case", "run", "nights before", "failed", "new", "counted"],
            rows,
            css="failures",
        )
        + note
    )


def comparisons_table(result: GateResult, page_path: str) -> str:
    rows = []
    for item in result.comparisons:
        comparison = item.comparison
        who = (
            "<em>all candidates</em>"
            if item.candidate == ALL_CANDIDATES
            else link_to(page_path, candidate_page_path(item.candidate), item.candidate)
        )
        rows.append(
            [
                esc(METRIC_LABELS.get(item.metric, item.metric)),
                who,
                str(len(comparison.paired_cases)),
                esc(paired_means_text(comparison.overall)),
                esc(difference_text(comparison.overall)),
                esc(number_text(comparison.overall.p_adjusted)),
                esc(comparison.verdict),
            ]
        )
    return html_table(
        [
            "metric",
            "candidate",
            "paired cases",
            "current vs baseline",
            "difference",
            "Holm p (two-sided)",
            "verdict",
        ],
        rows,
        numeric=[2, 5],
    )


def figures(page_path: str, plots: Mapping[str, tuple[str, bytes | str]]) -> str:
    parts = []
    for name, (caption, image) in plots.items():
        if isinstance(image, bytes):
            parts.append(
                f'<figure id="plot-{name}"><img src="{href(page_path, f"plots/{name}.svg")}" '
                f'alt="{esc(caption)}"><figcaption>{esc(caption)}</figcaption></figure>'
            )
        else:
            parts.append(f'<p class="note">{esc(caption)}: not drawn ({esc(image)}).</p>')
    return "".join(parts)
