"""The gate as one self-contained static HTML page: inline CSS, tables, PNG plots as data URIs.

No external asset, script or font is referenced, and a Content-Security-Policy forbids them,
so the page renders the same offline, in a CI artifact viewer, or opened from disk. Every piece
of text is HTML-escaped; untrusted text is also redacted and stripped of control characters.
Plots come from :mod:`scorecard.plots` (imported when they are drawn: rendering the rest needs
no matplotlib). A plot with nothing to draw says so in its panel; a plot that raises is a bug,
never left out silently: :func:`plot_images` gives a :class:`PlotFailure` in its place, which
the page shows where the plot would be and ``scorecard gate --html`` reports as an error.
"""

from __future__ import annotations

import base64
import functools
import io
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorecard.contract import DIMENSIONS
from scorecard.gate import ALL_CANDIDATES, METRIC_LABELS, GateResult, RuleOutcome

from ._common import (
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
from ._escape import html_text

__all__ = ["Image", "PlotFailure", "plot_images", "render_html"]


@dataclass(frozen=True)
class PlotFailure:
    """A plot of the report that raised instead of drawing: a bug in it, shown in its place and
    reported, never a plot silently missing."""

    error: str
    """What was raised and where: ``TypeError: ... (raised at _quality.py:120)``."""


#: A plot to embed: its caption, and its PNG bytes or why it could not be drawn.
Image = tuple[str, bytes | PlotFailure]

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px;
  color: #1f2328; background: #ffffff; max-width: 1400px; }
h1 { font-size: 24px; margin: 0 0 8px; } h2 { font-size: 18px; margin: 28px 0 8px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.verdict { padding: 12px 16px; border-radius: 6px; font-weight: 600; margin: 8px 0 16px; }
.verdict.fail { background: #ffebe9; border: 1px solid #cf222e; }
.verdict.inconclusive { background: #fff8c5; border: 1px solid #9a6700; }
.verdict.pass { background: #dafbe1; border: 1px solid #1a7f37; }
table { border-collapse: collapse; margin: 6px 0 14px; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.status-fail { color: #cf222e; font-weight: 600; } .status-inconclusive { color: #9a6700;
  font-weight: 600; } .status-warn { color: #9a6700; } .status-pass { color: #1a7f37; }
.advisory { border-left: 4px solid #8c959f; padding-left: 12px; }
.untrusted { background: #f6f8fa; border: 1px dashed #8c959f; padding: 8px; white-space: pre-wrap;
  overflow-wrap: anywhere; font: 12px/1.4 ui-monospace, monospace; max-height: 24em;
  overflow: auto; }
.note { color: #59636e; } figure { margin: 12px 0; } img { max-width: 100%; height: auto;
  border: 1px solid #d0d7de; }
"""
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_TEXT_LIMIT = 4000


def _e(text: object, limit: int | None = None) -> str:
    return html_text(text, limit)


def _table(
    header: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = ()
) -> str:
    """A table of already-escaped cells."""
    if not rows:
        return '<p class="note">None.</p>'
    head = "".join(f"<th>{cell}</th>" for cell in header)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{cell}</td>' if index in numeric else f"<td>{cell}</td>"
            for index, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _status(status: str) -> str:
    return f'<span class="status-{_e(status)}">{_e(STATUS_WORDS[status])}</span>'


def _who(candidate: str | None) -> str:
    return "<em>all candidates</em>" if candidate is None else _e(candidate)


def _outcomes(outcomes: Sequence[RuleOutcome]) -> str:
    return _table(
        ["status", "rule", "candidate", "subject", "detail"],
        [
            [_status(o.status), _e(o.rule), _who(o.candidate), _e(o.subject), _e(o.detail, 600)]
            for o in outcomes
        ],
    )


def _candidates(result: GateResult) -> str:
    compared = result.baseline_bundle is not None
    header = ["candidate", "runs", "scoreable", "infra", "skipped", "gate fail", "pass rate"]
    header += ["gate-pass rate", "mean overall", "p95 settle ms", "p95 cost USD"]
    if compared:
        header += ["baseline mean overall", "paired case means", "paired difference", "Holm p"]
        header += ["one-sided Holm p", "min. detectable drop"]
    rows = []
    for item in result.candidates:
        now = item.current
        row = [
            "<strong>all candidates</strong>"
            if item.candidate == ALL_CANDIDATES
            else _e(item.candidate)
        ]
        if now is None:
            row += ["-"] * 10
        else:
            row += [
                str(now.executions),
                str(now.scoreable),
                str(now.infrastructure_failures),
                str(now.skipped),
                str(now.gate_failures),
                _e(estimate_text(now.pass_rate, percent=True)),
                _e(estimate_text(now.gate_pass_rate, percent=True)),
                _e(estimate_text(now.mean_overall)),
                _e(number_text(now.settlement_p95, 0)),
                _e(number_text(now.cost_p95, 4)),
            ]
        if compared:
            before = item.baseline
            comparison = comparison_for(result, "mean_overall", item.candidate)
            row.append(_e(estimate_text(before.mean_overall)) if before is not None else "-")
            row.append(_e(paired_means_text(comparison.overall)) if comparison else "-")
            row.append(_e(difference_text(comparison.overall)) if comparison else "-")
            row.append(_e(number_text(comparison.overall.p_adjusted)) if comparison else "-")
            test = drop_test_for(result, "mean_overall", item.candidate)
            row.append(_e(number_text(test.p_drop_adjusted)) if test else "-")
            row.append(_e(detectable_text(test)))
        rows.append(row)
    return _table(header, rows, numeric=range(1, len(header)))


def _failures(result: GateResult) -> str:
    rows = []
    for failure in result.failures:
        run = failure.run
        reasons = [
            f"{name}: {reason}" for name in failure.dimensions for reason in run.reasons_for(name)
        ]
        if run.failure:
            reasons.append(f"failure: {run.failure}")
        text = "\n".join(reasons) or "(no reason recorded)"
        rows.append(
            [
                _e(run.candidate),
                _e(run.case),
                str(run.repetition),
                _e(run.classification),
                _e(", ".join(failure.dimensions)),
                "-" if failure.new is None else _e(", ".join(failure.new) or "no"),
                "yes" if failure.counted else "no",
                f'<div class="untrusted">{_e(text, _TEXT_LIMIT)}</div>',
            ]
        )
    return _table(
        [
            "candidate",
            "case",
            "rep",
            "classification",
            "failed",
            "new",
            "counted",
            "reasons (untrusted)",
        ],
        rows,
    )


def _regressions(result: GateResult) -> str:
    parts = []
    for outcome in result.required:
        if outcome.rule != "drop" or outcome.status not in ("fail", "inconclusive"):
            continue
        comparison = comparison_for(result, outcome.subject, outcome.candidate or ALL_CANDIDATES)
        if comparison is None:
            continue
        names = (
            ("hard_invariants", "lifecycle_integrity")
            if outcome.subject == "gate_pass_rate"
            else DIMENSIONS
        )
        differences = [comparison.overall] + [
            d for d in comparison.dimensions if d.statistic in names
        ]
        rows = [
            [
                _e(METRIC_LABELS[outcome.subject] if d is comparison.overall else d.statistic),
                _e(number_text(d.baseline)),
                _e(number_text(d.current)),
                _e(difference_text(d)),
                _e(number_text(d.p_value)),
                _e(number_text(d.p_adjusted)),
            ]
            for d in differences
        ]
        parts.append(
            f"<h3>{_status(outcome.status)}: {_who(outcome.candidate)}, "
            f"{_e(METRIC_LABELS[outcome.subject])}</h3><p>{_e(outcome.detail, 600)}</p>"
            + _table(
                ["statistic", "baseline", "current", "difference", "p", "Holm p"],
                rows,
                numeric=range(1, 6),
            )
        )
    return "".join(parts) or '<p class="note">None.</p>'


def _audit(result: GateResult) -> str:
    rows = []
    for run in result.runs_with_findings:
        for finding in run.findings:
            rows.append(
                [
                    _e(run.candidate),
                    _e(run.case),
                    str(run.repetition),
                    _e(finding.code),
                    f'<div class="untrusted">{_e(f"at {finding.pointer}: expected {finding.expected}, actual {finding.actual}. {finding.hint}", _TEXT_LIMIT)}</div>',
                ]
            )
    return _table(["candidate", "case", "rep", "finding", "evidence (untrusted)"], rows)


def _image(caption: str, image: bytes | PlotFailure) -> str:
    if isinstance(image, PlotFailure):
        return (
            '<figure class="plot-failed" style="border: 1px solid #cf222e; background: #ffebe9; '
            f'padding: 8px 12px;"><p><strong>This plot could not be drawn</strong> (a '
            f"bug in scorecard's plots; the tables carry its numbers): {_e(image.error, 600)}"
            f"</p><figcaption>{_e(caption)}</figcaption></figure>"
        )
    return (
        f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,'
        f'{base64.b64encode(image).decode("ascii")}"><figcaption>{_e(caption)}</figcaption></figure>'
    )


def _images(images: Sequence[Image]) -> str:
    return "".join(_image(caption, image) for caption, image in images)


def render_html(result: GateResult, line: str, *, images: Sequence[Image] = ()) -> str:
    """The full report of ``result`` under its verdict ``line`` as one HTML document."""
    facts = [
        f"<li><strong>Current bundle</strong>: {_e(result.current_bundle)}, {_e(runs_text(result))}</li>"
    ]
    baseline = baseline_text(result)
    if baseline is not None:
        facts.append(f"<li><strong>Baseline</strong>: {_e(baseline, 600)}</li>")
    forbidden = forbidden_text(result)
    if forbidden is not None:
        facts.insert(0, f'<li class="fail"><strong>{_e(forbidden, 600)}</strong></li>')
    facts += [f"<li>{_e(text)}</li>" for text in [*rules_text(result), *result.notes]]
    alerts = _table(
        ["severity", "kind", "message"],
        [[_e(a.severity), _e(a.kind), _e(a.message, 600)] for a in result.alerts],
    )
    advisory = [outcome for outcome in result.advisory if outcome.status != "pass"]
    sections = [
        f'<h1>Scorecard gate: {_e(result.verdict.upper())}</h1><div class="verdict {_e(result.verdict)}">{_e(line, 1000)}</div>',
        f"<ul>{''.join(facts)}</ul>",
        '<p class="note">Ids, reasons and messages come from the agent under test and from case authors: they are untrusted and shown as plain text only.</p>',
        "<h2>Required rules</h2>" + _outcomes(result.required),
        "<h2>Candidates</h2>" + _candidates(result),
        _images(images),
        "<h2>Gate failures in the current bundle</h2>" + _failures(result),
        "<h2>Regressions and suspected regressions</h2>" + _regressions(result),
        '<div class="advisory"><h2>Advisory findings (never change the verdict)</h2>'
        + _outcomes(advisory)
        + "<h3>Failed audit findings</h3>"
        + _audit(result)
        + "<h3>Reference alerts</h3>"
        + alerts
        + "</div>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>Scorecard gate: {_e(result.verdict.upper())}</title><style>{_CSS}</style></head>"
        "<body>\n" + "\n".join(sections) + "\n</body></html>\n"
    )


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _failure(error: Exception) -> PlotFailure:
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (raised at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return PlotFailure(f"{type(error).__name__}: {error}{where}")


def plot_images(result: GateResult) -> list[Image]:
    """PNG plots of ``result.analysis`` for the HTML report (the numbers the rest of the report
    shows), in the report's order. A plot that raises is a :class:`PlotFailure` in its place."""
    from scorecard import plots

    analysis = result.analysis
    if analysis is None:
        return []
    calls: list[tuple[str, Callable[[], Any]]] = [
        (
            "Mean overall score per candidate (current bundle)",
            lambda: plots.plot_overall_scores(analysis, bundle=result.current_bundle),
        ),
        (
            "Mean score per dimension (current bundle)",
            lambda: plots.plot_dimension_heatmap(analysis, bundle=result.current_bundle),
        ),
        (
            "Quality against cost (current bundle)",
            lambda: plots.plot_quality_vs_cost(analysis, bundle=result.current_bundle),
        ),
    ]
    if result.baseline_bundle is not None:
        calls.append(
            ("Baseline and current bundle per candidate", lambda: plots.plot_trends(analysis))
        )
    for outcome in result.required:
        if (
            outcome.rule == "drop"
            and outcome.status in ("fail", "inconclusive")
            and outcome.subject == "mean_overall"
        ):
            comparison = comparison_for(result, "mean_overall", outcome.candidate or ALL_CANDIDATES)
            if comparison is not None:
                calls.append(
                    (
                        f"Paired differences: {outcome.candidate or ALL_CANDIDATES}",
                        functools.partial(plots.plot_paired_differences, comparison),
                    )
                )
    images: list[Image] = []
    for caption, draw in calls:
        try:
            images.append((caption, _png(draw())))
        except Exception as error:  # a bug in a plot: shown and reported, not dropped
            images.append((caption, _failure(error)))
    return images
