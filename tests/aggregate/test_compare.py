"""Paired comparisons: pairing by case, exclusions, tests, Holm families and verdicts."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import pytest

from scorecard.aggregate._analysis import compare_across_bundles, compare_to_baseline
from scorecard.aggregate._compare import (
    ComparisonSettings,
    compare_bundles,
    compare_candidates,
)
from scorecard.aggregate._frames import records_frame
from scorecard.contract._errors import InputError
from scorecard.contract._models import CASE_IDS
from tests.aggregate.test_frames import make_record

SETTINGS = ComparisonSettings(seed=11, resamples=2000)
EIGHT = CASE_IDS[:8]


def _runs(
    candidate: str,
    overall_by_case: Mapping[str, Sequence[float]],
    *,
    bundle: str = "b1",
    semantic: float | None = None,
) -> list[dict[str, Any]]:
    """One record per listed overall score (repetitions 1, 2, ...); a score of 1 passes."""
    records = []
    for case, scores in overall_by_case.items():
        for repetition, overall in enumerate(scores, start=1):
            dimensions = [1.0] * 8 if semantic is None else [1.0, 1.0, semantic, *[1.0] * 5]
            records.append(
                make_record(
                    candidate,
                    case,
                    repetition,
                    bundle=bundle,
                    scores=dimensions,
                    overall=overall,
                    passed=overall == 1.0,
                )
            )
    return records


def _frame(*groups: list[dict[str, Any]]) -> pd.DataFrame:
    return records_frame([record for group in groups for record in group])


def _brute_force_sign_flip(differences: Sequence[float]) -> float:
    observed = abs(sum(differences))
    hits = sum(
        abs(sum(sign * value for sign, value in zip(signs, differences, strict=True)))
        >= observed - 1e-9
        for signs in itertools.product((1, -1), repeat=len(differences))
    )
    return hits / (1 << len(differences))


def test_a_clear_gain_on_every_case_is_better() -> None:
    """Eight cases, 0.5 -> 1.0 on both repetitions: +0.5, p = 2/256, McNemar 16 to 0."""
    frame = _frame(
        _runs("base", {case: [0.5, 0.5] for case in EIGHT}),
        _runs("new", {case: [1.0, 1.0] for case in EIGHT}),
    )
    result = compare_candidates(frame, "new", "base", SETTINGS)
    assert result.verdict == "better"
    assert result.paired_cases == EIGHT
    assert (result.overall.current, result.overall.baseline) == (1.0, 0.5)
    # Every difference is +0.5: any other shift makes all eight signs agree (p = 2/256), so the
    # inverted sign-flip interval is the point (to the bisection's precision).
    overall = result.overall
    assert (overall.difference, overall.low, overall.high) == pytest.approx((0.5,) * 3, abs=1e-9)
    assert result.overall.p_value == 2 / 256
    mcnemar = result.mcnemar
    assert (mcnemar.pairs, mcnemar.current_only, mcnemar.baseline_only) == (16, 16, 0)
    assert mcnemar.p_value == 2 / 2**16


def test_a_clear_loss_is_worse() -> None:
    """The same data the other way round is worse."""
    frame = _frame(
        _runs("base", {case: [1.0] for case in EIGHT}),
        _runs("new", {case: [0.5] for case in EIGHT}),
    )
    result = compare_candidates(frame, "new", "base", SETTINGS)
    assert (result.verdict, result.overall.difference) == ("worse", -0.5)


def test_a_difference_inside_the_tolerance_is_inconclusive() -> None:
    """+0.5 everywhere with a tolerance of 0.6: no difference that matters."""
    frame = _frame(
        _runs("base", {case: [0.5] for case in EIGHT}),
        _runs("new", {case: [1.0] for case in EIGHT}),
    )
    settings = ComparisonSettings(seed=11, resamples=2000, tolerance=0.6)
    result = compare_candidates(frame, "new", "base", settings)
    assert result.verdict == "inconclusive"
    assert "within +/-0.6" in result.reason


def test_too_few_paired_cases_are_inconclusive() -> None:
    """Five paired cases cannot reach p < 0.05 exactly, so the verdict says so up front."""
    frame = _frame(
        _runs("base", {case: [0.5] for case in CASE_IDS[:5]}),
        _runs("new", {case: [1.0] for case in CASE_IDS[:5]}),
    )
    result = compare_candidates(frame, "new", "base", SETTINGS)
    assert result.verdict == "inconclusive"
    assert result.reason.startswith("paired coverage too small: 5 of 5 cases paired")


def test_mixed_differences_use_case_means_and_an_exact_sign_flip() -> None:
    """Case differences d: the estimate is mean(d) and p the brute-force sign-flip count."""
    differences = [0.25, -0.125, 0.5, 0.125, 0.0, 0.375, -0.25, 0.125]
    frame = _frame(
        _runs("base", {case: [0.5] for case in EIGHT}),
        _runs("new", {case: [0.5 + d] for case, d in zip(EIGHT, differences, strict=True)}),
    )
    result = compare_candidates(frame, "new", "base", SETTINGS)
    assert result.overall.difference == 0.125  # 1.0 / 8
    assert result.overall.current == 0.625
    assert result.overall.p_value == _brute_force_sign_flip(differences)
    assert result.overall.low <= 0.125 <= result.overall.high


def test_repetitions_are_averaged_within_a_case() -> None:
    """Each case weighs the same: a case with three repetitions counts once, by its mean."""
    base = {case: [0.5] for case in EIGHT}
    new = {case: [0.5] for case in EIGHT}
    new[EIGHT[0]] = [1.0, 0.5, 0.0]  # mean 0.5: no difference on this case
    new[EIGHT[1]] = [1.0]  # +0.5 on this one
    result = compare_candidates(
        _frame(_runs("base", base), _runs("new", new)), "new", "base", SETTINGS
    )
    assert result.overall.difference == 0.0625  # 0.5 / 8


def test_every_exclusion_is_counted() -> None:
    """Unscoreable rows, one-sided cases and never-scoreable cases are listed, not dropped."""
    base = _runs("base", {case: [0.5, 0.5] for case in EIGHT if case != "rich-activity"})
    base[1] = make_record(
        "base",
        "final-response",
        2,
        bundle="b1",
        classification="infrastructure_failure",
        scores=None,
    )
    base += [
        make_record(
            "base", "rich-activity", repetition, bundle="b1", classification="skipped", scores=None
        )
        for repetition in (1, 2)
    ]
    new = _runs("new", {case: [1.0, 1.0] for case in (*EIGHT, "restart-recovery")})
    result = compare_candidates(_frame(base, new), "new", "base", SETTINGS)
    excluded = result.exclusions
    assert excluded.unscoreable_baseline == (
        ("final-response", 2),
        ("rich-activity", 1),
        ("rich-activity", 2),
    )
    assert excluded.unscoreable_current == ()
    assert excluded.cases_only_current == ("restart-recovery",)
    assert excluded.cases_only_baseline == ()
    assert excluded.cases_unscoreable_baseline == ("rich-activity",)
    assert excluded.unpaired_repetitions == 1
    assert (len(result.paired_cases), result.cases) == (7, 9)
    assert result.mcnemar.pairs == 13


def test_dimension_deltas_are_holm_adjusted_among_themselves() -> None:
    """Only semantic_outcome moves (p = 2/256); Holm over eight dimensions makes it 8 x 2/256."""
    frame = _frame(
        _runs("base", {case: [0.9] for case in EIGHT}, semantic=0.5),
        _runs("new", {case: [0.9] for case in EIGHT}, semantic=1.0),
    )
    result = compare_candidates(frame, "new", "base", SETTINGS)
    by_name = {delta.statistic: delta for delta in result.dimensions}
    assert [delta.statistic for delta in result.dimensions] == [
        "hard_invariants",
        "lifecycle_integrity",
        "semantic_outcome",
        "trajectory_restraint",
        "trace_completeness",
        "quality_efficiency",
        "continuation_integrity",
        "presentation_fidelity",
    ]
    semantic = by_name["semantic_outcome"]
    assert (semantic.difference, semantic.p_value, semantic.p_adjusted) == (0.5, 2 / 256, 16 / 256)
    assert by_name["trace_completeness"].p_adjusted == 1.0
    assert result.verdict == "inconclusive"  # the overall score did not move


def test_a_candidate_across_bundles_is_compared_bundle_after_bundle() -> None:
    """Three bundles give two comparisons (b2 vs b1, b3 vs b2); each is its own family (the
    family is a bundle pair's candidates, and c is the only one), so nothing is adjusted."""
    frame = records_frame(
        [
            *_runs("c", {case: [0.5] for case in EIGHT}, bundle="b1"),
            *_runs("c", {case: [1.0] for case in EIGHT}, bundle="b2"),
            *_runs("c", {case: [1.0] for case in EIGHT}, bundle="b3"),
        ],
        bundle_order=["b1", "b2", "b3"],
    )
    results = compare_across_bundles(frame, "c", SETTINGS)
    assert [(item.current.bundle, item.baseline.bundle) for item in results] == [
        ("b2", "b1"),
        ("b3", "b2"),
    ]
    assert [item.overall.p_value for item in results] == [2 / 256, 1.0]
    assert [item.overall.p_adjusted for item in results] == [2 / 256, 1.0]
    assert [item.verdict for item in results] == ["better", "inconclusive"]


def test_bundle_order_decides_which_bundle_is_the_baseline() -> None:
    """compare_bundles judges the current bundle against the named baseline bundle."""
    frame = _frame(
        _runs("c", {case: [1.0] for case in EIGHT}, bundle="old"),
        _runs("c", {case: [0.5] for case in EIGHT}, bundle="new"),
    )
    result = compare_bundles(frame, "c", "new", "old", SETTINGS)
    assert (result.current.label, result.baseline.label, result.verdict) == (
        "c@new",
        "c@old",
        "worse",
    )


def test_candidates_against_one_baseline_form_a_holm_family() -> None:
    """Two challengers with p = 2/256 each: Holm makes both 4/256, both still better."""
    frame = _frame(
        _runs("base", {case: [0.5] for case in EIGHT}),
        _runs("x", {case: [1.0] for case in EIGHT}),
        _runs("y", {case: [0.75] for case in EIGHT}),
    )
    results = compare_to_baseline(frame, "base", ["x", "y"], SETTINGS)
    assert [item.overall.p_adjusted for item in results] == [4 / 256, 4 / 256]
    assert [item.verdict for item in results] == ["better", "better"]


def test_unknown_candidates_and_ambiguous_bundles_are_input_errors() -> None:
    """A missing side or several bundles without a choice raise a clear InputError."""
    frame = _frame(
        _runs("a", {case: [1.0] for case in EIGHT}, bundle="b1"),
        _runs("a", {case: [1.0] for case in EIGHT}, bundle="b2"),
        _runs("b", {case: [1.0] for case in EIGHT}, bundle="b2"),
    )
    with pytest.raises(InputError) as missing:
        compare_candidates(frame, "zzz", "a", SETTINGS, bundle="b1")
    assert missing.value.rule == "unknown_selection"
    with pytest.raises(InputError) as ambiguous:
        compare_candidates(frame, "b", "a", SETTINGS)
    assert ambiguous.value.rule == "ambiguous_bundle"


def test_a_comparison_without_pairs_is_inconclusive_and_serialisable() -> None:
    """No case in common: NaN statistics become null in JSON, the verdict is inconclusive."""
    frame = _frame(
        _runs("a", {case: [1.0] for case in CASE_IDS[:3]}),
        _runs("b", {case: [1.0] for case in CASE_IDS[3:6]}),
    )
    result = compare_candidates(frame, "a", "b", SETTINGS)
    document = json.loads(json.dumps(result.to_json(), allow_nan=False))
    assert document["overall"]["difference"] is None
    assert document["verdict"] == "inconclusive"
    assert document["coverage"] == 0.0


def test_a_zero_tolerance_reads_below_0_never_minus_0() -> None:
    """Every case down by 0.5 with tolerance 0: the reason says "below 0"."""
    frame = _frame(
        _runs("base", {case: [1.0] for case in EIGHT}),
        _runs("new", {case: [0.5] for case in EIGHT}),
    )
    result = compare_candidates(frame, "new", "base", ComparisonSettings(seed=0, resamples=2000))
    assert result.verdict == "worse"
    assert "below 0 " in result.reason
    assert "-0 " not in result.reason


def test_identical_sides_say_so_instead_of_straddling() -> None:
    """The same scores on both sides: no difference at all, said in words."""
    frame = _frame(
        _runs("base", {case: [0.7] for case in EIGHT}),
        _runs("new", {case: [0.7] for case in EIGHT}),
    )
    result = compare_candidates(frame, "new", "base", ComparisonSettings(seed=0, resamples=2000))
    assert result.verdict == "inconclusive"
    assert "identical on the 8 paired cases" in result.reason
    assert "straddles" not in result.reason
