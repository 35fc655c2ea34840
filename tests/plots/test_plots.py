"""Plots: what each figure holds on the sample campaign and on edge data, images, and the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.image import imread
from typer.testing import CliRunner, Result

from scorecard.aggregate._analysis import CampaignAnalysis, analyze_campaign
from scorecard.aggregate._compare import ComparisonSettings
from scorecard.aggregate._frames import records_frame, select_rows
from scorecard.cli._app import app
from scorecard.contract._errors import InputError
from scorecard.contract._models import CASE_IDS
from scorecard.plots._base import error_bar
from scorecard.plots._cost import plot_provider_comparison, plot_quality_vs_cost
from scorecard.plots._kinds import PLOT_KINDS, draw_plot, paired_comparison
from scorecard.plots._quality import (
    plot_dimension_heatmap,
    plot_overall_scores,
    plot_paired_differences,
)
from scorecard.plots._reliability import EVERY_K_UP_TO, plot_pass_k, plot_trends
from tests.aggregate.test_frames import make_record

SAMPLES = Path(__file__).resolve().parents[2] / "observations"
NEWEST = "campaign-2026-11-22"
PREVIOUS = "campaign-2026-11-15"
BUNDLES = ["campaign-2026-11-01", "campaign-2026-11-08", PREVIOUS, NEWEST]
CANDIDATES = [
    "acpx-claude-sonnet",
    "acpx-codex-sol",
    "codex-luna",
    "opencode-glm",
    "opencode-glm-flash",
    "opencode-gpt-oss",
    "opencode-kimi",
]
VERMILLION = "#d55e00"
SETTINGS = ComparisonSettings(seed=0)


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sample() -> pd.DataFrame:
    """The sample campaign, scored once per test session (do not modify it)."""
    return records_frame([SAMPLES])


@pytest.fixture(scope="session")
def newest(sample: pd.DataFrame) -> pd.DataFrame:
    """The sample's newest bundle."""
    return select_rows(sample, bundle=NEWEST)


@pytest.fixture(scope="session")
def unscoreable() -> pd.DataFrame:
    """Two candidates whose runs all failed for infrastructure reasons: nothing is scoreable."""
    return records_frame(
        [
            make_record(
                candidate,
                case,
                repetition,
                scores=None,
                classification="infrastructure_failure",
                metrics={"attempts": 1, "toolCount": 0},
            )
            for candidate in ("a", "b")
            for case in ("final-response", "rich-activity")
            for repetition in (1, 2)
        ]
    )


@pytest.fixture(scope="session")
def edges(sample: pd.DataFrame, unscoreable: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Edge frames: one candidate, one case, nothing scoreable, no cost data at all."""
    one_case = sample.loc[(sample["case"] == "final-response").to_numpy()].reset_index(drop=True)
    return {
        "one candidate": select_rows(sample, candidate="codex-luna"),
        "one case": one_case,
        "all unscoreable": unscoreable,
        "missing costs": sample.assign(cost_usd=np.nan),
    }


# --- helpers --------------------------------------------------------------------------------


def analyzed(frame: pd.DataFrame, *, seed: int = 0) -> CampaignAnalysis:
    """The campaign analysis of ``frame`` (what every plot draws)."""
    return analyze_campaign(frame, ComparisonSettings(seed=seed))


def panels(figure: Figure) -> list[Axes]:
    """The figure's data panels (colorbars left out)."""
    return [ax for ax in figure.axes if ax.get_label() != "<colorbar>"]


def texts(figure: Figure) -> list[str]:
    """Every text drawn inside the panels."""
    return [text for ax in panels(figure) for text in panel_texts(ax)]


def panel_texts(ax: Axes) -> list[str]:
    """The texts drawn inside one panel."""
    return [text.get_text() for text in ax.texts]


def numbers(values: object) -> list[float]:
    """A line's x or y data as plain floats."""
    return [float(value) for value in np.asarray(values, dtype=np.float64)]


def errorbars(ax: Axes) -> list[ErrorbarContainer]:
    """The errorbar series of a panel."""
    return [item for item in ax.containers if isinstance(item, ErrorbarContainer)]


def tick_labels(ax: Axes, axis: str = "y") -> list[str]:
    """Tick labels of the x or y axis, from the lowest tick value to the highest."""
    if axis == "y":
        ticks = sorted(ax.get_yticklabels(), key=lambda label: label.get_position()[1])
    else:
        ticks = sorted(ax.get_xticklabels(), key=lambda label: label.get_position()[0])
    return [label.get_text() for label in ticks]


def legend_texts(ax: Axes) -> list[str]:
    """The entries of a panel's legend."""
    legend = ax.get_legend()
    assert legend is not None
    return [text.get_text() for text in legend.get_texts()]


def assert_no_empty_panel(figure: Figure) -> None:
    """Every panel draws data or says why it has none."""
    for ax in panels(figure):
        assert ax.has_data() or ax.texts, f"empty panel {ax.get_title()!r}"


def runs_of(frame: pd.DataFrame, candidate: str) -> pd.DataFrame:
    """Scoreable runs of one candidate in the newest bundle."""
    mask = (frame["candidate"] == candidate) & frame["scoreable"] & (frame["bundle"] == NEWEST)
    return frame.loc[mask.to_numpy()]


def row_means(frame: pd.DataFrame) -> dict[str, float]:
    """Mean overall score over the scoreable runs of each candidate in the newest bundle."""
    return {name: float(runs_of(frame, name)["overall_score"].mean()) for name in CANDIDATES}


# --- heatmap --------------------------------------------------------------------------------


def test_heatmap_has_one_annotated_cell_per_candidate_and_dimension(sample: pd.DataFrame) -> None:
    """7 candidates x 8 dimensions: 56 cells, 56 values, a labelled colour bar."""
    figure = plot_dimension_heatmap(analyzed(sample))
    [ax] = panels(figure)
    assert ax.get_title() == f"Mean score per dimension in {NEWEST}"
    assert ax.get_xlabel() == "dimension (* gate dimension)"
    assert ax.get_ylabel() == "candidate"
    cells = ax.images[0].get_array()
    assert cells is not None
    assert cells.shape == (7, 8)
    assert len(ax.texts) == 56
    assert tick_labels(ax) == CANDIDATES
    [colorbar] = [item for item in figure.axes if item.get_label() == "<colorbar>"]
    assert colorbar.get_ylabel().startswith("mean score (0-1")


def test_heatmap_cells_show_the_mean_dimension_score(sample: pd.DataFrame) -> None:
    """The cell of opencode-glm and semantic outcome shows its mean over scoreable runs."""
    expected = f"{runs_of(sample, 'opencode-glm')['score_semantic_outcome'].mean():.2f}"
    [ax] = panels(plot_dimension_heatmap(analyzed(sample)))
    cell = next(text for text in ax.texts if text.get_position() == (2, 3))
    assert cell.get_text() == expected


# --- overall --------------------------------------------------------------------------------


def test_overall_scores_are_sorted_best_on_top_with_one_interval_each(sample: pd.DataFrame) -> None:
    """One errorbar per candidate; candidates from the lowest mean (bottom) to the highest."""
    means = row_means(sample)
    [ax] = panels(plot_overall_scores(analyzed(sample, seed=3)))
    assert ax.get_title() == f"Mean overall score with 95% interval in {NEWEST}"
    assert ax.get_xlabel() == "mean overall score (0-1); interval: bootstrap over cases, seed 3"
    assert len(errorbars(ax)) == 7
    assert tick_labels(ax) == sorted(CANDIDATES, key=means.__getitem__)


def test_overall_whiskers_span_the_case_bootstrap_interval(sample: pd.DataFrame) -> None:
    """The top candidate's whisker is the analysis's (bundle, candidate) interval for the same
    seed (the gate-pass x quality interval of mean overall, docs/aggregation.md section 3)."""
    table = analyzed(sample, seed=5).candidates.summary
    table = table.loc[(table["bundle"] == NEWEST).to_numpy()]
    best = table.sort_values("mean_overall").iloc[-1]
    [ax] = panels(plot_overall_scores(analyzed(sample, seed=5)))
    segment = errorbars(ax)[-1].lines[2][0].get_segments()[0]
    assert [point[0] for point in segment] == pytest.approx(
        [best["mean_overall_low"], best["mean_overall_high"]]
    )


def test_overall_marks_candidates_with_gate_failures() -> None:
    """A candidate with a failed gate gets a vermillion X and a note; a clean one a circle."""
    cases = ("final-response", "rich-activity", "verification-policy")
    records = [make_record("clean", case) for case in cases] + [
        make_record("risky", case, overall=0.0, passed=False, gate_passed=index != 0)
        for index, case in enumerate(cases)
    ]
    [ax] = panels(plot_overall_scores(analyzed(records_frame(records))))
    markers = {
        label: container.lines[0]
        for label, container in zip(tick_labels(ax), errorbars(ax), strict=True)
    }
    assert markers["clean"].get_marker() == "o"
    assert markers["risky"].get_marker() == "X"
    assert to_hex(markers["risky"].get_color()) == VERMILLION
    assert "0.000 (3 scored runs, 1 gate failure)" in panel_texts(ax)


# --- paired ---------------------------------------------------------------------------------


def test_paired_plot_shows_overall_and_eight_dimensions_around_a_zero_line(
    sample: pd.DataFrame,
) -> None:
    """Nine intervals (overall on top), a dashed line at zero and the verdict in the title."""
    comparison = analyzed(sample).candidate_comparison(NEWEST, "opencode-kimi", "acpx-codex-sol")
    [ax] = panels(plot_paired_differences(comparison))
    assert ax.get_title().startswith(f"opencode-kimi minus acpx-codex-sol in {NEWEST}\n")
    assert ax.get_title().endswith(f"verdict: {comparison.verdict.upper()}")
    assert ax.get_xlabel().startswith("difference in mean score (B - A")
    assert len(errorbars(ax)) == 9
    assert tick_labels(ax)[-1] == "overall"
    assert tick_labels(ax)[0] == "presentation fidelity"
    assert any(numbers(line.get_xdata()) == [0, 0] for line in ax.lines)


def test_paired_plot_reads_opencode_glm_as_the_gate_does(sample: pd.DataFrame) -> None:
    """opencode-glm's newest drop: interval below zero, exact two-sided p = 64/4096, but Holm
    over the seven candidates of that bundle pair (the pooled comparison is not a member) gives
    7 x 0.015625 = 0.109: INCONCLUSIVE, as compare says, drawn in grey with the adjusted p."""
    comparison = analyzed(sample).comparison("opencode-glm", PREVIOUS, NEWEST)
    [ax] = panels(plot_paired_differences(comparison))
    assert ax.get_title().startswith(f"{NEWEST} minus {PREVIOUS} for opencode-glm")
    assert ax.get_title().endswith("verdict: INCONCLUSIVE")
    overall = errorbars(ax)[0].lines[0]
    assert to_hex(overall.get_color()) == "#7f7f7f"
    assert any(text.endswith("p=0.109") for text in panel_texts(ax))


def test_paired_plot_draws_a_worse_verdict_in_vermillion() -> None:
    """Eight cases all down from 1.0 to 0.5 in the next bundle: WORSE, overall in vermillion."""
    cases = CASE_IDS[:8]
    records = [make_record("c", case, bundle="b1") for case in cases]
    records += [make_record("c", case, bundle="b2", scores=0.5, overall=0.5) for case in cases]
    analysis = analyze_campaign(records_frame(records), SETTINGS)
    [ax] = panels(plot_paired_differences(analysis.comparison("c", "b1", "b2")))
    assert ax.get_title().endswith("verdict: WORSE")
    assert to_hex(errorbars(ax)[0].lines[0].get_color()) == VERMILLION


def test_paired_plot_without_paired_cases_says_so(unscoreable: pd.DataFrame) -> None:
    """No case is scoreable on both sides: a message instead of intervals."""
    comparison = analyzed(unscoreable).candidate_comparison("bundle-1", "b", "a")
    figure = plot_paired_differences(comparison)
    assert texts(figure) == ["no paired cases: no case has scoreable runs on both sides"]
    assert errorbars(panels(figure)[0]) == []


def test_default_pair_is_the_leader_against_the_runner_up(sample: pd.DataFrame) -> None:
    """Without --candidate the paired plot shows the best mean minus the second best."""
    ranked = sorted(CANDIDATES, key=row_means(sample).__getitem__, reverse=True)
    comparison = paired_comparison(analyzed(sample))
    assert (comparison.current.candidate, comparison.baseline.candidate) == tuple(ranked[:2])
    assert comparison.current.bundle == NEWEST


def test_one_candidate_is_paired_with_itself_in_the_bundle_before(sample: pd.DataFrame) -> None:
    """`plot paired --candidate X`: X in the newest bundle against X in the one before, the
    analysis's own comparison (same family, same numbers)."""
    analysis = analyzed(sample)
    comparison = paired_comparison(
        analysis.restricted(["opencode-glm"]), candidates=["opencode-glm"]
    )
    assert (comparison.current.bundle, comparison.baseline.bundle) == (NEWEST, PREVIOUS)
    assert comparison.current.candidate == comparison.baseline.candidate == "opencode-glm"
    assert comparison == analysis.comparison("opencode-glm", PREVIOUS, NEWEST)
    [ax] = panels(draw_plot("paired", analysis, candidates=["opencode-glm"]))
    assert ax.get_title().startswith(f"{NEWEST} minus {PREVIOUS} for opencode-glm")


def test_one_candidate_in_one_bundle_and_three_candidates_are_bad_input(
    sample: pd.DataFrame,
) -> None:
    """Nothing before the first bundle to compare with; three candidates are no pair."""
    first = analyzed(select_rows(sample, bundle="campaign-2026-11-01"))
    with pytest.raises(InputError) as raised:
        draw_plot("paired", first, candidates=["codex-luna"])
    assert raised.value.rule == "no_pair"
    with pytest.raises(InputError) as raised:
        draw_plot("paired", analyzed(sample), candidates=CANDIDATES[:3])
    assert raised.value.rule == "conflicting_options"


def test_default_paired_plot_shows_what_regressed(sample: pd.DataFrame) -> None:
    """Without --candidate, over several bundles: every candidate (and the pooled comparison)
    in the newest bundle minus itself in the one before, the largest drop on top, each interval
    the analysis's, coloured by its verdict."""
    analysis = analyzed(sample)
    [ax] = panels(draw_plot("paired", analysis))
    assert ax.get_title() == (
        f"Change in mean overall score: {NEWEST} minus {PREVIOUS}, per candidate"
    )
    family = analysis.family(PREVIOUS, NEWEST)
    labels = tick_labels(ax)
    assert sorted(labels) == sorted(family)
    assert labels[0] == "(all candidates)"
    # The sample's seeded regression: opencode-glm dropped the most in the newest bundle.
    assert labels[-1] == "opencode-glm"
    worst = family["opencode-glm"].overall
    segment = errorbars(ax)[-1].lines[2][0].get_segments()[0]
    assert [point[0] for point in segment] == pytest.approx([worst.low, worst.high])
    assert f"{worst.difference:+.3f} [{worst.low:+.3f}, {worst.high:+.3f}]  " in " ".join(
        panel_texts(ax)
    )


def test_overall_marks_only_the_gate_failures_that_matter(sample: pd.DataFrame) -> None:
    """With the gate's failing candidates given, only they get the X; every candidate still
    shows its count of gate failures."""
    [ax] = panels(plot_overall_scores(analyzed(sample), gate_failed=["opencode-glm"]))
    markers = {
        label: container.lines[0].get_marker()
        for label, container in zip(tick_labels(ax), errorbars(ax), strict=True)
    }
    assert markers.pop("opencode-glm") == "X"
    assert set(markers.values()) == {"o"}
    assert sum("gate failure" in text for text in panel_texts(ax)) == 7
    assert legend_texts(ax) == [
        "the gate does not fail it",
        "the gate fails it (e.g. new gate failures)",
    ]


# --- pass^k ---------------------------------------------------------------------------------


def test_pass_k_draws_one_curve_per_candidate_up_to_the_most_repetitions(
    sample: pd.DataFrame, newest: pd.DataFrame
) -> None:
    """One solid line per candidate, ticks k = 1..the most scoreable repetitions of a case."""
    scoreable = newest.loc[newest["scoreable"].to_numpy()]
    most = int(scoreable.groupby(["candidate", "case"], observed=True).size().max())
    [ax] = panels(plot_pass_k(analyzed(sample)))
    assert ax.get_title() == f"pass^k: all k runs of a case pass in {NEWEST}"
    assert (ax.get_xlabel(), ax.get_ylabel()) == (
        "k (repetitions of a case)",
        "share of cases (0-1)",
    )
    assert len(ax.lines) == 7
    assert list(ax.get_xticks()) == list(range(1, most + 1))
    assert legend_texts(ax) == CANDIDATES


def test_pass_k_of_many_repetitions_marks_some_ten_whole_numbers() -> None:
    """Past EVERY_K_UP_TO repetitions of a case, pass^k has k = 1 and some ten round
    whole-number ticks up to n, and a marker on some ten of its points, not one of each for
    every k (45 here)."""
    most = 45
    assert most > EVERY_K_UP_TO
    frame = records_frame(
        [
            make_record(candidate, case, repetition, scores=1.0 if repetition % 3 else 0.5)
            for candidate in ("a", "b")
            for case in ("final-response", "rich-activity")
            for repetition in range(1, most + 1)
        ]
    )
    [ax] = panels(plot_pass_k(analyzed(frame)))
    ticks = list(ax.get_xticks())
    assert 3 <= len(ticks) <= 12
    assert ticks[0] == 1
    assert ticks == sorted(set(ticks))
    assert ticks[-1] <= most
    assert all(float(tick).is_integer() for tick in ticks)
    for line in ax.lines:
        assert len(numbers(line.get_xdata())) == most
        assert line.get_markevery() == most // 10


def test_pass_1_is_the_mean_over_cases_of_the_case_pass_rate(sample: pd.DataFrame) -> None:
    """pass^1 of codex-luna: the pass rate of each most-repeated case, averaged over them."""
    runs = runs_of(sample, "codex-luna")
    by_case = runs.groupby("case", observed=True)["passed"]
    repeated = by_case.size() == by_case.size().max()
    expected = by_case.mean().astype(float)[repeated].mean()
    [ax] = panels(plot_pass_k(analyzed(sample)))
    line = next(line for line in ax.lines if line.get_label() == "codex-luna")
    assert numbers(line.get_ydata())[0] == pytest.approx(expected)


def test_pass_at_k_adds_a_dashed_curve_per_candidate(sample: pd.DataFrame) -> None:
    """With pass@k: 14 lines, half of them dashed."""
    [ax] = panels(plot_pass_k(analyzed(sample), pass_at_k=True))
    assert len(ax.lines) == 14
    assert sum(line.get_linestyle() == "--" for line in ax.lines) == 7


# --- quality vs cost ------------------------------------------------------------------------


def test_quality_vs_cost_labels_every_candidate_and_draws_the_frontier(
    sample: pd.DataFrame, newest: pd.DataFrame
) -> None:
    """Seven labelled points; the dashed frontier joins the candidates nobody beats."""
    quality = row_means(sample)
    cost = {
        name: float(newest.loc[(newest["candidate"] == name).to_numpy(), "cost_usd"].mean())
        for name in CANDIDATES
    }
    frontier = [
        name
        for name in CANDIDATES
        if not any(
            quality[other] >= quality[name]
            and cost[other] <= cost[name]
            and (quality[other] > quality[name] or cost[other] < cost[name])
            for other in CANDIDATES
        )
    ]
    [ax] = panels(plot_quality_vs_cost(analyzed(sample)))
    assert ax.get_title() == f"Quality against cost in {NEWEST}"
    assert (ax.get_xlabel(), ax.get_ylabel()) == (
        "mean cost per run (USD)",
        "mean overall score (0-1)",
    )
    assert len(ax.collections) == 7
    assert sorted(texts(ax.get_figure(root=True))) == CANDIDATES  # type: ignore[arg-type]
    [line] = ax.lines
    assert sorted(numbers(line.get_xdata())) == pytest.approx(sorted(cost[n] for n in frontier))


def test_candidates_without_cost_data_are_named_under_the_panel(sample: pd.DataFrame) -> None:
    """codex-luna without costs: six points, and a note names it."""
    frame = sample.copy()
    frame.loc[(frame["candidate"] == "codex-luna").to_numpy(), "cost_usd"] = np.nan
    figure = plot_quality_vs_cost(analyzed(frame))
    [ax] = panels(figure)
    assert len(ax.collections) == 6
    assert "Left out (no cost data: codex-luna)." in texts(figure)


def test_no_cost_data_at_all_says_so_in_the_panel(edges: dict[str, pd.DataFrame]) -> None:
    """Without any cost the panel says "no cost data" instead of drawing nothing."""
    figure = plot_quality_vs_cost(analyzed(edges["missing costs"]))
    assert "no cost data" in texts(figure)
    assert len(panels(figure)[0].collections) == 0


# --- trends and providers -------------------------------------------------------------------


def test_trends_have_two_panels_with_one_series_per_candidate(sample: pd.DataFrame) -> None:
    """Mean overall on top, pass rate below, seven series each, bundles in order on the x axis."""
    figure = plot_trends(analyzed(sample))
    top, bottom = panels(figure)
    assert figure.get_suptitle() == "Candidates across bundles (in bundle order)"
    assert top.get_title() == "Mean overall score (95% bootstrap interval, seed 0)"
    assert bottom.get_title() == "Pass rate (95% Wilson interval)"
    assert (top.get_ylabel(), bottom.get_ylabel()) == (
        "mean overall score (0-1)",
        "pass rate (0-1)",
    )
    assert bottom.get_xlabel() == "bundle"
    assert len(errorbars(top)) == len(errorbars(bottom)) == 7
    assert tick_labels(bottom, "x") == BUNDLES
    assert legend_texts(top) == CANDIDATES


def test_provider_comparison_groups_candidates_by_provider(
    sample: pd.DataFrame, newest: pd.DataFrame
) -> None:
    """Two panels of seven bars; candidates listed provider by provider (first provider on top,
    so at the lowest tick value of the inverted axis); a legend of providers."""
    providers = newest.groupby("candidate", observed=True)["provider"].first().astype(str)
    expected = sorted(CANDIDATES, key=lambda name: (providers[name], name))
    figure = plot_provider_comparison(analyzed(sample))
    left, right = panels(figure)
    assert figure.get_suptitle() == f"Candidates by provider in {NEWEST}"
    assert (left.get_xlabel(), right.get_xlabel()) == (
        "mean overall score (0-1)",
        "pass rate (0-1)",
    )
    assert len(left.patches) == len(right.patches) == 7
    assert left.yaxis_inverted()
    assert tick_labels(left) == expected
    legend = legend_texts(right)
    assert legend == ["acpx", "codex", "opencode", "provider, all its runs"]


# --- edge data ------------------------------------------------------------------------------


@pytest.mark.parametrize("edge", ["one candidate", "one case", "all unscoreable", "missing costs"])
@pytest.mark.parametrize("kind", PLOT_KINDS)
def test_edge_data_gives_titled_panels_that_are_never_empty(
    kind: str, edge: str, edges: dict[str, pd.DataFrame]
) -> None:
    """Every plot of every edge frame draws something or says why in each titled panel."""
    figure = draw_plot(kind, analyzed(edges[edge]))
    assert all(ax.get_title() for ax in panels(figure))
    assert any(ax.get_xlabel() for ax in panels(figure))
    assert any(ax.get_ylabel() for ax in panels(figure))
    assert_no_empty_panel(figure)


@pytest.mark.parametrize("kind", [kind for kind in PLOT_KINDS if kind != "paired"])
def test_nothing_scoreable_is_said_in_every_panel(kind: str, unscoreable: pd.DataFrame) -> None:
    """All runs unscoreable: every panel reads "no scoreable runs"."""
    figure = draw_plot(kind, analyzed(unscoreable))
    for ax in panels(figure):
        assert [text.get_text() for text in ax.texts] == ["no scoreable runs"]


def test_one_candidate_is_compared_with_its_previous_bundle(
    edges: dict[str, pd.DataFrame],
) -> None:
    """A single candidate has no rival in its bundle: the paired plot compares bundles."""
    [ax] = panels(draw_plot("paired", analyzed(edges["one candidate"])))
    assert ax.get_title().startswith(f"{NEWEST} minus {PREVIOUS} for codex-luna")


# --- images and matplotlib state ------------------------------------------------------------


@pytest.mark.parametrize("kind", PLOT_KINDS)
def test_every_sample_plot_saves_as_a_non_blank_png(
    kind: str, sample: pd.DataFrame, tmp_path: Path
) -> None:
    """The PNG decodes to an image larger than 300x200 pixels that is not one flat colour."""
    path = tmp_path / f"{kind}.png"
    draw_plot(kind, analyzed(sample)).savefig(path)
    image = imread(path)
    assert image.shape[0] > 200
    assert image.shape[1] > 300
    assert float(image.var()) > 0


def test_plots_draw_into_given_axes(sample: pd.DataFrame) -> None:
    """Given axes, a plot draws there and returns their figure; two-panel plots take two."""
    figure = Figure()
    ax = figure.add_subplot()
    assert plot_overall_scores(analyzed(sample), ax=ax) is figure
    assert len(errorbars(ax)) == 7
    pair = Figure().subplots(2, 1)
    assert plot_trends(analyzed(sample), ax=list(pair)) is pair[0].get_figure(root=True)
    with pytest.raises(ValueError, match="2 panels"):
        plot_provider_comparison(analyzed(sample), ax=[ax])


def test_figures_use_agg_and_leave_the_global_style_alone(sample: pd.DataFrame) -> None:
    """Drawing a one-panel and a two-panel plot changes no rcParams entry; both sit on Agg."""
    before = dict(matplotlib.rcParams)
    figures = [draw_plot(kind, analyzed(sample)) for kind in ("heatmap", "providers")]
    assert dict(matplotlib.rcParams) == before
    assert all(isinstance(figure.canvas, FigureCanvasAgg) for figure in figures)


def test_no_pyplot_and_a_light_command_module() -> None:
    """Plotting never imports pyplot; importing the command module loads no matplotlib."""
    probe = (
        "import sys, scorecard.cli._plot; light = 'matplotlib' not in sys.modules; "
        "from scorecard.plots._kinds import plot_trends; from scorecard.aggregate._frames import records_frame; "
        "from scorecard.aggregate import ComparisonSettings, analyze_campaign; "
        "plot_trends(analyze_campaign(records_frame([]), ComparisonSettings(seed=0))); "
        "print(light, 'matplotlib.pyplot' in sys.modules)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert completed.stdout.split() == ["True", "False"]


# --- the command ----------------------------------------------------------------------------


def invoke(*args: str | Path) -> Result:
    """Run ``scorecard ARGS`` in-process."""
    return CliRunner().invoke(app, [str(arg) for arg in args])


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """An empty folder for the command's output."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def test_plot_writes_one_png_and_no_temporary_file(out: Path) -> None:
    """`scorecard plot heatmap` writes the image and leaves nothing else behind."""
    result = invoke("plot", "heatmap", SAMPLES, "--out", out / "heatmap.png")
    assert result.exit_code == 0
    assert [path.name for path in out.iterdir()] == ["heatmap.png"]
    assert (out / "heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_writes_svg_for_an_svg_name(out: Path) -> None:
    """The --out suffix picks the format."""
    result = invoke(
        "plot", "paired", SAMPLES, "--candidate", "codex-luna", "--candidate", "opencode-glm",
        "--out", out / "paired.svg",
    )  # fmt: skip
    assert result.exit_code == 0
    assert "<svg" in (out / "paired.svg").read_text(encoding="utf-8")


def test_plot_all_writes_every_kind_into_the_folder(out: Path) -> None:
    """`scorecard plot all` writes one PNG per kind."""
    result = invoke("plot", "all", SAMPLES, "--out", out / "plots")
    assert result.exit_code == 0
    written = sorted(path.name for path in (out / "plots").iterdir())
    assert written == sorted(f"{kind}.png" for kind in PLOT_KINDS)
    assert all(imread(out / "plots" / name).shape[1] > 300 for name in written)


@pytest.mark.parametrize(
    ("arguments", "rule"),
    [
        (("heatmap", "nowhere/", "--out", "x.png"), "not_found"),
        (("heatmap", SAMPLES, "--out", "x.pdf"), "bad_output"),
        (("overall", SAMPLES, "--candidate", "nobody", "--out", "x.png"), "unknown_candidate"),
        (("cost", SAMPLES, "--bundle", "nightly-0", "--out", "x.png"), "unknown_bundle"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(
    arguments: tuple[str | Path, ...], rule: str, out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing path, a bad --out, an unknown candidate or bundle: exit 2, one line, no file."""
    monkeypatch.chdir(out)
    result = invoke("plot", *arguments)
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: ")
    assert f"[{rule}]" in line
    assert list(out.iterdir()) == []


def test_the_command_is_listed_in_help() -> None:
    """`scorecard --help` lists plot."""
    assert "plot" in invoke("--help").stdout


def test_an_interval_a_rounding_step_inside_its_estimate_draws_a_zero_length_bar() -> None:
    """A mean of 0.9000000000000001 whose interval's high is 0.9 (the same sum in another
    order) draws no bar above it instead of matplotlib's refusal of a negative one; NaN stays
    NaN (nothing drawn)."""
    below, above = error_bar(
        [0.9000000000000001, 0.5, float("nan")], [0.66, 0.4, 0.1], [0.9, 0.7, 1]
    )
    assert above.tolist()[:2] == [0.0, 0.19999999999999996]
    assert below.tolist()[:2] == [0.9000000000000001 - 0.66, 0.09999999999999998]
    assert np.isnan(below[2])
    assert np.isnan(above[2])
    figure = Figure()
    figure.add_subplot().errorbar([0, 1, 2], [0.9000000000000001, 0.5, 0.3], yerr=[below, above])
