"""The gate as JUnit XML, in two forms.

* :func:`render_junit` (``--junit``): one test case per gate check (candidate x rule, and the
  bundle as a whole), red exactly when the gate fails on that check, so CI reporters agree with
  the verdict. An inconclusive check is ``skipped`` (with its reason), never a failure; warnings
  and passes are passed test cases with the outcome's sentence in ``system-out``.
* :func:`render_junit_runs` (``--junit-runs``): the per-run reference report: the rule outcomes,
  then one suite per candidate with one test case per run (``failure`` when ``overall.passed``
  is false, ``error`` for an infrastructure failure, ``skipped`` when unscoreable). It judges
  runs, not the gate: a healthy night has failing runs.

Order is deterministic (candidates sorted, rules in rule order, cases in catalog order,
repetitions) and neither form carries timestamps or durations: same inputs, same bytes.

The per-run report of a large campaign is hundreds of megabytes (a test case per run), so
:func:`write_junit_runs` writes it a run at a time: each run's test case is text made here,
spelt as ElementTree writes the element (``tests/report/test_junit_stream.py`` parses it back
and compares), and only the small rule-outcome suite is an ElementTree tree.
"""

from __future__ import annotations

import functools
import io
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from typing import IO

from scorecard.contract import DIMENSIONS
from scorecard.gate import GateCheck, GateResult, RuleOutcome, RunFacts

from ._common import number_text
from ._escape import one_line, xml_text
from ._site_paths import site_link

__all__ = ["render_junit", "render_junit_runs", "write_junit_runs"]

_MESSAGE_LIMIT = 300
#: Runs made (and their test cases written) at a time by :func:`write_junit_runs`.
_RUNS_AT_ONCE = 4096
_TEXT_LIMIT = 4000


def _properties(parent: ElementTree.Element, values: Sequence[tuple[str, str]]) -> None:
    block = ElementTree.SubElement(parent, "properties")
    for name, value in values:
        ElementTree.SubElement(block, "property", name=name, value=xml_text(value, _MESSAGE_LIMIT))


def _outcome_case(suite: ElementTree.Element, outcome: RuleOutcome) -> str:
    who = outcome.candidate or "bundle"
    name = f"{outcome.rule}: {who}" + (f" {outcome.subject}" if outcome.subject else "")
    case = ElementTree.SubElement(
        suite,
        "testcase",
        classname=f"scorecard.gate.{outcome.rule}",
        name=xml_text(name, 200),
    )
    _properties(
        case,
        [("status", outcome.status), ("required", "true" if outcome.required else "false")],
    )
    message = one_line(outcome.summary, _MESSAGE_LIMIT)
    if outcome.required and outcome.status == "fail":
        element = ElementTree.SubElement(case, "failure", message=message, type=outcome.rule)
        element.text = xml_text(outcome.detail, _TEXT_LIMIT)
        return "failure"
    if outcome.required and outcome.status == "inconclusive":
        ElementTree.SubElement(case, "skipped", message=f"inconclusive: {message}")
        return "skipped"
    ElementTree.SubElement(case, "system-out").text = xml_text(
        f"{outcome.status}: {outcome.detail}", _TEXT_LIMIT
    )
    return "passed"


def _reasons(run: RunFacts) -> str:
    lines = [
        f"{name}: {reason}"
        for index, name in enumerate(DIMENSIONS)
        for reason in run.reasons[index]
        if run.dimension_passed[index] is False
    ]
    if run.failure:
        lines.append(f"failure: {run.failure}")
    for finding in run.findings:
        lines.append(
            f"audit {finding.code} at {finding.pointer}: expected {finding.expected}, actual {finding.actual}"
        )
    return xml_text("\n".join(lines), _TEXT_LIMIT)


def _run_kind(run: RunFacts) -> str:
    """What a run's test case is: ``error``, ``skipped``, ``failure`` or ``passed``."""
    if run.classification == "infrastructure_failure":
        return "error"
    if not run.scoreable:
        return "skipped"
    return "failure" if run.passed is False else "passed"


# ElementTree's escaping of attribute values and of text (xml.etree.ElementTree._escape_attrib
# and _escape_cdata), in one pass each.
_ATTRIBUTE = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\r": "&#13;",
        "\n": "&#10;",
        "\t": "&#09;",
    }
)
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# A run's test case is at depth 2 (testsuites > testsuite > testcase), indented two spaces a level.
_CASE = "\n    "
_CHILD = "\n      "
_PROPERTY = "\n        "
_SCORE_HEADS = tuple(f'{_PROPERTY}<property name="score.{name}" value="' for name in DIMENSIONS)
_REMEMBERED_LENGTH = 512


def _run_case(run: RunFacts, site_url: str | None = None) -> str:
    """A run's ``testcase`` element as ElementTree writes it indented at its depth, without
    the whitespace after it."""
    classname = _attribute(f"{run.bundle}.{run.candidate}", 200)
    name = _attribute(f"{run.case} #{run.repetition}", 200)
    gate = "-" if run.gate_passed is None else str(run.gate_passed).lower()
    parts = [
        f'<testcase classname="{classname}" name="{name}">{_CHILD}<properties>',
        f'{_PROPERTY}<property name="provider" value="{_attribute(run.provider)}" />',
        f'{_PROPERTY}<property name="classification" value="{_attribute(run.classification)}" />',
        # Numbers and the gate's word are digits, signs, points and letters: nothing to escape.
        f'{_PROPERTY}<property name="overall" value="{number_text(run.overall, 4)}" />',
        f'{_PROPERTY}<property name="gatePassed" value="{gate}" />',
    ]
    parts += [
        f'{head}{number_text(score, 4)}" />'
        for head, score in zip(_SCORE_HEADS, run.scores, strict=True)
    ]
    if run.source:  # each run's own: escaped, not remembered
        source = xml_text(run.source, _MESSAGE_LIMIT, unique=True).translate(_ATTRIBUTE)
        parts.append(f'{_PROPERTY}<property name="source" value="{source}" />')
    if site_url is not None:
        page = site_link(site_url, run.bundle, run.candidate, run.case, run.repetition)
        page = xml_text(page, _MESSAGE_LIMIT, unique=True).translate(_ATTRIBUTE)
        parts.append(f'{_PROPERTY}<property name="page" value="{page}" />')
    kind = _run_kind(run)
    result = ""
    if kind == "error":
        message = one_line(run.failure or "infrastructure failure", _MESSAGE_LIMIT)
        result = _element("error", message, "infrastructure_failure", _reasons(run))
    elif kind == "skipped":
        message = f"{run.classification}: not scoreable".translate(_ATTRIBUTE)
        result = f'<skipped message="{message}" />'
    elif kind == "failure":
        failed = [
            name
            for name, flag in zip(DIMENSIONS, run.dimension_passed, strict=True)
            if flag is False
        ]
        gate = "gate failed; " if run.gate_passed is False else ""
        message = f"{gate}overall {number_text(run.overall, 3)}; failed: {', '.join(failed) or 'overall threshold'}"
        result = _element("failure", message, run.classification, _reasons(run))
    if result:
        parts.append(f"{_CHILD}</properties>{_CHILD}{result}{_CASE}</testcase>")
    else:
        parts.append(f"{_CHILD}</properties>{_CASE}</testcase>")
    return "".join(parts)


def _attribute(text: str, limit: int = _MESSAGE_LIMIT) -> str:
    """Untrusted ``text`` as an attribute value: :func:`xml_text` and ElementTree's escaping
    (remembered for short texts: ids, providers and classifications repeat on every run, and
    each ``case #repetition`` once per candidate, so a campaign's fit: 12 cases of thousands
    of repetitions)."""
    if len(text) <= _REMEMBERED_LENGTH:
        return _remembered_attribute(text, limit)
    return xml_text(text, limit).translate(_ATTRIBUTE)


@functools.lru_cache(maxsize=1 << 17)
def _remembered_attribute(text: str, limit: int) -> str:
    return xml_text(text, limit).translate(_ATTRIBUTE)


def _element(tag: str, message: str, kind: str, text: str) -> str:
    """``<tag message=".." type="..">text</tag>``, or the empty element without text."""
    start = f'<{tag} message="{message.translate(_ATTRIBUTE)}" type="{kind.translate(_ATTRIBUTE)}"'
    return f"{start}>{text.translate(_TEXT)}</{tag}>" if text else f"{start} />"


def _start_tag(element: ElementTree.Element) -> str:
    """``element``'s start tag as ElementTree writes it (its attributes in their order)."""
    written = ElementTree.tostring(element, encoding="unicode", short_empty_elements=False)
    return written[: -len(f"</{element.tag}>")]


def _suite(parent: ElementTree.Element, name: str) -> ElementTree.Element:
    return ElementTree.SubElement(parent, "testsuite", name=xml_text(name, 200))


def _count(suite: ElementTree.Element, results: Sequence[str]) -> dict[str, int]:
    counts = {
        "tests": len(results),
        "failures": results.count("failure"),
        "errors": results.count("error"),
        "skipped": results.count("skipped"),
    }
    for key, value in counts.items():
        suite.set(key, str(value))
    return counts


def _gate_suite(root: ElementTree.Element, result: GateResult) -> ElementTree.Element:
    gate = _suite(root, "scorecard gate")
    _properties(
        gate,
        [
            ("verdict", result.verdict),
            ("current", result.current_bundle),
            ("baseline", result.baseline_bundle or "-"),
            ("baseline_nights", ", ".join(result.baseline_nights) or "-"),
            ("new_forbidden_calls", result.forbidden_calls_text or "none"),
            ("seed", str(result.seed)),
        ],
    )
    return gate


def _document(root: ElementTree.Element) -> str:
    ElementTree.indent(root)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        + ElementTree.tostring(root, encoding="unicode")
        + "\n"
    )


def _check_case(suite: ElementTree.Element, check: GateCheck, pages: Sequence[str] = ()) -> str:
    who = check.candidate or "all candidates"
    case = ElementTree.SubElement(
        suite,
        "testcase",
        classname=f"scorecard.gate.{check.rule}",
        name=xml_text(f"{who}: {check.rule}", 200),
    )
    subjects = ", ".join(dict.fromkeys(o.subject for o in check.outcomes if o.subject))
    _properties(
        case,
        [
            ("status", check.status),
            ("required", "true" if check.required else "false"),
            *([("subjects", subjects)] if subjects else []),
            *(("page", page) for page in pages),
        ],
    )
    deciding = [outcome for outcome in check.outcomes if outcome.status == check.status]
    message = one_line("; ".join(o.summary for o in deciding), _MESSAGE_LIMIT)
    details = "\n".join(f"{o.status}: {o.detail}" for o in check.outcomes)
    if check.failed:
        element = ElementTree.SubElement(case, "failure", message=message, type=check.rule)
        element.text = xml_text(details, _TEXT_LIMIT)
        return "failure"
    if check.required and check.status == "inconclusive":
        ElementTree.SubElement(case, "skipped", message=f"inconclusive: {message}")
        return "skipped"
    text = details or f"pass: {check.rule} found nothing to report for {who}."
    ElementTree.SubElement(case, "system-out").text = xml_text(text, _TEXT_LIMIT)
    return "passed"


def _failure_pages(result: GateResult, site_url: str | None) -> dict[str | None, list[str]]:
    """Per candidate, the report-site pages of its runs that failed the gate (none without a
    site)."""
    pages: dict[str | None, list[str]] = {}
    if site_url is not None:
        for failure in result.failures:
            run = failure.run
            pages.setdefault(run.candidate, []).append(
                site_link(site_url, run.bundle, run.candidate, run.case, run.repetition)
            )
    return pages


def render_junit(result: GateResult, *, site_url: str | None = None) -> str:
    """``result`` as JUnit XML with one test case per gate check (UTF-8, XML declaration). With
    ``site_url`` (where ``scorecard report`` publishes its site), a failed check of a candidate
    lists the pages of that candidate's gate-failed runs as ``page`` properties."""
    root = ElementTree.Element("testsuites", name="scorecard gate")
    gate = _gate_suite(root, result)
    pages = _failure_pages(result, site_url)
    counts = _count(
        gate,
        [
            _check_case(gate, check, pages.get(check.candidate, []) if check.failed else [])
            for check in result.checks
        ],
    )
    for key, value in counts.items():
        root.set(key, str(value))
    return _document(root)


def render_junit_runs(result: GateResult, *, site_url: str | None = None) -> str:
    """``result`` as the per-run JUnit XML reference report (UTF-8, XML declaration); with
    ``site_url``, each run's test case has its report-site page as a ``page`` property. The
    text :func:`write_junit_runs` writes."""
    stream = io.StringIO()
    write_junit_runs(result, stream, site_url=site_url)
    return stream.getvalue()


def write_junit_runs(result: GateResult, stream: IO[str], *, site_url: str | None = None) -> None:
    """:func:`render_junit_runs`, written to ``stream`` a run at a time."""
    root = ElementTree.Element("testsuites", name="scorecard gate")
    gate = _gate_suite(root, result)
    totals = _count(gate, [_outcome_case(gate, outcome) for outcome in result.outcomes])
    # Each candidate's runs as ranges of positions (one range when the runs are sorted by
    # candidate, as a side's are), and what each of its test cases is, in one pass: the runs
    # are made again, a block at a time, as their test cases are written.
    ranges: dict[str, list[range]] = {}
    kinds: dict[str, list[str]] = {}
    for position, run in enumerate(result.runs):
        spans = ranges.setdefault(run.candidate, [])
        if spans and spans[-1].stop == position:
            spans[-1] = range(spans[-1].start, position + 1)
        else:
            spans.append(range(position, position + 1))
        kinds.setdefault(run.candidate, []).append(_run_kind(run))
    suites = []
    for candidate in sorted(ranges):
        suite = ElementTree.Element(
            "testsuite", name=xml_text(f"{result.current_bundle}/{candidate}", 200)
        )
        for key, value in _count(suite, kinds.pop(candidate)).items():
            totals[key] += value
        suites.append((suite, ranges[candidate]))
    for key, value in totals.items():
        root.set(key, str(value))
    root.remove(gate)
    ElementTree.indent(gate, level=1)
    gate.tail = "\n  " if suites else "\n"
    stream.write('<?xml version="1.0" encoding="utf-8"?>\n' + _start_tag(root) + "\n  ")
    stream.write(ElementTree.tostring(gate, encoding="unicode"))
    for index, (suite, spans) in enumerate(suites):
        stream.write(_start_tag(suite))
        for span in spans:
            for start in range(span.start, span.stop, _RUNS_AT_ONCE):
                for run in result.runs[start : min(start + _RUNS_AT_ONCE, span.stop)]:
                    stream.write(_CASE)
                    stream.write(_run_case(run, site_url))
        stream.write("\n  </testsuite>" + ("\n  " if index + 1 < len(suites) else "\n"))
    stream.write("</testsuites>\n")
