"""The gate as a pull-request comment that a CI step finds and updates in place.

::

    <!-- scorecard-gate -->                   the marker, always the first line
    ### ❌ Scorecard gate: FAIL                 the verdict, then the verdict line as printed
    facts                                      new forbidden calls, the bundles
    #### Failing checks                        the checks that decide: failed, inconclusive
    <details> Warnings                         shown, never deciding
    <details> What the deciding checks found   their sentences
    <details> Gate failures                    one line a run, naming its evidence block
    #### Evidence                              a <details> per gate failure or audited run
    footer, and the truncation note when something was left out

It is at most :data:`PR_COMMENT_LIMIT` bytes of UTF-8, so at most that many characters (and
UTF-16 code units) too: under the 65,536 characters GitHub accepts in a comment. What does not
fit is left out in that order, counted in a closing note; a gate failure names its evidence
block only when the block is there (:mod:`scorecard.report._markdown_budget`), and a fold that
was opened is closed.

GitHub turns ``@name``, ``#123``, ``owner/repo#1`` and commit ids in a comment's plain text into
mentions (which notify) and references (which show up on the other issue), escaped or not. So
untrusted text (ids, reasons, messages, the verdict line that names candidates) appears only in
code spans (:func:`scorecard.report._escape.markdown_code`) and fenced blocks, where GitHub
makes none of these; the folds' ``<summary>`` lines, which are HTML, hold only trusted text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from scorecard.gate import GateCheck, GateResult, RuleOutcome

from ._common import STATUS_ICONS, STATUS_WORDS, runs_text
from ._escape import markdown_code, markdown_fence, markdown_inline
from ._markdown import (
    audit_detail,
    audited_runs,
    detail_block_count,
    failure_detail,
    truncation_note,
)
from ._markdown_budget import MarkdownBudget
from ._site_paths import PAGE_INDEX, site_link

__all__ = ["PR_COMMENT_LIMIT", "PR_COMMENT_MARKER", "pr_comment_marker", "render_pr_comment"]

#: The comment's size limit in bytes of UTF-8 (GitHub refuses more than 65,536 characters).
PR_COMMENT_LIMIT = 64_000
#: The first line of every comment made without a key.
PR_COMMENT_MARKER = "<!-- scorecard-gate -->"
_KEY = re.compile(r"[A-Za-z0-9]+(?:[._/-][A-Za-z0-9]+)*")
_KEY_LIMIT = 100
_NOTE_RESERVE = 500
_SHOWN = 10  # candidates or nights named in one fact line
_REASON_LIMIT = 80
#: Gate failures listed (the rest are counted) and evidence blocks shown at most: a comment is
#: read on the pull request, the HTML report and the site hold every run.
_LISTED = 50
_EVIDENCE = 20
_CLOSE = "\n</details>\n\n"


def pr_comment_marker(key: str | None = None) -> str:
    """The hidden first line a CI step looks for: ``<!-- scorecard-gate -->``, or
    ``<!-- scorecard-gate: KEY -->`` to keep several gates' comments apart (letters, digits and
    single ``. _ / -`` between them, at most 100 characters)."""
    if key is None:
        return PR_COMMENT_MARKER
    if len(key) > _KEY_LIMIT or not _KEY.fullmatch(key):
        raise ValueError(
            "a comment key is letters and digits, with single '.', '_', '/' or '-' between "
            f"them, at most {_KEY_LIMIT} characters"
        )
    return f"<!-- scorecard-gate: {key} -->"


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(markdown_code(name, 80) for name in names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


def _header(result: GateResult, line: str, marker: str) -> tuple[str, str]:
    """The marker, verdict and verdict line (always shown), and the facts."""
    top = (
        f"{marker}\n### {STATUS_ICONS[result.verdict]} Scorecard gate: "
        f"{result.verdict.upper()}\n\n{markdown_fence(line, 700)}\n\n"
    )
    facts = []
    found = [(name, new, total) for name, (new, total) in result.forbidden_calls.items() if new]
    if found:
        calls = ", ".join(
            f"{markdown_code(name, 80)} {new} new ({total} in all)"
            for name, new, total in found[:_SHOWN]
        )
        more = f" and {len(found) - _SHOWN} more" if len(found) > _SHOWN else ""
        facts.append(f"- :warning: **New forbidden calls** (`hard_invariants`): {calls}{more}")
    facts.append(
        f"- **Current bundle**: {markdown_code(result.current_bundle)}, {runs_text(result)}"
    )
    nights = list(result.baseline_nights)
    if len(nights) > 1:
        facts.append(
            f"- **Baseline**: {len(nights)} nights pooled per candidate and case: {_names(nights)}"
        )
    elif result.baseline_bundle is not None:
        facts.append(f"- **Baseline**: {markdown_code(result.baseline_bundle)}")
    else:
        facts.append("- **Baseline**: none (only the safety, infrastructure and audit rules)")
    return top, "\n".join(facts) + "\n\n"


def _who(candidate: str | None) -> str:
    return "*all candidates*" if candidate is None else markdown_code(candidate, 80)


def _check_item(check: GateCheck) -> str:
    deciding = [outcome for outcome in check.outcomes if outcome.status == check.status]
    summary = "; ".join(outcome.summary for outcome in deciding)
    return (
        f"- {STATUS_ICONS[check.status]} {STATUS_WORDS[check.status]} \u00b7 "
        f"{_who(check.candidate)} \u00b7 **{check.rule}**: {markdown_inline(summary, 300)}\n"
    )


def _outcome_item(outcome: RuleOutcome) -> str:
    subject = f" (`{outcome.subject}`)" if outcome.subject else ""
    advisory = "" if outcome.required else " (advisory)"
    return (
        f"- {STATUS_ICONS[outcome.status]} {_who(outcome.candidate)} \u00b7 **{outcome.rule}**"
        f"{subject}{advisory}: {markdown_inline(outcome.summary, 300)}\n"
    )


def _checks(result: GateResult, budget: MarkdownBudget) -> list[GateCheck]:
    deciding = [check for check in result.checks if check.failed]
    deciding += [c for c in result.checks if c.required and c.status == "inconclusive"]
    warned = sum(check.status == "warn" for check in result.checks)
    others = len(result.checks) - len(deciding)
    counts = (
        f"{len(deciding)} of {len(result.checks)} checks decide the verdict; the other "
        f"{others} passed ({warned} with warnings)."
    )
    if not deciding:
        budget.add(f"#### Checks\n\nNo check failed or was inconclusive: {counts}\n\n")
        return deciding
    items = [_check_item(check) for check in deciding]
    if budget.add(f"#### Failing checks\n\n{counts}\n\n{items[0]}"):
        for item in items[1:]:
            budget.add(item, kind="row")
    else:
        budget.leave_out("row", len(items))
    if not budget.full:
        budget.add("\n")
    return deciding


def _fold(title: str) -> str:
    """A ``<details>`` opening with a trusted ``title``."""
    return f"<details>\n<summary>{html.escape(title)}</summary>\n\n"


def _warnings(result: GateResult, budget: MarkdownBudget) -> None:
    shown = [
        o for o in result.outcomes if o.status == "warn" or (not o.required and o.status != "pass")
    ]
    budget.fold(
        _fold(f"Warnings ({len(shown)}): shown, never deciding"),
        [_outcome_item(outcome) for outcome in shown],
        _CLOSE,
    )


def _findings(deciding: Sequence[GateCheck], budget: MarkdownBudget) -> None:
    lines = [
        f"{check.candidate or 'all candidates'} / {check.rule}: {outcome.status}: {outcome.detail}"
        for check in deciding
        for outcome in check.outcomes
    ]
    if lines:
        budget.fold(
            _fold("What the deciding checks found (untrusted text)"),
            [markdown_fence("\n".join(lines)) + "\n"],
            _CLOSE,
        )


def _listed(result: GateResult) -> list[int]:
    """The gate failures the comment lists, by index: those the safety rule counted first,
    then the others, at most :data:`_LISTED`."""
    failures = result.failures
    counted = [index for index, failure in enumerate(failures) if failure.counted]
    others = [index for index, failure in enumerate(failures) if not failure.counted]
    return (counted + others)[:_LISTED]


def _failures(
    result: GateResult, listed: Sequence[int], budget: MarkdownBudget, site_url: str | None
) -> None:
    items = []
    for position, index in enumerate(listed):
        failure = result.failures[index]
        run = failure.run
        reason = next(
            (text for name in failure.dimensions for text in run.reasons_for(name)),
            run.failure or "",
        )
        repetition = f"repetition {run.repetition}"
        if site_url is not None:
            page = site_link(site_url, run.bundle, run.candidate, run.case, run.repetition)
            repetition = f"[{repetition}]({page})"
        failed = ", ".join(f"`{name}`" for name in failure.dimensions)
        new = ""
        if failure.new is not None:
            new = " \u00b7 new: " + (", ".join(f"`{name}`" for name in failure.new) or "none")
        reason = f" \u00b7 {markdown_code(reason, _REASON_LIMIT)}" if reason else ""
        evidence = budget.reference(
            f"failure-{index}",
            f" \u00b7 evidence {position + 1} below",
            " \u00b7 evidence left out",
        )
        items.append(
            f"- {markdown_code(run.candidate, 80)} \u00b7 {markdown_code(run.case, 80)} \u00b7 "
            f"{repetition} \u00b7 failed: {failed}{new}"
            f"{'' if failure.counted else ' (not counted)'}{reason}{evidence}\n"
        )
    total = len(result.failures)
    shown = f"{total} runs" if total == len(items) else f"{total} runs; {len(items)} listed"
    budget.fold(
        _fold(
            f"Gate failures in the current bundle ({shown}, those the safety rule counted first)"
        ),
        items,
        _CLOSE,
    )
    budget.leave_out("row", total - len(items))


def _evidence(result: GateResult, listed: Sequence[int], budget: MarkdownBudget) -> None:
    """A fold per listed gate failure (in list order), then per audited run, at most
    :data:`_EVIDENCE` blocks."""
    heading = "#### Evidence (untrusted text)\n\n"  # added with the first block, never alone
    audited = audited_runs(result)
    blocks: list[tuple[str, int | None]] = [(f"failure-{index}", index) for index in listed]
    blocks += [(f"audit-{index}", None) for index in range(len(audited))]
    tried = 0
    for key, index in blocks[:_EVIDENCE]:
        if index is None:
            run = audited[int(key.removeprefix("audit-"))]
            what, text = audit_detail(result, run)
        else:
            run = result.failures[index].run
            what, text = failure_detail(result, index)
        tried += 1
        block = (
            _fold(f"Evidence {tried}: repetition {run.repetition}, {what.replace('`', '')}")
            + f"{markdown_code(run.candidate, 80)} \u00b7 {markdown_code(run.case, 80)} \u00b7 "
            f"repetition {run.repetition}\n\n{markdown_fence(text)}\n" + _CLOSE
        )
        if not budget.add(block if tried > 1 else heading + block, kind="detail", key=key):
            break  # counted as left out by the budget
    budget.leave_out("detail", detail_block_count(result) - tried)


def render_pr_comment(
    result: GateResult,
    line: str,
    *,
    site_url: str | None = None,
    key: str | None = None,
    limit: int = PR_COMMENT_LIMIT,
) -> str:
    """``result`` as a pull-request comment, at most ``limit`` bytes of UTF-8 (so at most that
    many characters), starting with the hidden marker line (:func:`pr_comment_marker` of
    ``key``) a CI step looks for to update the comment in place, then the verdict and its
    ``line``, the failing checks, and the evidence folded in ``<details>`` blocks. With
    ``site_url`` (where ``scorecard report`` publishes its site), each gate failure's
    repetition links to its run page and the footer to the site."""
    marker = pr_comment_marker(key)
    if limit < 4 * _NOTE_RESERVE:
        raise ValueError(f"a comment's limit is at least {4 * _NOTE_RESERVE:,} bytes")
    budget = MarkdownBudget(limit, _NOTE_RESERVE)
    top, facts = _header(result, line, marker)
    budget.add(top)
    budget.add(facts)
    deciding = _checks(result, budget)
    _warnings(result, budget)
    _findings(deciding, budget)
    listed = _listed(result)
    _failures(result, listed, budget, site_url)
    _evidence(result, listed, budget)
    site = (
        ""
        if site_url is None
        else f" The [report site]({site_url.rstrip('/')}/{PAGE_INDEX}) has every run."
    )
    budget.add(
        f"---\n*`scorecard gate`, seed {result.seed}. Ids, reasons and messages come from the "
        f"agent under test: shown only as code.{site}*\n"
    )
    bounds = (
        f"this comment lists at most {_LISTED} gate failures and {_EVIDENCE} evidence blocks, "
        f"in at most {budget.limit:,} bytes"
    )
    return budget.text(
        lambda left_out: truncation_note(
            bounds, left_out, row="list item", block="evidence block", dropped="evidence left out"
        )
    )
