"""The comparison views behind ``scorecard compare``, as data, JSON, CSV and rich tables.

* :func:`campaign_view`: every candidate of one bundle (the newest) against the same candidate
  in a baseline bundle (the one before), paired by case, with each metric's verdict, the gate's
  checks when given, and the trends of every candidate over every bundle.
* :func:`bundle_view`: the candidates (or providers) of one bundle side by side, with intervals,
  and paired comparisons of chosen candidates against the first one (the baseline).
* :func:`trend_view`: one candidate across bundles in bundle order, each bundle compared with
  the previous one.

All read a :class:`~scorecard.aggregate.CampaignAnalysis` and compute no statistic of their
own, so their numbers are the ones every other view shows for the same subject. Tables take the
widest layout the terminal holds (``_table_layout``): ids are never cut.

JSON and CSV are deterministic for a seed: same inputs, same bytes.
"""

from __future__ import annotations

import dataclasses
import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Literal

import pandas as pd
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from scorecard.aggregate import (
    METRICS,
    POOLED,
    CampaignAnalysis,
    ComparisonSettings,
    Metric,
    PairedComparison,
    pair_analysis,
    select_rows,
)
from scorecard.contract import DIMENSIONS, InputError, Receipt, csv_cell, js_json, printable

from ._table_layout import (
    Abbreviations,
    Layout,
    compact_table,
    full_table,
    output_console,
    print_fitting,
)
from ._terminal import DIMENSION_ABBREVIATIONS

__all__ = [
    "COMPARE_SCHEMA",
    "BundleView",
    "CampaignView",
    "GateStatus",
    "TrendView",
    "bundle_view",
    "campaign_view",
    "render_view",
    "trend_view",
    "view_csv",
    "view_document",
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


@dataclass(frozen=True)
class GateStatus:
    """What the gate says about one candidate of the current bundle (its required checks)."""

    status: str
    """``fail``, ``inconclusive``, ``warn`` or ``pass``: the worst of its required checks."""
    summary: str
    """The phrases of its failing (else inconclusive) outcomes, ``; ``-joined; empty on a pass."""


@dataclass(frozen=True)
class CampaignView:
    """Every candidate of ``current`` against itself in ``baseline``, and the campaign's trends."""

    current: str
    """The bundle judged."""
    baseline: str
    """The bundle it is judged against."""
    bundles: tuple[str, ...]
    """Every bundle of the campaign, in bundle order (the trends' columns)."""
    comparisons: Mapping[Metric, tuple[PairedComparison, ...]]
    """Per metric, the family of ``current`` against ``baseline``: each candidate in both (in
    candidate order), then the pooled comparison (two or more shared candidates)."""
    current_only: tuple[str, ...]
    """Candidates of ``current`` that did not run in ``baseline``."""
    baseline_only: tuple[str, ...]
    """Candidates of ``baseline`` that did not run in ``current``."""
    trends: pd.DataFrame
    """Summary columns per (bundle, candidate) over the whole campaign, in bundle order."""
    steps: Mapping[tuple[str, str], str]
    """(candidate, bundle) -> the verdict of that bundle's mean overall against the previous."""
    settings: ComparisonSettings
    """Seed, tolerance and the other settings used."""
    gate: Mapping[str, GateStatus] = field(default_factory=dict)
    """The gate's status per candidate of ``current`` (empty when the gate was not run)."""

    @property
    def worse(self) -> tuple[str, ...]:
        """Candidates that regressed: a metric's paired verdict is worse, or the gate fails them."""
        found = []
        for comparison in self.comparisons.get("mean_overall", ()):
            name = comparison.current.candidate
            if name == POOLED:
                continue
            verdicts = [self.verdict(metric, name) for metric in self.comparisons]
            if "worse" in verdicts or self.gate.get(name, _PASSED).status == "fail":
                found.append(name)
        for name, status in self.gate.items():
            if status.status == "fail" and name not in found:
                found.append(name)
        return tuple(found)

    def verdict(self, metric: Metric, candidate: str) -> str | None:
        """The paired verdict of ``candidate`` on ``metric`` (None when it was not compared)."""
        for comparison in self.comparisons.get(metric, ()):
            if comparison.current.candidate == candidate:
                return comparison.verdict
        return None


_PASSED = GateStatus("pass", "")


def campaign_view(
    analysis: CampaignAnalysis,
    *,
    current: str | None = None,
    baseline: str | None = None,
    gate: Mapping[str, GateStatus] | None = None,
) -> CampaignView:
    """``current`` (default: the last bundle) against ``baseline`` (default: the bundle before
    it), read from ``analysis``; a baseline that is not the bundle just before ``current`` is
    compared in the analysis of those two bundles alone (:func:`~scorecard.aggregate.pair_analysis`)."""
    bundles = analysis.bundles
    if current is None:
        current = bundles[-1] if bundles else ""
    if current not in bundles:
        select_rows(analysis.frame, bundle=current)  # the clear unknown-bundle error
    if baseline is None:
        baseline = analysis.previous_bundle(current)
        if baseline is None:
            raise InputError(
                f"bundle {current!r} is the first of the records; there is nothing before it to "
                "compare with (give --baseline, or the bundles in order)",
                rule="no_pair",
            )
    paired = pair_analysis(analysis, baseline, current)
    comparisons = {
        metric: tuple(paired.family(baseline, current, metric).values()) for metric in METRICS
    }
    summary = analysis.candidates.summary
    present = {
        bundle: [str(name) for name in summary.loc[summary["bundle"] == bundle, "candidate"]]
        for bundle in (baseline, current)
    }
    steps: dict[tuple[str, str], str] = {}
    for name in dict.fromkeys(str(item) for item in summary["candidate"]):
        for step in analysis.across_bundles(name):
            steps[(name, step.current.bundle)] = step.verdict
    return CampaignView(
        current=current,
        baseline=baseline,
        bundles=bundles,
        comparisons=comparisons,
        current_only=tuple(n for n in present[current] if n not in present[baseline]),
        baseline_only=tuple(n for n in present[baseline] if n not in present[current]),
        trends=summary.reset_index(drop=True),
        steps=steps,
        settings=analysis.settings,
        gate=dict(gate or {}),
    )


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


View = BundleView | TrendView | CampaignView


def _campaign_json(view: CampaignView) -> dict[str, Any]:
    return {
        "view": "campaign",
        "current": view.current,
        "baseline": view.baseline,
        "bundles": list(view.bundles),
        "settings": _settings_json(view.settings),
        "worse": list(view.worse),
        "currentOnly": list(view.current_only),
        "baselineOnly": list(view.baseline_only),
        "gate": {
            name: {"status": status.status, "summary": status.summary}
            for name, status in view.gate.items()
        },
        "comparisons": {
            metric: [comparison.to_json() for comparison in comparisons]
            for metric, comparisons in view.comparisons.items()
        },
        "trends": [
            {**row, "verdict": view.steps.get((str(row["candidate"]), str(row["bundle"])))}
            for row in _records(view.trends)
        ],
    }


def view_json(view: View, receipt: Receipt | None = None) -> str:
    """The view as one deterministic JSON document (``scorecard.compare.v1``), two-space indent,
    ending with ``receipt`` when given (``docs/receipts.md``)."""
    document = view_document(view)
    if receipt is not None:
        document["receipt"] = receipt.to_json()
    return js_json(document, 2) + "\n"


def view_document(view: View) -> dict[str, Any]:
    """The JSON-ready document of :func:`view_json` (its receipt aside)."""
    document: dict[str, Any] = {"schema": COMPARE_SCHEMA}
    if isinstance(view, CampaignView):
        document.update(_campaign_json(view))
        return document
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
    return document


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


def _campaign_table(view: CampaignView) -> pd.DataFrame:
    """One row per compared candidate (pooled last): each metric's paired difference and verdict,
    then the gate's status."""
    rows: dict[str, dict[str, Any]] = {}
    for metric, comparisons in view.comparisons.items():
        for comparison in comparisons:
            name = comparison.current.candidate
            overall = comparison.overall
            row = rows.setdefault(
                name,
                {
                    "candidate": name,
                    "baseline_bundle": view.baseline,
                    "current_bundle": view.current,
                    "paired_cases": len(comparison.paired_cases),
                    "cases": comparison.cases,
                },
            )
            row.update(
                {
                    f"{metric}_baseline": overall.baseline,
                    f"{metric}_current": overall.current,
                    f"{metric}_difference": overall.difference,
                    f"{metric}_low": overall.low,
                    f"{metric}_high": overall.high,
                    f"{metric}_p_adjusted": overall.p_adjusted,
                    f"{metric}_verdict": comparison.verdict,
                }
            )
    for name, row in rows.items():
        status = view.gate.get(name)
        row["gate"] = status.status if status is not None else None
        row["worse"] = name in view.worse
    return pd.DataFrame(list(rows.values()))


def view_csv(view: View) -> str:
    """The view's main table as CSV: the compared candidates of a campaign view; the groups of a
    bundle view; the bundles of a trend view with each bundle's comparison against the previous
    one."""
    table = (
        _campaign_table(view)
        if isinstance(view, CampaignView)
        else view.groups
        if isinstance(view, BundleView)
        else _trend_table(view)
    )
    # Text cells through the one CSV escaping (formulas neutralised, no raw CR/LF); numbers as
    # they are.
    table = table.apply(lambda column: column.map(_csv_text))
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()


def _csv_text(value: Any) -> Any:
    return csv_cell(value) if isinstance(value, str) else value


# ---------------------------------------------------------------------------------------------
# Tables for people: the widest layout the terminal holds (``_table_layout``)


@dataclass(frozen=True)
class _Style:
    """How one layout draws: borders, decimals, which columns, short ids."""

    compact: bool = False
    digits: int = 3
    drop: frozenset[str] = frozenset()
    ids: Abbreviations | None = None

    def table(self, title: str | Text | None = None, caption: str | None = None) -> Table:
        return (compact_table if self.compact else full_table)(title, caption)

    def name(self, text: str) -> Text:
        """An id cell: its abbreviation, or the id itself (escaped; folded, never cut)."""
        return Text(self.ids(text) if self.ids is not None else printable(text))


def _number(value: Any, digits: int = 3) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{float(value):.{digits}f}"


def _interval(estimate: Any, low: Any, high: Any, digits: int = 3) -> str:
    if _number(estimate) == "-":
        return "-"
    return f"{_number(estimate, digits)} [{_number(low, digits)}, {_number(high, digits)}]"


def _delta(estimate: float, low: float, high: float, digits: int = 3) -> str:
    if math.isnan(estimate):
        return "-"
    return f"{estimate:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def _signed(value: float, digits: int = 2) -> str:
    return "-" if math.isnan(value) else f"{value:+.{digits}f}"


_VERDICT_STYLES = {"worse": "bold red", "better": "green", "fail": "bold red", "pass": "green"}


def _verdict(text: str | None) -> Text:
    return Text(text or "-", style=_VERDICT_STYLES.get(text or "", ""))


def _id_column(grid: Table, header: str) -> None:
    grid.add_column(header, overflow="fold")


def _value_column(grid: Table, header: str, *, left: bool = False) -> None:
    grid.add_column(header, justify="left" if left else "right", no_wrap=True)


def _comparison_notes(comparison: PairedComparison) -> list[str]:
    excluded = comparison.exclusions
    notes = [
        f"{printable(comparison.current.label)} vs {printable(comparison.baseline.label)}: "
        f"{comparison.verdict} ({comparison.reason})",
        f"  paired {len(comparison.paired_cases)} of {comparison.cases} cases; unscoreable rows "
        f"{len(excluded.unscoreable_current)} / {len(excluded.unscoreable_baseline)}; cases only "
        f"on one side {len(excluded.cases_only_current)} / {len(excluded.cases_only_baseline)}; "
        f"cases never scoreable {len(excluded.cases_unscoreable_current)} / "
        f"{len(excluded.cases_unscoreable_baseline)}; unpaired repetitions "
        f"{excluded.unpaired_repetitions}",
    ]
    return notes


def _group_table(
    title: str, first: str, table: pd.DataFrame, *, frontier: bool, style: _Style
) -> Table:
    grid = style.table(title)
    digits = style.digits
    columns: list[tuple[str, Callable[[Any], str]]] = [
        ("runs", lambda row: str(row.executions)),
        ("scoreable", lambda row: str(row.scoreable)),
        (
            "pass rate",
            lambda row: _interval(row.pass_rate, row.pass_rate_low, row.pass_rate_high, digits),
        ),
        (
            "gate pass",
            lambda row: _interval(
                row.gate_pass_rate, row.gate_pass_rate_low, row.gate_pass_rate_high, digits
            ),
        ),
        (
            "mean overall",
            lambda row: _interval(
                row.mean_overall, row.mean_overall_low, row.mean_overall_high, digits
            ),
        ),
        ("cost/run", lambda row: _number(row.cost_usd_mean, 4)),
        ("p95 settle ms", lambda row: _number(row.settlement_ms_p95, 0)),
    ]
    if frontier:
        columns.append(("frontier", lambda row: "yes" if row.pareto else ""))
    columns = [column for column in columns if column[0] not in style.drop]
    _id_column(grid, first)
    for header, _ in columns:
        _value_column(grid, header)
    for row in table.itertuples(index=False):
        grid.add_row(style.name(str(getattr(row, first))), *(cell(row) for _, cell in columns))
    return grid


def _dimension_caption() -> str:
    return "* gate dimension   " + "  ".join(
        f"{short}={name}" for name, short in DIMENSION_ABBREVIATIONS.items()
    )


def _dimension_table(view: BundleView, style: _Style, *, by_group: bool) -> Table:
    """Rows of dimensions, a column per group (means with intervals); or (``by_group``, for
    narrow terminals) a row per group and a column per dimension, means only."""
    groups = [str(value) for value in view.groups[view.by]]
    level = f"{view.settings.confidence:.0%}"
    selected = view.dimensions[[view.by, "dimension", "mean", "mean_low", "mean_high"]].dropna()
    digits = style.digits
    values = {
        (str(row[0]), str(row[1])): row[2:] for row in selected.itertuples(index=False, name=None)
    }
    if by_group:
        grid = style.table(
            "dimension means (intervals: --format json, or a wider terminal)",
            _dimension_caption(),
        )
        _id_column(grid, view.by)
        for dimension in DIMENSIONS:
            _value_column(grid, DIMENSION_ABBREVIATIONS[dimension])
        for group in groups:
            grid.add_row(
                style.name(group),
                *(
                    _number(values[(group, dimension)][0], digits)
                    if (group, dimension) in values
                    else "-"
                    for dimension in DIMENSIONS
                ),
            )
        return grid
    grid = style.table(f"dimension means [{level} bootstrap by case]", _dimension_caption())
    grid.add_column("dim", no_wrap=True)
    for group in groups:
        grid.add_column(style.name(group), justify="right", no_wrap=True)
    for dimension in DIMENSIONS:
        grid.add_row(
            DIMENSION_ABBREVIATIONS[dimension],
            *(
                _dimension_cell(values[(group, dimension)], digits)
                if (group, dimension) in values
                else "-"
                for group in groups
            ),
        )
    return grid


def _dimension_cell(value: tuple[Any, ...], digits: int) -> str:
    mean, low, high = value
    return f"{float(mean):.{digits}f} [{float(low):.2f}, {float(high):.2f}]"


def _comparison_table(
    title: str, first: str, comparisons: Sequence[PairedComparison], style: _Style
) -> Table:
    grid = style.table(title)
    _id_column(grid, first)
    headers = ["paired", "delta overall", "p", "p holm", "mcnemar +/-", "p mcnemar", "verdict"]
    headers = [header for header in headers if header not in style.drop]
    for header in headers:
        _value_column(grid, header, left=header == "verdict")
    for comparison in comparisons:
        overall, mcnemar = comparison.overall, comparison.mcnemar
        label = comparison.current.candidate if first == "candidate" else comparison.current.bundle
        cells: dict[str, str | Text] = {
            "paired": f"{len(comparison.paired_cases)}/{comparison.cases}",
            "delta overall": _delta(overall.difference, overall.low, overall.high, style.digits),
            "p": _number(overall.p_value, 4),
            "p holm": _number(overall.p_adjusted, 4),
            "mcnemar +/-": f"{mcnemar.current_only}/{mcnemar.baseline_only}",
            "p mcnemar": _number(mcnemar.p_value, 4),
            "verdict": _verdict(comparison.verdict),
        }
        grid.add_row(style.name(label), *(cells[header] for header in headers))
    return grid


def _styles(ids: Sequence[str], prefix: str, *drops: frozenset[str]) -> list[_Style]:
    """Layouts from the fullest to the most compact: bordered with three decimals; compact with
    two; compact dropping each of ``drops`` in turn; the last with ids abbreviated."""
    styles = [_Style(), _Style(compact=True, digits=2)]
    styles += [_Style(compact=True, digits=2, drop=drop) for drop in drops]
    last = drops[-1] if drops else frozenset()
    styles.append(_Style(compact=True, digits=2, drop=last, ids=Abbreviations(prefix, ids)))
    return styles


def _with_legend(style: _Style, label: str, *parts: RenderableType) -> list[RenderableType]:
    found: list[RenderableType] = list(parts)
    if style.ids is not None:
        found.append(style.ids.legend(label))
    return found


def _layouts(
    styles: Sequence[_Style], draw: Callable[[_Style], list[RenderableType]]
) -> list[Layout]:
    return [lambda style=style: draw(style) for style in styles]  # type: ignore[misc]


_COSTS = frozenset({"scoreable", "cost/run", "p95 settle ms", "frontier"})
_DETAILS = frozenset({"p", "mcnemar +/-", "p mcnemar"})


def _render_bundle(view: BundleView, console: Console) -> None:
    level = f"{view.settings.confidence:.0%}"
    groups = [str(value) for value in view.groups[view.by]]
    title = f"{view.by}s in bundle {printable(view.bundle)} [{level} intervals]"
    print_fitting(
        console,
        _layouts(
            _styles(groups, "c" if view.by == "candidate" else "p", _COSTS, _COSTS | {"gate pass"}),
            lambda style: _with_legend(
                style,
                f"{view.by}s",
                _group_table(title, view.by, view.groups, frontier=True, style=style),
            ),
        ),
    )
    dimension_styles = _styles(groups, "c" if view.by == "candidate" else "p")
    print_fitting(
        console,
        [
            *_layouts(
                dimension_styles[:2],
                lambda style: [_dimension_table(view, style, by_group=False)],
            ),
            *_layouts(
                dimension_styles[1:],
                lambda style: _with_legend(
                    style, f"{view.by}s", _dimension_table(view, style, by_group=True)
                ),
            ),
        ],
    )
    if view.comparisons:
        baseline = view.comparisons[0].baseline.candidate
        labels = [comparison.current.candidate for comparison in view.comparisons]
        print_fitting(
            console,
            _layouts(
                _styles(labels, "c", _DETAILS),
                lambda style: _with_legend(
                    style,
                    "candidates",
                    _comparison_table(
                        f"paired by case against {printable(baseline)}",
                        "candidate",
                        view.comparisons,
                        style,
                    ),
                ),
            ),
        )


def _render_trend(view: TrendView, console: Console) -> None:
    level = f"{view.settings.confidence:.0%}"
    bundles = [str(value) for value in view.bundles["bundle"]]
    title = f"candidate {printable(view.candidate)} across bundles [{level} intervals]"
    print_fitting(
        console,
        _layouts(
            _styles(bundles, "b", _COSTS, _COSTS | {"gate pass"}),
            lambda style: _with_legend(
                style,
                "bundles",
                _group_table(title, "bundle", view.bundles, frontier=False, style=style),
            ),
        ),
    )
    if view.comparisons:
        print_fitting(
            console,
            _layouts(
                _styles(bundles, "b", _DETAILS),
                lambda style: _with_legend(
                    style,
                    "bundles",
                    _comparison_table(
                        "each bundle against the previous one", "bundle", view.comparisons, style
                    ),
                ),
            ),
        )


_METRIC_HEADERS = {
    "mean_overall": "mean overall",
    "pass_rate": "pass rate",
    "gate_pass_rate": "gate pass",
}


def _campaign_grid(
    view: CampaignView, style: _Style, metrics: Sequence[Metric], *, gate: bool
) -> Table:
    level = f"{view.settings.confidence:.0%}"
    title = (
        f"candidates in {printable(view.current)} against {printable(view.baseline)} "
        f"[paired by case, {level} intervals, Holm within each metric]"
        if "mean_overall" in metrics
        else f"pass rates in {printable(view.current)} against {printable(view.baseline)}"
    )
    grid = style.table(title)
    _id_column(grid, "candidate")
    first = view.comparisons[metrics[0]]
    if "paired" not in style.drop:
        _value_column(grid, "paired")
    for metric in metrics:
        if metric == "mean_overall":
            _value_column(grid, f"Δ {_METRIC_HEADERS[metric]}")
            if "p holm" not in style.drop:
                _value_column(grid, "p holm")
        else:
            _value_column(grid, f"Δ {_METRIC_HEADERS[metric]}")
        _value_column(grid, "verdict", left=True)
    if gate:
        _value_column(grid, "gate", left=True)
    for index, comparison in enumerate(first):
        name = comparison.current.candidate
        cells: list[str | Text] = []
        if "paired" not in style.drop:
            cells.append(f"{len(comparison.paired_cases)}/{comparison.cases}")
        for metric in metrics:
            other = view.comparisons[metric][index]
            overall = other.overall
            if metric == "mean_overall":
                cells.append(_delta(overall.difference, overall.low, overall.high, style.digits))
                if "p holm" not in style.drop:
                    cells.append(_number(overall.p_adjusted, 4))
            else:
                cells.append(_signed(overall.difference))
            cells.append(_verdict(other.verdict))
        if gate:
            status = view.gate.get(name)
            cells.append(_verdict(status.status if status is not None else "-"))
        label = Text("(all)") if name == POOLED else style.name(name)
        grid.add_row(label, *cells)
    return grid


def _trends_table(view: CampaignView, style: _Style, bundles: Abbreviations | None) -> Table:
    grid = style.table(
        "mean overall and pass rate by bundle",
        "▼ worse / ▲ better than the previous bundle (paired mean overall)",
    )
    _id_column(grid, "candidate")
    for bundle in view.bundles:
        grid.add_column(
            Text(bundles(bundle) if bundles is not None else printable(bundle)),
            justify="right",
            no_wrap=True,
        )
    cells: dict[tuple[str, str], str] = {}
    names: list[str] = []
    for row in view.trends.itertuples(index=False):
        name, bundle = str(row.candidate), str(row.bundle)
        if name not in names:
            names.append(name)
        mark = {"worse": "▼ ", "better": "▲ "}.get(view.steps.get((name, bundle), ""), "")
        rate = "-" if _number(row.pass_rate) == "-" else f"{float(str(row.pass_rate)):.0%}"
        cells[(name, bundle)] = f"{mark}{_number(row.mean_overall, style.digits)} {rate:>4}"
    for name in sorted(names):
        grid.add_row(style.name(name), *(cells.get((name, b), "-") for b in view.bundles))
    return grid


def _render_campaign(view: CampaignView, console: Console) -> None:
    names = [
        c.current.candidate
        for c in view.comparisons["mean_overall"]
        if c.current.candidate != POOLED
    ]
    gate = bool(view.gate)
    wide = [
        _Style(),
        _Style(compact=True, digits=2),
        _Style(compact=True, digits=2, drop=frozenset({"p holm"})),
    ]

    def split(style: _Style) -> list[RenderableType]:
        return _with_legend(
            style,
            "candidates",
            _campaign_grid(view, style, ("mean_overall",), gate=gate),
            _campaign_grid(view, style, ("pass_rate", "gate_pass_rate"), gate=False),
        )

    narrow = _Style(compact=True, digits=2, drop=frozenset({"p holm", "paired"}))
    short = dataclasses.replace(narrow, ids=Abbreviations("c", names))
    if view.comparisons["mean_overall"]:
        print_fitting(
            console,
            [
                *_layouts(wide, lambda style: [_campaign_grid(view, style, METRICS, gate=gate)]),
                *_layouts([wide[1], wide[2], narrow, short], split),
            ],
        )
    else:
        console.print(
            Text(
                f"no candidate ran in both {printable(view.baseline)} and {printable(view.current)}"
            )
        )
    trend_names = sorted({str(name) for name in view.trends["candidate"]})
    bundles = Abbreviations("b", view.bundles)
    print_fitting(
        console,
        [
            lambda: [_trends_table(view, _Style(), None)],
            lambda: [_trends_table(view, _Style(compact=True), None)],
            lambda: [
                _trends_table(view, _Style(compact=True, digits=2), bundles),
                bundles.legend("bundles"),
            ],
            lambda: [
                _trends_table(
                    view,
                    _Style(compact=True, digits=2, ids=Abbreviations("c", trend_names)),
                    bundles,
                ),
                bundles.legend("bundles"),
                Abbreviations("c", trend_names).legend("candidates"),
            ],
        ],
    )
    for line in _campaign_notes(view):
        console.print(Text(line))


def _campaign_notes(view: CampaignView) -> list[str]:
    current, baseline = printable(view.current), printable(view.baseline)
    worse = view.worse
    lines = [
        f"worse in {current} than in {baseline}: "
        + (", ".join(printable(name) for name in worse) if worse else "none shown")
    ]
    for name in worse:
        reasons = [
            f"{_METRIC_HEADERS[metric]} {comparison.reason}"
            for metric, comparisons in view.comparisons.items()
            for comparison in comparisons
            if comparison.current.candidate == name and comparison.verdict == "worse"
        ]
        status = view.gate.get(name)
        if status is not None and status.status == "fail":
            reasons.append(f"gate: {status.summary}")
        lines.append(f"  {printable(name)}: " + "; ".join(reasons))
    for label, names in (
        (f"only in {current} (not compared)", view.current_only),
        (f"only in {baseline} (not compared)", view.baseline_only),
    ):
        if names:
            lines.append(f"{label}: " + ", ".join(printable(name) for name in names))
    return lines


def render_view(view: View, stream: IO[str], *, width: int | None = None) -> None:
    """Rich tables of the view in the widest layout that fits (``width``, else ``COLUMNS``, else
    the terminal; 160 for files and pipes), then one note per comparison."""
    console = output_console(stream, width, default=160)
    if isinstance(view, CampaignView):
        _render_campaign(view, console)
        return
    if isinstance(view, BundleView):
        _render_bundle(view, console)
    else:
        _render_trend(view, console)
    for comparison in view.comparisons:
        for line in _comparison_notes(comparison):
            console.print(Text(line))
