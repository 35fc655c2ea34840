"""Night-to-night noise (``scorecard.gate._nights``): drops judged against peers and history.

Expected values are worked out by hand in each test's docstring or comments.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._input import GateSide
from scorecard.gate._nights import CHI2_MEDIAN, _drops, _Night, night_variance
from scorecard.gate._rules import GateRules
from scorecard.report._gate_json import render_gate_json

from .test_gate import run_record, side
from .test_structure import night

FAST = GateRules(resamples=2000)
#: Nine candidates, three a provider.
NINE = {f"c{index}": f"p{index // 3}" for index in range(9)}


def test_night_variance_by_hand() -> None:
    """Residuals +-0.2 of run variance 0.01: median r^2 = 0.04, over the median of chi-squared
    with one degree of freedom (0.454936) 0.087925, less 0.01: tau^2 = 0.077925. Residuals
    0.05: 0.0025 / 0.454936 = 0.005495 is below the runs' 0.01, so 0. Nine pairs: not read, 0.
    Ten residuals 0.1 and two past regressions of 5: the median r^2 stays 0.01, so
    0.01 / 0.454936 - 0.01 = 0.011981."""
    assert pytest.approx(0.454936, abs=1e-6) == CHI2_MEDIAN
    assert night_variance([(0.2, 0.01), (-0.2, 0.01)] * 5) == pytest.approx(0.077925, abs=1e-6)
    assert night_variance([(0.05, 0.01)] * 10) == 0.0
    assert night_variance([(0.2, 0.01)] * 9) == 0.0
    assert night_variance([(0.1, 0.01)] * 10 + [(5.0, 0.01)] * 2) == pytest.approx(
        0.011981, abs=1e-6
    )
    assert night_variance([(math.nan, 0.01)] * 10 + [(0.2, 0.01)] * 9) == 0.0  # NaN not counted


def test_closed_form_drop_by_hand() -> None:
    """Tonight: case final-response runs 1.0 and 0.8, case review-lifecycle 0.5; the reference:
    final-response 1.0, review-lifecycle 0.7 and 0.9.

    Overall scores: weights a b / (a + b) = 2/3 for both cases; differences 0.9 - 1.0 = -0.1
    and 0.5 - 0.8 = -0.3, so the drop is -0.2. Spread: final-response's three runs (1, 0.8, 1)
    have variance 0.013333, review-lifecycle's (0.5, 0.7, 0.9) 0.04; variance
    (4/9)(1.5)(0.013333 + 0.04) / (4/3)^2 = 0.02. The floor: no run scored 0, so r = 0.5 / 4 =
    0.125 on each side; tonight v = 2.3 / 3, ref v = 2.6 / 3:
    (0.766667^2 + 0.866667^2) x 0.125 x 0.875 / 3 = 0.048814, larger, so it is the variance.

    Dimensions passed (a run scoring 1 passes all 8, any other 2 of them, the gates):
    final-response mean(8, 2) - 8 = -3, review-lifecycle 2 - 2 = 0: drop -1.5; spread of
    (8, 2, 8) is 12 and of (2, 2, 2) 0: (4/9)(1.5)(12) / (16/9) = 4.5 (above its floor).
    """
    tonight = [
        run_record("a", "final-response", 1, bundle="t", overall=1.0),
        run_record("a", "final-response", 2, bundle="t", overall=0.8),
        run_record("a", "review-lifecycle", 1, bundle="t", overall=0.5),
    ]
    reference = [
        run_record("a", "final-response", 1, bundle="r", overall=1.0),
        run_record("a", "review-lifecycle", 1, bundle="r", overall=0.7),
        run_record("a", "review-lifecycle", 2, bundle="r", overall=0.9),
    ]
    candidates: dict[str, int] = {}
    cases: dict[str, int] = {}
    nights = [_Night(side(records), candidates, cases) for records in (tonight, reference)]
    sums = [one.sums((len(candidates), len(cases))) for one in nights]
    found = _drops(sums[0], sums[1])
    assert found[0, 0, 0] == pytest.approx(-0.2)
    assert found[0, 1, 0] == pytest.approx(0.048814, abs=1e-6)
    assert found[1, 0, 0] == pytest.approx(-1.5)
    assert found[1, 1, 0] == pytest.approx(4.5)


def drifting(nights: int, tonight: dict[str, float]) -> tuple[list[GateSide], GateSide]:
    """``nights`` past nights in which each candidate's level moves by itself from night to
    night (candidate i on night j drops 0.05 x ((i + j) mod 3): 0, 0.05 or 0.1, peers out of
    step), and tonight with the ``tonight`` drops."""
    past = [
        night(
            f"night-{j:02d}",
            NINE,
            {name: 0.05 * ((i + j) % 3) for i, name in enumerate(NINE)},
        )
        for j in range(nights)
    ]
    return past, night("tonight", NINE, tonight)


def drop_outcome(result: object, candidate: str) -> tuple[str, str]:
    found = [
        (o.status, o.detail)
        for o in result.outcomes  # type: ignore[attr-defined]
        if o.rule == "drop" and o.candidate == candidate and o.subject == "mean_overall"
    ]
    return found[0] if found else ("pass", "")


def test_a_drop_within_the_night_to_night_noise_is_a_warning() -> None:
    """c0's three baseline nights (11-13: drops 0.1, 0, 0.05) average a drop of 0.05; tonight
    0.15, so 0.1 below its baseline on every run: the permutation test alone fails it (runs of
    one night are 0.9/0.95/1.0 minus the drop, a spread of 0.05). But every candidate moves by
    0.05-0.1 against its peers from night to night in the history, so the gate warns."""
    tonight = {name: 0.05 * ((i + 14) % 3) for i, name in enumerate(NINE)}
    tonight["c0"] = 0.15  # (0 + 14) mod 3 = 2 would be 0.1: 0.05 more than its pattern
    past, current = drifting(14, tonight)
    result = evaluate_gate(current, past[11:], FAST, history=past[:11])
    status, detail = drop_outcome(result, "c0")
    noise = {item.candidate: item for item in result.night_noise}
    assert noise["c0"].night_sd_score > 0.05  # past residuals of about +-0.05 to 0.1
    assert noise["c0"].calibrated_on >= 100  # 13 past nights x 9 candidates
    assert noise["c0"].peers == "provider p0"
    assert status == "warn"
    # Peers out of step strayed more than each drop alone, so each statistic is read alone.
    assert noise["c0"].against_peers == (False, False)
    assert "Within the night-to-night noise: drop -0.100; z " in detail
    assert "on overall scores (alone)" in detail


def test_the_same_drop_fails_without_history_to_explain_it() -> None:
    """Identical past nights (no night moves) and c0 0.1 lower tonight than every one: its
    peers did not move and past residuals are all 0, so nights add no spread and the drop fails,
    beyond the noise."""
    past = [night(f"night-{j:02d}", NINE, {}) for j in range(14)]
    current = night("tonight", NINE, {"c0": 0.1})
    result = evaluate_gate(current, past[11:], FAST, history=past[:11])
    status, detail = drop_outcome(result, "c0")
    assert status == "fail"
    assert "Beyond the night-to-night noise" in detail
    noise = {item.candidate: item for item in result.night_noise}
    assert noise["c0"].night_sd_score == 0.0
    assert noise["c0"].residual == pytest.approx(-0.1)
    assert noise["c0"].beyond


def test_a_collapse_beyond_the_noise_still_fails() -> None:
    """The drifting history (nights spread about 0.1) and c0 down 0.65 tonight against a
    baseline average of 0.05: its residual is about -0.6, several times the noise: it fails."""
    tonight = {name: 0.05 * ((i + 14) % 3) for i, name in enumerate(NINE)}
    tonight["c0"] = 0.65
    past, current = drifting(14, tonight)
    result = evaluate_gate(current, past[11:], FAST, history=past[:11])
    status, detail = drop_outcome(result, "c0")
    assert status == "fail", detail
    assert "Beyond the night-to-night noise" in detail
    assert result.verdict == "fail"


def test_too_little_history_is_said_and_assumes_no_noise() -> None:
    """One baseline night and no history: no past residual, no spread from nights, and the
    text says the noise could not be read; the drop is read alone. c0 drops 0.15 on every run:
    against the variance of its runs (at least the floor of a side without a failure, about
    0.026^2 a side) that is z below -4 and fails."""
    base = night("base", NINE, {})
    current = night("tonight", NINE, {"c0": 0.15})
    result = evaluate_gate(current, [base], FAST)
    status, detail = drop_outcome(result, "c0")
    assert status == "fail"
    assert "too little history to read the night-to-night noise (0 past residuals)" in detail


def test_the_json_carries_each_candidates_noise() -> None:
    past = [night(f"night-{j:02d}", NINE, {}) for j in range(3)]
    current = night("tonight", NINE, {"c0": 0.1})
    document = json.loads(render_gate_json(evaluate_gate(current, past, FAST)))
    rows = {row["candidate"]: row for row in document["night_noise"]}
    assert sorted(rows) == sorted(NINE)
    assert rows["c0"]["residual"] == pytest.approx(-0.1)
    assert rows["c0"]["beyond"] is True
    assert rows["c1"]["beyond"] is False
    assert set(rows["c0"]) >= {"peers", "z_score", "z_dimensions", "night_sd_score", "level"}
    assert np.isfinite(rows["c0"]["p_value"])


def test_a_history_of_shared_moves_reads_drops_against_the_peers() -> None:
    """Every candidate moves together from night to night (night j: all drop 0.1 x (j mod 3)):
    in the past, the residuals against the peers are all 0 while the drops alone are not, so
    both statistics are read against the peers. Tonight all drop 0.2 (0.1 below the baseline
    nights' average) and c0 0.1 more: its drop is -0.2, its residual against its provider's
    others (c1, c2: -0.1) -0.1."""
    past = [night(f"night-{j:02d}", NINE, dict.fromkeys(NINE, 0.1 * (j % 3))) for j in range(14)]
    current = night("tonight", NINE, {**dict.fromkeys(NINE, 0.2), "c0": 0.3})
    result = evaluate_gate(current, past[11:], FAST, history=past[:11])
    noise = {item.candidate: item for item in result.night_noise}
    assert noise["c0"].against_peers == (True, True)
    assert noise["c0"].residual == pytest.approx(-0.1)
    assert noise["c0"].night_sd_score == 0.0  # past residuals all 0
    # c1's peers are c0 and c2 (provider p0): their median drop is -0.15, its residual +0.05;
    # c3's peers (c4, c5) dropped as it did.
    assert noise["c1"].residual == pytest.approx(0.05)
    assert noise["c3"].residual == pytest.approx(0.0, abs=1e-9)


def test_positions_number_names_as_the_runs_first_show_them() -> None:
    """A categorical column is read through its codes: names get positions in the order the
    runs first show them (not the categories' order), shared across nights; a missing name is
    None; an object column gives the same."""
    import pandas as pd

    from scorecard.gate._nights import positions

    runs = ["c", "a", "c", None, "b", "a"]
    categorical = pd.DataFrame({"case": pd.Categorical(runs, categories=["a", "b", "c", "d"])})
    known: dict[object, int] = {"b": 0}  # met on an earlier night
    assert positions(categorical, "case", known).tolist() == [1, 2, 1, 3, 0, 2]
    assert known == {"b": 0, "c": 1, "a": 2, None: 3}
    plain = pd.DataFrame({"case": pd.Series(runs, dtype=object)})
    again: dict[object, int] = {"b": 0}
    assert positions(plain, "case", again).tolist() == [1, 2, 1, 3, 0, 2]
    assert again == known


def test_flag_arrays_pass_only_true() -> None:
    import pandas as pd

    from scorecard.aggregate import flag_array

    frame = pd.DataFrame(
        {
            "nullable": pd.array([True, None, False, True], dtype="boolean"),
            "plain": pd.Series([True, None, False, 1], dtype=object),
        }
    )
    assert flag_array(frame, "nullable").tolist() == [True, False, False, True]
    assert flag_array(frame, "plain").tolist() == [True, False, False, False]  # 1 is not True
