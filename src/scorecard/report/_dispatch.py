"""Rendering a gate result: the verdict line, markdown summary, PR comment, JUnit XML and HTML
report.

::

    verdict_line(result)          one line for stdout, e.g. ``gate: FAIL - cand: ...``
    render_markdown(result, line) CI job summary, verdict first, bounded in size
    render_pr_comment(result, line)
                                  pull-request comment: a marker to update it by, verdict
                                  first, evidence folded, at most 64,000 bytes
    render_junit(result)          JUnit XML, one test case per gate check (candidate x rule)
    render_junit_runs(result)     JUnit XML, one test case per run (a suite per candidate)
    render_gate_json(result)      the result as ``scorecard.gate.v1`` JSON
    render_html(result, line)     one self-contained page (plots from ``plot_images``)

Untrusted text (ids, reasons, messages) is made safe by :mod:`scorecard.report._escape` in every
format. Renderers are pure: same result, same text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scorecard.gate import ALL_CANDIDATES, GateResult, RuleOutcome

from ._escape import one_line
from ._gate_json import render_gate_json
from ._html import Image, plot_images, render_html
from ._junit import render_junit, render_junit_runs
from ._markdown import MARKDOWN_LIMIT, render_markdown
from ._pr_comment import PR_COMMENT_LIMIT, PR_COMMENT_MARKER, render_pr_comment

__all__ = [
    "MARKDOWN_LIMIT",
    "PR_COMMENT_LIMIT",
    "PR_COMMENT_MARKER",
    "Image",
    "plot_images",
    "render_gate_json",
    "render_html",
    "render_junit",
    "render_junit_runs",
    "render_markdown",
    "render_pr_comment",
    "verdict_line",
]

_LINE_LIMIT = 600
_SHOWN = 4


def _grouped(outcomes: Sequence[RuleOutcome]) -> str:
    """``cand: phrase; phrase | other: phrase``, candidates in outcome order, bounded."""
    groups: dict[str, list[str]] = {}
    for outcome in outcomes:
        who = outcome.candidate or "all candidates"
        groups.setdefault(who, []).append(one_line(outcome.summary, 200))
    parts = [f"{one_line(who, 60)}: {'; '.join(phrases)}" for who, phrases in groups.items()]
    shown = " | ".join(parts[:_SHOWN])
    if len(parts) > _SHOWN:
        shown += f" | +{len(parts) - _SHOWN} more"
    return shown


def _detectable(value: float) -> str:
    return "none" if math.isinf(value) else f"{value:.2f}"


def verdict_line(result: GateResult, *, fail_on_inconclusive: bool = False) -> str:
    """One line stating the verdict the exit code will carry, and why.

    ``gate: PASS``, ``gate: FAIL`` or ``gate: INCONCLUSIVE`` first; an inconclusive verdict
    reads ``gate: FAIL`` when ``fail_on_inconclusive`` (the CLI exits 1 then).
    """
    failing = result.with_status("fail")
    unsure = result.with_status("inconclusive")
    warnings = result.with_status("warn")
    if result.verdict == "fail":
        text = "gate: FAIL - " + _grouped(failing)
        if unsure:
            names = sorted({one_line(o.candidate or "all candidates", 60) for o in unsure})
            text += f" (+{len(unsure)} inconclusive: {', '.join(names[:_SHOWN])}"
            text += ", ...)" if len(names) > _SHOWN else ")"
    elif result.verdict == "inconclusive":
        word = "FAIL - inconclusive, failing as asked" if fail_on_inconclusive else "INCONCLUSIVE"
        text = f"gate: {word} - " + _grouped(unsure)
        weak = [
            f"{one_line(item.candidate, 60)} {_detectable(item.detectable)}"
            for item in result.comparisons
            if item.gated and item.candidate != ALL_CANDIDATES
        ]
        if weak:
            text += "; minimum detectable drops: " + ", ".join(weak)
    else:
        scoreable = result.totals.current.scoreable if result.totals.current else 0
        candidates = sum(item.current is not None for item in result.candidates) - 1
        if result.baseline_bundle is None:
            text = (
                f"gate: PASS - {one_line(result.current_bundle, 80)}: no gate failures in "
                f"{scoreable} scoreable runs of {candidates} candidates"
            )
        else:
            text = (
                f"gate: PASS - {one_line(result.current_bundle, 80)} vs "
                f"{one_line(result.baseline_bundle, 80)}: no regression shown "
                f"({candidates} candidates, {scoreable} scoreable runs)"
            )
        if warnings:
            text += f"; {len(warnings)} warning{'s' if len(warnings) != 1 else ''}: " + _grouped(
                warnings
            )
    forbidden = result.forbidden_calls_text
    if forbidden:
        # Shown on every verdict, even when within the allowance: a forbidden call is news.
        text = f"{text} [{forbidden}]"
    return one_line(text, _LINE_LIMIT)
