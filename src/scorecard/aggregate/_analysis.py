"""The campaign analysis: every number a view shows, computed once and read by every view.

::

    analyze_campaign(frame, settings) -> CampaignAnalysis
        .candidates / .providers    summaries, dimensions, costs, reliability, reference per
                                    (bundle, candidate) / (bundle, provider) group
        .bundles_summary            one summary row per bundle (every candidate together)
        .comparison(candidate, baseline_bundle, current_bundle, metric)
                                    a candidate (or POOLED) against itself in the previous bundle
        .candidate_comparison(bundle, current, baseline, metric)
                                    two candidates of one bundle

Two rules make the views agree (``docs/aggregation.md`` section 6):

* every random stream is named by what it resamples (bundle, candidate, metric), never by how a
  view groups or filters, so a subject's numbers do not depend on what else a view shows;
* each comparison belongs to exactly one multiplicity family, defined here and nowhere else:
  across bundles, all comparisons of one metric between the same two consecutive bundles (every
  candidate in both, plus the pooled comparison when two or more are shared); within a bundle,
  every other candidate of the bundle against the same baseline candidate, per metric.

Everything is computed lazily and cached, so an analysis costs what its views read, and
:meth:`CampaignAnalysis.restricted` narrows what is shown without computing anything anew.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from scorecard.contract import InputError

from ._compare import ComparisonSettings, Metric, PairedComparison
from ._families import POOLED, Comparisons, DropTest, drop_tests
from ._frames import COLUMNS, observed_categories
from ._reference import report_aggregate
from ._stats import gated_mean_interval, seeded_generator
from ._tables import (
    BOOTSTRAP_RESAMPLES,
    cost_frame,
    dimension_frame,
    reliability_frame,
    stream_key,
    summary_frame,
)

__all__ = [
    "POOLED",
    "CampaignAnalysis",
    "GroupTables",
    "analyze_campaign",
    "compare_across_bundles",
    "compare_to_baseline",
]


Grouping = Literal["candidate", "provider"]


class GroupTables:
    """The tables of one grouping, one row per (bundle, group) with rows; each table is
    computed on first use and shared by every view of the analysis."""

    def __init__(self, tables: _Tables, by: Grouping, shown: tuple[str, ...] | None = None) -> None:
        self._tables = tables
        self.by: Grouping = by
        """The grouping column after ``bundle``."""
        self._shown = shown

    def _table(self, name: str) -> pd.DataFrame:
        table = self._tables.table(self.by, name)
        if self._shown is None:
            return table
        mask = table["candidate"].astype(str).isin(list(self._shown)).to_numpy()
        return table.loc[mask].reset_index(drop=True)

    @property
    def summary(self) -> pd.DataFrame:
        """:func:`~scorecard.aggregate.summary_frame` columns."""
        return self._table("summary")

    @property
    def dimensions(self) -> pd.DataFrame:
        """:func:`~scorecard.aggregate.dimension_frame` columns (same bootstrap draws)."""
        return self._table("dimensions")

    @property
    def costs(self) -> pd.DataFrame:
        """:func:`~scorecard.aggregate.cost_frame` columns (frontier judged within each bundle,
        among all its groups)."""
        return self._table("costs")

    @property
    def reliability(self) -> pd.DataFrame:
        """:func:`~scorecard.aggregate.reliability_frame` columns."""
        return self._table("reliability")

    @property
    def reference(self) -> pd.DataFrame:
        """:func:`~scorecard.aggregate.report_aggregate` columns (the reference report numbers)."""
        return self._table("reference")


class _Tables:
    """The group tables of one frame, each computed on first use."""

    def __init__(self, frame: pd.DataFrame, settings: ComparisonSettings) -> None:
        self.frame = frame
        self.settings = settings
        self._cache: dict[tuple[str, str], pd.DataFrame] = {}

    def table(self, by: str, name: str) -> pd.DataFrame:
        """Table ``name`` grouped by ``("bundle", by)`` (``by`` empty: by bundle only)."""
        key = (by, name)
        if key not in self._cache:
            keys = ("bundle", by) if by else ("bundle",)
            seed, confidence = self.settings.seed, self.settings.confidence
            frame = self.frame
            if name == "summary":
                table = summary_frame(frame, keys, seed=seed, confidence=confidence)
                _gated_mean_columns(table, frame, keys, seed=seed, confidence=confidence)
            elif name == "dimensions":
                table = dimension_frame(frame, keys, seed=seed, confidence=confidence)
            elif name == "costs":
                table = cost_frame(frame, keys)
            elif name == "reliability":
                table = reliability_frame(frame, keys)
            else:
                table = report_aggregate(frame, keys)
            self._cache[key] = table
        return self._cache[key]


def _gated_mean_columns(
    table: pd.DataFrame, frame: pd.DataFrame, keys: Sequence[str], *, seed: int, confidence: float
) -> None:
    """Replace the summary's mean-overall interval by the gate-pass x quality one
    (:func:`~scorecard.aggregate._stats.gated_mean_interval`, ``docs/aggregation.md`` section 3):
    a case bootstrap alone cannot see the zeros of gate failures a small sample happens not to
    hold, and covered 72-89% at 12 cases instead of 95%."""
    scoreable = frame["scoreable"].to_numpy(dtype=bool)
    gate = frame["gate_passed"].to_numpy(dtype=bool, na_value=False) & scoreable
    overall = np.nan_to_num(frame["overall_score"].to_numpy(dtype=np.float64))
    # The fixed cells are a candidate's case: a group of several candidates (a bundle, a
    # provider) varies by the spread within each candidate's case, not between candidates.
    cases = len(frame["case"].cat.categories)
    cells = len(frame["candidate"].cat.categories) * cases
    candidate = frame["candidate"].cat.codes.to_numpy().astype(np.int64)
    case = candidate * cases + frame["case"].cat.codes.to_numpy().astype(np.int64)
    lows, highs = [], []
    groups = frame.groupby(list(keys), observed=True, sort=True).indices
    for key, positions in groups.items():
        rows = np.asarray(positions, dtype=np.intp)
        rows = rows[scoreable[rows]]
        parts = key if isinstance(key, tuple) else (key,)
        runs = np.bincount(case[rows], minlength=cells).astype(np.float64)
        passes = np.bincount(case[rows], weights=gate[rows], minlength=cells)
        passing = overall[rows] * gate[rows]
        sums = np.bincount(case[rows], weights=passing, minlength=cells)
        squares = np.bincount(case[rows], weights=passing**2, minlength=cells)
        present = runs > 0
        interval = gated_mean_interval(
            runs[present],
            passes[present],
            sums[present],
            squares[present],
            rng=seeded_generator(seed, ("gated-mean", *stream_key(keys, parts))),
            resamples=BOOTSTRAP_RESAMPLES,
            confidence=confidence,
        )
        lows.append(interval.low)
        highs.append(interval.high)
    if len(lows) == len(table):
        table["mean_overall_low"] = np.asarray(lows, dtype=np.float64)
        table["mean_overall_high"] = np.asarray(highs, dtype=np.float64)


class CampaignAnalysis:
    """Every summary, interval, paired comparison, adjusted p-value and verdict of a campaign.

    Build it with :func:`analyze_campaign`. Views read it and never compute statistics
    themselves, so the same subject shows the same numbers in every view.
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        settings: ComparisonSettings,
        *,
        _tables: _Tables | None = None,
        _comparisons: Comparisons | None = None,
        _candidates: tuple[str, ...] | None = None,
    ) -> None:
        self._tables = _tables or _Tables(frame, settings)
        self._comparisons = _comparisons or Comparisons(frame, settings)
        self._shown = _candidates
        self._drops: dict[tuple[object, ...], dict[tuple[Metric, str], DropTest]] = {}
        self.frame = frame
        """The records frame shown (only the chosen candidates' rows after :meth:`restricted`)."""
        self.settings = settings
        """Seed, tolerance, confidence, alpha, resamples and coverage limits of every number."""

    @property
    def bundles(self) -> tuple[str, ...]:
        """Bundles with rows, in bundle order (the whole campaign, whatever is shown)."""
        return self._comparisons.bundles

    @property
    def candidates(self) -> GroupTables:
        """Tables per (bundle, candidate) (only the shown candidates after :meth:`restricted`)."""
        return GroupTables(self._tables, "candidate", self._shown)

    @property
    def providers(self) -> GroupTables:
        """Tables per (bundle, provider), over every run of the provider in the bundle."""
        return GroupTables(self._tables, "provider")

    @property
    def bundles_summary(self) -> pd.DataFrame:
        """:func:`~scorecard.aggregate.summary_frame` per bundle, every candidate together."""
        return self._tables.table("", "summary")

    def restricted(self, candidates: Sequence[str]) -> CampaignAnalysis:
        """The same analysis showing only ``candidates`` (all when empty): the numbers are the
        ones already computed, so narrowing a view changes none of them."""
        if not candidates:
            return self
        for name in candidates:
            if name not in observed_categories(self._comparisons.frame["candidate"]):
                known = ", ".join(observed_categories(self._comparisons.frame["candidate"]))
                raise InputError(
                    f"no candidate {name!r} in the records (found: {known or 'none'})",
                    rule="unknown_candidate",
                )
        mask = self._comparisons.frame["candidate"].isin(list(candidates)).to_numpy()
        return CampaignAnalysis(
            self._comparisons.frame.loc[mask].reset_index(drop=True),
            self.settings,
            _tables=self._tables,
            _comparisons=self._comparisons,
            _candidates=tuple(candidates),
        )

    def previous_bundle(self, bundle: str) -> str | None:
        """The bundle before ``bundle`` in bundle order (None for the first)."""
        self._known_bundle(bundle)
        index = self.bundles.index(bundle)
        return self.bundles[index - 1] if index else None

    def comparison(
        self,
        candidate: str,
        baseline_bundle: str,
        current_bundle: str,
        metric: Metric = "mean_overall",
    ) -> PairedComparison:
        """``candidate`` (or :data:`POOLED`) in ``current_bundle`` against itself in the bundle
        just before it, adjusted within its family; raises when there is no such comparison."""
        self._known_bundle(baseline_bundle)
        self._known_bundle(current_bundle)
        if self.previous_bundle(current_bundle) != baseline_bundle:
            raise InputError(
                f"bundle {baseline_bundle!r} is not the one before {current_bundle!r}; only "
                "consecutive bundles are compared",
                rule="no_pair",
            )
        family = self._comparisons.across(baseline_bundle, current_bundle, metric)
        if candidate not in family.labels:
            raise InputError(
                f"candidate {candidate!r} did not run in both {baseline_bundle!r} and "
                f"{current_bundle!r}",
                rule="no_pair",
            )
        return family.comparison(candidate)

    def family(
        self, baseline_bundle: str, current_bundle: str, metric: Metric = "mean_overall"
    ) -> dict[str, PairedComparison]:
        """Every comparison of ``metric`` between two consecutive bundles, by candidate (shared
        candidates in candidate order, then :data:`POOLED` when two or more are shared)."""
        self._known_bundle(baseline_bundle)
        if self.previous_bundle(current_bundle) != baseline_bundle:
            raise InputError(
                f"bundle {baseline_bundle!r} is not the one before {current_bundle!r}",
                rule="no_pair",
            )
        family = self._comparisons.across(baseline_bundle, current_bundle, metric)
        return {label: family.comparison(label) for label in family.labels}

    def drops(
        self,
        baseline_bundle: str,
        current_bundle: str,
        metrics: Sequence[Metric] = ("mean_overall", "pass_rate", "gate_pass_rate"),
        gated: Sequence[Metric] = ("mean_overall",),
    ) -> dict[tuple[Metric, str], DropTest]:
        """The gate's one-sided drop tests between two consecutive bundles, by (metric,
        candidate): every shared candidate (and :data:`POOLED`, shown only), Holm-adjusted over
        the candidates x the ``gated`` metrics (``docs/gate.md``)."""
        self._known_bundle(baseline_bundle)
        if self.previous_bundle(current_bundle) != baseline_bundle:
            raise InputError(
                f"bundle {baseline_bundle!r} is not the one before {current_bundle!r}",
                rule="no_pair",
            )
        key = (baseline_bundle, current_bundle, tuple(metrics), tuple(gated))
        if key not in self._drops:
            self._drops[key] = drop_tests(
                self._comparisons,
                baseline_bundle,
                current_bundle,
                metrics,
                gated,
                self.settings.drop_alpha,
            )
        return self._drops[key]

    def comparison_pairs(self) -> list[tuple[str, str]]:
        """(baseline, current) bundle pairs that are compared: each bundle and the one before."""
        return list(itertools.pairwise(self.bundles))

    def across_bundles(
        self, candidate: str, metric: Metric = "mean_overall"
    ) -> list[PairedComparison]:
        """``candidate``'s comparisons with the previous bundle, in bundle order, for each pair of
        consecutive bundles it ran in both of."""
        found = []
        for baseline, current in self.comparison_pairs():
            family = self._comparisons.across(baseline, current, metric)
            if candidate in family.labels:
                found.append(family.comparison(candidate))
        return found

    def candidate_comparison(
        self, bundle: str, current: str, baseline: str, metric: Metric = "mean_overall"
    ) -> PairedComparison:
        """Candidate ``current`` against candidate ``baseline`` in ``bundle``, adjusted within
        the family of every candidate of the bundle against ``baseline``."""
        self._known_bundle(bundle)
        present = self._comparisons.candidates_in(bundle)
        for name in (current, baseline):
            if name not in present:
                raise InputError(
                    f"no records for candidate {name!r} in bundle {bundle!r}",
                    rule="unknown_selection",
                )
        if current == baseline:
            raise InputError("a candidate cannot be compared with itself", rule="no_pair")
        return self._comparisons.within(bundle, baseline, metric).comparison(current)

    def summary_row(self, bundle: str, candidate: str) -> dict[str, object]:
        """The :attr:`candidates` summary row of one candidate in one bundle."""
        table = self._tables.table("candidate", "summary")
        mask = (table["bundle"] == bundle).to_numpy() & (table["candidate"] == candidate).to_numpy()
        if not mask.any():
            raise InputError(
                f"no records for candidate {candidate!r} in bundle {bundle!r}",
                rule="unknown_selection",
            )
        return {str(key): value for key, value in table.loc[mask].iloc[0].items()}

    def _known_bundle(self, bundle: str) -> None:
        if bundle not in self.bundles:
            raise InputError(
                f"no bundle {bundle!r} in the records (found: {', '.join(self.bundles) or 'none'})",
                rule="unknown_bundle",
            )


def analyze_campaign(frame: pd.DataFrame, settings: ComparisonSettings) -> CampaignAnalysis:
    """The analysis of a :func:`~scorecard.aggregate.records_frame` frame with ``settings``.

    A candidate id equal to :data:`POOLED` is bad input (the pooled comparison uses that label).
    A ``frame`` that is not a records frame, or ``settings`` that are not
    :class:`ComparisonSettings`, are a ``TypeError`` or ``ValueError`` naming what is missing.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            "analyze_campaign(): frame must be a pandas DataFrame made by records_frame(), not "
            f"{type(frame).__name__}"
        )
    missing = [column for column in COLUMNS if column not in frame.columns]
    if missing:
        raise ValueError(
            f"analyze_campaign(): frame lacks {len(missing)} of the records frame's columns "
            f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}); make it with "
            "records_frame(paths or records)"
        )
    if not isinstance(settings, ComparisonSettings):
        raise TypeError(
            "analyze_campaign(): settings must be a ComparisonSettings (ComparisonSettings(seed="
            f"0)), not {type(settings).__name__}"
        )
    if POOLED in observed_categories(frame["candidate"]):
        raise InputError(
            f"candidate id {POOLED!r} is reserved for the pooled comparison",
            rule="reserved_candidate",
        )
    return CampaignAnalysis(frame, settings)


def compare_across_bundles(
    frame: pd.DataFrame, candidate: str, settings: ComparisonSettings
) -> list[PairedComparison]:
    """Each bundle against the previous one for ``candidate`` (:meth:`CampaignAnalysis.across_bundles`)."""
    analysis = analyze_campaign(frame, settings)
    if candidate not in observed_categories(frame["candidate"]):
        raise InputError(f"no records for candidate {candidate!r}", rule="unknown_candidate")
    return analysis.across_bundles(candidate)


def compare_to_baseline(
    frame: pd.DataFrame,
    baseline: str,
    candidates: Sequence[str],
    settings: ComparisonSettings,
    *,
    bundle: str | None = None,
) -> list[PairedComparison]:
    """Each of ``candidates`` against ``baseline`` in one bundle (the only one when None),
    adjusted within the family of every candidate of the bundle against ``baseline``."""
    analysis = analyze_campaign(frame, settings)
    if bundle is None:
        mask = frame["candidate"].isin([baseline, *candidates]).to_numpy()
        found = observed_categories(frame.loc[mask, "bundle"])
        if len(found) != 1:
            raise InputError(
                f"the candidates' records span {len(found)} bundles "
                f"({', '.join(found) or 'none'}); choose one",
                rule="ambiguous_bundle",
            )
        bundle = found[0]
    return [analysis.candidate_comparison(bundle, name, baseline) for name in candidates]
