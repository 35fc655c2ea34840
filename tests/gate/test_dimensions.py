"""The ``dimension`` rule: one weighted dimension's pass rate falling for one candidate.

Expected values are worked out by hand in each test's docstring or comments.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from scorecard.contract._models import CASE_IDS
from scorecard.gate._dimensions import WEIGHTED_DIMENSIONS, dimension_drops
from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._input import GateSide
from scorecard.gate._rules import GateRules, gate_rules
from scorecard.report._gate_json import gate_document

from .test_gate import run_record, side
from .test_structure import failing

FAST = GateRules(resamples=2000)
ROSTER = {f"c{index}": "p1" if index < 4 else "p2" for index in range(8)}
PRESENTATION = "presentation_fidelity"


def records(
    bundle: str, failing_runs: dict[str, set[tuple[str, int]]], roster: dict[str, str]
) -> GateSide:
    """Three runs of every case per candidate, every run scoring 1 except that the runs in
    ``failing_runs[candidate]`` ((case, repetition)) fail ``presentation_fidelity``."""
    found: list[dict[str, Any]] = []
    for candidate, provider in roster.items():
        for case in CASE_IDS:
            for repetition in (1, 2, 3):
                failed = (
                    (PRESENTATION,)
                    if (case, repetition) in failing_runs.get(candidate, set())
                    else ()
                )
                record = run_record(candidate, case, repetition, bundle=bundle, failed=failed)
                record["provider"] = provider
                found.append(record)
    return side(found)


def background(night: int, candidate: str) -> set[tuple[str, int]]:
    """A healthy night's presentation failures: about one run in nine, by a fixed pattern that
    differs per night and candidate (so nights move a little, as they do)."""
    offset = (night * 7 + int(candidate[1:]) * 3) % 9
    return {
        (case, repetition)
        for index, case in enumerate(CASE_IDS)
        for repetition in (1, 2, 3)
        if (index * 3 + repetition + offset) % 9 == 0
    }


def campaign(nights: int, tonight: dict[str, set[tuple[str, int]]]) -> list[GateSide]:
    """``nights`` healthy nights, then tonight: the background plus ``tonight``'s failures."""
    sides = [
        records(f"n{night:02d}", {c: background(night, c) for c in ROSTER}, ROSTER)
        for night in range(nights)
    ]
    now = {c: background(nights, c) | tonight.get(c, set()) for c in ROSTER}
    return [*sides, records("now", now, ROSTER)]


def test_one_candidates_drop_by_hand() -> None:
    """One candidate, one run of each of the 12 cases a side: every run passed before, six cases
    fail presentation tonight. Each case weighs 1 x 1 / 2; the drop is the mean of six -1 and
    six 0, -0.5. A failing case's two flags (0, 1) have sample variance 1/2, a passing case's 0:
    the variance is 6 x (1/2)^2 x 1/2 x (1 + 1) / 6^2 = 1/24, above the Jeffreys floor
    (6.5/13 x 6.5/13 / 12 + (0.5/13)(12.5/13) / 12 = 0.0239). No peers, no past nights: z =
    -0.5 / sqrt(1/24) = -2.449, p = Phi(-2.449) = 0.00715, above 0.01 / 6: no failure."""
    broken = set(CASE_IDS[:6])
    before = side([run_record("c0", case, bundle="b") for case in CASE_IDS])
    now = side(
        [
            run_record("c0", case, bundle="now", failed=(PRESENTATION,) if case in broken else ())
            for case in CASE_IDS
        ]
    )
    found = {item.dimension: item for item in dimension_drops(now, [before], 1, FAST)}
    assert set(found) == set(WEIGHTED_DIMENSIONS)
    item = found[PRESENTATION]
    assert item.drop == pytest.approx(-0.5)
    assert (item.current_rate, item.baseline_rate) == pytest.approx((0.5, 1.0))
    assert item.error == pytest.approx(math.sqrt(1 / 24))
    assert math.isnan(item.peers_drop)
    assert item.z == pytest.approx(-0.5 / math.sqrt(1 / 24))
    assert item.p_value == pytest.approx(0.007152, abs=1e-6)
    assert item.level == pytest.approx(0.01 / 6)
    assert not item.fails
    # The other dimensions did not move; their variance is the floor alone.
    other = found["semantic_outcome"]
    floor = 2 * (0.5 / 13) * (12.5 / 13) / 12
    assert other.drop == 0.0
    assert other.error == pytest.approx(math.sqrt(floor))


def test_one_dimension_falling_names_its_candidate_and_dimension() -> None:
    """c2 fails presentation on 24 more of its 36 runs tonight (the first two repetitions of
    every case): a drop of about -0.67 in that dimension's pass rate, far beyond the others',
    while its mean overall moves by the dimension's weight only. The rule fails c2 on
    presentation and nothing else; no other candidate or dimension fails."""
    extra = {(case, repetition) for case in CASE_IDS for repetition in (1, 2)}
    nights = campaign(14, {"c2": extra})
    now, before = nights[-1], nights[:-1]
    result = evaluate_gate(now, before[-3:], FAST, seed=1, history=before[:-3])
    assert failing(result, "dimension") == [("c2", PRESENTATION)]
    item = next(
        d for d in result.dimension_drops if (d.candidate, d.dimension) == ("c2", PRESENTATION)
    )
    assert item.fails
    assert item.residual < -0.5
    assert item.calibrated_on > 10
    assert not any(d.fails for d in result.dimension_drops if d is not item)
    outcome = next(o for o in result.outcomes if o.rule == "dimension" and o.status == "fail")
    assert outcome.dimensions == (PRESENTATION,)
    assert "presentation_fidelity passed in" in outcome.detail
    document = json.loads(json.dumps(gate_document(result), allow_nan=True))
    (shown,) = [d for d in document["dimension_drops"] if d["fails"]]
    assert (shown["candidate"], shown["dimension"]) == ("c2", PRESENTATION)
    assert "dimension" in result.rules_in_force


def test_every_candidate_falling_in_one_dimension_is_no_candidates_regression() -> None:
    """Every candidate fails presentation on the same 24 extra runs tonight: each one's drop
    equals its peers' median, the residuals are 0, and no candidate is named."""
    extra = {(case, repetition) for case in CASE_IDS for repetition in (1, 2)}
    nights = campaign(14, dict.fromkeys(ROSTER, extra))
    result = evaluate_gate(nights[-1], nights[-4:-1], FAST, seed=1, history=nights[:-4])
    assert failing(result, "dimension") == []
    drops = [d for d in result.dimension_drops if d.dimension == PRESENTATION]
    assert len(drops) == len(ROSTER)
    assert all(d.drop < -0.5 for d in drops)
    assert all(abs(d.residual) < 0.1 for d in drops)


def test_healthy_nights_fail_no_dimension() -> None:
    """Nothing changed tonight: background failures only, no dimension outcome at all."""
    nights = campaign(14, {})
    result = evaluate_gate(nights[-1], nights[-4:-1], FAST, seed=1, history=nights[:-4])
    assert [o for o in result.outcomes if o.rule == "dimension"] == []
    assert len(result.dimension_drops) == len(ROSTER) * len(WEIGHTED_DIMENSIONS)


def test_the_rule_is_off_with_a_null_tolerance() -> None:
    """``dimension: {tolerance: null}`` turns the rule off: nothing read, nothing in force."""
    rules = gate_rules({"dimension": {"tolerance": None}, "drop": {"resamples": 2000}})
    assert rules.dimension_tolerance is None
    extra = {(case, repetition) for case in CASE_IDS for repetition in (1, 2)}
    nights = campaign(5, {"c2": extra})
    result = evaluate_gate(nights[-1], nights[-4:-1], rules, seed=1, history=nights[:-4])
    assert result.dimension_drops == ()
    assert "dimension" not in result.rules_in_force


def test_a_providers_candidates_are_read_against_their_provider_when_asked() -> None:
    """Every p2 candidate (c4-c7) fails presentation on 24 more runs tonight, the p1 ones do
    not. Read against every other candidate (three or four at 0, three at about -0.67: median
    0), each p2 candidate's residual is its whole drop and fails; read against its provider's
    others, as the gate does when that provider's shift was reported tonight, the residual is
    about 0 and nothing fails. The p1 candidates are read against everyone either way."""
    extra = {(case, repetition) for case in CASE_IDS for repetition in (1, 2)}
    p2 = [name for name, provider in ROSTER.items() if provider == "p2"]
    nights = campaign(14, dict.fromkeys(p2, extra))
    now, before = nights[-1], nights[:-1]
    alone = dimension_drops(now, before, 3, FAST)
    assert sorted(d.candidate for d in alone if d.fails) == p2
    provider = {name: [other for other in p2 if other != name] for name in p2}
    within = dimension_drops(now, before, 3, FAST, peers=provider)
    assert [d for d in within if d.fails] == []
    for found in within:
        if found.candidate in p2 and found.dimension == PRESENTATION:
            assert found.peers_drop < -0.5
            assert abs(found.residual) < 0.1
