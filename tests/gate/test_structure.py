"""Structure the gate sees: shared shifts (environment, provider) and outages per provider.

Expected values are worked out by hand in each test's docstring or comments.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from scorecard.contract._models import CASE_IDS
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
) -> GateSide:
    """Three runs of every case per candidate (``roster``: candidate -> provider) at
    :data:`LEVELS` minus the candidate's drop; every run of a provider in ``outage`` is an
    infrastructure failure."""
    records: list[dict[str, Any]] = []
    for candidate, provider in roster.items():
        for case in CASE_IDS:
            for repetition, level in enumerate(LEVELS, start=1):
                if provider in outage:
                    record = infrastructure_failure(candidate, case, bundle=bundle, message="down")
                    record["repetition"] = repetition
                else:
                    overall = round(level - drops.get(candidate, 0.0), 6)
                    record = run_record(candidate, case, repetition, bundle=bundle, overall=overall)
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
