"""The two comparison views behind ``scorecard compare``, as data, JSON, CSV and rich tables.

* :func:`bundle_view`: the candidates (or providers) of one bundle side by side, with intervals,
  and paired comparisons of chosen candidates against the first one (the baseline).
* :func:`trend_view`: one candidate across bundles in bundle order, each bundle compared with
  the previous one.

Both read a :class:`~scorecard.aggregate.CampaignAnalysis` and compute no statistic of their
own, so their numbers are the ones every other view shows for the same subject.

JSON and CSV are deterministic for a seed: same inputs, same bytes.
"""

from __future__ import annotations

import dataclasses
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any, Literal

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from scorecard.aggregate import (
    CampaignAnalysis,
    ComparisonSettings,
    PairedComparison,
    select_rows,
)
from scorecard.contract import DIMENSIONS, InputError, csv_cell, js_json

from ._terminal import DIMENSION_ABBREVIATIONS

__all__ = [
    "COMPARE_SCHEMA",
    "BundleView",
    "TrendView",
    "bundle_view",
    "render_view",
    "trend_view",
    "view_csv",
    "view_json",
]

COMPARE_SCHEMA = "scorecard.compare.v1"
_COST_COLUMNS = (
    "total_tokens_mean",
    "cost_usd_mean",
    "cost_usd_sum",
    "cost_per_pass",
    "settlement_ms_median",
    "settlement_ms_p95",
    "first_progress_ms_median",
    "first_progress_ms_p95",
    "pareto",
)


@dataclass(frozen=True)
class BundleView:
    """Groups of one bundle side by side, with paired comparisons against a baseline."""

    bundle: str
    """The bundle shown."""
    by: Literal["candidate", "provider"]
    """The grouping column."""
    groups: pd.DataFrame
    """Summary columns followed by the cost columns (``analysis.candidates`` or ``.providers``)."""
    dimensions: pd.DataFrame
    """Dimension means and pass rates of the groups."""
    reliability: pd.DataFrame
    """pass@k and pass^k of the groups."""
    reference: pd.DataFrame
    """The reference report numbers per group."""
    comparisons: tuple[PairedComparison, ...]
    """Each chosen candidate after the first against the first, as the analysis adjusted them."""
    settings: ComparisonSettings
    """Seed, tolerance and the other settings used."""


@dataclass(frozen=True)
class TrendView:
    """One candidate across bundles, each bundle against the previous one."""

    candidate: str
    """The candidate followed."""
    bundles: pd.DataFrame
    """Summary and cost columns per bundle, in bundle order."""
    comparisons: tuple[PairedComparison, ...]
    """Each bundle against the one before it, as the analysis adjusted them."""
    settings: ComparisonSettings
    """Seed, tolerance and the other settings used."""


def _one_bundle(analysis: CampaignAnalysis, bundle: str | None) -> str:
    if bundle is not None:
        select_rows(analysis.frame, bundle=bundle)  # an unknown bundle is a clear error
        return bundle
    bundles = analysis.bundles
    if len(bundles) != 1:
        raise InputError(
            f"the records hold {len(bundles)} bundles ({', '.join(bundles) or 'none'}); "
            "choose one (--bundle) or follow a candidate across them (--across-bundles)",
            rule="ambiguous_bundle",
        )
    return bundles[0]


def _in_bundle(table: pd.DataFrame, bundle: str) -> pd.DataFrame:
    """The rows of ``bundle`` without the bundle column (a bundle view shows one bundle)."""
    rows = table.loc[(table["bundle"] == bundle).to_numpy()].drop(columns="bundle")
    return rows.reset_index(drop=True)


def _with_costs(summary: pd.DataFrame, costs: pd.DataFrame) -> pd.DataFrame:
    joined = summary.copy()
    for column in _COST_COLUMNS:
        joined[column] = costs[column].to_numpy()
    return joined


def bundle_view(
    analysis: CampaignAnalysis,
    *,
    bundle: str | None = None,
    by: Literal["candidate", "provider"] = "candidate",
    candidates: Sequence[str] = (),
) -> BundleView:
    """Side-by-side view of one bundle (the only one when ``bundle`` is None), read from
    ``analysis``.

    With ``candidates``, only those are shown; from two on, every one after the first is
    compared with the first, the baseline (adjusted within the analysis's family: every
    candidate of the bundle against that baseline).
    """
    if candidates and by != "candidate":
        raise InputError(
            "candidates are chosen and compared only when grouping by candidate",
            rule="candidates_need_candidate_grouping",
        )
    chosen = _one_bundle(analysis, bundle)
    rows = select_rows(analysis.frame, bundle=chosen)
    for candidate in candidates:
        select_rows(rows, candidate=candidate)  # raises a clear error for an unknown id
    shown = analysis.restricted(candidates)
    tables = shown.candidates if by == "candidate" else shown.providers
    comparisons = [
        analysis.candidate_comparison(chosen, candidate, candidates[0])
        for candidate in candidates[1:]
    ]
    summary = _in_bundle(tables.summary, chosen)
    return BundleView(
        bundle=chosen,
        by=by,
        groups=_with_costs(summary, _in_bundle(tables.costs, chosen)),
        dimensions=_in_bundle(tables.dimensions, chosen),
        reliability=_in_bundle(tables.reliability, chosen),
        reference=_in_bundle(tables.reference, chosen),
        comparisons=tuple(comparisons),
        settings=analysis.settings,
    )


def trend_view(analysis: CampaignAnalysis, candidate: str) -> TrendView:
    """One candidate across every bundle it ran in, in bundle order, read from ``analysis``."""
    select_rows(analysis.frame, candidate=candidate)  # an unknown candidate is a clear error
    tables = analysis.restricted([candidate]).candidates
    summary = tables.summary.drop(columns="candidate").reset_index(drop=True)
    costs = tables.costs.drop(columns="candidate").reset_index(drop=True)
    # The quality-vs-cost frontier compares groups of one bundle; across bundles it means nothing.
    bundles = _with_costs(summary, costs).drop(columns="pareto")
    return TrendView(
        candidate=candidate,
        bundles=bundles,
        comparisons=tuple(analysis.across_bundles(candidate)),
        settings=analysis.settings,
    )


def _plain(value: Any) -> Any:
    if isinstance(value, bool | str | int) or value is None:
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if hasattr(value, "item"):  # numpy scalars
        return _plain(value.item())
    if value is pd.NA:
        return None
    return str(value)


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    columns = list(table.columns)
    return [
        {column: _plain(value) for column, value in zip(columns, row, strict=True)}
        for row in table.itertuples(index=False, name=None)
    ]


def _settings_json(settings: ComparisonSettings) -> dict[str, Any]:
    return dataclasses.asdict(settings)


def view_json(view: BundleView | TrendView) -> str:
    """The view as one deterministic JSON document (``scorecard.compare.v1``), two-space indent."""
    document: dict[str, Any] = {"schema": COMPARE_SCHEMA}
    if isinstance(view, BundleView):
        document.update(
            view="bundle",
            bundle=view.bundle,
            by=view.by,
            settings=_settings_json(view.settings),
            groups=_records(view.groups),
            dimensions=_records(view.dimensions),
            reliability=_records(view.reliability),
            reference=_records(view.reference),
        )
    else:
        document.update(
            view="across-bundles",
            candidate=view.candidate,
            settings=_settings_json(view.settings),
            bundles=_records(view.bundles),
        )
    document["comparisons"] = [comparison.to_json() for comparison in view.comparisons]
    return js_json(document, 2) + "\n"


_TREND_COLUMNS = {
    "previous_bundle": "object",
    "paired_cases": "Int64",
    "difference": "Float64",
    "difference_low": "Float64",
    "difference_high": "Float64",
    "p_value": "Float64",
    "p_adjusted": "Float64",
    "verdict": "object",
}


def _trend_table(view: TrendView) -> pd.DataFrame:
    """The bundles table plus each bundle's comparison with the previous one (empty for the first)."""
    by_bundle = {comparison.current.bundle: comparison for comparison in view.comparisons}
    values: dict[str, list[Any]] = {name: [] for name in _TREND_COLUMNS}
    for bundle in view.bundles["bundle"].astype(str):
        comparison = by_bundle.get(bundle)
        overall = comparison.overall if comparison is not None else None
        row = (
            [None] * len(_TREND_COLUMNS)
            if comparison is None or overall is None
            else [
                comparison.baseline.bundle,
                len(comparison.paired_cases),
                overall.difference,
                overall.low,
                overall.high,
                overall.p_value,
                overall.p_adjusted,
                comparison.verdict,
            ]
        )
        for name, value in zip(_TREND_COLUMNS, row, strict=True):
            values[name].append(value)
    table = view.bundles.copy()
    for name, dtype in _TREND_COLUMNS.items():
        table[name] = pd.Series(values[name], dtype=dtype, index=table.index)
    return table


def view_csv(view: BundleView | TrendView) -> str:
    """The view's main table as CSV: the groups of a bundle view; the bundles of a trend view
    with each bundle's comparison against the previous one."""
    table = view.groups if isinstance(view, BundleView) else _trend_table(view)
    # Text cells through the one CSV escaping (formulas neutralised, no raw CR/LF); numbers as
    # they are.
    table = table.apply(lambda column: column.map(_csv_text))
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()


def _csv_text(value: Any) -> Any:
    return csv_cell(value) if isinstance(value, str) else value


def _number(value: Any, digits: int = 3) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{float(value):.{digits}f}"


def _interval(estimate: Any, low: Any, high: Any) -> str:
    if _number(estimate) == "-":
        return "-"
    return f"{_number(estimate)} [{_number(low)}, {_number(high)}]"


def _delta(estimate: float, low: float, high: float) -> str:
    if math.isnan(estimate):
        return "-"
    return f"{estimate:+.3f} [{low:+.3f}, {high:+.3f}]"


def _comparison_notes(comparison: PairedComparison) -> list[str]:
    excluded = comparison.exclusions
    notes = [
        f"{comparison.current.label} vs {comparison.baseline.label}: {comparison.verdict} "
        f"({comparison.reason})",
        f"  paired {len(comparison.paired_cases)} of {comparison.cases} cases; unscoreable rows "
        f"{len(excluded.unscoreable_current)} / {len(excluded.unscoreable_baseline)}; cases only "
        f"on one side {len(excluded.cases_only_current)} / {len(excluded.cases_only_baseline)}; "
        f"cases never scoreable {len(excluded.cases_unscoreable_current)} / "
        f"{len(excluded.cases_unscoreable_baseline)}; unpaired repetitions "
        f"{excluded.unpaired_repetitions}",
    ]
    return notes


def _group_table(title: str, first: str, table: pd.DataFrame, *, frontier: bool) -> Table:
    grid = Table(title=Text(title))
    for header in (first, "runs", "scoreable", "pass rate", "gate pass", "mean overall"):
        grid.add_column(header, justify="left" if header == first else "right")
    for header in ("cost/run", "p95 settle ms", *(["frontier"] if frontier else [])):
        grid.add_column(header, justify="right")
    for row in table.itertuples(index=False):
        marker = ["yes" if row.pareto else ""] if frontier else []
        grid.add_row(
            Text(str(getattr(row, first))),
            str(row.executions),
            str(row.scoreable),
            _interval(row.pass_rate, row.pass_rate_low, row.pass_rate_high),
            _interval(row.gate_pass_rate, row.gate_pass_rate_low, row.gate_pass_rate_high),
            _interval(row.mean_overall, row.mean_overall_low, row.mean_overall_high),
            _number(row.cost_usd_mean, 4),
            _number(row.settlement_ms_p95, 0),
            *marker,
        )
    return grid


def _dimension_table(view: BundleView) -> Table:
    groups = [str(value) for value in view.groups[view.by]]
    grid = Table(
        title=f"dimension means [{view.settings.confidence:.0%} bootstrap by case]",
        caption="* gate dimension   "
        + "  ".join(f"{short}={name}" for name, short in DIMENSION_ABBREVIATIONS.items()),
    )
    grid.add_column("dim")
    for group in groups:
        grid.add_column(Text(group), justify="right")
    selected = view.dimensions[[view.by, "dimension", "mean", "mean_low", "mean_high"]].dropna()
    cells = {
        (str(row[0]), str(row[1])): f"{row[2]:.3f} [{row[3]:.2f}, {row[4]:.2f}]"
        for row in selected.itertuples(index=False, name=None)
    }
    for dimension in DIMENSIONS:
        grid.add_row(
            DIMENSION_ABBREVIATIONS[dimension],
            *(cells.get((group, dimension), "-") for group in groups),
        )
    return grid


def _comparison_table(title: str, first: str, comparisons: Sequence[PairedComparison]) -> Table:
    grid = Table(title=Text(title))
    for header in (first, "paired", "delta overall", "p", "p holm", "mcnemar +/-", "p mcnemar"):
        grid.add_column(header, justify="left" if header == first else "right")
    grid.add_column("verdict")
    for comparison in comparisons:
        overall, mcnemar = comparison.overall, comparison.mcnemar
        label = comparison.current.candidate if first == "candidate" else comparison.current.bundle
        grid.add_row(
            Text(label),
            f"{len(comparison.paired_cases)}/{comparison.cases}",
            _delta(overall.difference, overall.low, overall.high),
            _number(overall.p_value, 4),
            _number(overall.p_adjusted, 4),
            f"{mcnemar.current_only}/{mcnemar.baseline_only}",
            _number(mcnemar.p_value, 4),
            comparison.verdict,
        )
    return grid


def render_view(view: BundleView | TrendView, stream: IO[str], *, width: int | None = None) -> None:
    """Rich tables of the view, then one note per comparison (verdict reason and exclusions)."""
    if width is None and not stream.isatty():
        width = 160  # files and pipes: wide enough for every column, stable for golden files
    console = Console(file=stream, width=width, highlight=False, soft_wrap=False)
    level = f"{view.settings.confidence:.0%}"
    if isinstance(view, BundleView):
        console.print(
            _group_table(
                f"{view.by}s in bundle {view.bundle} [{level} intervals]",
                view.by,
                view.groups,
                frontier=True,
            )
        )
        console.print(_dimension_table(view))
        if view.comparisons:
            baseline = view.comparisons[0].baseline.candidate
            console.print(
                _comparison_table(
                    f"paired by case against {baseline}", "candidate", view.comparisons
                )
            )
    else:
        console.print(
            _group_table(
                f"candidate {view.candidate} across bundles [{level} intervals]",
                "bundle",
                view.bundles,
                frontier=False,
            )
        )
        if view.comparisons:
            console.print(
                _comparison_table(
                    "each bundle against the previous one", "bundle", view.comparisons
                )
            )
    for comparison in view.comparisons:
        for line in _comparison_notes(comparison):
            console.print(line, markup=False)
