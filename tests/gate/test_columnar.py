"""The gate judging columns (rows from the fast path, detail only where a verdict shows it) gives
exactly what it gives judging one RunFacts per scored record."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from scorecard.aggregate._frames import records_frame, select_rows
from scorecard.contract._catalog import load_catalog
from scorecard.contract._errors import InputError
from scorecard.contract._policy import Policy
from scorecard.engine._detail import run_evidence
from scorecard.engine._rows import LoadedRecords
from scorecard.engine._run import score_run
from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._input import (
    GateSide,
    frame_side,
    gate_side,
    labelled_sides,
    metric_frame,
    row_facts,
    rows_side,
    run_facts,
)
from scorecard.gate._results import GateResult
from scorecard.gate._rules import GateRules
from scorecard.gate._runs import frame_row
from scorecard.report import (
    render_gate_json,
    render_junit,
    render_junit_runs,
    render_markdown,
    verdict_line,
)
from scorecard.simulate import simulate_campaign

CATALOG = load_catalog()
FEW = 400  # resamples: both paths resample alike, and the test stays quick
RULES = {
    "default": GateRules(resamples=FEW),
    "strict": GateRules(
        safety_mode="any", audit_mode="any", latency_factor=1.0, cost_factor=1.0, resamples=FEW
    ),
    "new audit": GateRules(audit_mode="new", latency_factor=1.05, resamples=FEW),
}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three simulated nights of a campaign of another seed than the samples'."""
    return simulate_campaign(tmp_path_factory.mktemp("campaign"), seed=7, bundles=3)


@pytest.fixture(scope="module")
def old(campaign: list[Path]) -> list[GateSide]:
    """The nights read one RunFacts per record."""
    return [per_record_side(folder) for folder in campaign]


@pytest.fixture(scope="module")
def new(campaign: list[Path]) -> list[GateSide]:
    """The nights read as columns, the last one shown (a current side)."""
    return [columnar_side(folder, shown=index == 2) for index, folder in enumerate(campaign)]


def per_record_side(folder: Path, policy: Policy | None = None) -> GateSide:
    """The side as the gate read it before: one RunFacts per scored record (general path)."""
    records = list(score_run([folder], catalog=CATALOG, policy=policy).records())
    return gate_side([with_evidence(record) for record in good(records)])


def without_evidence(run: Any) -> Any:
    return dataclasses.replace(run, evidence=None)


def with_evidence(record: Any) -> Any:
    """The record's run with the evidence a scored observation gives its failing reasons (a
    records file holds none), made from the record's own observation and scorecard."""
    made = record.record_json()
    facts = run_facts(made)
    if facts.gate_passed is not False and not facts.findings:
        return facts  # the detail a verdict shows is made for these runs only
    evidence = run_evidence(
        record.observation,
        made["scorecard"],
        CATALOG,
        file=record.source,
        line=record.line,
        index=record.index,
    )
    return dataclasses.replace(facts, evidence=evidence)


def good(items: list[Any]) -> list[Any]:
    """``items``, checked to hold no error."""
    assert not any(isinstance(item, InputError) for item in items)
    return items


def columnar_side(
    folder: Path, policy: Policy | None = None, *, every: bool = False, shown: bool = True
) -> GateSide:
    """The side as the gate reads it now: fast-path rows, detail where it is needed."""
    run = score_run([folder], catalog=CATALOG, policy=policy, workers=2, chunk_bytes=50_000)
    items: list[Any] = list(run.detailed_rows(every=every))
    return rows_side(items, shown=shown)


def rendered(result: GateResult) -> tuple[str, ...]:
    """Every report of a result, as text."""
    line = verdict_line(result, fail_on_inconclusive=False)
    return (
        line,
        render_gate_json(result),
        render_markdown(result, line, site_url="https://ci.example/site"),
        render_junit(result, site_url=None),
    )


@pytest.mark.parametrize("rules", list(RULES), ids=list(RULES))
def test_columnar_sides_give_the_per_record_verdict_and_reports(
    old: list[GateSide], new: list[GateSide], rules: str
) -> None:
    """Against one baseline and two pooled nights, every report is the same text."""
    for baseline in ([0], [1], [0, 1]):
        expected = evaluate_gate(old[2], [old[index] for index in baseline], RULES[rules], seed=3)
        result = evaluate_gate(new[2], [new[index] for index in baseline], RULES[rules], seed=3)
        assert rendered(expected) == rendered(result)


def test_a_gate_without_baseline_is_the_same(old: list[GateSide], new: list[GateSide]) -> None:
    """No baseline: the safety, infrastructure and audit rules read the same columns."""
    expected = evaluate_gate(old[2], None, RULES["strict"])
    assert rendered(expected) == rendered(evaluate_gate(new[2], None, RULES["strict"]))


def test_the_runs_with_findings_are_made_without_the_others(
    old: list[GateSide], new: list[GateSide]
) -> None:
    """``runs_with_findings`` of a table (made from its columns) and of a tuple of runs (the
    per-record side) are the current runs with failed findings, in run order."""
    by_records = evaluate_gate(old[2], [old[1]], RULES["strict"], seed=3)
    by_columns = evaluate_gate(new[2], [new[1]], RULES["strict"], seed=3)
    expected = [run for run in by_records.runs if run.findings]
    assert expected, "the simulated campaign has runs with failed findings"
    assert list(by_records.runs_with_findings) == expected
    assert list(by_columns.runs_with_findings) == expected
    as_tuple = dataclasses.replace(by_columns, runs=tuple(by_columns.runs))
    assert list(as_tuple.runs_with_findings) == expected


def test_with_every_detail_the_runs_are_the_records_runs(
    campaign: list[Path], old: list[GateSide]
) -> None:
    """Detail for every run: each run made from the columns equals its record's RunFacts, so
    the per-run JUnit is the same too."""
    before, now = old[2], columnar_side(campaign[2], every=True)
    # Every run has evidence here; the per-record side gives it to the runs a verdict shows.
    then = [without_evidence(run) for run in before.runs]
    made = [without_evidence(run) for run in now.runs]
    assert then == made
    assert made[5] == then[5]
    assert made[3:7] == then[3:7]
    assert render_junit_runs(evaluate_gate(before, None), site_url=None) == render_junit_runs(
        evaluate_gate(now, None), site_url=None
    )


def test_detail_is_kept_for_exactly_the_runs_a_verdict_shows(
    old: list[GateSide], new: list[GateSide]
) -> None:
    """Gate-failed runs and runs with failed findings equal their records' RunFacts; the others
    show no reasons, failure or source, as a row's run does."""
    shown = 0
    for before, now in zip(old[2].runs, new[2].runs, strict=True):
        if before.gate_failed or before.findings:
            shown += 1
            assert now == before
        else:
            assert now.reasons == tuple(() for _ in before.reasons)
            assert (now.findings, now.failure, now.source) == ((), None, None)
            assert now == dataclasses.replace(
                before, reasons=now.reasons, failure=None, source=None, audit_gates=False
            )
    assert shown > 10


def test_a_baseline_side_keeps_only_the_findings(old: list[GateSide], new: list[GateSide]) -> None:
    """Not shown: the failed findings stay (the audit rule reads them), the text goes."""
    assert [run.findings for run in old[0].runs] == [run.findings for run in new[0].runs]
    assert any(run.findings for run in new[0].runs)
    assert all(run.failure is None and not any(run.reasons) for run in new[0].runs)


def test_the_stacked_frame_is_the_frame_of_the_runs_rows(new: list[GateSide]) -> None:
    """The analysis's frame from columns equals the records frame of each run's gate row."""
    baseline, current = new[0], new[2]
    labelled = labelled_sides(current, baseline)
    rows = LoadedRecords()
    rows.rows.extend(
        frame_row(run, label, overall=run.overall, scores=run.scores)
        for label, side in labelled
        for run in side.runs
    )
    expected = records_frame(rows, bundle_order=[label for label, _ in labelled])
    pd.testing.assert_frame_equal(metric_frame(labelled), expected)
    same = labelled_sides(current, current)  # one bundle on both sides: labelled apart
    assert list(metric_frame(same)["bundle"].cat.categories) == [label for label, _ in same]


def test_an_audit_gating_policy_takes_the_general_path_with_the_same_verdict(
    campaign: list[Path],
) -> None:
    """With auditGate the rows take the general path; the findings fail the gate the same."""
    policy = Policy(audit_gate=True)
    old = [per_record_side(folder, policy) for folder in campaign[:2]]
    new = [columnar_side(folder, policy) for folder in campaign[:2]]
    assert rendered(evaluate_gate(old[1], old[0], RULES["strict"])) == rendered(
        evaluate_gate(new[1], new[0], RULES["strict"])
    )
    assert any("audit" in run.failing_gates() for run in new[1].runs)


def test_frame_sides_judge_as_row_facts_did(campaign: list[Path]) -> None:
    """compare's gate statuses: sides of the campaign frame judge as RunFacts of its rows."""
    rows = good(list(score_run(campaign, catalog=CATALOG).rows()))
    frame = records_frame(LoadedRecords(rows=rows))
    bundles = [str(name) for name in frame["bundle"].cat.categories]
    by_bundle = {name: [row_facts(row) for row in rows if row[0] == name] for name in bundles}
    expected = evaluate_gate(
        gate_side(by_bundle[bundles[2]]), gate_side(by_bundle[bundles[1]]), RULES["strict"]
    )
    result = evaluate_gate(
        frame_side(select_rows(frame, bundle=bundles[2])),
        frame_side(select_rows(frame, bundle=bundles[1])),
        RULES["strict"],
    )
    assert rendered(expected) == rendered(result)


def test_a_named_frame_side_is_the_side_of_its_runs_renamed(campaign: list[Path]) -> None:
    """``frame_side(..., bundle=B)`` (a given --baseline-bundle-id): the runs of several bundles
    judged as one bundle B, as the same runs renamed are; a run two bundles hold repeats."""
    rows = good(list(score_run(campaign, catalog=CATALOG).rows()))
    frame = records_frame(LoadedRecords(rows=rows))
    bundles = [str(name) for name in frame["bundle"].cat.categories]
    candidates = sorted({row[1] for row in rows})
    # Half the candidates from one bundle, the rest from another: no run is in both.
    mixed = [
        row
        for row in rows
        if (row[0] == bundles[0] and row[1] in candidates[::2])
        or (row[0] == bundles[1] and row[1] in candidates[1::2])
    ]
    named = frame_side(records_frame(LoadedRecords(rows=mixed)), bundle="renamed")
    renamed = gate_side([dataclasses.replace(row_facts(row), bundle="renamed") for row in mixed])
    current = frame_side(select_rows(frame, bundle=bundles[2]))
    assert named.bundle == "renamed"
    assert rendered(evaluate_gate(current, named, RULES["strict"])) == rendered(
        evaluate_gate(current, renamed, RULES["strict"])
    )
    both = [row for row in rows if row[0] in bundles[:2]]
    with pytest.raises(InputError, match="repeats candidate"):
        frame_side(records_frame(LoadedRecords(rows=both)), bundle="renamed")


def test_rows_sides_are_checked_as_run_sides_are() -> None:
    """No rows, the reserved candidate and a repeated run raise what gate_side raises."""
    with pytest.raises(InputError, match="no scored records found"):
        rows_side([])
    run = score_run([Path("observations/2026-11-22-nightly")], catalog=CATALOG)
    rows = good(list(run.rows()))
    with pytest.raises(InputError, match="repeats candidate") as raised:
        rows_side([(row, None) for row in [*rows, rows[0]]], source="x.parquet")
    with pytest.raises(InputError, match="repeats candidate") as expected:
        gate_side([row_facts(row) for row in [*rows, rows[0]]], source="x.parquet")
    assert str(raised.value) == str(expected.value)


def _details_one_by_one(result: GateResult, budget: Any) -> None:
    """The markdown details made the plain way: every block built, then each offered to the
    budget (the heading with the first; a block that does not fit is counted as left out)."""
    from scorecard.report._escape import markdown_fence, markdown_inline

    blocks = []
    for index, failure in enumerate(result.failures):
        run = failure.run
        lines = [
            f"{name}: {reason}" for name in failure.dimensions for reason in run.reasons_for(name)
        ]
        if run.failure:
            lines.append(f"failure: {run.failure}")
        blocks.append(
            (
                f"failure-{index}",
                f"**{markdown_inline(run.candidate)}** \u00b7 {markdown_inline(run.case)} "
                f"\u00b7 repetition {run.repetition} \u00b7 gate failed: "
                + ", ".join(f"`{name}`" for name in failure.dimensions)
                + f"\n\n{markdown_fence(chr(10).join(lines) or '(no reason recorded)')}\n\n",
            )
        )
    if result.rules.audit_mode != "off":
        for index, run in enumerate(result.runs_with_findings):
            lines = [
                f"{finding.code} at {finding.pointer}: expected {finding.expected}, actual "
                f"{finding.actual}" + (f" ({finding.hint})" if finding.hint else "")
                for finding in run.findings
            ]
            kind = "advisory" if result.rules.audit_mode == "advisory" else "required"
            blocks.append(
                (
                    f"audit-{index}",
                    f"**{markdown_inline(run.candidate)}** \u00b7 {markdown_inline(run.case)} "
                    f"\u00b7 repetition {run.repetition} \u00b7 failed audit findings ({kind})"
                    f"\n\n{markdown_fence(chr(10).join(lines))}\n\n",
                )
            )
    for number, (key, block) in enumerate(blocks):
        heading = "" if number else "### Details (untrusted text)\n\n"
        budget.add(heading + block, kind="detail", key=key)


@pytest.mark.parametrize("rules", list(RULES), ids=list(RULES))
def test_markdown_details_past_the_limit_are_only_counted(
    new: list[GateSide], rules: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks past the byte limit are only counted: the summary, its truncation note and its
    rows' references included, is the one every block built and offered gives, at limits that
    cut the details anywhere (or not at all)."""
    from scorecard.report import _markdown

    result = evaluate_gate(new[2], [new[1]], RULES[rules], seed=3)
    assert result.failures
    line = verdict_line(result, fail_on_inconclusive=False)
    limits = [800, 5_000, 12_000, 30_000, 60_000, 10_000_000]
    found = [render_markdown(result, line, limit=limit) for limit in limits]
    monkeypatch.setattr(_markdown, "_details", _details_one_by_one)
    expected = [render_markdown(result, line, limit=limit) for limit in limits]
    assert found == expected
    assert "Truncated" in found[2]
    assert "Truncated" not in found[-1]


def test_facts_of_a_scored_record_are_those_of_its_record_json(campaign: list[Path]) -> None:
    """``scored_facts(record, scored_row(record))`` is ``run_facts(record.record_json())`` (by
    ``repr``: kinds and signs too) for every run of the samples and of a campaign of another
    seed, with the audit gating or not, and for runs whose reasons, failure code and message
    hold secret-shaped text (redacted the same)."""
    from scorecard.engine import scored_row
    from scorecard.gate import scored_facts
    from tests.conftest import ROOT

    secret = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    records: list[Any] = []
    for policy in (Policy(), Policy(audit_gate=True)):
        records += good(
            list(score_run([ROOT / "observations", *campaign], policy=policy).records())
        )
    failed = next(record for record in records if record.observation.get("failure"))
    card = dict(failed.card)
    card["dimensions"] = {
        name: {**dimension, "reasons": [*dimension["reasons"], f"saw {secret} here"]}
        for name, dimension in failed.card["dimensions"].items()
    }
    observation = dict(failed.observation)
    observation["failure"] = {
        **observation["failure"], "code": f"E_{secret}", "message": f"token {secret}"
    }  # fmt: skip
    records.append(dataclasses.replace(failed, card=card, observation=observation))
    kinds = {"findings": 0, "failure": 0, "gate": 0}
    for record in records:
        expected = run_facts(record.record_json())
        assert repr(scored_facts(record, scored_row(record))) == repr(expected)
        kinds["findings"] += bool(expected.findings)
        kinds["failure"] += expected.failure is not None
        kinds["gate"] += expected.audit_gates
    assert all(count > 0 for count in kinds.values()), kinds
    made = scored_facts(records[-1], scored_row(records[-1]))
    assert secret not in repr(made)
    assert made.failure is not None
    assert "[redacted]" in made.failure


def test_facts_read_back_from_a_pickle_are_the_same_run() -> None:
    """A run pickled (as a scoring worker sends it) reads back as the same run, by ``repr``
    (kinds and zeros' signs too), its evidence and findings included; a frozen run stays
    frozen."""
    import pickle

    from tests.conftest import ROOT

    records = good(list(score_run([ROOT / "observations"], catalog=CATALOG).records()))
    runs = [with_evidence(record) for record in records]
    runs.append(dataclasses.replace(runs[0], scores=(-0.0, *runs[0].scores[1:]), overall=-0.0))
    assert any(run.evidence is not None for run in runs)
    assert any(run.findings for run in runs)
    back = pickle.loads(pickle.dumps(runs, protocol=pickle.HIGHEST_PROTOCOL))
    assert [repr(run) for run in back] == [repr(run) for run in runs]
    assert back == runs
    with pytest.raises(dataclasses.FrozenInstanceError):
        back[0].repetition = 9
