"""The gate as JUnit XML, in two forms that CI servers validate and keep apart.

* :func:`render_junit` (``--junit``): one test case per gate check (candidate x rule, and the
  bundle as a whole), red exactly when the gate fails on that check, so CI reporters agree with
  the verdict. An inconclusive check is ``skipped`` (with its reason), never a failure; warnings
  and passes are passed test cases.
* :func:`render_junit_runs` (``--junit-runs``): the per-run reference report: one suite per
  candidate of the current bundle with one test case per run (``failure`` when
  ``overall.passed`` is false, ``error`` for an infrastructure failure, ``skipped`` when
  unscoreable). It judges runs, not the gate: a healthy night has failing runs.

**One naming scheme** (docs/gate.md, "JUnit test names"): in both files a test case's class name
is the candidate (:data:`ALL_CANDIDATES` for the bundle-wide checks) and its name is what was
tested, the rule in ``--junit`` (``safety``) and the case and repetition in ``--junit-runs``
(``final-response #1``), which cannot be a rule's name. No name holds a bundle id, a status or
a count: the same candidates, rules and schedule give the same test names every night, healthy
or not. The suites are ``scorecard gate`` and ``scorecard runs: CANDIDATE``.

**Valid against** the Jenkins xunit plugin's ``junit-10.xsd`` and the widely copied
``jenkins-junit.xsd`` (``tests/report/test_junit_schemas.py``): properties only at suite level
(a test case's own facts are ``name: value`` lines of its ``system-out``), no ``skipped`` count
on ``testsuites``, a skipped case's reason as the text of ``skipped`` (jenkins-junit.xsd gives it
no attributes), and a test case's elements in the order ``skipped``, ``error``, ``failure``,
``system-out``. The Ant schema is not targeted: it requires a timestamp and a host name.

Order is deterministic (candidates sorted, rules in rule order, cases in catalog order,
repetitions) and neither form carries timestamps or durations: same inputs, same bytes.

The per-run report of a large campaign is hundreds of megabytes (a test case per run), so
:func:`write_junit_runs` writes it a run at a time: each run's test case is text made here,
spelt as ElementTree writes the element (``tests/report/test_junit_stream.py`` parses it back
and compares), and only the small suite headers are ElementTree trees.
"""

from __future__ import annotations

import functools
import io
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from typing import IO

from scorecard.contract import DIMENSIONS
from scorecard.gate import ALL_CANDIDATES, GateCheck, GateResult, RunFacts

from ._common import number_text
from ._escape import one_line, xml_text
from ._site_paths import change_link, site_link

__all__ = ["CHECKS_SUITE", "RUNS_SUITE", "render_junit", "render_junit_runs", "write_junit_runs"]

#: The name of ``--junit``'s one suite (and of its ``testsuites``).
CHECKS_SUITE = "scorecard gate"
#: ``--junit-runs``'s ``testsuites`` name, and the start of each candidate's suite name.
RUNS_SUITE = "scorecard runs"
_MESSAGE_LIMIT = 300
_NAME_LIMIT = 200
#: Runs made (and their test cases written) at a time by :func:`write_junit_runs`.
_RUNS_AT_ONCE = 4096
_TEXT_LIMIT = 4000


def _properties(values: Sequence[tuple[str, str]]) -> ElementTree.Element:
    block = ElementTree.Element("properties")
    for name, value in values:
        ElementTree.SubElement(block, "property", name=name, value=xml_text(value, _MESSAGE_LIMIT))
    return block


def _facts(values: Sequence[tuple[str, str]]) -> str:
    """A test case's facts as ``name: value`` lines (each value on its one line, so no value
    can forge another line)."""
    return "\n".join(f"{name}: {one_line(value, _MESSAGE_LIMIT)}" for name, value in values)


def _gate_properties(result: GateResult) -> list[tuple[str, str]]:
    return [
        ("verdict", result.verdict),
        ("current", result.current_bundle),
        ("baseline", result.baseline_bundle or "-"),
        ("baseline_nights", ", ".join(result.baseline_nights) or "-"),
        ("new_forbidden_calls", result.forbidden_calls_text or "none"),
        ("seed", str(result.seed)),
    ]


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
_SCORE_HEADS = tuple(f"\nscore.{name}: " for name in DIMENSIONS)
_REMEMBERED_LENGTH = 512


def _run_case(run: RunFacts, site_url: str | None = None) -> str:
    """A run's ``testcase`` element as ElementTree writes it indented at its depth, without
    the whitespace after it."""
    classname = _attribute(run.candidate)
    name = _attribute(f"{run.case} #{run.repetition}")
    gate = "-" if run.gate_passed is None else str(run.gate_passed).lower()
    facts = [
        f"provider: {_line(run.provider)}",
        f"\nclassification: {_line(run.classification)}",
        # Numbers and the gate's word are digits, signs, points and letters: nothing to escape.
        f"\noverall: {number_text(run.overall, 4)}",
        f"\ngatePassed: {gate}",
    ]
    facts += [
        f"{head}{number_text(score, 4)}"
        for head, score in zip(_SCORE_HEADS, run.scores, strict=True)
    ]
    if run.source:  # each run's own: escaped, not remembered
        facts.append(f"\nsource: {one_line(run.source, _MESSAGE_LIMIT).translate(_TEXT)}")
    if site_url is not None:
        page = site_link(site_url, run.bundle, run.candidate, run.case, run.repetition)
        facts.append(f"\npage: {one_line(page, _MESSAGE_LIMIT).translate(_TEXT)}")
    kind = _run_kind(run)
    result = ""
    if kind == "error":
        message = one_line(run.failure or "infrastructure failure", _MESSAGE_LIMIT)
        result = _element("error", message, "infrastructure_failure", _reasons(run))
    elif kind == "skipped":
        reason = f"{_line(run.classification)}: not scoreable"
        result = f"<skipped>{reason}</skipped>"
    elif kind == "failure":
        failed = [
            name
            for name, flag in zip(DIMENSIONS, run.dimension_passed, strict=True)
            if flag is False
        ]
        gate = "gate failed; " if run.gate_passed is False else ""
        message = f"{gate}overall {number_text(run.overall, 3)}; failed: {', '.join(failed) or 'overall threshold'}"
        result = _element("failure", message, run.classification, _reasons(run))
    head = f'<testcase classname="{classname}" name="{name}">{_CHILD}'
    output = f"<system-out>{''.join(facts)}</system-out>{_CASE}</testcase>"
    return f"{head}{result}{_CHILD}{output}" if result else f"{head}{output}"


def _attribute(text: str, limit: int = _NAME_LIMIT) -> str:
    """Untrusted ``text`` on one line as an attribute value: :func:`one_line` and ElementTree's
    escaping (remembered for short texts: ids repeat on every run, and each ``case
    #repetition`` once per candidate, so a campaign's fit: 12 cases of thousands of
    repetitions)."""
    if len(text) <= _REMEMBERED_LENGTH:
        return _remembered_attribute(text, limit)
    return one_line(text, limit).translate(_ATTRIBUTE)


@functools.lru_cache(maxsize=1 << 17)
def _remembered_attribute(text: str, limit: int) -> str:
    return one_line(text, limit).translate(_ATTRIBUTE)


def _line(text: str) -> str:
    """A repeated untrusted value (provider, classification) on one line, as element text
    (remembered when short, as :func:`_attribute` is)."""
    if len(text) <= _REMEMBERED_LENGTH:
        return _remembered_line(text)
    return one_line(text, _MESSAGE_LIMIT).translate(_TEXT)


@functools.lru_cache(maxsize=1 << 12)
def _remembered_line(text: str) -> str:
    return one_line(text, _MESSAGE_LIMIT).translate(_TEXT)


def _element(tag: str, message: str, kind: str, text: str) -> str:
    """``<tag message=".." type="..">text</tag>``, or the empty element without text."""
    start = f'<{tag} message="{message.translate(_ATTRIBUTE)}" type="{kind.translate(_ATTRIBUTE)}"'
    return f"{start}>{text.translate(_TEXT)}</{tag}>" if text else f"{start} />"


def _start_tag(element: ElementTree.Element) -> str:
    """``element``'s start tag as ElementTree writes it (its attributes in their order)."""
    written = ElementTree.tostring(element, encoding="unicode", short_empty_elements=False)
    return written[: -len(f"</{element.tag}>")]


def _count(element: ElementTree.Element, results: Sequence[str], *, skipped: bool = True) -> None:
    """Set ``element``'s counts of ``results``; ``testsuites`` has no skipped count in the
    schemas (``skipped=False``)."""
    element.set("tests", str(len(results)))
    element.set("failures", str(results.count("failure")))
    element.set("errors", str(results.count("error")))
    if skipped:
        element.set("skipped", str(results.count("skipped")))


def _document(root: ElementTree.Element) -> str:
    ElementTree.indent(root)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        + ElementTree.tostring(root, encoding="unicode")
        + "\n"
    )


def _check_case(
    suite: ElementTree.Element, check: GateCheck, pages: Sequence[tuple[str, str]] = ()
) -> str:
    who = check.candidate or ALL_CANDIDATES
    case = ElementTree.SubElement(
        suite, "testcase", classname=one_line(who, _NAME_LIMIT), name=check.rule
    )
    subjects = ", ".join(dict.fromkeys(o.subject for o in check.outcomes if o.subject))
    facts = _facts(
        [
            ("status", check.status),
            ("required", "true" if check.required else "false"),
            *([("subjects", subjects)] if subjects else []),
            *pages,
        ]
    )
    deciding = [outcome for outcome in check.outcomes if outcome.status == check.status]
    message = one_line("; ".join(o.summary for o in deciding), _MESSAGE_LIMIT)
    details = "\n".join(f"{o.status}: {o.detail}" for o in check.outcomes)
    kind = "passed"
    if check.failed:
        element = ElementTree.SubElement(case, "failure", message=message, type=check.rule)
        element.text = xml_text(details, _TEXT_LIMIT)
        kind = "failure"
    elif check.required and check.status == "inconclusive":
        ElementTree.SubElement(case, "skipped").text = f"inconclusive: {message}"
        kind = "skipped"
    if kind != "failure":  # a failure's details are its text
        details = details or f"pass: {check.rule} found nothing to report for {one_line(who)}."
        facts += "\n\n" + details
    ElementTree.SubElement(case, "system-out").text = xml_text(facts, _TEXT_LIMIT)
    return kind


def _failure_pages(
    result: GateResult, site_url: str | None
) -> dict[str | None, list[tuple[str, str]]]:
    """Per candidate, the report-site pages of its runs that failed the gate (none without a
    site): each run's ``page``, and with a baseline its case's ``then and now`` page."""
    pages: dict[str | None, list[tuple[str, str]]] = {}
    if site_url is not None:
        for failure in result.failures:
            run = failure.run
            listed = pages.setdefault(run.candidate, [])
            listed.append(
                ("page", site_link(site_url, run.bundle, run.candidate, run.case, run.repetition))
            )
            if result.baseline_bundle is not None:
                change = change_link(site_url, run.bundle, run.candidate, run.case)
                if ("then and now", change) not in listed:
                    listed.append(("then and now", change))
    return pages


def render_junit(result: GateResult, *, site_url: str | None = None) -> str:
    """``result`` as JUnit XML with one test case per gate check (UTF-8, XML declaration):
    class name the candidate, name the rule. With ``site_url`` (where ``scorecard report``
    publishes its site), a failed check of a candidate lists the pages of that candidate's
    gate-failed runs as ``page:`` lines of its ``system-out`` (with a baseline, each case's
    page beside the nights before as a ``then and now:`` line)."""
    root = ElementTree.Element("testsuites", name=CHECKS_SUITE)
    gate = ElementTree.SubElement(root, "testsuite", name=CHECKS_SUITE)
    gate.append(_properties(_gate_properties(result)))
    pages = _failure_pages(result, site_url)
    results = [
        _check_case(gate, check, pages.get(check.candidate, []) if check.failed else [])
        for check in result.checks
    ]
    _count(gate, results)
    _count(root, results, skipped=False)
    return _document(root)


def render_junit_runs(result: GateResult, *, site_url: str | None = None) -> str:
    """``result`` as the per-run JUnit XML reference report (UTF-8, XML declaration): class
    name the candidate, name ``case #repetition``; with ``site_url``, each run's test case has
    its report-site page as a ``page:`` line of its ``system-out``. The text
    :func:`write_junit_runs` writes."""
    stream = io.StringIO()
    write_junit_runs(result, stream, site_url=site_url)
    return stream.getvalue()


def write_junit_runs(result: GateResult, stream: IO[str], *, site_url: str | None = None) -> None:
    """:func:`render_junit_runs`, written to ``stream`` a run at a time."""
    root = ElementTree.Element("testsuites", name=RUNS_SUITE)
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
    gate = _gate_properties(result)
    suites = []
    everything: list[str] = []
    for candidate in sorted(ranges):
        suite = ElementTree.Element(
            "testsuite", name=one_line(f"{RUNS_SUITE}: {candidate}", _NAME_LIMIT)
        )
        _count(suite, kinds[candidate])
        everything += kinds.pop(candidate)
        properties = _properties([("candidate", candidate), *gate])
        ElementTree.indent(properties, level=2)
        suites.append((suite, properties, ranges[candidate]))
    _count(root, everything, skipped=False)
    stream.write('<?xml version="1.0" encoding="utf-8"?>\n')
    if not suites:
        stream.write(ElementTree.tostring(root, encoding="unicode") + "\n")
        return
    stream.write(_start_tag(root))
    for suite, properties, spans in suites:
        stream.write("\n  " + _start_tag(suite) + _CASE)
        stream.write(ElementTree.tostring(properties, encoding="unicode"))
        for span in spans:
            for start in range(span.start, span.stop, _RUNS_AT_ONCE):
                for run in result.runs[start : min(start + _RUNS_AT_ONCE, span.stop)]:
                    stream.write(_CASE)
                    stream.write(_run_case(run, site_url))
        stream.write("\n  </testsuite>")
    stream.write("\n</testsuites>\n")
