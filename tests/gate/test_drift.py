"""The drift rule: a candidate's nightly level declining over the last nights, nights as units.

Expected values are worked out by hand in each test's docstring or comments.
"""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from scorecard.contract import parse_policy_file
from scorecard.gate._drift import MIN_NIGHTS, drift_findings, student_t_cdf
from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._input import GateSide
from scorecard.gate._rules import GateRules
from scorecard.report._gate_json import gate_document

from .test_structure import FAST, SIX, failing, night

NIGHTS = 10


def wobble(candidate: str, index: int) -> float:
    """Each candidate's own night-to-night noise, within +-0.01 (no trend)."""
    number = int(candidate[1:])
    return 0.005 * ((index * (number + 3) + number) % 5 - 2)


def nights(declines: dict[str, float], count: int = NIGHTS) -> list[GateSide]:
    """``count`` nights, oldest first; each candidate in ``declines`` loses that much a night
    (0 on the first night), every candidate wobbles by its own noise."""
    return [
        night(
            f"n{index:02d}",
            SIX,
            {name: declines.get(name, 0.0) * index + wobble(name, index) + 0.02 for name in SIX},
        )
        for index in range(count)
    ]


def judge(sides: list[GateSide], rules: GateRules = FAST):  # type: ignore[no-untyped-def]
    """Tonight is the last night, the three before it the baseline, the rest the history."""
    return evaluate_gate(sides[-1], sides[-4:-1], rules, seed=1, history=sides[:-4])


def test_student_t_by_hand() -> None:
    """df 1 is Cauchy: P(T <= 1) = 3/4; df 2: 1/2 + t / (2 sqrt(2 + t^2)), at 1: 1/2 + 1/(2
    sqrt 3); df 3 at sqrt 3 (theta = pi/4): 1/2 + (pi/4 + 1/2) / pi; symmetric about 0."""
    assert student_t_cdf(1.0, 1) == pytest.approx(0.75)
    assert student_t_cdf(1.0, 2) == pytest.approx(0.5 + 1 / (2 * math.sqrt(3)))
    assert student_t_cdf(math.sqrt(3), 3) == pytest.approx(0.5 + (math.pi / 4 + 0.5) / math.pi)
    assert student_t_cdf(-2.5, 7) == pytest.approx(1 - student_t_cdf(2.5, 7))
    assert student_t_cdf(0.0, 4) == pytest.approx(0.5)


def test_a_slow_decline_fails_where_no_night_drops_beyond_the_tolerance() -> None:
    """c0 loses 0.02 a night over ten nights: tonight is 0.04 below its baseline's mean (within
    the tolerance of 0.05, so the drop rule cannot fail it) but the fitted decline over the
    window is about 9 x 0.02 = 0.18, against its peers' median, with a t far below the level
    0.01 / 6 (six candidates tested): the drift rule fails c0 and no one else."""
    result = judge(nights({"c0": 0.02}))
    assert result.verdict == "fail"
    assert failing(result, "drift") == [("c0", "mean_overall")]
    assert failing(result, "drop") == []
    found = {item.candidate: item for item in result.drift}
    assert sorted(found) == sorted(SIX)
    c0 = found["c0"]
    assert c0.fails
    assert c0.against_peers
    assert c0.nights == NIGHTS
    assert c0.span == NIGHTS - 1
    assert c0.slope == pytest.approx(-0.02, abs=0.004)
    assert c0.slope_low < c0.slope < c0.slope_high < 0
    assert c0.decline == pytest.approx(c0.slope * (NIGHTS - 1))
    assert c0.level == pytest.approx(0.01 / 6)
    assert not any(item.fails for name, item in found.items() if name != "c0")
    document = json.loads(json.dumps(gate_document(result)))
    assert [item["candidate"] for item in document["drift"] if item["fails"]] == ["c0"]
    assert "drift" in result.rules_in_force


def test_nights_without_a_trend_never_fail() -> None:
    """The same nights without c0's decline: every candidate tested, none below the level."""
    result = judge(nights({}))
    assert len(result.drift) == len(SIX)
    assert all(item.p_value >= item.level for item in result.drift)
    assert [o for o in result.outcomes if o.rule == "drift"] == []
    assert result.verdict == "pass"


def test_a_decline_every_candidate_shares_is_not_one_candidates_drift() -> None:
    """Every candidate loses 0.02 a night: read against its peers, no one drifts (what moves
    everyone is the environment)."""
    result = judge(nights(dict.fromkeys(SIX, 0.02)))
    assert all(item.against_peers for item in result.drift)
    assert failing(result, "drift") == []


def test_a_trend_within_the_tolerance_is_a_warning() -> None:
    """c0 loses 0.004 a night: fitted decline -0.041 (slope -0.0046 against its peers), within
    the tolerance of 0.05, yet its p (0.0003) is below 0.01 / 6: a warning, the gate passes."""
    result = judge(nights({"c0": 0.004}))
    c0 = next(item for item in result.drift if item.candidate == "c0")
    assert -0.05 < c0.decline < -0.03
    assert c0.p_value < c0.level
    statuses = [(o.candidate, o.status) for o in result.outcomes if o.rule == "drift"]
    assert statuses == [("c0", "warn")]
    assert result.verdict == "pass"


def test_too_few_nights_are_not_tested() -> None:
    """Five nights in all (tonight, three baseline nights, one older) are fewer than
    MIN_NIGHTS = 6: nothing is tested and the rule is not in force (no JUnit check for it)."""
    assert MIN_NIGHTS == 6
    result = judge(nights({"c0": 0.05}, count=5))
    assert result.drift == ()
    assert result.rules_in_force == (
        "safety",
        "drop",
        "shift",
        "case",
        "dimension",
        "coverage",
        "infrastructure",
        "audit",
    )


def test_the_window_and_the_switch() -> None:
    """``drift_nights`` = 6 reads the last six of ten nights; 0 turns the rule off."""
    sides = nights({"c0": 0.02})
    six = drift_findings(sides[-1], sides[:-1], dataclasses.replace(FAST, drift_nights=6))
    assert {item.nights for item in six} == {6}
    assert drift_findings(sides[-1], sides[:-1], dataclasses.replace(FAST, drift_nights=0)) == ()
    off = judge(sides, dataclasses.replace(FAST, drift_nights=0))
    assert failing(off, "drift") == []


def test_the_policy_key() -> None:
    """``gate: {drift: {nights: 14}}`` sets the window."""
    parsed = parse_policy_file("gate:\n  drift:\n    nights: 14\n", source="policy.yaml")
    assert GateRules(**parsed.gate).drift_nights == 14
