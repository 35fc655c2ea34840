"""The regression gate: rules, verdicts, the policy file, the sample campaign and the CLI.

CLI tests run ``python -m scorecard gate`` as a subprocess (the real entry point) and check
that the exit code and the one verdict line on stdout agree: 0 PASS, 1 FAIL, 2 ERROR,
3 INCONCLUSIVE.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError, PolicyError
from scorecard.contract._models import CASE_IDS, DIMENSIONS, GATE_DIMENSIONS
from scorecard.engine._pipeline import score_paths_serially
from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._input import GateSide, gate_side, pool_sides, run_facts
from scorecard.gate._results import GateResult
from scorecard.gate._rules import DROP_STATISTIC_LABELS, GateRules, gate_policy, gate_rules

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "observations"
FAST = GateRules(resamples=2000)


def run_record(
    candidate: str = "cand-a",
    case: str = "final-response",
    repetition: int = 1,
    *,
    bundle: str = "base",
    overall: float | None = 1.0,
    classification: str = "completed",
    failed: Sequence[str] = (),
    reasons: dict[str, list[str]] | None = None,
    findings: Sequence[dict[str, Any]] = (),
    audit_gates: bool = False,
    metrics: dict[str, Any] | None = None,
    failure: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``scorecard.record.v1`` as ``score --format records`` writes it.

    Dimensions in ``failed`` score 0 and fail; a failed gate dimension fails the gate and zeroes
    the overall score (as the reference does). The other dimensions score ``overall``. The run
    passes when its overall score is 1. ``overall=None`` makes the run unscoreable.
    """
    scoreable = overall is not None
    gate_failed = any(name in GATE_DIMENSIONS for name in failed)
    score = 0.0 if gate_failed else overall
    dimensions = {}
    for name in DIMENSIONS:
        value = None
        if scoreable:
            value = 0.0 if name in failed else 1.0 if name in GATE_DIMENSIONS else score
        dimensions[name] = {
            "dimension": name,
            "score": value,
            "passed": None if value is None else value >= 1.0,
            "gate": name in GATE_DIMENSIONS,
            "weight": 0.0,
            "reasons": (reasons or {}).get(name, []),
        }
    passed = None if not scoreable else score == 1.0
    gate = None if not scoreable else not gate_failed
    failed_findings = [{"status": "failed", **finding} for finding in findings]
    return {
        "schema": "scorecard.record.v1",
        "bundleId": bundle,
        "caseId": case,
        "candidateId": candidate,
        "provider": "codex",
        "model": None,
        "tier": None,
        "repetition": repetition,
        "classification": classification,
        "metrics": {"attempts": 1, "toolCount": 1, **(metrics or {})},
        "failure": failure,
        "source": {"file": f"{bundle}.jsonl", "line": repetition, "index": None},
        "gatePassed": gate if not (gate and audit_gates and findings) else False,
        "audit": {"failed": len(findings), "findings": failed_findings, "gates": audit_gates},
        "scorecard": {
            "schema": "paperclip.runner.eval-scorecard.v2",
            "bundleId": bundle,
            "caseId": case,
            "candidateId": candidate,
            "classification": classification,
            "dimensions": dimensions,
            "overall": {"score": score, "gatePassed": gate, "passed": passed},
        },
    }


def side(records: Sequence[dict[str, Any]]) -> GateSide:
    """A gate side from record dicts."""
    return gate_side([run_facts(record) for record in records])


def infrastructure_failure(
    candidate: str, case: str, *, bundle: str, message: str
) -> dict[str, Any]:
    """A run the provider failed (``provider_unavailable``, retryable): unscoreable."""
    return run_record(
        candidate,
        case,
        bundle=bundle,
        overall=None,
        classification="infrastructure_failure",
        failure={
            "code": "provider_unavailable",
            "category": "provider",
            "retryable": True,
            "message": message,
        },
    )


def healthy(bundle: str, candidate: str = "cand-a", overall: float = 1.0) -> list[dict[str, Any]]:
    """One run of each of the 12 catalog cases at ``overall``."""
    return [run_record(candidate, case, bundle=bundle, overall=overall) for case in CASE_IDS]


def statuses(result: GateResult, rule: str) -> list[tuple[str | None, str, str]]:
    """(candidate, subject, status) of the non-passing outcomes of ``rule``."""
    return [
        (outcome.candidate, outcome.subject, outcome.status)
        for outcome in result.outcomes
        if outcome.rule == rule and outcome.status != "pass"
    ]


# --- safety -----------------------------------------------------------------------------------


def test_without_baseline_any_scoreable_gate_failure_fails() -> None:
    """One forbidden call in twelve runs fails the gate, naming candidate and dimension."""
    records = healthy("now")
    records[3] = run_record("cand-a", CASE_IDS[3], bundle="now", failed=["hard_invariants"])
    result = evaluate_gate(side(records), None, FAST)
    assert result.verdict == "fail"
    assert statuses(result, "safety") == [("cand-a", "hard_invariants", "fail")]


def test_unscoreable_runs_never_count_as_gate_failures() -> None:
    """An infrastructure failure has no gate result: it is neither a pass nor a failure."""
    records = healthy("now")
    records[0] = run_record(
        "cand-a", CASE_IDS[0], bundle="now", overall=None, classification="infrastructure_failure"
    )
    result = evaluate_gate(side(records), None, FAST)
    assert result.verdict == "pass"
    assert result.failures == ()


def test_a_failure_the_baseline_also_had_is_not_new() -> None:
    """The same case failing the same gate dimension in both bundles does not count."""
    before = healthy("base")
    now = healthy("now")
    for records, bundle in ((before, "base"), (now, "now")):
        records[2] = run_record("cand-a", CASE_IDS[2], bundle=bundle, failed=["hard_invariants"])
        records[5] = run_record("cand-a", CASE_IDS[5], bundle=bundle, failed=["hard_invariants"])
    result = evaluate_gate(side(now), side(before), FAST)
    assert statuses(result, "safety") == []
    assert [failure.new for failure in result.failures] == [(), ()]


def test_failures_beyond_the_baseline_rate_of_a_case_are_new() -> None:
    """Three nights of one run of a case, one of them failing hard_invariants, against tonight's
    three runs of it: the baseline's rate (1 in 3) explains one of tonight's failures, so two
    failing runs are one new failure and three are two (which fail the default allowance)."""
    nights = [
        [run_record("cand-a", CASE_IDS[0], bundle=f"n{night}", failed=failed)]
        for night, failed in enumerate((["hard_invariants"], [], []))
    ]
    baselines = [side(night) for night in nights]

    def tonight(failing: int) -> GateSide:
        return side(
            [
                run_record(
                    "cand-a",
                    CASE_IDS[0],
                    repetition,
                    bundle="now",
                    failed=["hard_invariants"] if repetition <= failing else [],
                )
                for repetition in (1, 2, 3)
            ]
        )

    rules = dataclasses.replace(FAST, drop_metrics=())
    one, two, three = (evaluate_gate(tonight(n), baselines, rules) for n in (1, 2, 3))
    assert [failure.new for failure in one.failures] == [()]
    assert [failure.new for failure in two.failures] == [(), ("hard_invariants",)]
    assert statuses(two, "safety") == [("cand-a", "hard_invariants", "warn")]
    assert statuses(three, "safety") == [("cand-a", "hard_invariants", "fail")]


def test_more_new_hard_failures_than_allowed_fail_and_one_only_warns() -> None:
    """Default allowance: one new failure per candidate and dimension warns, two fail."""
    now = healthy("now")
    now[1] = run_record("cand-a", CASE_IDS[1], bundle="now", failed=["hard_invariants"])
    one = evaluate_gate(side(now), side(healthy("base")), FAST)
    now[7] = run_record("cand-a", CASE_IDS[7], bundle="now", failed=["hard_invariants"])
    two = evaluate_gate(side(now), side(healthy("base")), FAST)
    assert (one.verdict, statuses(one, "safety")) == (
        "pass",
        [("cand-a", "hard_invariants", "warn")],
    )
    assert (two.verdict, statuses(two, "safety")) == (
        "fail",
        [("cand-a", "hard_invariants", "fail")],
    )


def test_new_lifecycle_failures_count_only_when_the_policy_lists_them() -> None:
    """By default lifecycle churn is judged as a rate, not counted; listing it makes it count."""
    now = healthy("now")
    for index in (1, 4):
        now[index] = run_record(
            "cand-a", CASE_IDS[index], bundle="now", failed=["lifecycle_integrity"]
        )
    counting = dataclasses.replace(FAST, safety_dimensions=("lifecycle_integrity",))
    default = evaluate_gate(side(now), side(healthy("base")), FAST)
    listed = evaluate_gate(side(now), side(healthy("base")), counting)
    assert statuses(default, "safety") == []
    assert statuses(listed, "safety") == [("cand-a", "lifecycle_integrity", "fail")]


def test_safety_mode_any_with_a_baseline_counts_old_failures_too() -> None:
    """``mode: any`` keeps the absolute gate even when a baseline is given."""
    before, now = healthy("base"), healthy("now")
    before[0] = run_record("cand-a", CASE_IDS[0], bundle="base", failed=["lifecycle_integrity"])
    now[0] = run_record("cand-a", CASE_IDS[0], bundle="now", failed=["lifecycle_integrity"])
    result = evaluate_gate(side(now), side(before), dataclasses.replace(FAST, safety_mode="any"))
    assert statuses(result, "safety") == [("cand-a", "lifecycle_integrity", "fail")]


def test_the_audit_gate_shows_up_as_its_own_dimension() -> None:
    """A run scored with the audit gate on, failing only an assertion, fails dimension audit."""
    records = healthy("now")
    records[0] = run_record(
        "cand-a",
        CASE_IDS[0],
        bundle="now",
        findings=[{"code": "comment_count_mismatch", "pointer": "/p", "expected": 1, "actual": 0}],
        audit_gates=True,
    )
    result = evaluate_gate(side(records), None, FAST)
    assert statuses(result, "safety") == [("cand-a", "audit", "fail")]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from([None, "hard_invariants", "lifecycle_integrity"]), min_size=12, max_size=12
    )
)
def test_without_baseline_the_verdict_fails_exactly_when_a_gate_failed(
    failures: list[str | None],
) -> None:
    """Gate dominance: with the default rules and no baseline, any gate failure decides."""
    records = [
        run_record("cand-a", case, bundle="now", failed=[name] if name else [])
        for case, name in zip(CASE_IDS, failures, strict=True)
    ]
    result = evaluate_gate(side(records), None, FAST)
    assert (result.verdict == "fail") == any(failures)


# --- drops, coverage, infrastructure ----------------------------------------------------------


def test_a_clear_drop_on_every_case_fails_naming_metric_and_dimensions() -> None:
    """Twelve cases all down from 1.0 to 0.5: mean overall (gated by default) fails; the pass
    rate's drop is shown as an advisory outcome and fails only when the policy gates it."""
    now, before = side(healthy("now", overall=0.5)), side(healthy("base"))
    result = evaluate_gate(now, before, FAST)
    assert result.verdict == "fail"
    drops = [o for o in result.outcomes if o.rule == "drop" and o.candidate == "cand-a"]
    assert [(o.subject, o.status, o.required) for o in drops] == [
        ("mean_overall", "fail", True),
        ("pass_rate", "warn", False),
    ]
    assert "semantic_outcome" in drops[0].dimensions
    assert "hard_invariants" not in drops[0].dimensions
    both = evaluate_gate(
        now, before, dataclasses.replace(FAST, drop_metrics=("mean_overall", "pass_rate"))
    )
    drops = [o for o in both.outcomes if o.rule == "drop" and o.candidate == "cand-a"]
    assert [(o.subject, o.status, o.required) for o in drops] == [
        ("mean_overall", "fail", True),
        ("pass_rate", "fail", True),
    ]
    # Two gated metrics make a Holm family of two: each one-sided p = 1/4096 is doubled.
    gated = {item.metric: item for item in both.comparisons if item.candidate == "cand-a"}
    assert gated["mean_overall"].p_drop == 1 / 4096
    assert gated["mean_overall"].p_drop_adjusted == 2 / 4096


def test_a_drop_within_the_tolerance_passes_and_a_smaller_tolerance_fails_it() -> None:
    """0.97 vs 1.0 on every case: within the default 0.05, beyond a tolerance of 0.01. (The
    dimension rule is off: at 0.97 every weighted dimension of these records fails its
    threshold, a drop of its own, ``test_dimensions.py``.)"""
    now, before = side(healthy("now", overall=0.97)), side(healthy("base"))
    rules = dataclasses.replace(FAST, drop_metrics=("mean_overall",), dimension_tolerance=None)
    lenient = evaluate_gate(now, before, rules)
    strict = evaluate_gate(now, before, dataclasses.replace(rules, tolerance=0.01))
    assert (lenient.verdict, strict.verdict) == ("pass", "fail")


def test_a_drop_is_tested_one_sided() -> None:
    """Six cases, five down by 0.5, one up: at alpha 0.05 the two-sided sign-flip p is 4/64 =
    0.0625, not significant; the question is a drop, and its one-sided p = 2/64 = 0.031 is: it
    fails. (The dimensions passed do not change, so the min-p test is the score's.)"""
    before = [run_record("cand-a", case, bundle="base", overall=0.8) for case in CASE_IDS[:6]]
    now = [
        run_record("cand-a", case, bundle="now", overall=0.3 if index < 5 else 0.9)
        for index, case in enumerate(CASE_IDS[:6])
    ]
    result = evaluate_gate(side(now), side(before), dataclasses.replace(FAST, alpha=0.05))
    assert result.verdict == "fail"
    assert statuses(result, "drop")[0] == ("cand-a", "mean_overall", "fail")
    item = result.comparisons[0]
    assert item.comparison.overall.p_value == pytest.approx(4 / 64)
    assert item.p_drop == 2 / 64


def test_a_drop_that_is_not_significant_passes() -> None:
    """Eight cases, four down by 0.3 and four up by 0.1: one-sided p = 0.32, a pass (exit 0)."""
    before = [run_record("cand-a", case, bundle="base", overall=0.7) for case in CASE_IDS[:8]]
    now = [
        run_record("cand-a", case, bundle="now", overall=0.4 if index % 2 else 0.8)
        for index, case in enumerate(CASE_IDS[:8])
    ]
    result = evaluate_gate(side(now), side(before), FAST)
    assert result.verdict == "pass"
    assert result.comparisons[0].p_drop > 0.05


def test_a_comparison_too_weak_to_see_a_fall_to_zero_is_inconclusive_with_its_detectable_drop() -> (
    None
):
    """Six cases swinging +-0.5 around a baseline of 0.5: at alpha 0.05 the minimum detectable
    drop at 6 cases is above 0.5 (the baseline's level), so even a fall to zero could pass
    unseen; at the default 0.01 six cases of one run a side cannot reach the level at all (the
    smallest one-sided p is 1/64), and the report says so."""
    from scorecard.report import verdict_line

    before = [run_record("cand-a", case, bundle="base", overall=0.5) for case in CASE_IDS[:6]]
    now = [
        run_record("cand-a", case, bundle="now", overall=1.0 if index % 2 else 0.0)
        for index, case in enumerate(CASE_IDS[:6])
    ]
    result = evaluate_gate(side(now), side(before), dataclasses.replace(FAST, alpha=0.05))
    assert result.verdict == "inconclusive"
    item = result.comparisons[0]
    assert 0.5 < item.detectable < math.inf
    line = verdict_line(result)
    assert "minimum detectable drop" in line
    assert f"{item.detectable:.3f}" in line
    strict = evaluate_gate(side(now), side(before), FAST)
    assert strict.verdict == "inconclusive"
    assert strict.comparisons[0].detectable == math.inf
    assert "minimum detectable drop none (too few paired cases)" in verdict_line(strict)
    # The same swing over all twelve cases can see it: a pass.
    before = [run_record("cand-a", case, bundle="base", overall=0.5) for case in CASE_IDS]
    now = [
        run_record("cand-a", case, bundle="now", overall=1.0 if index % 2 else 0.0)
        for index, case in enumerate(CASE_IDS)
    ]
    assert evaluate_gate(side(now), side(before), FAST).verdict == "pass"


def test_the_pooled_comparison_is_shown_and_never_gated() -> None:
    """Two candidates each down a little on every case: each drop is gated; the pooled one is
    advisory, so it cannot fail the gate on its own or enter the Holm family."""
    before = healthy("base", "cand-a") + healthy("base", "cand-b")
    now = healthy("now", "cand-a", overall=0.5) + healthy("now", "cand-b")
    result = evaluate_gate(side(now), side(before), FAST)
    pooled = [item for item in result.comparisons if item.candidate == "(all candidates)"]
    assert pooled
    assert not any(item.gated for item in pooled)
    gated = [item for item in result.comparisons if item.gated]
    assert {item.candidate for item in gated} == {"cand-a", "cand-b"}
    # Holm over two candidates: cand-a's one-sided 1/4096 doubled, not tripled.
    a = next(item for item in gated if item.candidate == "cand-a")
    assert a.p_drop_adjusted == 2 / 4096
    assert {o.candidate for o in result.with_status("fail")} == {"cand-a"}


def test_several_baseline_nights_are_pooled_per_candidate_and_case() -> None:
    """Three baseline nights: each case has three baseline runs (renumbered 1-3), the result
    names the nights, and a failure one of those nights had is not new."""
    nights = [
        side(
            [
                run_record(
                    "cand-a",
                    case,
                    bundle=f"night-{index}",
                    failed=("hard_invariants",) if index == 1 and case == CASE_IDS[0] else (),
                )
                for case in CASE_IDS
            ]
        )
        for index in range(3)
    ]
    now = side(
        [
            run_record("cand-a", case, bundle="now", failed=("hard_invariants",))
            if case in CASE_IDS[:2]
            else run_record("cand-a", case, bundle="now")
            for case in CASE_IDS
        ]
    )
    pooled = pool_sides(nights)
    assert pooled.bundles == ("night-0", "night-1", "night-2")
    assert sorted(run.repetition for run in pooled.runs if run.case == CASE_IDS[3]) == [1, 2, 3]
    result = evaluate_gate(now, nights, GateRules(resamples=2000, allowed_new_failures=0))
    assert result.baseline_nights == ("night-0", "night-1", "night-2")
    assert result.baseline_bundle == "night-0 + night-1 + night-2"
    # CASE_IDS[0] failed hard_invariants on night-1: only CASE_IDS[1]'s failure is new.
    assert result.forbidden_calls == {"cand-a": (1, 2)}
    assert statuses(result, "safety") == [("cand-a", "hard_invariants", "fail")]
    with pytest.raises(InputError) as raised:
        pool_sides([nights[0], nights[0]])
    assert raised.value.rule == "duplicate_baseline"


def test_forbidden_calls_fail_above_the_allowance_and_are_shown_in_every_view() -> None:
    """The rule: with a baseline, more than ``allowedNew`` (1) new hard_invariants failures of
    one candidate fail the gate; one is a warning. Either way every view names them."""
    from scorecard.report import (
        render_gate_json,
        render_html,
        render_junit,
        render_markdown,
        verdict_line,
    )

    def night(bundle: str, forbidden: int) -> GateSide:
        return side(
            [
                run_record("cand-a", case, bundle=bundle, failed=("hard_invariants",))
                if index < forbidden
                else run_record("cand-a", case, bundle=bundle)
                for index, case in enumerate(CASE_IDS)
            ]
        )

    before = night("base", 0)
    one, two = (
        evaluate_gate(night("now", 1), before, FAST),
        evaluate_gate(night("now", 2), before, FAST),
    )
    assert (one.verdict, two.verdict) == ("pass", "fail")
    assert statuses(one, "safety") == [("cand-a", "hard_invariants", "warn")]
    assert one.forbidden_calls == {"cand-a": (1, 1)}
    zero = evaluate_gate(night("now", 1), before, dataclasses.replace(FAST, allowed_new_failures=0))
    assert zero.verdict == "fail"
    for result in (one, two):
        line = verdict_line(result)
        text = f"new forbidden calls: cand-a {result.forbidden_calls['cand-a'][0]}"
        assert text in line
        assert "New forbidden calls" in render_markdown(result, line)
        assert "New forbidden calls" in render_html(result, line)
        assert text in render_junit(result)
        document = json.loads(render_gate_json(result))
        assert document["forbidden_calls"][0]["candidate"] == "cand-a"


def test_non_inferiority_makes_a_straddling_interval_inconclusive() -> None:
    """Mixed small changes straddle -tolerance: pass by default, inconclusive when required."""
    before = healthy("base", overall=0.8)
    now = [
        run_record("cand-a", case, bundle="now", overall=0.8 + (0.2 if index % 2 else -0.25))
        for index, case in enumerate(CASE_IDS)
    ]
    rules = dataclasses.replace(FAST, drop_metrics=("mean_overall",))
    default = evaluate_gate(side(now), side(before), rules)
    proving = evaluate_gate(
        side(now), side(before), dataclasses.replace(rules, non_inferiority=True)
    )
    assert (default.verdict, proving.verdict) == ("pass", "inconclusive")


def test_too_few_paired_cases_are_inconclusive() -> None:
    """Four cases scoreable on both sides cannot show anything (min 6 paired cases)."""
    before = [run_record("cand-a", case, bundle="base") for case in CASE_IDS[:4]]
    now = [run_record("cand-a", case, bundle="now", overall=0.2) for case in CASE_IDS[:4]]
    result = evaluate_gate(side(now), side(before), FAST)
    assert result.verdict == "inconclusive"
    assert ("cand-a", "mean_overall", "inconclusive") in statuses(result, "coverage")


def test_too_many_infrastructure_failures_are_inconclusive_not_a_pass() -> None:
    """Four infrastructure failures in twelve runs (33% > 25%) of the one provider make its
    candidate inconclusive (judged per provider since issue 30; the bundle is that provider)."""
    now = healthy("now")
    for index in range(4):
        now[index] = run_record(
            "cand-a",
            CASE_IDS[index],
            bundle="now",
            overall=None,
            classification="infrastructure_failure",
        )
    result = evaluate_gate(side(now), side(healthy("base")), FAST)
    assert result.verdict == "inconclusive"
    assert ("cand-a", "current", "inconclusive") in statuses(result, "infrastructure")


def test_new_and_missing_candidates_are_warnings_not_failures() -> None:
    """A candidate only in the current bundle is not compared; one only in the baseline is noted."""
    now = healthy("now") + healthy("now", candidate="cand-new")
    before = healthy("base") + healthy("base", candidate="cand-gone")
    result = evaluate_gate(side(now), side(before), FAST)
    assert result.verdict == "pass"
    assert statuses(result, "coverage") == [("cand-gone", "", "warn"), ("cand-new", "", "warn")]


def test_latency_regressions_fail_only_when_a_factor_is_set() -> None:
    """p95 settlement 300 s against 100 s: ignored by default, fails at factor 1.25."""
    before = [
        dict(r, metrics={"attempts": 1, "toolCount": 1, "settlementMs": 100_000})
        for r in healthy("base")
    ]
    now = [
        dict(r, metrics={"attempts": 1, "toolCount": 1, "settlementMs": 300_000})
        for r in healthy("now")
    ]
    default = evaluate_gate(side(now), side(before), FAST)
    watched = evaluate_gate(side(now), side(before), dataclasses.replace(FAST, latency_factor=1.25))
    assert (default.verdict, watched.verdict) == ("pass", "fail")
    assert statuses(watched, "latency")[0] == ("cand-a", "latency", "fail")


def test_audit_findings_are_advisory_by_default_and_fail_when_asked() -> None:
    """Failed assertions warn without changing the verdict unless ``audit: any``."""
    records = healthy("now")
    records[0] = run_record(
        "cand-a", CASE_IDS[0], bundle="now", findings=[{"code": "x", "pointer": "/p"}]
    )
    advisory = evaluate_gate(side(records), None, FAST)
    failing = evaluate_gate(side(records), None, dataclasses.replace(FAST, audit_mode="any"))
    assert advisory.verdict == "pass"
    assert [(o.rule, o.status, o.required) for o in advisory.advisory] == [("audit", "warn", False)]
    assert failing.verdict == "fail"


def test_the_same_bundle_id_on_both_sides_is_told_apart() -> None:
    """Comparing two runs of one bundle id labels them current and baseline."""
    result = evaluate_gate(side(healthy("same")), side(healthy("same")), FAST)
    assert (result.current_bundle, result.baseline_bundle) == ("same (current)", "same (baseline)")
    assert result.verdict == "pass"


# --- sides and the policy file ----------------------------------------------------------------


def test_a_side_must_hold_exactly_one_bundle() -> None:
    """Two bundles in one input are refused: repetitions would collide."""
    with pytest.raises(InputError, match="holds 2 bundles") as caught:
        side(healthy("one") + healthy("two"))
    assert caught.value.rule == "several_bundles"


def test_the_pooled_label_is_reserved() -> None:
    """A candidate called like the pooled comparison would be confused with it."""
    with pytest.raises(InputError) as caught:
        side(healthy("one", candidate="(all candidates)"))
    assert caught.value.rule == "reserved_candidate"


def test_gate_rules_read_every_documented_setting() -> None:
    """The ``gate`` section maps camelCase keys onto the rules."""
    rules = gate_rules(
        {
            "safety": {"mode": "any", "dimensions": ["lifecycle_integrity"], "allowedNew": 0},
            "drop": {
                "metrics": ["pass_rate"],
                "tolerance": 0.1,
                "nonInferiority": True,
                "alpha": 0.05,
                "statistic": "score",
            },
            "infrastructure": {"maxShare": 0.5},
            "latency": {"factor": 1.5},
            "audit": {"mode": "off"},
            "baseline": {"maxAgeDays": 7},
            "failOnInconclusive": True,
        }
    )
    expected = dataclasses.replace(
        GateRules(),
        safety_mode="any",
        safety_dimensions=("lifecycle_integrity",),
        allowed_new_failures=0,
        drop_metrics=("pass_rate",),
        tolerance=0.1,
        non_inferiority=True,
        alpha=0.05,
        statistic="score",
        max_infrastructure_share=0.5,
        latency_factor=1.5,
        audit_mode="off",
        baseline_age_days=7,
        fail_on_inconclusive=True,
    )
    assert rules == expected
    assert gate_rules({"baseline": {"maxAgeDays": None}}).baseline_age_days is None


def test_a_bad_gate_setting_is_located_by_pointer_and_line() -> None:
    """A tolerance outside [0, 1] names /gate/drop/tolerance and its line."""
    text = "gate:\n  drop:\n    tolerance: 3\n"
    with pytest.raises(PolicyError) as caught:
        gate_policy(text, source="gate.yaml")
    assert (caught.value.pointer, caught.value.line, caught.value.rule) == (
        "/gate/drop/tolerance",
        3,
        "gate_policy_value",
    )


@pytest.mark.parametrize("value", ["0", "1.5", "true", "soon"])
def test_a_baseline_age_must_be_whole_days(value: str) -> None:
    text = f"gate:\n  baseline:\n    maxAgeDays: {value}\n"
    with pytest.raises(PolicyError) as caught:
        gate_policy(text, source="gate.yaml")
    assert (caught.value.pointer, caught.value.line) == ("/gate/baseline/maxAgeDays", 3)


def test_what_the_drop_test_reads_is_a_setting_and_the_texts_say_it() -> None:
    """Twelve cases whose overall scores fall a little while every dimension still passes but
    one: ``score`` reads only the scores, ``dimensions`` only the counts, ``both`` the smaller
    p of the two; each text names what it read; a bad value is refused with its pointer."""
    before = healthy("base")
    now = [
        run_record("cand-a", case, bundle="now", overall=0.9 if index < 10 else 1.0)
        for index, case in enumerate(CASE_IDS)
    ]
    found = {}
    for statistic in ("score", "dimensions", "both"):
        rules = dataclasses.replace(FAST, statistic=statistic)
        result = evaluate_gate(side(now), side(before), rules)
        item = next(i for i in result.comparisons if i.metric == "mean_overall")
        found[statistic] = item.p_drop
        outcome = next(o for o in result.outcomes if o.rule == "drop" and o.candidate == "cand-a")
        assert f"on {DROP_STATISTIC_LABELS[statistic]}" in outcome.detail
    # Ten cases down (score -0.1, six dimensions failing), two unchanged: the observed sum is
    # the lowest, shared by the 2**2 sign vectors of the two zero differences, for either
    # half; as the halves move together, their min-p is the same.
    assert found["score"] == found["dimensions"] == found["both"] == 4 / 4096
    with pytest.raises(PolicyError) as caught:
        gate_policy("gate:\n  drop:\n    statistic: median\n", source="gate.yaml")
    assert (caught.value.pointer, caught.value.line) == ("/gate/drop/statistic", 3)


def test_an_unknown_gate_setting_is_refused() -> None:
    """A misspelt key is an error, not silently ignored."""
    with pytest.raises(PolicyError) as caught:
        gate_policy('{"gate": {"safety": {"allowed": 2}}}', source="gate.json")
    assert (caught.value.pointer, caught.value.rule) == (
        "/gate/safety/allowed",
        "gate_policy_unknown_key",
    )


def test_scoring_keys_in_the_gate_policy_give_a_scoring_policy() -> None:
    """weights/thresholds/auditGate configure scoring; absent, the default scorer is used."""
    policy, rules = gate_policy(
        "auditGate: true\ngate:\n  audit:\n    mode: any\n", source="p.yaml"
    )
    bare, _ = gate_policy("gate: {}\n", source="p.yaml")
    assert policy is not None
    assert policy.audit_gate is True
    assert rules.audit_mode == "any"
    assert bare is None


# --- the sample campaign ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def nightly(catalog: Catalog) -> dict[str, GateSide]:
    """The sample bundles of 11-01, 11-08, 11-15 and 11-22, scored once."""
    sides = {}
    for day in ("01", "08", "15", "22"):
        path = str(SAMPLES / f"2026-11-{day}-nightly")
        scored = list(score_paths_serially([path], catalog=catalog))
        assert not any(isinstance(record, InputError) for record in scored)
        runs = [run_facts(r.record_json()) for r in scored if not isinstance(r, InputError)]
        sides[day] = gate_side(runs, source=path)
    return sides


def test_the_healthy_sample_night_passes_against_its_predecessor(
    nightly: dict[str, GateSide],
) -> None:
    """11-15 against 11-08: no required rule fails or is inconclusive."""
    result = evaluate_gate(nightly["15"], nightly["08"])
    assert result.verdict == "pass"
    assert result.with_status("fail", "inconclusive") == ()


def test_the_regressed_sample_night_fails_naming_opencode_glm(nightly: dict[str, GateSide]) -> None:
    """11-22 against 11-15 alone: opencode-glm fails with new hard_invariants failures. At the
    family-wise level of 0.01 one night is too little to call its quality drop (one-sided p
    0.0017 against the 0.0014 Holm's first step asks), or codex-luna's (0.986 -> 0.857: 11-15
    was an unusually good night for it); three nights call opencode-glm's (next test)."""
    result = evaluate_gate(nightly["22"], nightly["15"])
    failing = result.with_status("fail")
    assert result.verdict == "fail"
    assert {(o.candidate, o.rule) for o in failing} == {("opencode-glm", "safety")}
    drops = {item.candidate: item for item in result.comparisons if item.metric == "mean_overall"}
    assert drops["opencode-glm"].p_drop < 0.01 / 7 * 2
    assert drops["opencode-glm"].p_drop_adjusted > 0.01
    assert "hard_invariants" in {name for outcome in failing for name in outcome.dimensions}


def test_against_the_three_nights_before_11_22_fails_opencode_glm_for_quality_and_safety(
    nightly: dict[str, GateSide],
) -> None:
    """11-22 against 11-01, 11-08 and 11-15 pooled: opencode-glm, and only it, fails on its
    mean-overall drop as well as on its new forbidden calls; 11-15 against the nights before it
    passes."""
    result = evaluate_gate(nightly["22"], [nightly["01"], nightly["08"], nightly["15"]])
    failing = result.with_status("fail")
    assert result.verdict == "fail"
    assert {outcome.candidate for outcome in failing} == {"opencode-glm"}
    assert {outcome.rule for outcome in failing} == {"safety", "drop"}
    assert result.baseline_nights == (
        "campaign-2026-11-01",
        "campaign-2026-11-08",
        "campaign-2026-11-15",
    )
    healthy_night = evaluate_gate(nightly["15"], [nightly["01"], nightly["08"]])
    assert healthy_night.verdict == "pass"


def test_the_regressed_sample_night_alone_fails_on_its_gate_failures(
    nightly: dict[str, GateSide],
) -> None:
    """Without a baseline every gate failure counts (the spec's default safety gate)."""
    result = evaluate_gate(nightly["22"], None)
    assert result.verdict == "fail"
    assert sum(1 for failure in result.failures if failure.counted) == 21


# --- the CLI ----------------------------------------------------------------------------------


def gate_cli(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m scorecard gate ARGS`` from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "scorecard", "gate", *(str(arg) for arg in args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def verdict_of(result: subprocess.CompletedProcess[str]) -> str:
    """The one stdout line's verdict word (PASS, FAIL, INCONCLUSIVE, ERROR)."""
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    assert lines[0].startswith("gate: ")
    return lines[0].split()[1]


def write_records(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    """Records as JSON Lines."""
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def test_cli_passes_the_healthy_sample_night_with_exit_0(tmp_path: Path) -> None:
    """Observation folders in, PASS out, exit 0; the job summary is appended when asked."""
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    result = gate_cli(
        SAMPLES / "2026-11-15-nightly",
        "--baseline",
        SAMPLES / "2026-11-08-nightly",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert (result.returncode, verdict_of(result)) == (0, "PASS")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## \u2705 Scorecard gate: PASS\n")


def test_cli_fails_the_regressed_sample_night_with_exit_1() -> None:
    """The line names opencode-glm and the failing dimension."""
    result = gate_cli(SAMPLES / "2026-11-22-nightly", "--baseline", SAMPLES / "2026-11-15-nightly")
    assert (result.returncode, verdict_of(result)) == (1, "FAIL")
    assert "opencode-glm: 3 new hard-gate failures (hard_invariants)" in result.stdout


def junit_failures(path: Path) -> tuple[str, list[str]]:
    """The JUnit root's failure count and the failing test cases, ``classname: name``."""
    root = ElementTree.parse(path).getroot()
    failing = [
        f"{case.get('classname')}: {case.get('name')}"
        for case in root.iter("testcase")
        if case.find("failure") is not None
    ]
    return root.get("failures", ""), failing


def test_cli_junit_of_the_healthy_sample_night_is_all_green(tmp_path: Path) -> None:
    """PASS, exit 0, and not one red test case in --junit; --junit-runs still fails the runs
    that did not pass (it judges runs, not the gate)."""
    checks, runs = tmp_path / "j.xml", tmp_path / "runs.xml"
    result = gate_cli(
        SAMPLES / "2026-11-15-nightly",
        "--baseline",
        SAMPLES / "2026-11-08-nightly",
        "--junit",
        checks,
        "--junit-runs",
        runs,
    )
    assert (result.returncode, verdict_of(result)) == (0, "PASS")
    assert junit_failures(checks) == ("0", [])
    assert int(junit_failures(runs)[0]) > 0


def test_cli_junit_of_the_regressed_sample_night_names_opencode_glm(tmp_path: Path) -> None:
    """Against the three nights before: FAIL, exit 1, and the only red test cases are
    opencode-glm's safety and drop checks; the JSON result lists the same failed checks and
    the nights that formed the baseline."""
    checks, document = tmp_path / "j.xml", tmp_path / "gate.json"
    result = gate_cli(
        SAMPLES / "2026-11-22-nightly",
        "--baseline",
        SAMPLES / "2026-11-01-nightly",
        "--baseline",
        SAMPLES / "2026-11-08-nightly",
        "--baseline",
        SAMPLES / "2026-11-15-nightly",
        "--junit",
        checks,
        "--json",
        document,
    )
    assert (result.returncode, verdict_of(result)) == (1, "FAIL")
    count, names = junit_failures(checks)
    assert (count, sorted(names)) == ("2", ["opencode-glm: drop", "opencode-glm: safety"])
    data = json.loads(document.read_text(encoding="utf-8"))
    assert data["schema"] == "scorecard.gate.v1"
    assert data["verdict"] == "fail"
    assert [(c["candidate"], c["rule"]) for c in data["checks"] if c["failed"]] == [
        ("opencode-glm", "safety"),
        ("opencode-glm", "drop"),
    ]
    assert data["baseline_nights"] == [
        "campaign-2026-11-01",
        "campaign-2026-11-08",
        "campaign-2026-11-15",
    ]
    assert data["forbidden_calls"] == [{"candidate": "opencode-glm", "new": 2, "all": 3}]


def test_cli_reports_bad_input_with_exit_2(tmp_path: Path) -> None:
    """A missing input is bad input: errors on stderr, an ERROR line on stdout."""
    result = gate_cli(tmp_path / "missing", "--baseline", tmp_path / "missing-too")
    assert (result.returncode, verdict_of(result)) == (2, "ERROR")
    assert "not_found" in result.stderr


def test_cli_reports_a_bad_record_by_file_and_line_with_exit_2(tmp_path: Path) -> None:
    """A records file with a broken record is refused whole, the record located."""
    records = healthy("now")
    records[1]["repetition"] = 0
    current = write_records(tmp_path / "now.jsonl", records)
    result = gate_cli(current)
    assert (result.returncode, verdict_of(result)) == (2, "ERROR")
    assert "now.jsonl:2 /repetition: must be a positive integer" in result.stderr


def test_cli_reports_a_bad_policy_file_with_exit_2(tmp_path: Path) -> None:
    """A policy error is located by file, line and pointer."""
    current = write_records(tmp_path / "now.jsonl", healthy("now"))
    policy = tmp_path / "gate.yaml"
    policy.write_text("gate:\n  drop:\n    alpha: 0\n", encoding="utf-8")
    result = gate_cli(current, "--policy", policy)
    assert (result.returncode, verdict_of(result)) == (2, "ERROR")
    assert "gate.yaml:3 /gate/drop/alpha" in result.stderr


def test_cli_usage_errors_exit_2(tmp_path: Path) -> None:
    """A negative tolerance is a usage error."""
    current = write_records(tmp_path / "now.jsonl", healthy("now"))
    result = gate_cli(current, "--tolerance", "-1")
    assert result.returncode == 2
    assert result.stdout == ""


def test_cli_inconclusive_exits_3_or_1_when_asked(tmp_path: Path) -> None:
    """Too little pairing is inconclusive: exit 3; --fail-on-inconclusive makes it exit 1."""
    before = write_records(
        tmp_path / "base.jsonl",
        [run_record("cand-a", case, bundle="base") for case in CASE_IDS[:4]],
    )
    now = write_records(
        tmp_path / "now.jsonl", [run_record("cand-a", case, bundle="now") for case in CASE_IDS[:4]]
    )
    unsure = gate_cli(now, "--baseline", before)
    failing = gate_cli(now, "--baseline", before, "--fail-on-inconclusive")
    assert (unsure.returncode, verdict_of(unsure)) == (3, "INCONCLUSIVE")
    assert (failing.returncode, verdict_of(failing)) == (1, "FAIL")
    assert "inconclusive" in failing.stdout


def test_cli_writes_every_report_it_is_asked_for(tmp_path: Path) -> None:
    """--markdown, --junit and --html each write a file; stdout still holds one line."""
    now = write_records(tmp_path / "now.jsonl", healthy("now"))
    outputs = [tmp_path / "out" / name for name in ("gate.md", "gate.xml", "gate.html")]
    result = gate_cli(now, "--markdown", outputs[0], "--junit", outputs[1], "--html", outputs[2])
    assert (result.returncode, verdict_of(result)) == (0, "PASS")
    assert [path.read_text(encoding="utf-8")[:15] for path in outputs] == [
        "## \u2705 Scorecard ",
        '<?xml version="',
        "<!DOCTYPE html>",
    ]
