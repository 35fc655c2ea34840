"""The campaign analysis: one family definition, streams keyed by what they resample, views
that narrow without recomputing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from scorecard.aggregate._analysis import POOLED, analyze_campaign
from scorecard.aggregate._compare import ComparisonSettings
from scorecard.aggregate._frames import records_frame
from scorecard.contract._errors import InputError
from scorecard.contract._models import CASE_IDS
from tests.aggregate.test_frames import make_record

SETTINGS = ComparisonSettings(seed=5, resamples=2000)
EIGHT = CASE_IDS[:8]


def night(bundle: str, scores: dict[str, list[float]]) -> list[dict[str, Any]]:
    """One record per candidate and case of EIGHT, with the given overall score per case."""
    return [
        make_record(
            candidate,
            case,
            bundle=bundle,
            scores=value,
            overall=value,
            passed=value == 1.0,
        )
        for candidate, values in scores.items()
        for case, value in zip(EIGHT, values, strict=True)
    ]


def frame_of(*nights: list[dict[str, Any]], order: list[str]) -> pd.DataFrame:
    return records_frame([record for records in nights for record in records], bundle_order=order)


DROP = [1.0] * 8, [0.5] * 8  # every case 1.0 -> 0.5: exact p = 2/256
MIXED = [0.5, 1.0] * 4, [1.0, 0.5] * 4  # four up, four down: p = 1


@pytest.fixture(scope="module")
def campaign() -> pd.DataFrame:
    """Three nights, three candidates: x drops from n1 to n2, y does not change, z is mixed."""
    return frame_of(
        night("n1", {"x": DROP[0], "y": [0.8] * 8, "z": MIXED[0]}),
        night("n2", {"x": DROP[1], "y": [0.8] * 8, "z": MIXED[1]}),
        night("n3", {"x": DROP[1], "y": [0.8] * 8}),
        order=["n1", "n2", "n3"],
    )


def test_the_across_bundle_family_is_every_shared_candidate_and_the_pooled_one_apart(
    campaign: pd.DataFrame,
) -> None:
    """n1 -> n2: x, y, z and the pooled comparison are shown; Holm runs over the three
    candidates' raw p-values only, and the pooled comparison keeps its own raw p-value (it
    restates the candidates' data, so counting it would only weaken every candidate's test)."""
    family = analyze_campaign(campaign, SETTINGS).family("n1", "n2")
    assert list(family) == ["x", "y", "z", POOLED]
    raw = [family[name].overall.p_value for name in ["x", "y", "z"]]
    assert raw[0] == 2 / 256
    order = np.argsort(raw, kind="stable")
    expected = np.maximum.accumulate(np.minimum(1.0, (3 - np.arange(3)) * np.array(raw)[order]))
    adjusted = [family[name].overall.p_adjusted for name in ["x", "y", "z"]]
    assert [adjusted[i] for i in order] == pytest.approx(list(expected), abs=0)
    assert family["x"].overall.p_adjusted == 3 * 2 / 256
    assert family[POOLED].overall.p_adjusted == family[POOLED].overall.p_value


def test_drop_tests_are_one_sided_and_holm_adjusted_over_candidates_and_gated_metrics(
    campaign: pd.DataFrame,
) -> None:
    """x's mean overall falls on 8 cases (n1 -> n2): its one-sided p is half the two-sided one
    (1/256); Holm runs over x, y, z times the gated metrics (3, then 6 members)."""
    analysis = analyze_campaign(campaign, SETTINGS)
    one = analysis.drops("n1", "n2", ("mean_overall",), ("mean_overall",))
    assert set(one) == {("mean_overall", name) for name in ("x", "y", "z", POOLED)}
    x = one[("mean_overall", "x")]
    assert x.p_drop == 1 / 256
    raw = {name: one[("mean_overall", name)].p_drop for name in ("x", "y", "z")}
    order = sorted(raw, key=raw.__getitem__)
    running = 0.0
    for rank, name in enumerate(order):
        running = max(running, min(1.0, (3 - rank) * raw[name]))
        assert one[("mean_overall", name)].p_drop_adjusted == pytest.approx(running, abs=0)
    assert not one[("mean_overall", POOLED)].gated
    both = analysis.drops("n1", "n2", ("mean_overall", "pass_rate"), ("mean_overall", "pass_rate"))
    assert both[("mean_overall", "x")].family_size == 6
    assert both[("mean_overall", "x")].p_drop_adjusted >= x.p_drop_adjusted


def test_a_candidate_missing_from_a_bundle_leaves_its_family(campaign: pd.DataFrame) -> None:
    """z did not run in n3: the n2 -> n3 family is x, y and pooled; z's trend has one step."""
    analysis = analyze_campaign(campaign, SETTINGS)
    assert list(analysis.family("n2", "n3")) == ["x", "y", POOLED]
    assert [item.current.bundle for item in analysis.across_bundles("z")] == ["n2"]
    with pytest.raises(InputError) as raised:
        analysis.comparison("z", "n2", "n3")
    assert raised.value.rule == "no_pair"


def test_one_shared_candidate_is_not_counted_twice() -> None:
    """With a single shared candidate the pooled comparison would repeat it: it is left out
    and the candidate's p-value is its own."""
    frame = frame_of(night("a", {"x": DROP[0]}), night("b", {"x": DROP[1]}), order=["a", "b"])
    family = analyze_campaign(frame, SETTINGS).family("a", "b")
    assert list(family) == ["x"]
    assert family["x"].overall.p_adjusted == 2 / 256
    assert family["x"].verdict == "worse"


def test_only_consecutive_bundles_are_compared(campaign: pd.DataFrame) -> None:
    """n3 against n1 skips n2: not a comparison of the analysis."""
    with pytest.raises(InputError) as raised:
        analyze_campaign(campaign, SETTINGS).comparison("x", "n1", "n3")
    assert raised.value.rule == "no_pair"


def test_adding_a_later_bundle_or_dropping_a_candidate_changes_no_other_number(
    campaign: pd.DataFrame,
) -> None:
    """x's n1 -> n2 comparison and its n1 summary are the same whether n3 exists, and the
    summaries stay the same when z's rows are gone (streams are named by bundle and candidate)."""
    full = analyze_campaign(campaign, SETTINGS)
    shorter = analyze_campaign(
        campaign.loc[(campaign["bundle"] != "n3").to_numpy()].reset_index(drop=True), SETTINGS
    )
    assert full.comparison("x", "n1", "n2") == shorter.comparison("x", "n1", "n2")
    without_z = analyze_campaign(
        campaign.loc[(campaign["candidate"] != "z").to_numpy()].reset_index(drop=True), SETTINGS
    )
    for bundle in ("n1", "n2"):
        assert full.summary_row(bundle, "x") == without_z.summary_row(bundle, "x")


def test_a_restricted_analysis_shows_fewer_candidates_with_the_same_numbers(
    campaign: pd.DataFrame,
) -> None:
    """Restricting to x keeps x's rows, tables and comparisons exactly (families unchanged)."""
    analysis = analyze_campaign(campaign, SETTINGS)
    only_x = analysis.restricted(["x"])
    assert set(only_x.candidates.summary["candidate"].astype(str)) == {"x"}
    full = analysis.candidates.summary
    expected = full.loc[(full["candidate"] == "x").to_numpy()].reset_index(drop=True)
    pd.testing.assert_frame_equal(only_x.candidates.summary, expected)
    assert only_x.comparison("x", "n1", "n2").overall.p_adjusted == 3 * 2 / 256
    with pytest.raises(InputError):
        analysis.restricted(["nobody"])


def test_within_a_bundle_the_family_is_every_candidate_against_the_baseline(
    campaign: pd.DataFrame,
) -> None:
    """In n1, x against z and y against z form one family of two, whichever one is asked for."""
    analysis = analyze_campaign(campaign, SETTINGS)
    x = analysis.candidate_comparison("n1", "x", "z")
    y = analysis.candidate_comparison("n1", "y", "z")
    raw = sorted([x.overall.p_value, y.overall.p_value])
    expected = sorted([min(1.0, 2 * raw[0]), max(min(1.0, 2 * raw[0]), raw[1])])
    assert sorted([x.overall.p_adjusted, y.overall.p_adjusted]) == expected


def test_pass_rate_comparisons_compare_pass_flags(campaign: pd.DataFrame) -> None:
    """x passed every case in n1 and none in n2: the pass-rate difference is -1 on each case."""
    comparison = analyze_campaign(campaign, SETTINGS).comparison("x", "n1", "n2", "pass_rate")
    assert (comparison.overall.current, comparison.overall.baseline) == (0.0, 1.0)
    assert comparison.overall.difference == -1.0


def test_the_pooled_label_is_reserved() -> None:
    """A candidate called like the pooled comparison is bad input."""
    frame = records_frame(night("a", {POOLED: DROP[0]}))
    with pytest.raises(InputError) as raised:
        analyze_campaign(frame, SETTINGS)
    assert raised.value.rule == "reserved_candidate"
