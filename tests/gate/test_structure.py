"""Structure the gate sees: shared shifts (environment, provider) and outages per provider.

Expected values are worked out by hand in each test's docstring or comments.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest

from scorecard.contract._models import CASE_IDS
from scorecard.gate._cases import (
    BOSCHLOO_TABLES,
    _most_extreme,
    boschloo_tail,
    fisher_tail,
    tarone_count,
)
from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._input import GateSide
from scorecard.gate._results import GateResult
from scorecard.gate._rules import GateRules
from scorecard.gate._shifts import _fisher, median_interval
from scorecard.report._gate_json import gate_document

from .test_gate import infrastructure_failure, run_record, side

FAST = GateRules(resamples=2000)
#: A run's overall by repetition: spread within a case, so the tests have noise to read.
LEVELS = (0.9, 0.95, 1.0)


def night(
    bundle: str,
    roster: dict[str, str],
    drops: dict[str, float],
    outage: frozenset[str] = frozenset(),
    *,
    levels: tuple[float, ...] = LEVELS,
    broken: dict[tuple[str, str], int] | None = None,
    dipped: dict[tuple[str, str], float] | None = None,
) -> GateSide:
    """A run of every case per candidate (``roster``: candidate -> provider) at each of
    ``levels`` minus the candidate's drop; every run of a provider in ``outage`` is an
    infrastructure failure; ``broken`` (candidate, case) -> how many of its runs fail the gate
    (``lifecycle_integrity``, as a candidate failure does: overall 0); ``dipped`` (candidate,
    case) -> the overall score of every one of its runs (their gate passed)."""
    records: list[dict[str, Any]] = []
    for candidate, provider in roster.items():
        for case in CASE_IDS:
            for repetition, level in enumerate(levels, start=1):
                if provider in outage:
                    record = infrastructure_failure(candidate, case, bundle=bundle, message="down")
                    record["repetition"] = repetition
                else:
                    overall = round(level - drops.get(candidate, 0.0), 6)
                    overall = (dipped or {}).get((candidate, case), overall)
                    gate = repetition <= (broken or {}).get((candidate, case), 0)
                    record = run_record(
                        candidate,
                        case,
                        repetition,
                        bundle=bundle,
                        overall=overall,
                        failed=("lifecycle_integrity",) if gate else (),
                    )
                record["provider"] = provider
                records.append(record)
    return side(records)


def failing(result: GateResult, rule: str) -> list[tuple[str | None, str]]:
    return [(o.candidate, o.subject) for o in result.with_status("fail") if o.rule == rule]


SIX = {f"c{index}": "p1" if index < 3 else "p2" for index in range(6)}


def test_median_interval_by_hand() -> None:
    """n = 7: k = 1 covers 1 - 2/128 = 0.984 and k = 2 only 1 - 16/128 = 0.875, so [x1, x7];
    n = 11: k = 2 covers 1 - 24/2048 = 0.988, k = 3 1 - 134/2048 = 0.935: [x2, x10]."""
    assert median_interval([7, 1, 2, 3, 4, 5, 6], 0.95) == pytest.approx((1, 7, 1 - 2 / 128))
    assert median_interval(list(range(1, 12)), 0.95) == pytest.approx((2, 10, 1 - 24 / 2048))
    # Too few values for the level: the widest interval and what it achieves (1 - 2/8).
    assert median_interval([3, 1, 2], 0.95) == pytest.approx((1, 3, 0.75))


def test_fisher_by_hand() -> None:
    """One p: chi-squared(2) survival exp(-x/2) gives p back; two p of 0.1: x = 4 ln 10 and
    chi-squared(4) survival exp(-x/2)(1 + x/2) = 0.01 (1 + 2 ln 10)."""
    assert _fisher([0.5]) == pytest.approx(0.5)
    assert _fisher([0.1, 0.1]) == pytest.approx(0.01 * (1 + 2 * math.log(10)))


def test_environment_shift_is_one_finding_not_six_regressions() -> None:
    """Every candidate 0.2 lower: one environment finding (fails the gate), no candidate named."""
    before = night("base", SIX, {})
    now = night("now", SIX, dict.fromkeys(SIX, 0.2))
    result = evaluate_gate(now, before, FAST, seed=1)
    assert result.verdict == "fail"
    assert failing(result, "shift") == [(None, "environment")]
    assert failing(result, "drop") == []
    environment = next(s for s in result.shifts if s.provider is None)
    assert environment.detected
    assert environment.dropped == 6
    assert environment.shift == pytest.approx(-0.2)
    # Every candidate's drop is shown as explained by the shift.
    warned = {
        o.candidate
        for o in result.outcomes
        if o.rule == "drop" and o.status == "warn" and o.candidate is not None
    }
    assert warned == set(SIX)
    document = json.loads(json.dumps(gate_document(result)))
    assert [s["name"] for s in document["shared_shifts"] if s["reported"]] == ["environment"]
    # Each provider moved too, with the environment: shown, not a finding of its own.
    assert [s["name"] for s in document["shared_shifts"] if s["detected"]] == [
        "environment",
        "provider p1",
        "provider p2",
    ]
    assert {r["candidate"] for r in document["residual_drops"]} == set(SIX)


def test_a_drop_beyond_the_shift_still_fails_its_candidate() -> None:
    """Five candidates 0.2 lower and c5 0.7 lower: the shift, and c5 for the 0.5 beyond it."""
    before = night("base", SIX, {})
    now = night("now", SIX, {**dict.fromkeys(SIX, 0.2), "c5": 0.7})
    result = evaluate_gate(now, before, FAST, seed=1)
    assert (None, "environment") in failing(result, "shift")
    assert failing(result, "drop") == [("c5", "mean_overall")]
    residual = next(r for r in result.residuals if r.candidate == "c5")
    assert residual.residual == pytest.approx(-0.5)
    assert residual.beyond


def test_one_provider_shift_is_the_provider_finding() -> None:
    """p1's three candidates 0.2 lower, p2's unchanged: the environment's median is -0.1 but
    only 3 of 6 dropped (two thirds needed), so the finding is provider p1's alone."""
    before = night("base", SIX, {})
    now = night("now", SIX, dict.fromkeys(["c0", "c1", "c2"], 0.2))
    result = evaluate_gate(now, before, FAST, seed=1)
    assert failing(result, "shift") == [(None, "provider p1")]
    assert failing(result, "drop") == []


def test_one_candidate_dropping_is_not_a_shift() -> None:
    """Only c3 drops: no shift, c3 fails the drop rule as before."""
    before = night("base", SIX, {})
    now = night("now", SIX, {"c3": 0.3})
    result = evaluate_gate(now, before, FAST, seed=1)
    assert failing(result, "shift") == []
    assert failing(result, "drop") == [("c3", "mean_overall")]
    assert result.verdict == "fail"


def inconclusive(result: GateResult, rule: str) -> list[tuple[str | None, str]]:
    return [(o.candidate, o.subject) for o in result.with_status("inconclusive") if o.rule == rule]


def test_a_baseline_night_outage_is_counted_not_inconclusive() -> None:
    """Night n2 lost every p1 run (108 of 216 runs): a warning naming the night and provider,
    the good runs of the three nights kept; nothing changed tonight, so the gate passes."""
    nights = [night("n1", SIX, {}), night("n2", SIX, {}, frozenset({"p1"})), night("n3", SIX, {})]
    result = evaluate_gate(night("now", SIX, {}), nights, FAST, seed=1)
    assert result.verdict == "pass"
    warnings = [o for o in result.outcomes if o.rule == "infrastructure" and o.status == "warn"]
    assert [(o.candidate, o.subject) for o in warnings] == [(None, "baseline n2")]
    assert "provider p1 outage, 108 of 108 runs excluded" in warnings[0].summary
    # The pooled baseline still holds every p1 candidate's 6 good runs per case (n1 and n3).
    baseline = next(item for item in result.candidates if item.candidate == "c0").baseline
    assert baseline is not None
    assert (baseline.executions, baseline.scoreable) == (108, 72)


def test_tonights_outage_makes_only_its_providers_candidates_inconclusive() -> None:
    """p2 is down tonight: c3, c4, c5 inconclusive, p1's candidates judged (and passing)."""
    nights = [night("n1", SIX, {}), night("n2", SIX, {}), night("n3", SIX, {})]
    result = evaluate_gate(night("now", SIX, {}, frozenset({"p2"})), nights, FAST, seed=1)
    assert result.verdict == "inconclusive"
    assert inconclusive(result, "infrastructure") == [
        ("c3", "current"),
        ("c4", "current"),
        ("c5", "current"),
    ]
    assert {o.candidate for o in result.with_status("inconclusive")} == {"c3", "c4", "c5"}
    assert result.with_status("fail") == ()


def test_tonights_outage_does_not_hide_another_providers_regression() -> None:
    """p2 is down tonight and c0 (p1) dropped 0.5: c0 fails, p2's candidates inconclusive."""
    nights = [night("n1", SIX, {}), night("n2", SIX, {}), night("n3", SIX, {})]
    result = evaluate_gate(night("now", SIX, {"c0": 0.5}, frozenset({"p2"})), nights, FAST, seed=1)
    assert result.verdict == "fail"
    assert failing(result, "drop") == [("c0", "mean_overall")]
    assert failing(result, "shift") == []


PERFECT = (1.0, 1.0, 1.0)
BROKEN_CASE = CASE_IDS[4]


def history(nights: int) -> list[GateSide]:
    """``nights`` nights of every run passing."""
    return [night(f"h{index:02d}", SIX, {}, levels=PERFECT) for index in range(nights)]


def test_fisher_tail_by_hand() -> None:
    """3 of 3 failing against 42 passing: only the draw of the 3 failures, 1 / C(45, 3);
    2 of 3 against 9 passing runs and 1 failure: P(X >= 2) with 3 failures among 12 runs,
    (C(3,2) C(9,1) + C(3,3)) / C(12,3) = 28 / 220."""
    assert fisher_tail(3, 3, 0, 42) == pytest.approx(1 / 14190)
    assert fisher_tail(2, 3, 1, 9) == pytest.approx(28 / 220)


def test_boschloo_by_hand() -> None:
    """A clean history and every run failing tonight: the region is that table alone, so p =
    max pi^n (1 - pi)^h, at pi = n / (n + h). With failures on both sides the region holds more
    tables and p stays at or below Fisher's (scipy's boschloo_exact gives 0.000225 for 3/3
    against 2 of 40, 0.00594 for 2/3 against 1 of 30)."""
    assert boschloo_tail(3, 3, 0, 42) == pytest.approx((3 / 45) ** 3 * (42 / 45) ** 42)
    assert boschloo_tail(1, 1, 0, 14) == pytest.approx((1 / 15) * (14 / 15) ** 14)
    assert boschloo_tail(3, 3, 2, 40) == pytest.approx(0.000225131764, rel=1e-6)
    assert boschloo_tail(2, 3, 1, 30) == pytest.approx(0.005936534418, rel=1e-6)
    assert boschloo_tail(3, 3, 2, 40) <= fisher_tail(3, 3, 2, 40)


def test_a_large_table_takes_fishers_p() -> None:
    """Past BOSCHLOO_TABLES (hundreds of runs a night: a large campaign), the p-value is
    Fisher's, which Boschloo's region would take hours to better; below it, Boschloo's, smaller.
    The smallest attainable p Tarone counts is the closed form either way."""
    large = (30, 400, 3, 5600)
    assert (large[1] + 1) * (large[3] + 1) > BOSCHLOO_TABLES
    assert boschloo_tail(*large) == fisher_tail(*large)
    assert boschloo_tail(3, 3, 2, 40) < fisher_tail(3, 3, 2, 40)
    assert _most_extreme(3, 42) == pytest.approx(boschloo_tail(3, 3, 0, 42))
    assert _most_extreme(400, 5600) <= fisher_tail(400, 400, 0, 5600)


def test_a_reliable_case_failing_tonight_fails_with_a_deep_history() -> None:
    """c0 passed BROKEN_CASE on all 42 runs of 14 nights and fails 3/3 tonight: Boschloo's
    p = (3/45)^3 (42/45)^42 = 1.6e-5 below 0.01 / 72 (six candidates x twelve cases reliable,
    each able to reach it), so the gate fails on it alone (one case of twelve moves c0's mean
    overall by 0.5 / 12, within the tolerance)."""
    nights = history(14)
    now = night("now", SIX, {}, levels=PERFECT, broken={("c0", BROKEN_CASE): 3})
    result = evaluate_gate(now, nights[-3:], FAST, seed=1, history=nights[:-3])
    assert result.verdict == "fail"
    assert failing(result, "case") == [("c0", BROKEN_CASE)]
    assert failing(result, "drop") == []
    (found,) = result.case_findings
    assert found.kind == "newly_failing"
    assert (found.history_passed, found.history_runs, found.history_nights) == (42, 42, 14)
    assert (found.tonight_passed, found.tonight_runs) == (0, 3)
    assert found.level == pytest.approx(0.01 / 72)
    assert (
        "42/42 runs passed the gate on 14 nights (14 all passed), 0/3 tonight" in found.history_text
    )
    document = json.loads(json.dumps(gate_document(result)))
    assert document["case_findings"][0]["history"] == found.history_text


def test_a_shallow_history_shows_the_break_without_failing() -> None:
    """Against 3 nights only (9 runs): p = (3/12)^3 (9/12)^9 = 0.00117 for every pair (Fisher's
    would be 1 / C(12, 3) = 1/220); no pair can reach 0.01 / 9 = 0.00111, so Tarone's K is 9
    and the break, above that level, is a warning."""
    nights = history(3)
    now = night("now", SIX, {}, levels=PERFECT, broken={("c0", BROKEN_CASE): 3})
    result = evaluate_gate(now, nights, FAST, seed=1)
    assert result.verdict == "pass"
    (found,) = result.case_findings
    assert found.p_value == pytest.approx((3 / 12) ** 3 * (9 / 12) ** 9)
    assert found.level == pytest.approx(0.01 / 9)
    assert not found.fails
    assert [(o.candidate, o.status) for o in result.outcomes if o.rule == "case"] == [
        ("c0", "warn")
    ]


def test_quarantined_and_flaky_pairs_are_shown_never_failing() -> None:
    """c0's break is quarantined; c1 failed BROKEN_CASE on every other night of 14 (a flip on
    each of the 13 steps): both shown as warnings, the gate passes."""
    nights = [
        night(
            f"h{index:02d}",
            SIX,
            {},
            levels=PERFECT,
            broken={("c1", BROKEN_CASE): 3} if index % 2 else {},
        )
        for index in range(14)
    ]
    now = night(
        "now", SIX, {}, levels=PERFECT, broken={("c0", BROKEN_CASE): 3, ("c1", BROKEN_CASE): 3}
    )
    result = evaluate_gate(
        now, nights[-3:], FAST, seed=1, history=nights[:-3], quarantined={("c0", BROKEN_CASE)}
    )
    assert result.verdict == "pass"
    kinds = {(f.candidate, f.kind) for f in result.case_findings}
    assert kinds == {("c0", "quarantined"), ("c1", "flaky")}
    flaky = next(f for f in result.case_findings if f.kind == "flaky")
    assert flaky.flip_rate == pytest.approx(1.0)
    assert (flaky.history_passed, flaky.history_runs) == (21, 42)


def test_a_break_that_persists_is_still_failing_not_flaky() -> None:
    """c0 passed BROKEN_CASE on its 36 runs of 12 nights, then failed 3/3 on the last two
    history nights and again tonight. Over the whole history (36/42, 86%) it would not be
    reliable, and with passes and failures in it would read as flaky, never failing. The two
    failing nights are its streak, set aside: it was reliable before (36/36), and tonight
    against those nights gives Boschloo's p = (3/39)^3 (36/39)^36 = 2.5e-5, below 0.01 / 72
    (every pair able to reach it, c0's with its 36 runs: (3/39)^3 (36/39)^36 <= 0.01 / 72)."""
    nights = [
        night(
            f"h{index:02d}",
            SIX,
            {},
            levels=PERFECT,
            broken={("c0", BROKEN_CASE): 3} if index >= 12 else {},
        )
        for index in range(14)
    ]
    now = night("now", SIX, {}, levels=PERFECT, broken={("c0", BROKEN_CASE): 3})
    result = evaluate_gate(now, nights[-3:], FAST, seed=1, history=nights[:-3])
    assert result.verdict == "fail"
    assert failing(result, "case") == [("c0", BROKEN_CASE)]
    (found,) = result.case_findings
    assert found.kind == "still_failing"
    assert (found.history_passed, found.history_runs, found.history_nights) == (36, 36, 12)
    assert (found.streak_nights, found.streak_passed, found.streak_runs) == (2, 0, 6)
    assert found.p_value == pytest.approx((3 / 39) ** 3 * (36 / 39) ** 36)
    assert found.level == pytest.approx(0.01 / 72)
    assert found.history_text == (
        "36/36 runs passed the gate on 12 nights (12 all passed), then failing 2 nights (0/6), "
        "0/3 tonight"
    )
    (outcome,) = [o for o in result.outcomes if o.rule == "case"]
    assert outcome.summary.startswith("still failing on ")
    assert "on the last 2 nights and fails it again tonight" in outcome.detail


def test_a_flaky_pair_whose_last_night_failed_stays_flaky() -> None:
    """c1 failed BROKEN_CASE on every other night, the last history night among them: set
    aside, that night leaves 13 nights of which 6 failed (21/39 runs passed), not reliable, so
    it is flaky, told over its whole history (21/42), and never fails."""
    nights = [
        night(
            f"h{index:02d}",
            SIX,
            {},
            levels=PERFECT,
            broken={("c1", BROKEN_CASE): 3} if index % 2 else {},
        )
        for index in range(14)
    ]
    now = night("now", SIX, {}, levels=PERFECT, broken={("c1", BROKEN_CASE): 3})
    result = evaluate_gate(now, nights[-3:], FAST, seed=1, history=nights[:-3])
    assert result.verdict == "pass"
    (found,) = result.case_findings
    assert (found.kind, found.streak_nights) == ("flaky", 0)
    assert (found.history_passed, found.history_runs, found.history_nights) == (21, 42, 14)


def test_a_case_is_judged_on_its_gate_not_on_every_dimension_passing() -> None:
    """Each case's runs score 0.9, 0.95 and 1.0, so two of three never pass every dimension
    (``overall.passed`` false) while every gate passed: c0 on BROKEN_CASE is reliable on its
    gate (42/42) and failing the gate on 3/3 tonight fails at p = 1.6e-5 < 0.01 / 72; judged
    on ``overall.passed`` the pair (14 of 42 passed) was not even reliable."""
    nights = [night(f"h{index:02d}", SIX, {}) for index in range(14)]
    now = night("now", SIX, {}, broken={("c0", BROKEN_CASE): 3})
    result = evaluate_gate(now, nights[-3:], FAST, seed=1, history=nights[:-3])
    assert failing(result, "case") == [("c0", BROKEN_CASE)]
    (found,) = result.case_findings
    assert (found.history_passed, found.history_runs) == (42, 42)
    assert found.p_value == pytest.approx((3 / 45) ** 3 * (42 / 45) ** 42)
    assert found.level == pytest.approx(0.01 / 72)


def test_runs_below_a_threshold_with_their_gate_passed_are_not_a_broken_case() -> None:
    """c0 scores 0.5 on BROKEN_CASE's three runs tonight, its gate passed: a quality dip of one
    case (the drop rule's, 0.5 x 3 / 36 of its mean), no case finding."""
    nights = history(14)
    dipped = night("now", SIX, {}, levels=PERFECT, dipped={("c0", BROKEN_CASE): 0.5})
    result = evaluate_gate(dipped, nights[-3:], FAST, seed=1, history=nights[:-3])
    assert result.case_findings == ()
    assert failing(result, "case") == []


def test_tarone_counts_only_the_pairs_that_could_reach_the_level() -> None:
    """Ten pairs whose smallest p is 1/14190 and sixty that cannot go below 1/15 (a case run
    once a night, 14 nights): K = 10, the first K with at most K pairs able to reach 0.01 / K;
    with no pair able to reach any level, K = 1."""
    smallest = [1 / 14190] * 10 + [1 / 15] * 60
    assert tarone_count(smallest, 0.01) == 10
    assert tarone_count([1 / 15] * 60, 0.01) == 1
    assert tarone_count([1 / 14190] * 72, 0.01) == 72


def one_run_nights(bundle: str, broken: int = 0) -> GateSide:
    """Every candidate runs every case once (passing), and c0 runs BROKEN_CASE three times, the
    first ``broken`` of them failing the gate."""
    records = []
    for candidate in SIX:
        for case in CASE_IDS:
            runs = 3 if (candidate, case) == ("c0", BROKEN_CASE) else 1
            for repetition in range(1, runs + 1):
                gate = candidate == "c0" and case == BROKEN_CASE and repetition <= broken
                records.append(
                    run_record(
                        candidate,
                        case,
                        repetition,
                        bundle=bundle,
                        failed=("lifecycle_integrity",) if gate else (),
                    )
                )
    return side(records)


def test_pairs_run_once_a_night_spend_none_of_the_level() -> None:
    """Eight clean nights: 72 reliable pairs, 71 of them run once a night (smallest p 1/9, they
    can never fail: at best (1/9)(8/9)^8 = 0.043) and c0 x BROKEN_CASE run three times (24
    passing, then 3/3 failing: p = (3/27)^3 (24/27)^24 = 0.00008). Tarone's K is 1, so the
    level is 0.01 and the break fails; a Bonferroni over all 72 (0.01 / 72 = 0.00014) would
    have let it pass."""
    nights = [one_run_nights(f"h{index:02d}") for index in range(8)]
    result = evaluate_gate(one_run_nights("now", broken=3), nights[-3:], FAST, history=nights[:-3])
    assert failing(result, "case") == [("c0", BROKEN_CASE)]
    (found,) = result.case_findings
    assert found.p_value == pytest.approx((3 / 27) ** 3 * (24 / 27) ** 24)
    assert found.level == pytest.approx(0.01)


def test_a_break_within_an_environment_shift_is_a_warning() -> None:
    """Every candidate 0.2 lower tonight (an environment shift, which fails the gate on its own)
    and c0 failing BROKEN_CASE's gate 3/3 after 42/42: the break is shown as a warning within
    the shift (a bad environment makes every case likelier to fail), naming no candidate; no
    drift either (read against the peers, a night that moves everyone cancels)."""
    nights = [night(f"h{index:02d}", SIX, {}) for index in range(14)]
    now = night("now", SIX, dict.fromkeys(SIX, 0.2), broken={("c0", BROKEN_CASE): 3})
    result = evaluate_gate(now, nights[-3:], FAST, seed=1, history=nights[:-3])
    assert failing(result, "shift") == [(None, "environment")]
    assert failing(result, "case") == []
    assert failing(result, "drift") == []
    (found,) = result.case_findings
    assert found.p_value < found.level
    assert found.within_shift
    assert not found.fails
    case = [(o.candidate, o.status) for o in result.outcomes if o.rule == "case"]
    assert case == [("c0", "warn")]


def test_a_baseline_night_older_than_the_limit_is_a_warning() -> None:
    """Tonight 2026-03-31; baseline nights of 03-01 (30 days before: at the limit, not
    beyond), 02-28 (31 days: beyond) and one without a date: one warning, of 02-28, and the
    verdict stays pass. No date for tonight, or the rule off: no warning."""
    nights = [night(name, SIX, {}) for name in ("b1", "b2", "b3")]
    now = night("now", SIX, {})
    dates = {"now": "2026-03-31", "b1": "2026-03-01", "b2": "2026-02-28"}
    result = evaluate_gate(now, nights, FAST, seed=1, dates=dates)
    assert result.verdict == "pass"
    (warning,) = [o for o in result.outcomes if o.rule == "baseline"]
    assert (warning.status, warning.candidate, warning.subject) == ("warn", None, "b2")
    assert "is 31 days before the current night (2026-03-31), more than 30" in warning.summary
    assert "baseline" in result.rules_in_force
    for other in (
        evaluate_gate(
            now, nights, FAST, seed=1, dates={k: v for k, v in dates.items() if k != "now"}
        ),
        evaluate_gate(
            now, nights, dataclasses.replace(FAST, baseline_age_days=None), seed=1, dates=dates
        ),
    ):
        assert [o for o in other.outcomes if o.rule == "baseline"] == []


def moving_nights(tonight: float) -> tuple[GateSide, list[GateSide]]:
    """Fourteen nights on which the environment moves every candidate together, down 0.12 on
    every other night (a healthy campaign whose nights share their runner), and tonight every
    candidate down ``tonight``."""
    levels = (0.7, 0.75, 0.8)
    nights = [
        night(f"h{index:02d}", SIX, dict.fromkeys(SIX, 0.12 * (index % 2)), levels=levels)
        for index in range(14)
    ]
    return night("now", SIX, dict.fromkeys(SIX, tonight), levels=levels), nights


def test_a_shared_move_within_the_nights_own_moves_is_no_shift() -> None:
    """Tonight every candidate is 0.16 down, 0.08 below the baseline nights' mean (0.12, 0,
    0.12 down): with those three nights alone that is a shift (too little history to read how
    nights move); with the eleven nights before them, whose medians moved 0.04-0.08 either way
    night to night, it is within the environment's own moves: a passing shift outcome per group that says so, no
    candidate failing (each is judged beyond the shared move), the nights' spread in the JSON."""
    now, nights = moving_nights(0.16)
    shallow = evaluate_gate(now, nights[-3:], FAST, seed=1)
    assert failing(shallow, "shift") == [(None, "environment")]
    deep = evaluate_gate(now, nights[-3:], FAST, seed=1, history=nights[:-3])
    assert failing(deep, "shift") == []
    assert failing(deep, "drop") == []
    assert deep.verdict == "pass"
    (environment,) = [found for found in deep.shifts if found.provider is None]
    assert environment.detected
    assert environment.within_nights
    assert not environment.reported
    shifts = [o for o in deep.outcomes if o.rule == "shift"]
    assert {o.status for o in shifts} == {"pass"}
    assert len(shifts) == len(deep.shifts) == 3
    assert all("within its night-to-night moves" in o.summary for o in shifts)
    assert environment.calibrated_on == 13
    assert environment.night_sd > 0.05
    assert environment.noise_p > environment.level
    document = json.loads(json.dumps(gate_document(deep)))
    assert document["shared_shifts"][0]["calibrated_on"] == 13


def test_a_shared_drop_beyond_the_nights_own_moves_is_still_a_shift() -> None:
    """Every candidate 0.5 down tonight, 0.42 below the baseline nights: far beyond nights
    that move 0.04-0.08, so the environment's shift is found as before, naming no candidate."""
    now, nights = moving_nights(0.5)
    result = evaluate_gate(now, nights[-3:], FAST, seed=1, history=nights[:-3])
    assert failing(result, "shift") == [(None, "environment")]
    assert failing(result, "drop") == []
    (environment,) = [found for found in result.shifts if found.provider is None]
    assert environment.noise_p < environment.level
    assert not environment.within_nights
    assert "night-to-night moves" in next(
        o.detail for o in result.outcomes if o.rule == "shift" and o.status == "fail"
    )
