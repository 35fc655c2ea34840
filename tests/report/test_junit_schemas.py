"""Both JUnit files validate against the schemas CI servers read them with, and name their test
cases the same way every night.

``../shared/junit-xsd/`` holds the Jenkins xunit plugin's ``junit-10.xsd`` (it validates before
it reads), the widely copied ``jenkins-junit.xsd`` and Apache Ant's schema. The files are valid
against the first two, on the sample campaign (a healthy night, a regressed one, an
inconclusive one, a night gated without a baseline; every night has infrastructure failures)
and on generated hostile ids. The Ant schema is not targeted: it requires a timestamp and a
host name, which deterministic output cannot carry (docs/gate.md, "JUnit XML").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from junitparser import Error, Failure, JUnitXml, Skipped
from lxml import etree

from scorecard.contract._catalog import load_catalog
from scorecard.contract._errors import InputError
from scorecard.contract._models import CASE_IDS
from scorecard.engine._run import score_run
from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._input import GateSide, rows_side
from scorecard.gate._results import RULE_ORDER, GateResult
from scorecard.gate._rules import GateRules
from scorecard.report._junit import render_junit, render_junit_runs
from tests.conftest import ROOT, SHARED
from tests.gate.test_gate import infrastructure_failure, run_record, side

XSD = SHARED / "junit-xsd"
TARGETED = ("junit-10.xsd", "jenkins-junit.xsd")
NIGHTS = [ROOT / "observations" / f"2026-11-{day}-nightly" for day in ("01", "08", "15", "22")]
RULES = GateRules(resamples=2000)
SITE = "https://ci.example/site?a=1&b=2"
Render = Callable[..., str]
FORMS: dict[str, Render] = {"junit": render_junit, "junit-runs": render_junit_runs}


@cache
def schema(name: str) -> etree.XMLSchema:
    """The XML Schema ``name`` of ``../shared/junit-xsd/``."""
    return etree.XMLSchema(etree.parse(str(XSD / name)))


def problems(document: str, name: str) -> list[str]:
    """What schema ``name`` finds wrong with ``document`` (nothing when it is valid)."""
    checker = schema(name)
    if checker.validate(etree.fromstring(document.encode("utf-8"))):
        return []
    return str(checker.error_log).splitlines()


@cache
def night(index: int) -> GateSide:
    """Sample night ``index`` (0 is 2026-11-01) as a current side, every run's detail kept."""
    run = score_run([NIGHTS[index]], catalog=load_catalog(), workers=1)
    rows: list[Any] = list(run.detailed_rows(every=True))
    assert not any(isinstance(row, InputError) for row in rows)
    return rows_side(rows)


@cache
def gated(current: int, baseline: int | None, rules: GateRules = RULES) -> GateResult:
    """Night ``current`` gated against night ``baseline`` (none when None)."""
    before = None if baseline is None else night(baseline)
    return evaluate_gate(night(current), before, rules, seed=0)


def sample_results() -> dict[str, GateResult]:
    """A passing, a failing, an inconclusive and a baseline-less gate of the sample nights."""
    # 11-15 has a candidate with 2 of its 20 runs lost to the infrastructure: at a limit of
    # 5% that is too many to judge it, so the night is inconclusive.
    strict = dataclasses.replace(RULES, max_infrastructure_share=0.05)
    results = {
        "healthy 11-15 vs 11-08": gated(2, 1),
        "regressed 11-22 vs 11-15": gated(3, 2),
        "inconclusive 11-15 vs 11-08": gated(2, 1, strict),
        "no baseline 11-22": gated(3, None),
    }
    verdicts = [result.verdict for result in results.values()]
    assert verdicts == ["pass", "fail", "inconclusive", "fail"]
    return results


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", TARGETED)
def test_the_sample_gates_validate_against_the_ci_schemas(name: str, form: str) -> None:
    """Every kind of verdict of the sample campaign, with and without links to the report
    site, is valid against junit-10.xsd and jenkins-junit.xsd."""
    for label, result in sample_results().items():
        for site_url in (None, SITE):
            document = FORMS[form](result, site_url=site_url)
            assert problems(document, name) == [], label


def test_the_golden_files_validate_and_todays_ant_schema_is_not_targeted() -> None:
    """The reviewed golden files are valid against the two targeted schemas; against the Ant
    schema they lack (among others) the timestamp and host name it requires."""
    for golden in ("gate-junit.xml", "gate-junit-runs.xml"):
        document = (ROOT / "tests" / "golden" / golden).read_text(encoding="utf-8")
        for name in TARGETED:
            assert problems(document, name) == [], (golden, name)
        ant = "\n".join(problems(document, "ant-junit-windyroad.xsd"))
        assert "'timestamp' is required but missing" in ant
        assert "'hostname' is required but missing" in ant


def test_the_gate_suites_validate_without_any_check_or_run() -> None:
    """A suite with no test case still has properties (jenkins-junit.xsd wants at least one
    property in a ``properties`` block), and a runs report of no runs is an empty
    ``testsuites``."""
    result = gated(2, 1)
    empty = dataclasses.replace(result, runs=(), candidates=result.candidates[-1:], outcomes=())
    for render in FORMS.values():
        document = render(empty)
        for name in TARGETED:
            assert problems(document, name) == []


# --- stable names -----------------------------------------------------------------------------


def case_names(document: str) -> list[tuple[str, str, str]]:
    """(suite, class name, name) of every test case, in document order."""
    root = etree.fromstring(document.encode("utf-8"))
    return [
        (suite.get("name", ""), case.get("classname", ""), case.get("name", ""))
        for suite in root.iter("testsuite")
        for case in suite.iter("testcase")
    ]


@pytest.mark.parametrize("form", list(FORMS))
def test_healthy_and_failing_nights_have_the_same_test_names(form: str) -> None:
    """Each night gated against the one before (two healthy nights and the regressed one)
    names the same test cases in the same order, and so does each of the four nights gated
    without a baseline: no name holds a bundle, a status or a count."""
    render = FORMS[form]
    against_previous = [case_names(render(gated(index, index - 1))) for index in (1, 2, 3)]
    alone = [case_names(render(gated(index, None))) for index in (0, 1, 2, 3)]
    verdicts = [gated(index, index - 1).verdict for index in (1, 2, 3)]
    assert verdicts == ["pass", "pass", "fail"]
    assert against_previous[0]
    assert alone[0]
    assert all(names == against_previous[0] for names in against_previous)
    assert all(names == alone[0] for names in alone)


def test_both_files_name_a_test_case_by_candidate_and_what_was_tested() -> None:
    """Class name the candidate in both files; the name is the rule in ``--junit`` and
    ``case #repetition`` in ``--junit-runs``, so the two files' test cases can be read
    together without a clash, and their suites have distinct names."""
    result = gated(3, 2)
    checks = case_names(render_junit(result))
    runs = case_names(render_junit_runs(result))
    candidates = sorted(item.candidate for item in result.candidates[:-1])
    assert [classname for _, classname, _ in checks] == [
        who for who in [*candidates, "(all candidates)"] for _ in result.rules_in_force
    ]
    assert {name for _, _, name in checks} == set(result.rules_in_force) <= set(RULE_ORDER)
    assert {suite for suite, _, _ in checks} == {"scorecard gate"}
    assert {(suite, classname) for suite, classname, _ in runs} == {
        (f"scorecard runs: {candidate}", candidate) for candidate in candidates
    }
    assert all(name.split(" #")[0] in CASE_IDS for _, _, name in runs)
    everything = [(classname, name) for _, classname, name in checks + runs]
    assert len(everything) == len(set(everything))


# --- counts, as a consumer reads them -------------------------------------------------------


@pytest.mark.parametrize("form", list(FORMS))
def test_counts_are_what_junitparser_counts_from_the_test_cases(form: str, tmp_path: Path) -> None:
    """Each suite's counts, as junitparser reads them, are those of its test cases' results as
    junitparser reads them, and the totals written on ``testsuites`` (tests, failures, errors:
    the schemas allow no skipped count there) are their sums."""
    for label, result in sample_results().items():
        document = FORMS[form](result)
        path = tmp_path / "report.xml"
        path.write_text(document, encoding="utf-8")
        read = JUnitXml.fromfile(str(path))
        written = [(suite.tests, suite.failures, suite.errors, suite.skipped) for suite in read]
        recounted = []
        for suite in read:
            kinds = [type(case.result[0]) if case.result else None for case in suite]
            recounted.append(
                (len(kinds), kinds.count(Failure), kinds.count(Error), kinds.count(Skipped))
            )
        assert written == recounted, label
        root = etree.fromstring(document.encode("utf-8"))
        totals = {key: int(value) for key, value in root.attrib.items() if key != "name"}
        assert totals == {
            "tests": sum(counts[0] for counts in recounted),
            "failures": sum(counts[1] for counts in recounted),
            "errors": sum(counts[2] for counts in recounted),
        }


# --- hostile ids --------------------------------------------------------------------------------

#: Markup, XML's specials, controls, separators, a bidi override, non-characters, an astral
#: character and a run's name ending (``#1``).
PIECES = [*"<>&\"'`|] \t\n\r#.:;/-_aZ9", "\x00", "\x1b", "\x7f", "\x85", "\u2028", "\u202e"]
PIECES += ["\ufeff", "\ufffe", "\uffff", "\U0001f600", "&amp;", "]]>", "<!--", " #1"]
HOSTILE_TEXT = st.lists(
    st.sampled_from(PIECES),
    min_size=1,
    max_size=30,
).map("".join)


@settings(max_examples=40, deadline=None)
@given(
    candidate=HOSTILE_TEXT,
    case=HOSTILE_TEXT,
    bundle=HOSTILE_TEXT,
    reason=HOSTILE_TEXT,
    provider=HOSTILE_TEXT,
)
def test_hostile_ids_and_text_still_validate(
    candidate: str, case: str, bundle: str, reason: str, provider: str
) -> None:
    """Ids, reasons, providers and failure messages made of markup, controls, surrogates and
    XML's non-characters: both files validate against both schemas, every kind of test case
    included (failure, error, skipped, passed)."""

    def runs(night: str) -> list[dict[str, Any]]:
        made = [
            run_record(candidate, CASE_IDS[0], bundle=night, failed=["hard_invariants"],
                       reasons={"hard_invariants": [reason]}),
            infrastructure_failure(candidate, CASE_IDS[1], bundle=night, message=reason),
            run_record(candidate, CASE_IDS[2], bundle=night, overall=None,
                       classification="skipped"),
            run_record(candidate, case, bundle=night),
            *(run_record("other", name, bundle=night, overall=0.5) for name in CASE_IDS[:4]),
        ]  # fmt: skip
        return [{**record, "provider": provider} for record in made]

    rules = GateRules(resamples=200, pooled=False)
    result = evaluate_gate(side(runs(bundle)), side(runs(bundle + "-1")), rules, seed=0)
    for render in FORMS.values():
        for site_url in (None, SITE):
            document = render(result, site_url=site_url)
            for name in TARGETED:
                assert problems(document, name) == []
