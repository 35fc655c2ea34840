"""The per-run JUnit (``--junit-runs``) is written a run at a time, in ElementTree's spelling.

Its test cases are text made by ``report._junit`` rather than ElementTree elements (a report of
a large campaign is a test case per run, hundreds of megabytes), so these tests hold the text to
what ElementTree writes: parsed and written again by ElementTree, indented, the document is the
same bytes, with hostile text in every field; the values parse back as written; and the document
is written in pieces, none of them the whole.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ElementTree
from typing import Any

from scorecard.contract._models import CASE_IDS
from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._results import GateResult
from scorecard.report._escape import one_line, xml_text
from scorecard.report._junit import render_junit_runs, write_junit_runs
from tests.gate.test_gate import infrastructure_failure, run_record, side
from tests.report.test_report import RULES, golden_records

HOSTILE = "a & b < c > d \"quoted\" 'single'\ttab\nnew line ]]> &amp; &#10;"


def as_elementtree_writes_it(document: str) -> str:
    """``document`` parsed and written again by ElementTree, indented as the report is."""
    root = ElementTree.fromstring(document.encode("utf-8"))
    ElementTree.indent(root)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        + ElementTree.tostring(root, encoding="unicode")
        + "\n"
    )


def hostile_result() -> GateResult:
    """A gate whose runs carry markup, quotes, tabs and line breaks in ids, reasons and
    failures, with every kind of test case (passed, failure, error, skipped)."""
    cases = CASE_IDS[:6]
    candidate = 'cand "<&>"'
    before = [run_record(candidate, case, bundle="night & 1") for case in cases]
    now = [
        run_record(
            candidate,
            cases[0],
            bundle="night & 2",
            failed=["hard_invariants", "trace_completeness"],
            reasons={"hard_invariants": [HOSTILE], "trace_completeness": [HOSTILE, "second"]},
        ),
        infrastructure_failure(candidate, cases[1], bundle="night & 2", message=HOSTILE),
        run_record(candidate, cases[2], bundle="night & 2", overall=None, classification="skipped"),
        run_record(candidate, cases[3], bundle="night & 2", overall=0.5),
        *(run_record(candidate, case, bundle="night & 2") for case in cases[4:]),
        *(run_record("other", case, bundle="night & 2") for case in cases),
    ]
    return evaluate_gate(side(now), side(before), RULES, seed=3)


def golden_result() -> GateResult:
    before, now = golden_records()
    return evaluate_gate(side(now), side(before), RULES, seed=7)


def test_the_document_is_spelt_as_elementtree_writes_it() -> None:
    """For the golden gate and a hostile one, with and without a site: parsing the document
    and writing it again with ElementTree gives the same bytes."""
    for result in (golden_result(), hostile_result()):
        for site_url in (None, "https://ci.example/site?a=1&b=2"):
            document = render_junit_runs(result, site_url=site_url)
            assert as_elementtree_writes_it(document) == document


def test_hostile_values_parse_back_as_written() -> None:
    """The reasons, failure message, ids and counts read back from the XML are the cleaned
    text the report meant to write, not markup."""
    result = hostile_result()
    root = ElementTree.fromstring(render_junit_runs(result).encode("utf-8"))
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    suite = suites[xml_text('scorecard runs: cand "<&>"')]
    cases = suite.findall("testcase")
    assert [case.get("name") for case in cases] == [f"{case} #1" for case in CASE_IDS[:6]]
    assert {case.get("classname") for case in cases} == {'cand "<&>"'}
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["current"] == "night & 2"
    failure = cases[0].find("failure")
    assert failure is not None
    assert failure.text is not None
    assert f"hard_invariants: {xml_text(HOSTILE)}" in failure.text
    error = cases[1].find("error")
    assert error is not None
    assert error.get("type") == "infrastructure_failure"
    assert error.get("message") == one_line(f"provider_unavailable: {HOSTILE}", 300)
    assert cases[2].findtext("skipped") == "skipped: not scoreable"
    output = cases[1].findtext("system-out")
    assert output is not None
    assert output.splitlines()[:2] == ["provider: codex", "classification: infrastructure_failure"]
    counts = {key: suite.get(key) for key in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": "6", "failures": "2", "errors": "1", "skipped": "1"}
    total = sum(int(s.get("tests") or 0) for s in root.iter("testsuite"))
    assert root.get("tests") == str(total)


class _Pieces(io.StringIO):
    """A text stream that remembers the length of its largest write."""

    largest = 0

    def write(self, text: str) -> int:
        self.largest = max(self.largest, len(text))
        return super().write(text)


def test_runs_are_written_one_at_a_time() -> None:
    """A gate of 12 candidates x 12 cases x 5 repetitions (720 runs): the document is what
    ``render_junit_runs`` returns, and no write holds more than a small part of it."""
    records: list[dict[str, Any]] = []
    for candidate in range(12):
        for case in CASE_IDS:
            for repetition in range(1, 6):
                records.append(
                    run_record(f"cand-{candidate}", case, repetition, bundle="n2", overall=0.75)
                )
    baseline = [{**record, "bundle": "n1"} for record in records]
    result = evaluate_gate(side(records), side(baseline), RULES, seed=1)
    stream = _Pieces()
    write_junit_runs(result, stream)
    document = stream.getvalue()
    assert document == render_junit_runs(result)
    assert document.count("<testcase ") >= 720
    assert stream.largest < len(document) / 50


def test_runs_interleaved_across_candidates_give_the_same_document() -> None:
    """Each candidate's suite holds its runs in their order whatever order the candidates'
    runs come in: the runs dealt out one candidate after another give the document of the
    sorted runs."""
    import dataclasses

    result = hostile_result()
    runs = list(result.runs)
    by_candidate: dict[str, list[Any]] = {}
    for run in runs:
        by_candidate.setdefault(run.candidate, []).append(run)
    first, second = by_candidate.values()  # two candidates, six runs each
    dealt = [run for pair in zip(first, second, strict=True) for run in pair]
    assert sorted(map(id, dealt)) == sorted(map(id, runs))
    assert [run.candidate for run in dealt] != [run.candidate for run in runs]
    interleaved = dataclasses.replace(result, runs=tuple(dealt))
    assert render_junit_runs(interleaved) == render_junit_runs(result)
