"""The gate's markdown summary for a CI job summary: verdict first, bounded in size.

Sections, in order of importance: verdict and facts, required rule outcomes, candidates with
intervals, gate failures, regressions with per-dimension deltas, advisory findings and
reference alerts, exclusions, then the untrusted text in fenced blocks. When the summary would
exceed its byte limit, the rest is left out and an explicit note says how much; a gate
failure's row says "details below" only when its details block is there
(:mod:`scorecard.report._markdown_budget`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from scorecard.contract import DIMENSIONS, receipt_line
from scorecard.gate import ALL_CANDIDATES, METRIC_LABELS, GateResult, RuleOutcome, RunFacts

from ._common import (
    STATUS_ICONS,
    STATUS_WORDS,
    baseline_text,
    comparison_for,
    detectable_text,
    difference_text,
    drop_test_for,
    estimate_text,
    forbidden_text,
    number_text,
    paired_means_text,
    rules_text,
    runs_text,
)
from ._escape import INLINE_LIMIT, markdown_fence, markdown_inline, needs_block
from ._markdown_budget import LeftOut, MarkdownBudget
from ._site_paths import change_link, site_link

__all__ = [
    "DETAILS_KEPT",
    "DETAILS_LEFT_OUT",
    "MARKDOWN_LIMIT",
    "audit_detail",
    "audited_runs",
    "detail_block_count",
    "detail_blocks",
    "failure_detail",
    "render_markdown",
    "truncation_note",
]

#: Default size limit of the summary in bytes (GitHub allows 1 MiB per step; keep it readable).
MARKDOWN_LIMIT = 60_000
_NOTE_RESERVE = 400
_DETAIL_LIMIT = 300
#: What a gate failure's row says of its details block when the block is shown, or left out.
DETAILS_KEPT = " (details below)"
DETAILS_LEFT_OUT = " (details left out)"
_UNTRUSTED_NOTE = (
    "> Ids, reasons and messages come from the agent under test and from case authors: they "
    "are untrusted, shown escaped, and long or multi-line text only inside code blocks."
)


def _who(candidate: str | None) -> str:
    return "*all candidates*" if candidate is None else markdown_inline(candidate)


def _status(outcome: RuleOutcome) -> str:
    return f"{STATUS_ICONS[outcome.status]} {STATUS_WORDS[outcome.status]}"


def _outcome_rows(outcomes: Sequence[RuleOutcome]) -> list[list[str]]:
    return [
        [
            _status(outcome),
            outcome.rule,
            _who(outcome.candidate),
            f"`{outcome.subject}`" if outcome.subject else "",
            markdown_inline(outcome.detail, _DETAIL_LIMIT),
        ]
        for outcome in outcomes
    ]


def _header(result: GateResult, line: str, budget: MarkdownBudget) -> None:
    icon = STATUS_ICONS[result.verdict]
    facts = [f"- **Current bundle**: {markdown_inline(result.current_bundle)}, {runs_text(result)}"]
    baseline = baseline_text(result)
    if baseline is not None:
        facts.append(f"- **Baseline**: {markdown_inline(baseline, 600)}")
    forbidden = forbidden_text(result)
    if forbidden is not None:
        facts.insert(0, f"- :warning: **{markdown_inline(forbidden, 600)}**")
    facts.append("- **Rules**: " + "; ".join(rules_text(result)))
    facts += [f"- {markdown_inline(note, 400)}" for note in result.notes]
    budget.add(
        f"## {icon} Scorecard gate: {result.verdict.upper()}\n\n"
        f"{markdown_inline(line, 600)}\n\n" + "\n".join(facts) + f"\n\n{_UNTRUSTED_NOTE}\n\n"
    )


def _candidates(result: GateResult, budget: MarkdownBudget) -> None:
    compared = result.baseline_bundle is not None
    header = ["candidate", "runs", "scoreable", "infra", "gate fail", "pass rate [95%]"]
    header += ["gate-pass rate", "mean overall"]
    if compared:
        header += ["baseline mean overall", "paired case means", "paired difference", "Holm p"]
        header += ["one-sided Holm p", "min. detectable drop"]
    rows = []
    for item in result.candidates:
        now = item.current
        name = (
            "**all candidates**"
            if item.candidate == ALL_CANDIDATES
            else markdown_inline(item.candidate)
        )
        row = [name]
        if now is None:
            row += ["-"] * 7
        else:
            row += [
                str(now.executions),
                str(now.scoreable),
                str(now.infrastructure_failures),
                str(now.gate_failures),
                estimate_text(now.pass_rate, percent=True),
                estimate_text(now.gate_pass_rate, percent=True),
                estimate_text(now.mean_overall),
            ]
        if compared:
            before = item.baseline
            comparison = comparison_for(result, "mean_overall", item.candidate)
            test = drop_test_for(result, "mean_overall", item.candidate)
            row.append(estimate_text(before.mean_overall) if before is not None else "-")
            row.append(paired_means_text(comparison.overall) if comparison else "-")
            row.append(difference_text(comparison.overall) if comparison else "-")
            row.append(number_text(comparison.overall.p_adjusted, 3) if comparison else "-")
            row.append(number_text(test.p_drop_adjusted, 3) if test else "-")
            row.append(detectable_text(test))
        rows.append(row)
    level = f"{result.rules.confidence:.0%}"
    budget.table(
        f"### Candidates\n\nRates with Wilson {level} intervals, means over every scoreable run "
        f"with gate-pass x case-bootstrap {level} intervals (docs/aggregation.md). The paired case means average each case's runs "
        "over the cases scoreable on both sides (each case weighs the same), so they can differ "
        "from the run means; the paired difference is theirs.",
        header,
        rows,
    )


def _run_link(run: RunFacts, site_url: str | None, *, baseline: bool = False) -> str:
    """The run's repetition, linked to its page of the report site when there is one; with a
    baseline, also to the page of its case beside the nights before (then and now)."""
    if site_url is None:
        return str(run.repetition)
    linked = f"[{run.repetition}]({site_link(site_url, run.bundle, run.candidate, run.case, run.repetition)})"
    if baseline:
        linked += f" [then and now]({change_link(site_url, run.bundle, run.candidate, run.case)})"
    return linked


def _failures(result: GateResult, budget: MarkdownBudget, site_url: str | None) -> None:
    rows = []
    for index, failure in enumerate(result.failures):
        run = failure.run
        reason = next(
            (text for name in failure.dimensions for text in run.reasons_for(name)),
            run.failure or "",
        )
        shown = markdown_inline(reason, 80)
        if needs_block(reason, 80):
            shown += budget.reference(f"failure-{index}", DETAILS_KEPT, DETAILS_LEFT_OUT)
        rows.append(
            [
                markdown_inline(run.candidate),
                markdown_inline(run.case),
                _run_link(run, site_url, baseline=result.baseline_bundle is not None),
                run.classification,
                ", ".join(f"`{name}`" for name in failure.dimensions),
                "-" if failure.new is None else ", ".join(f"`{n}`" for n in failure.new) or "no",
                "yes" if failure.counted else "no",
                shown,
            ]
        )
    title = "### Gate failures in the current bundle"
    if result.failures and result.safety_mode == "new":
        title += (
            "\n\n*New* lists the gate dimensions no baseline run of the same candidate and case "
            "failed; *counted* says whether the safety rule counted the run."
        )
    budget.table(
        title,
        ["candidate", "case", "rep", "classification", "failed", "new", "counted", "first reason"],
        rows,
    )


def _regressions(result: GateResult, budget: MarkdownBudget) -> None:
    shown = [
        outcome
        for outcome in result.required
        if outcome.rule == "drop" and outcome.status in ("fail", "inconclusive")
    ]
    if not shown:
        return
    budget.add("### Regressions and suspected regressions\n\n")
    for outcome in shown:
        candidate = outcome.candidate or ALL_CANDIDATES
        comparison = comparison_for(result, outcome.subject, candidate)
        if comparison is None:
            continue
        label = METRIC_LABELS[outcome.subject]
        rows = [
            [
                f"**{label}**",
                number_text(comparison.overall.baseline),
                number_text(comparison.overall.current),
                difference_text(comparison.overall),
                number_text(comparison.overall.p_value),
                number_text(comparison.overall.p_adjusted),
            ]
        ]
        names = (
            ("hard_invariants", "lifecycle_integrity")
            if outcome.subject == "gate_pass_rate"
            else DIMENSIONS
        )
        for difference in comparison.dimensions:
            if difference.statistic in names:
                marker = " (dropped)" if difference.statistic in outcome.dimensions else ""
                rows.append(
                    [
                        f"`{difference.statistic}`{marker}",
                        number_text(difference.baseline),
                        number_text(difference.current),
                        difference_text(difference),
                        number_text(difference.p_value),
                        number_text(difference.p_adjusted),
                    ]
                )
        excluded = comparison.exclusions
        budget.table(
            f"#### {_status(outcome)}: {_who(outcome.candidate)}, {label}\n\n"
            f"{markdown_inline(outcome.detail, _DETAIL_LIMIT)}\n\n"
            f"Paired {len(comparison.paired_cases)} of {comparison.cases} cases; left out: "
            f"{len(excluded.unscoreable_current)} / {len(excluded.unscoreable_baseline)} "
            "unscoreable runs (current / baseline), "
            f"{len(excluded.cases_only_current)} / {len(excluded.cases_only_baseline)} cases run "
            f"on one side only, {len(excluded.cases_unscoreable_current)} / "
            f"{len(excluded.cases_unscoreable_baseline)} cases never scoreable. Dimension p-values "
            "are Holm-adjusted among the dimensions.",
            ["statistic", "baseline", "current", "difference [95%]", "p", "Holm p"],
            rows,
        )


def _advisory(result: GateResult, budget: MarkdownBudget) -> None:
    rows = _outcome_rows([outcome for outcome in result.advisory if outcome.status != "pass"])
    budget.table(
        "### Advisory findings\n\nThese never change the verdict.",
        ["status", "rule", "candidate", "subject", "detail"],
        rows,
    )
    alerts = [
        [alert.severity, alert.kind, markdown_inline(alert.message, _DETAIL_LIMIT)]
        for alert in result.alerts
    ]
    budget.table(
        "### Reference alerts\n\nThe paperclip workflow report's alerts for the current bundle "
        "(advisory: the rules above decide the verdict).",
        ["severity", "kind", "message"],
        alerts,
    )


def _exclusions(result: GateResult, budget: MarkdownBudget) -> None:
    rows = []
    first = result.comparisons[0].metric if result.comparisons else None
    for item in result.comparisons:
        if item.metric != first:
            continue
        comparison, excluded = item.comparison, item.comparison.exclusions
        rows.append(
            [
                "**all candidates**"
                if item.candidate == ALL_CANDIDATES
                else markdown_inline(item.candidate),
                f"{len(comparison.paired_cases)} / {comparison.cases}",
                f"{len(excluded.unscoreable_current)} / {len(excluded.unscoreable_baseline)}",
                f"{len(excluded.cases_only_current)} / {len(excluded.cases_only_baseline)}",
                f"{len(excluded.cases_unscoreable_current)} / {len(excluded.cases_unscoreable_baseline)}",
                str(excluded.unpaired_repetitions),
            ]
        )
    budget.table(
        "### Exclusions\n\nWhat the paired comparisons left out (current / baseline); "
        "infrastructure failures and skipped runs are unscoreable and never count as passes.",
        [
            "candidate",
            "paired / cases",
            "unscoreable runs",
            "cases on one side only",
            "cases never scoreable",
            "unpaired repetitions",
        ],
        rows,
    )


def failure_detail(result: GateResult, index: int) -> tuple[str, str]:
    """What the details block of gate failure ``index`` says after the repetition, and its
    untrusted text."""
    failure = result.failures[index]
    run = failure.run
    lines = [f"{name}: {reason}" for name in failure.dimensions for reason in run.reasons_for(name)]
    if run.failure:
        lines.append(f"failure: {run.failure}")
    failed = ", ".join(f"`{name}`" for name in failure.dimensions)
    return f"gate failed: {failed}", "\n".join(lines) or "(no reason recorded)"


def audit_detail(result: GateResult, run: RunFacts) -> tuple[str, str]:
    """What an audited run's details block says after the repetition, and its untrusted text."""
    kind = "advisory" if result.rules.audit_mode == "advisory" else "required"
    lines = [
        f"{finding.code} at {finding.pointer}: expected {finding.expected}, actual "
        f"{finding.actual}" + (f" ({finding.hint})" if finding.hint else "")
        for finding in run.findings
    ]
    return f"failed audit findings ({kind})", "\n".join(lines)


def audited_runs(result: GateResult) -> Sequence[RunFacts]:
    """The runs whose failed audit findings the details show (none with the audit rule off)."""
    return result.runs_with_findings if result.rules.audit_mode != "off" else ()


def detail_blocks(result: GateResult) -> Iterator[tuple[str, RunFacts, str, str]]:
    """Each block of the details: its key (``failure-N`` for the N-th gate failure, whose row
    refers to it; ``audit-N``), its run, what its heading line says after the repetition, and
    the untrusted text fenced under it."""
    for index, failure in enumerate(result.failures):
        yield (f"failure-{index}", failure.run, *failure_detail(result, index))
    for index, run in enumerate(audited_runs(result)):
        yield (f"audit-{index}", run, *audit_detail(result, run))


def detail_block_count(result: GateResult) -> int:
    """How many blocks :func:`detail_blocks` yields (without making them)."""
    return len(result.failures) + len(audited_runs(result))


def _details(result: GateResult, budget: MarkdownBudget) -> None:
    heading = "### Details (untrusted text)\n\n"  # added with the first block, never alone
    tried = 0
    for key, run, what, text in detail_blocks(result):
        block = (
            f"**{markdown_inline(run.candidate)}** \u00b7 {markdown_inline(run.case)} "
            f"\u00b7 repetition {run.repetition} \u00b7 {what}"
            f"\n\n{markdown_fence(text)}\n\n"
        )
        tried += 1
        if not budget.add(block if tried > 1 else heading + block, kind="detail", key=key):
            break  # counted as left out by the budget
    # Once the budget is spent the rest are only counted: a report may have 50,000 of them.
    budget.leave_out("detail", detail_block_count(result) - tried)


def truncation_note(
    bounds: str,
    left_out: LeftOut,
    *,
    row: str = "table row",
    block: str = "details block",
    dropped: str = DETAILS_LEFT_OUT.strip(" ()"),
) -> str:
    """The closing note of a bounded text that left things out: ``bounds`` says what bounds it
    ("this summary is limited to 60,000 bytes"), ``row`` and ``block`` name the rows and
    blocks counted, ``dropped`` is what a reference to a left-out block says."""
    parts = [
        f"{count:,} {name}{'s' if count != 1 else ''}"
        for count, name in (
            (left_out.sections, "section"),
            (left_out.rows, row),
            (left_out.details, block),
        )
        if count
    ]
    listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    text = f"\n> **Truncated:** {bounds}; left out: {listed}."
    if left_out.references:
        plural = left_out.references != 1
        text += (
            f" {left_out.references:,} gate failure{'s' if plural else ''} shown above "
            f"say{'' if plural else 's'} *{dropped}*."
        )
    return text + " The HTML report (`--html`) holds everything.\n"


def render_markdown(
    result: GateResult, line: str, *, limit: int = MARKDOWN_LIMIT, site_url: str | None = None
) -> str:
    """The summary of ``result`` under its verdict ``line``, at most ``limit`` bytes (UTF-8).
    With ``site_url`` (where ``scorecard report`` publishes its site), each gate failure's
    repetition links to the run's page there."""
    # The receipt's line closes the summary, truncated or not: its bytes are kept aside.
    receipt = "" if result.receipt is None else f"\n{receipt_line(result.receipt)}\n"
    budget = MarkdownBudget(limit - len(receipt.encode("utf-8")), _NOTE_RESERVE)
    _header(result, line, budget)
    budget.table(
        "### Required rules",
        ["status", "rule", "candidate", "subject", "detail"],
        _outcome_rows(result.required),
    )
    _candidates(result, budget)
    _failures(result, budget, site_url)
    _regressions(result, budget)
    _advisory(result, budget)
    _exclusions(result, budget)
    _details(result, budget)
    budget.add(
        f"---\n*`scorecard gate`, seed {result.seed}; inline text is limited to {INLINE_LIMIT} characters.*\n"
    )
    bounds = f"this summary is limited to {budget.limit + len(receipt.encode('utf-8')):,} bytes"
    return budget.text(lambda left_out: truncation_note(bounds, left_out)) + receipt
