"""The multiplicity families of a campaign analysis: which comparisons are adjusted together.

* across bundles: for two consecutive bundles and one metric, every candidate in both, plus the
  pooled comparison (:data:`POOLED`) when two or more are shared;
* within a bundle: for one bundle, baseline candidate and metric, every other candidate of the
  bundle against that baseline.

A family needs only its members' raw overall p-values (no bootstrap) for the Holm adjustment;
a member's full comparison is computed when a view first reads it. ``docs/aggregation.md``
section 4 gives the rationale.
"""

from __future__ import annotations

import pandas as pd

from ._compare import (
    CaseColumns,
    ComparisonSettings,
    Metric,
    PairedComparison,
    Side,
    compare_columns,
    overall_p_value,
    with_adjusted_p,
)
from ._frames import observed_categories
from ._stats import holm_adjust

__all__ = ["POOLED", "Comparisons", "Family"]

#: Candidate label of the pooled comparison (every shared candidate, paired by candidate and case).
POOLED = "(all candidates)"


class Family:
    """One multiplicity family: every member's raw overall p-value (cheap: no bootstrap) gives
    the Holm-adjusted ones; a member's full comparison is computed when it is first read."""

    def __init__(
        self,
        members: dict[str, tuple[CaseColumns, Side, Side]],
        settings: ComparisonSettings,
        metric: Metric,
    ) -> None:
        self._members = members
        self._settings = settings
        self._metric = metric
        raw = [
            overall_p_value(columns, current, baseline, settings, metric=metric)
            for columns, current, baseline in members.values()
        ]
        self._adjusted = dict(zip(members, holm_adjust(raw), strict=True))
        self._done: dict[str, PairedComparison] = {}

    @property
    def labels(self) -> list[str]:
        """Member labels: candidates in candidate order, then :data:`POOLED` when present."""
        return list(self._members)

    def comparison(self, label: str) -> PairedComparison:
        """The member's comparison with the family's adjusted p-value and verdict."""
        if label not in self._done:
            columns, current, baseline = self._members[label]
            full = compare_columns(columns, current, baseline, self._settings, metric=self._metric)
            self._done[label] = with_adjusted_p(full, float(self._adjusted[label]))
        return self._done[label]


class Comparisons:
    """The comparisons of one frame: families built on first use, then cached."""

    def __init__(self, frame: pd.DataFrame, settings: ComparisonSettings) -> None:
        self.frame = frame
        self.settings = settings
        self.bundles = tuple(observed_categories(frame["bundle"]))
        self._columns: dict[Metric, CaseColumns] = {}
        self._families: dict[tuple[str, str, str, Metric], Family] = {}
        self._present: dict[str, list[str]] = {}

    def columns(self, metric: Metric) -> CaseColumns:
        if metric not in self._columns:
            self._columns[metric] = CaseColumns(self.frame, metric)
        return self._columns[metric]

    def candidates_in(self, bundle: str) -> list[str]:
        if bundle not in self._present:
            mask = (self.frame["bundle"] == bundle).to_numpy()
            self._present[bundle] = observed_categories(self.frame.loc[mask, "candidate"])
        return self._present[bundle]

    def across(self, baseline: str, current: str, metric: Metric) -> Family:
        """The family of ``metric`` between two consecutive bundles (candidates, then POOLED)."""
        key = ("across", baseline, current, metric)
        if key not in self._families:
            present = set(self.candidates_in(baseline))
            shared = [name for name in self.candidates_in(current) if name in present]
            columns = self.columns(metric)
            members = {
                name: (columns, Side(current, name), Side(baseline, name)) for name in shared
            }
            # With one shared candidate the pooled comparison is that candidate's again; counting
            # it twice would only halve the family's power.
            if len(shared) >= 2:
                pooled = CaseColumns.pooled(columns, (baseline, current), shared, POOLED)
                members[POOLED] = (pooled, Side(current, POOLED), Side(baseline, POOLED))
            self._families[key] = Family(members, self.settings, metric)
        return self._families[key]

    def within(self, bundle: str, baseline: str, metric: Metric) -> Family:
        """The family of every other candidate of ``bundle`` against ``baseline``."""
        key = ("within", bundle, baseline, metric)
        if key not in self._families:
            columns = self.columns(metric)
            members = {
                name: (columns, Side(bundle, name), Side(bundle, baseline))
                for name in self.candidates_in(bundle)
                if name != baseline
            }
            self._families[key] = Family(members, self.settings, metric)
        return self._families[key]
