"""The report site: a folder of static pages over one campaign (``scorecard report``).

::

    build_site(records, catalog, rules=..., seed=...) -> {site path: bytes}
    write_site(files, out)        the folder, written atomically (built beside it, renamed)

Pages: ``index.html`` (the gate's verdict on the newest bundle against the previous one, the
candidates of the newest bundle, the heatmap, trends and cost frontier, the bundles, the cases,
the newest bundle's gate failures), ``runs.html`` (every run, searchable), one page per
candidate, per case and per pair of consecutive bundles (the gate on that pair), and one page
per run (its scorecard, every failing reason linked to the observation field it points at, the
audit findings, the failure metadata, the observation with those fields highlighted).

Nothing is computed here: numbers come from :func:`scorecard.aggregate.analyze_campaign` and
:func:`scorecard.gate.evaluate_gate` (the gate command's function, on the same runs), plots
from :mod:`scorecard.plots`. Every interpolated string goes through
:func:`~scorecard.report._escape.html_text`; file names through
:mod:`~scorecard.report._site_paths`. The same records give the same bytes.
"""

from __future__ import annotations

import html
import io
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorecard.aggregate import CampaignAnalysis, analyze_campaign, records_frame
from scorecard.contract import DIMENSIONS, GATE_DIMENSIONS, Catalog, InputError
from scorecard.core import ScoredRecord, explain_record
from scorecard.engine import LoadedRecords, atomic_folder, scored_row
from scorecard.gate import (
    ALL_CANDIDATES,
    METRIC_LABELS,
    GateResult,
    GateRules,
    RunFacts,
    evaluate_gate,
    gate_side,
    run_facts,
)

from ._common import STATUS_WORDS, difference_text, number_text, paired_means_text, rules_text
from ._dispatch import verdict_line
from ._escape import clean, html_text
from ._site_assets import json_script, page
from ._site_json import render_json
from ._site_paths import (
    PAGE_INDEX,
    PAGE_RUNS,
    anchor_id,
    candidate_page_path,
    case_page_path,
    link,
    pair_page_path,
    run_page_path,
)

__all__ = ["SITE_MARKER", "build_site", "write_site"]

#: The file that marks a folder as a report site (the only kind of folder --out replaces).
SITE_MARKER = ".scorecard-site"
_MARKER_TEXT = b"A site written by `scorecard report`; `scorecard report --out` may replace it.\n"
_REASON_LIMIT = 2000


def _e(text: object, limit: int | None = None) -> str:
    return html_text(text, limit)


@dataclass(frozen=True)
class _Run:
    """One scored run and where its page is."""

    record: ScoredRecord
    facts: RunFacts
    path: str
    explanation: dict[str, Any]

    @property
    def outcome(self) -> str:
        facts = self.facts
        if not facts.scoreable:
            return "not scored"
        if facts.gate_failed:
            return "gate failed"
        return "passed" if facts.passed else "not passed"

    @property
    def failing(self) -> list[str]:
        return [item["dimension"] for item in self.explanation["failingDimensions"]]


@dataclass(frozen=True)
class _Pair:
    baseline: str
    current: str
    result: GateResult

    @property
    def path(self) -> str:
        return pair_page_path(self.baseline, self.current)


class _Site:
    """Everything the pages show, computed once."""

    def __init__(
        self, records: Sequence[ScoredRecord], catalog: Catalog, rules: GateRules, seed: int
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.runs: list[_Run] = []
        seen: dict[str, _Run] = {}
        loaded = LoadedRecords()
        for record in records:
            facts = run_facts(record.record_json())
            path = run_page_path(facts.bundle, facts.candidate, facts.case, facts.repetition)
            if path in seen:
                raise InputError(
                    f"repeats candidate {facts.candidate}, case {facts.case}, repetition "
                    f"{facts.repetition} of bundle {facts.bundle}",
                    rule="duplicate_record",
                    source=record.source,
                )
            run = _Run(record, facts, path, explain_record(record, catalog))
            seen[path] = run
            self.runs.append(run)
            loaded.add(scored_row(record))
        if not self.runs:
            raise InputError("no scored records found in the inputs", rule="no_records")
        frame = records_frame(loaded, bundle_order=loaded.bundle_order)
        self.analysis: CampaignAnalysis = analyze_campaign(frame, rules.settings(seed))
        self.bundles: tuple[str, ...] = self.analysis.bundles
        order = {bundle: index for index, bundle in enumerate(self.bundles)}
        self.runs.sort(key=lambda run: order[run.facts.bundle])  # stable: input order within
        self.candidates = sorted({run.facts.candidate for run in self.runs})
        catalog_order = {case: index for index, case in enumerate(catalog)}
        self.cases = sorted(
            {run.facts.case for run in self.runs},
            key=lambda case: (catalog_order.get(case, len(catalog_order)), case),
        )
        self.by_path = {run.path: run for run in self.runs}
        self.pairs = [
            _Pair(baseline, current, self._gate(current, baseline))
            for baseline, current in self.analysis.comparison_pairs()
        ]
        self.newest = self.bundles[-1]
        self.verdict: GateResult = self.pairs[-1].result if self.pairs else self._gate(self.newest)

    def _gate(self, current: str, baseline: str | None = None) -> GateResult:
        """The gate command's verdict on ``current`` (against ``baseline``)."""

        def side(bundle: str) -> Any:
            return gate_side(
                [run.facts for run in self.runs if run.facts.bundle == bundle], source=bundle
            )

        return evaluate_gate(
            side(current), side(baseline) if baseline else None, self.rules, seed=self.seed
        )

    def run_of(self, bundle: str, candidate: str, case: str, repetition: int) -> _Run | None:
        return self.by_path.get(run_page_path(bundle, candidate, case, repetition))

    def pair_into(self, bundle: str) -> _Pair | None:
        return next((pair for pair in self.pairs if pair.current == bundle), None)


# ---------------------------------------------------------------------------------------------
# Pieces


def _href(page_path: str, target: str) -> str:
    """The attribute value linking ``page_path`` to ``target`` (site paths are slugs: escaped,
    never redacted, so a link always names the file written)."""
    return html.escape(link(page_path, target), quote=True)


def _a(page_path: str, target: str, text: str) -> str:
    """A link from ``page_path`` to site path ``target``; ``text`` is escaped here."""
    return f'<a href="{_href(page_path, target)}">{_e(text)}</a>'


def _table(
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
    head = "".join(f"<th>{_e(cell)}</th>" for cell in header)
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


def _status(status: str) -> str:
    return f'<span class="status-{_e(status)}">{_e(STATUS_WORDS.get(status, status))}</span>'


def _value(row: Mapping[str, Any], name: str) -> float | None:
    value = row.get(name)
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _interval(row: Mapping[str, Any], name: str, *, percent: bool = False) -> str:
    value, low, high = (_value(row, key) for key in (name, f"{name}_low", f"{name}_high"))
    if value is None:
        return "-"

    def show(number: float | None) -> str:
        if number is None:
            return "-"
        return f"{number:.0%}" if percent else f"{number:.3f}"

    return _e(f"{show(value)} [{show(low)}, {show(high)}]")


def _count(row: Mapping[str, Any], name: str) -> str:
    value = _value(row, name)
    return "-" if value is None else str(int(value))


def _records(table: Any) -> list[dict[str, Any]]:
    return [{str(key): value for key, value in item.items()} for item in table.to_dict("records")]


def _summary_rows(analysis: CampaignAnalysis) -> list[dict[str, Any]]:
    return _records(analysis.candidates.summary)


def _flag(value: bool | None, yes: str = "yes", no: str = "no") -> str:
    if value is None:
        return '<span class="note">-</span>'
    return f'<span class="pass">{yes}</span>' if value else f'<span class="fail">{no}</span>'


def _outcome_cell(run: _Run) -> str:
    outcome = run.outcome
    css = {"passed": "pass", "gate failed": "fail", "not passed": "status-warn"}.get(
        outcome, "note"
    )
    return f'<span class="{css}">{_e(outcome)}</span>'


def _runs_table(page_path: str, runs: Sequence[_Run], site: _Site) -> str:
    """Runs with the filter bar (shown by the script) and the JSON index it filters by."""
    if not runs:
        return '<p class="note">No runs.</p>'
    index = []
    rows = []
    attributes = []
    for position, run in enumerate(runs):
        facts = run.facts
        tags = [
            f"bundle:{facts.bundle}",
            f"candidate:{facts.candidate}",
            f"case:{facts.case}",
            f"class:{facts.classification}",
            f"outcome:{run.outcome}",
        ]
        if run.outcome != "passed":
            tags.append("outcome:any failure")
        words = [
            facts.bundle,
            facts.candidate,
            facts.provider,
            facts.case,
            f"run {facts.repetition}",
            facts.classification,
            run.outcome,
            *run.failing,
            *(reason for reasons in facts.reasons for reason in reasons),
            facts.failure or "",
            *(finding.code for finding in facts.findings),
        ]
        index.append({"tags": [clean(tag) for tag in tags], "text": clean(" ".join(words)).lower()})
        attributes.append(f' data-i="{position}"')
        rows.append(
            [
                _e(facts.bundle),
                _a(page_path, candidate_page_path(facts.candidate), facts.candidate),
                _a(page_path, case_page_path(facts.case), facts.case),
                _a(page_path, run.path, f"run {facts.repetition}"),
                _e(facts.classification),
                _e(number_text(facts.overall)),
                _outcome_cell(run),
                _e(", ".join(run.failing) or "-"),
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
            f'<option value="{_e(f"{name}:{value}")}">{_e(value)}</option>' for value in values
        )
        selects.append(
            f'<label>{_e(label)} <select name="{name}" aria-label="{_e(label)}">'
            f'<option value="">all</option>{options}</select></label>'
        )
    bar = (
        '<div class="filters" id="filters" data-js hidden>'
        '<label>search <input type="search" id="q" name="q" placeholder="id, reason, code..." '
        'aria-label="search runs"></label>'
        + "".join(selects)
        + '<span id="shown" class="note"></span></div>'
    )
    table = _table(
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
    return bar + table + json_script("run-index", index)


def _verdict_block(result: GateResult) -> str:
    line = verdict_line(result)
    return f'<div class="verdict {_e(result.verdict)}" id="verdict">{_e(line, 1000)}</div>'


def _outcomes(outcomes: Sequence[Any], page_path: str) -> str:
    return _table(
        ["status", "rule", "candidate", "subject", "detail"],
        [
            [
                _status(item.status),
                _e(item.rule),
                "<em>all candidates</em>"
                if item.candidate is None
                else _a(page_path, candidate_page_path(item.candidate), item.candidate),
                _e(item.subject),
                _e(item.detail, 600),
            ]
            for item in outcomes
        ],
    )


def _gate_failures(result: GateResult, site: _Site, page_path: str) -> str:
    rows = []
    for failure in result.failures:
        run = failure.run
        found = site.run_of(run.bundle, run.candidate, run.case, run.repetition)
        where = (
            _a(page_path, found.path, f"run {run.repetition}")
            if found is not None
            else _e(f"run {run.repetition}")
        )
        rows.append(
            [
                _a(page_path, candidate_page_path(run.candidate), run.candidate),
                _a(page_path, case_page_path(run.case), run.case),
                where,
                _e(", ".join(failure.dimensions)),
                "-" if failure.new is None else _e(", ".join(failure.new) or "no"),
                "yes" if failure.counted else "no",
            ]
        )
    return _table(["candidate", "case", "run", "failed", "new", "counted"], rows, css="failures")


def _comparisons(result: GateResult, page_path: str) -> str:
    rows = []
    for item in result.comparisons:
        comparison = item.comparison
        who = (
            "<em>all candidates</em>"
            if item.candidate == ALL_CANDIDATES
            else _a(page_path, candidate_page_path(item.candidate), item.candidate)
        )
        rows.append(
            [
                _e(METRIC_LABELS.get(item.metric, item.metric)),
                who,
                str(len(comparison.paired_cases)),
                _e(paired_means_text(comparison.overall)),
                _e(difference_text(comparison.overall)),
                _e(number_text(comparison.overall.p_adjusted)),
                _e(comparison.verdict),
            ]
        )
    return _table(
        [
            "metric",
            "candidate",
            "paired cases",
            "current vs baseline",
            "difference",
            "Holm p",
            "verdict",
        ],
        rows,
        numeric=[2, 5],
    )


# ---------------------------------------------------------------------------------------------
# Plots


def _svg(figure: Any) -> bytes:
    import matplotlib  # noqa: TID251  (only the report and plots layers draw)

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "scorecard-report"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return buffer.getvalue()


def _plots(site: _Site) -> dict[str, tuple[str, bytes | str]]:
    """name -> (caption, SVG bytes, or the message saying why the plot could not be drawn)."""
    from scorecard.plots import plot_dimension_heatmap, plot_quality_vs_cost, plot_trends

    analysis = site.analysis
    calls: list[tuple[str, str, Any]] = [
        (
            "heatmap",
            f"Mean score per dimension and candidate, {site.newest}",
            lambda: plot_dimension_heatmap(analysis, bundle=site.newest),
        ),
    ]
    if len(site.bundles) > 1:
        calls.append(("trends", "Candidates across bundles", lambda: plot_trends(analysis)))
    calls.append(
        (
            "cost",
            f"Quality against cost with the Pareto frontier, {site.newest}",
            lambda: plot_quality_vs_cost(analysis, bundle=site.newest),
        )
    )
    drawn: dict[str, tuple[str, bytes | str]] = {}
    for name, caption, draw in calls:
        try:
            with warnings.catch_warnings():
                # An id with a control character draws as a box (SVG text is drawn as paths).
                warnings.filterwarnings("ignore", "Glyph .* missing from font", UserWarning)
                drawn[name] = (caption, _svg(draw()))
        except InputError as error:
            drawn[name] = (caption, error.message)
        except ValueError as error:  # a plot that cannot draw this data must not cost the site
            drawn[name] = (caption, f"{type(error).__name__}: {error}")
    return drawn


def _figures(page_path: str, plots: Mapping[str, tuple[str, bytes | str]]) -> str:
    parts = []
    for name, (caption, image) in plots.items():
        if isinstance(image, bytes):
            parts.append(
                f'<figure id="plot-{name}"><img src="{_href(page_path, f"plots/{name}.svg")}" '
                f'alt="{_e(caption)}"><figcaption>{_e(caption)}</figcaption></figure>'
            )
        else:
            parts.append(f'<p class="note">{_e(caption)}: not drawn ({_e(image)}).</p>')
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Pages


def _overview(site: _Site, plots: Mapping[str, tuple[str, bytes | str]]) -> bytes:
    path = PAGE_INDEX
    result = site.verdict
    if result.baseline_bundle is not None:
        pair = site.pairs[-1]
        judged = (
            f"<p>The gate on the newest bundle <strong>{_e(result.current_bundle)}</strong> "
            f"against the previous one, <strong>{_e(result.baseline_bundle)}</strong> "
            f"({_a(path, pair.path, 'details')}).</p>"
        )
    else:
        judged = (
            f"<p>The gate on the only bundle, <strong>{_e(result.current_bundle)}</strong>: "
            "without a baseline only the safety, infrastructure and audit rules apply.</p>"
        )
    unresolved = [item for item in result.required if item.status != "pass"]
    search = (
        f'<form class="filters" action="{PAGE_RUNS}" method="get" data-js hidden>'
        '<label>search runs <input type="search" name="q" aria-label="search runs" '
        'placeholder="id, reason, code..."></label><button type="submit">Search</button></form>'
    )
    summaries = _summary_rows(site.analysis)
    newest_rows = [row for row in summaries if row["bundle"] == site.newest]
    previous = site.analysis.previous_bundle(site.newest)
    family = site.analysis.family(previous, site.newest) if previous is not None else {}
    candidate_rows = []
    for row in newest_rows:
        name = str(row["candidate"])
        comparison = family.get(name)
        candidate_rows.append(
            [
                _a(path, candidate_page_path(name), name),
                _count(row, "executions"),
                _count(row, "scoreable"),
                _interval(row, "pass_rate", percent=True),
                _interval(row, "gate_pass_rate", percent=True),
                _interval(row, "mean_overall"),
                _e(difference_text(comparison.overall)) if comparison else "-",
                _e(number_text(comparison.overall.p_adjusted)) if comparison else "-",
                _e(comparison.verdict) if comparison else "-",
            ]
        )
    candidates = _table(
        [
            "candidate",
            "runs",
            "scoreable",
            "pass rate",
            "gate-pass rate",
            "mean overall",
            "vs previous bundle",
            "Holm p",
            "paired verdict",
        ],
        candidate_rows,
        numeric=range(1, 8),
        css="candidates",
    )
    means = {(str(row["bundle"]), str(row["candidate"])): row for row in summaries}
    trend_rows = [
        [_a(path, candidate_page_path(name), name)]
        + [
            _interval(means[(bundle, name)], "mean_overall") if (bundle, name) in means else "-"
            for bundle in site.bundles
        ]
        for name in site.candidates
    ]
    trends = _table(
        ["candidate", *site.bundles],
        trend_rows,
        numeric=range(1, len(site.bundles) + 1),
        css="trends",
    )
    bundle_rows = []
    bundle_table = site.analysis.bundles_summary
    for totals in _records(bundle_table):
        bundle = str(totals["bundle"])
        into = site.pair_into(bundle)
        bundle_rows.append(
            [
                _e(bundle),
                _count(totals, "executions"),
                _interval(totals, "pass_rate", percent=True),
                _interval(totals, "mean_overall"),
                _a(path, into.path, f"{STATUS_WORDS[into.result.verdict]} against {into.baseline}")
                if into is not None
                else '<span class="note">first bundle</span>',
            ]
        )
    bundles = _table(
        ["bundle", "runs", "pass rate", "mean overall", "gate against the previous bundle"],
        bundle_rows,
        numeric=[1],
        css="bundles",
    )
    case_rows = []
    for case in site.cases:
        mine = [
            run for run in site.runs if run.facts.case == case and run.facts.bundle == site.newest
        ]
        case_rows.append(
            [
                _a(path, case_page_path(case), case),
                str(len(mine)),
                str(sum(1 for run in mine if run.outcome == "passed")),
                str(sum(1 for run in mine if run.outcome == "gate failed")),
            ]
        )
    cases = _table(
        ["case", f"runs in {site.newest}", "passed", "gate failed"],
        case_rows,
        numeric=[1, 2, 3],
        css="cases",
    )
    body = (
        "<h1>Scorecard report</h1>"
        + _verdict_block(result)
        + judged
        + ("<h3>Required rules not passed</h3>" + _outcomes(unresolved, path) if unresolved else "")
        + search
        + f"<p>{len(site.bundles)} bundles, {len(site.candidates)} candidates, {len(site.cases)} "
        f"cases, {len(site.runs)} runs ({_a(path, PAGE_RUNS, 'all runs')}).</p>"
        + f'<h2 id="candidates">Candidates in {_e(site.newest)}</h2>'
        + candidates
        + '<h2 id="plots">Plots</h2>'
        + _figures(path, plots)
        + '<h2 id="trends">Mean overall per bundle</h2>'
        + trends
        + '<h2 id="bundles">Bundles</h2>'
        + bundles
        + '<h2 id="cases">Cases</h2>'
        + cases
        + f'<h2 id="failures">Gate failures in {_e(site.newest)}</h2>'
        + _gate_failures(result, site, path)
    )
    return page(path, "Overview", body, [])


def _all_runs(site: _Site) -> bytes:
    body = "<h1>All runs</h1>" + _runs_table(PAGE_RUNS, site.runs, site)
    return page(PAGE_RUNS, "All runs", body, [("Overview", PAGE_INDEX), ("All runs", None)])


def _candidate_page(site: _Site, candidate: str) -> bytes:
    path = candidate_page_path(candidate)
    rows = []
    for row in _summary_rows(site.analysis):
        if row["candidate"] != candidate:
            continue
        rows.append(
            [
                _e(row["bundle"]),
                _count(row, "executions"),
                _count(row, "scoreable"),
                _count(row, "infrastructure_failures"),
                _interval(row, "pass_rate", percent=True),
                _interval(row, "gate_pass_rate", percent=True),
                _interval(row, "mean_overall"),
            ]
        )
    per_bundle = _table(
        [
            "bundle",
            "runs",
            "scoreable",
            "infrastructure failures",
            "pass rate",
            "gate-pass rate",
            "mean overall",
        ],
        rows,
        numeric=range(1, 7),
    )
    trend_rows = []
    for comparison in site.analysis.across_bundles(candidate):
        baseline, current = comparison.baseline.bundle, comparison.current.bundle
        trend_rows.append(
            [
                _a(path, pair_page_path(baseline, current), f"{current} vs {baseline}"),
                str(len(comparison.paired_cases)),
                _e(paired_means_text(comparison.overall)),
                _e(difference_text(comparison.overall)),
                _e(number_text(comparison.overall.p_adjusted)),
                _e(comparison.verdict),
            ]
        )
    trends = _table(
        ["bundles", "paired cases", "current vs baseline", "difference", "Holm p", "verdict"],
        trend_rows,
        numeric=[1, 4],
    )
    runs = [run for run in site.runs if run.facts.candidate == candidate]
    body = (
        f"<h1>Candidate {_e(candidate)}</h1>"
        "<h2>Per bundle</h2>" + per_bundle + "<h2>Mean overall against the previous bundle</h2>"
        '<p class="note">Paired by case, Holm-adjusted within each pair of bundles (the gate\'s '
        "comparisons).</p>" + trends + "<h2>Runs</h2>" + _runs_table(path, runs, site)
    )
    crumbs: list[tuple[str, str | None]] = [
        ("Overview", PAGE_INDEX),
        (f"candidate {candidate}", None),
    ]
    return page(path, f"Candidate {candidate}", body, crumbs)


def _case_page(site: _Site, case: str) -> bytes:
    path = case_page_path(case)
    runs = [run for run in site.runs if run.facts.case == case]
    header = ["candidate", *site.bundles]
    rows = []
    for candidate in site.candidates:
        cells = [_a(path, candidate_page_path(candidate), candidate)]
        for bundle in site.bundles:
            mine = [r for r in runs if r.facts.candidate == candidate and r.facts.bundle == bundle]
            if not mine:
                cells.append("-")
                continue
            passed = sum(1 for run in mine if run.outcome == "passed")
            gate = sum(1 for run in mine if run.outcome == "gate failed")
            cells.append(
                _e(f"{passed}/{len(mine)} passed" + (f", {gate} gate failed" if gate else ""))
            )
        rows.append(cells)
    body = (
        f"<h1>Case {_e(case)}</h1><h2>Runs passed per candidate and bundle</h2>"
        + _table(header, rows)
        + "<h2>Runs</h2>"
        + _runs_table(path, runs, site)
    )
    return page(path, f"Case {case}", body, [("Overview", PAGE_INDEX), (f"case {case}", None)])


def _pair_page(site: _Site, pair: _Pair) -> bytes:
    path = pair.path
    result = pair.result
    body = (
        f"<h1>{_e(pair.current)} against {_e(pair.baseline)}</h1>"
        + _verdict_block(result)
        + "<ul>"
        + "".join(f"<li>{_e(text)}</li>" for text in [*rules_text(result), *result.notes])
        + "</ul><h2>Required rules</h2>"
        + _outcomes(result.required, path)
        + "<h2>Paired comparisons</h2>"
        + _comparisons(result, path)
        + f"<h2>Gate failures in {_e(pair.current)}</h2>"
        + _gate_failures(result, site, path)
        + "<h2>Advisory findings (never change the verdict)</h2>"
        + _outcomes([item for item in result.advisory if item.status != "pass"], path)
        + "<h2>Reference alerts</h2>"
        + _table(
            ["severity", "kind", "message"],
            [[_e(a.severity), _e(a.kind), _e(a.message, 600)] for a in result.alerts],
        )
    )
    crumbs: list[tuple[str, str | None]] = [
        ("Overview", PAGE_INDEX),
        (f"{pair.current} against {pair.baseline}", None),
    ]
    return page(path, f"{pair.current} against {pair.baseline}", body, crumbs)


def _pointer_links(pointers: Sequence[str]) -> str:
    return ", ".join(
        f'<a class="ptr" href="#{anchor_id(pointer)}">{_e(pointer)}</a>' for pointer in pointers
    )


def _run_page(site: _Site, run: _Run) -> bytes:
    path = run.path
    facts = run.facts
    explanation = run.explanation
    record = run.record.record_json()
    card = run.record.scorecard_json()
    pointers: list[str] = []
    for item in explanation["failingDimensions"]:
        for reason in item["reasons"]:
            pointers.extend(reason["pointers"])
    findings = explanation["audit"]["findings"]
    pointers.extend(f["pointer"] for f in findings if f["status"] != "passed")
    overall = card["overall"]
    source = explanation["source"]
    where = str(source["file"]) + (f":{source['line']}" if source["line"] is not None else "")
    facts_list = [
        ("bundle", facts.bundle),
        ("candidate", facts.candidate),
        ("provider", facts.provider),
        ("model", facts.model or "-"),
        ("case", facts.case),
        ("run", str(facts.repetition)),
        ("classification", facts.classification),
        ("overall", number_text(overall.get("score"))),
        ("outcome", run.outcome),
        ("source", where),
    ]
    facts_html = (
        '<dl class="facts">'
        + "".join(f"<dt>{_e(name)}</dt><dd>{_e(value)}</dd>" for name, value in facts_list)
        + "</dl>"
    )
    failure = record.get("failure")
    if failure:
        failure_html = '<h2 id="failure">Failure</h2>' + _table(
            ["code", "category", "retryable", "message"],
            [
                [
                    f"<code>{_e(failure.get('code'))}</code>",
                    _e(failure.get("category")),
                    {True: "yes", False: "no"}.get(failure.get("retryable"), "-"),
                    f'<div class="reason">{_e(failure.get("message"), _REASON_LIMIT)}</div>',
                ]
            ],
            css="failure",
        )
    else:
        failure_html = ""
    dimension_rows = []
    for name in DIMENSIONS:
        dimension = card["dimensions"].get(name)
        if dimension is None:
            continue
        reasons = dimension.get("reasons", [])
        dimension_rows.append(
            [
                _e(name),
                _e(number_text(dimension.get("score"))),
                _flag(dimension.get("passed"), "passed", "failed"),
                "gate" if name in GATE_DIMENSIONS else "",
                "; ".join(_e(reason, 300) for reason in reasons) or "-",
            ]
        )
    scorecard_html = _table(
        ["dimension", "score", "passed", "gate", "reasons"],
        dimension_rows,
        numeric=[1],
        css="scorecard",
    )
    reason_parts = []
    for item in explanation["failingDimensions"]:
        entries = "".join(
            f'<li><span class="reason">{_e(reason["reason"], _REASON_LIMIT)}</span>'
            + (
                f' <span class="note">at</span> {_pointer_links(reason["pointers"])}'
                if reason["pointers"]
                else ""
            )
            + "</li>"
            for reason in item["reasons"]
        )
        gate = " (gate)" if item["gate"] else ""
        reason_parts.append(
            f'<h3 id="dim-{_e(item["dimension"])}">{_e(item["dimension"])}{gate}: '
            f'{_e(number_text(item["score"]))}</h3><ul class="reasons">{entries or "<li>no reason recorded</li>"}</ul>'
        )
    if reason_parts:
        reasons_html = "".join(reason_parts)
    elif facts.scoreable:
        reasons_html = '<p class="note">No failing dimension.</p>'
    else:
        reasons_html = '<p class="note">Not scored: the execution was not scoreable.</p>'
    audit = explanation["audit"]
    finding_rows = [
        [
            _status({"failed": "fail", "not_observed": "warn"}.get(f["status"], "pass")),
            f"<code>{_e(f['code'])}</code>",
            _pointer_links([f["pointer"]])
            if f["status"] != "passed"
            else f"<code>{_e(f['pointer'])}</code>",
            _e(f.get("expected"), 300),
            _e(f.get("actual"), 300),
            _e(f.get("hint") or "", 300),
        ]
        for f in sorted(
            findings, key=lambda f: {"failed": 0, "not_observed": 1}.get(f["status"], 2)
        )
    ]
    audit_html = (
        f"<p>{audit['failed']} failed, {audit['notObserved']} not observed, {audit['passed']} passed.</p>"
        + _table(
            ["status", "finding", "pointer", "expected", "observed", "hint"],
            finding_rows,
            css="audit",
        )
    )
    observation = render_json(run.record.observation, pointers)
    body = (
        f"<h1>{_e(facts.case)} | {_e(facts.candidate)} | run {facts.repetition}</h1>"
        + facts_html
        + failure_html
        + '<h2 id="scorecard">Scorecard</h2>'
        + scorecard_html
        + '<h2 id="reasons">Failing reasons</h2>'
        + reasons_html
        + '<h2 id="audit">Audit findings</h2>'
        + audit_html
        + '<h2 id="observation">Observation</h2>'
        '<p class="note">The agent\'s observation (untrusted, redacted); highlighted: the fields '
        "the reasons and findings point at.</p>" + f'<pre class="json">{observation}</pre>'
    )
    pair = site.pair_into(facts.bundle)
    crumbs: list[tuple[str, str | None]] = [
        ("Overview", PAGE_INDEX),
        (f"bundle {facts.bundle}", pair.path if pair else None),
        (f"candidate {facts.candidate}", candidate_page_path(facts.candidate)),
        (f"case {facts.case}", case_page_path(facts.case)),
        (f"run {facts.repetition}", None),
    ]
    return page(path, f"{facts.case} | {facts.candidate} | run {facts.repetition}", body, crumbs)


# ---------------------------------------------------------------------------------------------
# The site


def build_site(
    records: Iterable[ScoredRecord],
    catalog: Catalog,
    *,
    rules: GateRules | None = None,
    seed: int = 0,
) -> dict[str, bytes]:
    """Every file of the site of ``records`` (scored with ``catalog``), by ``/``-separated path.

    The gate's verdicts use ``rules`` (default: :class:`~scorecard.gate.GateRules`) and
    ``seed``, as ``scorecard gate`` does; bundles are in the records' order. Raises
    :class:`~scorecard.contract.InputError` when there are no records or a run repeats.
    """
    site = _Site(list(records), catalog, rules or GateRules(), seed)
    plots = _plots(site)
    files: dict[str, bytes] = {SITE_MARKER: _MARKER_TEXT}
    files[PAGE_INDEX] = _overview(site, plots)
    files[PAGE_RUNS] = _all_runs(site)
    for name, (_, image) in plots.items():
        if isinstance(image, bytes):
            files[f"plots/{name}.svg"] = image
    for candidate in site.candidates:
        files[candidate_page_path(candidate)] = _candidate_page(site, candidate)
    for case in site.cases:
        files[case_page_path(case)] = _case_page(site, case)
    for pair in site.pairs:
        files[pair.path] = _pair_page(site, pair)
    for run in site.runs:
        files[run.path] = _run_page(site, run)
    return dict(sorted(files.items()))


def write_site(files: Mapping[str, bytes], out: str | Path) -> None:
    """Write ``files`` as the folder ``out``, atomically: built in a folder beside it, then
    renamed over it. An existing ``out`` is replaced only when it is empty or a report site
    (holds :data:`SITE_MARKER`); anything else raises :class:`~scorecard.contract.InputError`."""
    target = Path(out)
    if target.exists():
        if not target.is_dir():
            raise InputError("the output is a file; give a folder for the site", rule="bad_output")
        if any(target.iterdir()) and not (target / SITE_MARKER).is_file():
            raise InputError(
                "the output folder is not empty and holds no report site; give a new or empty "
                "folder, or a site written by `scorecard report`",
                rule="bad_output",
                source=str(target),
            )
    with atomic_folder(target) as staging:
        for name, data in files.items():
            destination = staging.joinpath(*name.split("/"))
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(data)
