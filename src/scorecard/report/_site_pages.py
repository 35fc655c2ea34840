"""The report site's overview, all-runs, candidate, case and bundle-pair pages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scorecard.contract import ScorecardError

from ._common import STATUS_WORDS, difference_text, number_text, paired_means_text, rules_text
from ._escape import shown
from ._site_assets import page
from ._site_data import BundlePair, SiteData
from ._site_paths import (
    PAGE_INDEX,
    PAGE_RUNS,
    RUN_INDEX,
    candidate_page_path,
    case_page_path,
    pair_page_path,
)
from ._site_pieces import (
    comparisons_table,
    count_cell,
    esc,
    figures,
    gate_failures_table,
    html_table,
    interval_cell,
    link_to,
    outcomes_table,
    runs_table,
    summary_rows,
    table_records,
    verdict_block,
)
from ._site_rejected import rejected_warning

__all__ = ["all_runs_page", "candidate_page", "case_page", "overview_page", "pair_page"]


def overview_page(
    site: SiteData,
    plots: Mapping[str, tuple[str, bytes | str]],
    rejected: Sequence[ScorecardError] = (),
) -> bytes:
    path = PAGE_INDEX
    result = site.verdict
    if result.baseline_bundle is not None:
        pair = site.pairs[-1]
        judged = (
            f"<p>The gate on the newest bundle <strong>{esc(result.current_bundle)}</strong> "
            f"against the previous one, <strong>{esc(result.baseline_bundle)}</strong> "
            f"({link_to(path, pair.path, 'details')}).</p>"
        )
    else:
        judged = (
            f"<p>The gate on the only bundle, <strong>{esc(result.current_bundle)}</strong>: "
            "without a baseline only the safety, infrastructure and audit rules apply.</p>"
        )
    unresolved = [item for item in result.required if item.status != "pass"]
    search = (
        f'<form class="filters" action="{PAGE_RUNS}" method="get" data-js hidden>'
        '<label>search runs <input type="search" name="q" aria-label="search runs" '
        'placeholder="id, reason, code..."></label><button type="submit">Search</button></form>'
    )
    summaries = summary_rows(site.analysis)
    newest_rows = [row for row in summaries if row["bundle"] == site.newest]
    previous = site.analysis.previous_bundle(site.newest)
    family = site.family(previous, site.newest) if previous is not None else {}
    candidate_rows = []
    for row in newest_rows:
        name = str(row["candidate"])
        comparison = family.get(name)
        candidate_rows.append(
            [
                link_to(path, candidate_page_path(name), name),
                count_cell(row, "executions"),
                count_cell(row, "scoreable"),
                interval_cell(row, "pass_rate", percent=True),
                interval_cell(row, "gate_pass_rate", percent=True),
                interval_cell(row, "mean_overall"),
                esc(difference_text(comparison.overall)) if comparison else "-",
                esc(number_text(comparison.overall.p_adjusted)) if comparison else "-",
                esc(comparison.verdict) if comparison else "-",
            ]
        )
    candidates = html_table(
        [
            "candidate",
            "runs",
            "scoreable",
            "pass rate",
            "gate-pass rate",
            "mean overall",
            "vs previous bundle",
            "Holm p (two-sided)",
            "paired verdict",
        ],
        candidate_rows,
        numeric=range(1, 8),
        css="candidates",
    )
    means = {(str(row["bundle"]), str(row["candidate"])): row for row in summaries}
    trend_rows = [
        [link_to(path, candidate_page_path(name), name)]
        + [
            interval_cell(means[(bundle, name)], "mean_overall") if (bundle, name) in means else "-"
            for bundle in site.bundles
        ]
        for name in site.candidates
    ]
    trends = html_table(
        ["candidate", *site.bundles],
        trend_rows,
        numeric=range(1, len(site.bundles) + 1),
        css="trends",
    )
    bundle_rows = []
    bundle_table = site.analysis.bundles_summary
    for totals in table_records(bundle_table):
        bundle = str(totals["bundle"])
        into = site.pair_into(bundle)
        bundle_rows.append(
            [
                esc(bundle),
                count_cell(totals, "executions"),
                interval_cell(totals, "pass_rate", percent=True),
                interval_cell(totals, "mean_overall"),
                link_to(
                    path, into.path, f"{STATUS_WORDS[into.result.verdict]} against {into.baseline}"
                )
                if into is not None
                else '<span class="note">first bundle</span>',
            ]
        )
    bundles = html_table(
        ["bundle", "runs", "pass rate", "mean overall", "gate against the previous bundle"],
        bundle_rows,
        numeric=[1],
        css="bundles",
    )
    case_rows = []
    for case in site.cases:
        counts = [
            site.cells.get((site.newest, candidate, case), [0, 0, 0])
            for candidate in site.candidates
        ]
        case_rows.append(
            [
                link_to(path, case_page_path(case), case),
                *(str(sum(count[part] for count in counts)) for part in range(3)),
            ]
        )
    cases = html_table(
        ["case", f"runs in {site.newest}", "passed", "gate failed"],
        case_rows,
        numeric=[1, 2, 3],
        css="cases",
    )
    body = (
        "<h1>Scorecard report</h1>"
        + rejected_warning(path, rejected)
        + verdict_block(result)
        + judged
        + (
            '<h2 id="required">Required rules not passed</h2>' + outcomes_table(unresolved, path)
            if unresolved
            else ""
        )
        + search
        + f"<p>{len(site.bundles)} bundles, {len(site.candidates)} candidates, {len(site.cases)} "
        f"cases, {len(site.runs)} runs ({link_to(path, PAGE_RUNS, 'all runs')}).</p>"
        + f'<h2 id="candidates">Candidates in {esc(site.newest)}</h2>'
        + candidates
        + '<h2 id="plots">Plots</h2>'
        + figures(path, plots)
        + '<h2 id="trends">Mean overall per bundle</h2>'
        + trends
        + '<h2 id="bundles">Bundles</h2>'
        + bundles
        + '<h2 id="cases">Cases</h2>'
        + cases
        + f'<h2 id="failures">Gate failures in {esc(site.newest)}</h2>'
        + gate_failures_table(result, site, path)
    )
    return page(path, "Overview", body, [])


def all_runs_page(site: SiteData) -> bytes:
    nights = (
        ""
        if len(site.detailed) == len(site.bundles)
        else f'<p class="note">The runs of {esc(", ".join(site.detailed))}; the other bundles '
        "are in the numbers and the change pages.</p>"
    )
    body = "<h1>All runs</h1>" + nights + runs_table(PAGE_RUNS, site.shown, site)
    return page(
        PAGE_RUNS,
        "All runs",
        body,
        [("Overview", PAGE_INDEX), ("All runs", None)],
        data=[RUN_INDEX],
    )


def candidate_page(site: SiteData, candidate: str) -> bytes:
    path = candidate_page_path(candidate)
    rows = []
    for row in summary_rows(site.analysis):
        if row["candidate"] != candidate:
            continue
        rows.append(
            [
                esc(row["bundle"]),
                count_cell(row, "executions"),
                count_cell(row, "scoreable"),
                count_cell(row, "infrastructure_failures"),
                interval_cell(row, "pass_rate", percent=True),
                interval_cell(row, "gate_pass_rate", percent=True),
                interval_cell(row, "mean_overall"),
            ]
        )
    per_bundle = html_table(
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
    for comparison in site.across_bundles(candidate):
        baseline, current = comparison.baseline.bundle, comparison.current.bundle
        trend_rows.append(
            [
                link_to(path, pair_page_path(baseline, current), f"{current} vs {baseline}"),
                str(len(comparison.paired_cases)),
                esc(paired_means_text(comparison.overall)),
                esc(difference_text(comparison.overall)),
                esc(number_text(comparison.overall.p_adjusted)),
                esc(comparison.verdict),
            ]
        )
    trends = html_table(
        [
            "bundles",
            "paired cases",
            "current vs baseline",
            "difference",
            "Holm p (two-sided)",
            "verdict",
        ],
        trend_rows,
        numeric=[1, 4],
    )
    runs = [run for run in site.shown if run.facts.candidate == candidate]
    body = (
        f"<h1>Candidate {esc(candidate)}</h1>"
        "<h2>Per bundle</h2>" + per_bundle + "<h2>Mean overall against the previous bundle</h2>"
        '<p class="note">Paired by case, Holm-adjusted within each pair of bundles (the gate\'s '
        "comparisons).</p>"
        + trends
        + "<h2>Runs</h2>"
        + runs_table(path, runs, site, f"candidate:{shown(candidate)}")
    )
    crumbs: list[tuple[str, str | None]] = [
        ("Overview", PAGE_INDEX),
        (f"candidate {candidate}", None),
    ]
    return page(path, f"Candidate {candidate}", body, crumbs, data=[RUN_INDEX])


def case_page(site: SiteData, case: str) -> bytes:
    path = case_page_path(case)
    runs = [run for run in site.shown if run.facts.case == case]
    header = ["candidate", *site.bundles]
    rows = []
    for candidate in site.candidates:
        cells = [link_to(path, candidate_page_path(candidate), candidate)]
        for bundle in site.bundles:
            total, passed, gate = site.cells.get((bundle, candidate, case), [0, 0, 0])
            if not total:
                cells.append("-")
                continue
            cells.append(
                esc(f"{passed}/{total} passed" + (f", {gate} gate failed" if gate else ""))
            )
        rows.append(cells)
    body = (
        f"<h1>Case {esc(case)}</h1><h2>Runs passed per candidate and bundle</h2>"
        + html_table(header, rows)
        + "<h2>Runs</h2>"
        + runs_table(path, runs, site, f"case:{shown(case)}")
    )
    crumbs: list[tuple[str, str | None]] = [("Overview", PAGE_INDEX), (f"case {case}", None)]
    return page(path, f"Case {case}", body, crumbs, data=[RUN_INDEX])


def pair_page(site: SiteData, pair: BundlePair) -> bytes:
    path = pair.path
    result = pair.result
    body = (
        f"<h1>{esc(pair.current)} against {esc(pair.baseline)}</h1>"
        + verdict_block(result)
        + "<ul>"
        + "".join(f"<li>{esc(text)}</li>" for text in [*rules_text(result), *result.notes])
        + "</ul><h2>Required rules</h2>"
        + outcomes_table(result.required, path)
        + "<h2>Paired comparisons</h2>"
        + comparisons_table(result, path)
        + f"<h2>Gate failures in {esc(pair.current)}</h2>"
        + gate_failures_table(result, site, path)
        + "<h2>Advisory findings (never change the verdict)</h2>"
        + outcomes_table([item for item in result.advisory if item.status != "pass"], path)
        + "<h2>Reference alerts</h2>"
        + html_table(
            ["severity", "kind", "message"],
            [[esc(a.severity), esc(a.kind), esc(a.message, 600)] for a in result.alerts],
        )
    )
    crumbs: list[tuple[str, str | None]] = [
        ("Overview", PAGE_INDEX),
        (f"{pair.current} against {pair.baseline}", None),
    ]
    return page(path, f"{pair.current} against {pair.baseline}", body, crumbs)
