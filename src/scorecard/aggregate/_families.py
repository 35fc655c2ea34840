"""The multiplicity families of a campaign analysis: which comparisons are adjusted together.

* across bundles: for two consecutive bundles and one metric, every candidate in both; the
  pooled comparison (:data:`POOLED`, when two or more are shared) is shown with its own p-value
  and takes no place in the family;
* drops (the gate's question): for two consecutive bundles, the one-sided "no drop" tests of
  every shared candidate and every *gated* metric, Holm-adjusted together (the pooled
  comparison is not a member);
* within a bundle: for one bundle, baseline candidate and metric, every other candidate of the
  bundle against that baseline.

A family needs only its members' raw overall p-values (no bootstrap) for the Holm adjustment;
a member's full comparison is computed when a view first reads it. ``docs/aggregation.md``
section 4 gives the rationale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import pandas as pd

from ._compare import (
    CaseColumns,
    ComparisonSettings,
    Metric,
    PairedComparison,
    Side,
    compare_columns,
    drop_power,
    overall_p_values,
    with_adjusted_p,
)
from ._frames import observed_categories
from ._stats import holm_adjust

__all__ = ["POOLED", "Comparisons", "DropTest", "Family", "drop_tests", "minimum_detectable_drop"]

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
        raw = {
            label: overall_p_values(columns, current, baseline, settings, metric=metric)
            for label, (columns, current, baseline) in members.items()
        }
        # The pooled comparison restates its members' data: it is shown, adjusted alone, and
        # never takes a place in the family (it would only make every candidate's test weaker).
        family = [label for label in members if label != POOLED]
        adjusted = holm_adjust([raw[label][0] for label in family])
        self._adjusted = dict(zip(family, adjusted, strict=True))
        if POOLED in members:
            self._adjusted[POOLED] = raw[POOLED][0]
        self.raw_drop = {label: raw[label][1] for label in members}
        """One-sided ("no drop") raw p-values by member."""
        self._done: dict[str, PairedComparison] = {}

    @property
    def labels(self) -> list[str]:
        """Member labels: candidates in candidate order, then :data:`POOLED` when present."""
        return list(self._members)

    def drop_power(self, label: str) -> tuple[float, float]:
        """(standard error, smallest attainable p) of the member's drop test (:func:`drop_power`,
        kept on its pairing)."""
        columns, current, baseline = self._members[label]
        return drop_power(columns, current, baseline, self._settings, self._metric)

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
            # The metric's own columns; the others are read once for every metric.
            read = next(iter(self._columns.values()), None)
            self._columns[metric] = (
                CaseColumns(self.frame, metric)
                if read is None
                else read.with_metric(self.frame, metric)
            )
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


@dataclass(frozen=True)
class DropTest:
    """One candidate's one-sided test of a drop of one metric (the gate's question)."""

    metric: Metric
    """The metric compared."""
    candidate: str
    """The candidate (or :data:`POOLED`, shown only: never gated)."""
    comparison: PairedComparison
    """The full paired comparison (two-sided numbers, interval) every view shows."""
    p_drop: float
    """One-sided sign-flip p-value of "no drop"."""
    p_drop_adjusted: float
    """Holm-adjusted over the gated family (every shared candidate x every gated metric);
    for a metric that is not gated and for the pooled comparison, the raw p-value."""
    gated: bool
    """Whether the test is a member of the gated family."""
    family_size: int
    """Members of the gated family (the Holm step the strictest member faces)."""
    detectable: float
    """Minimum detectable drop at this sample size (:func:`minimum_detectable_drop`)."""


def minimum_detectable_drop(
    error: float, smallest_p: float, alpha: float, family_size: int, power: float = 0.8
) -> float:
    """The drop of the metric a one-sided test at alpha / family_size detects with ``power``:
    (z(1 - alpha/m) + z(power)) x the standard error of the drop test's own statistic
    (:func:`drop_power`: the runs' spread within cases, so a pooled baseline of several nights
    and repeated cases count). Normal quantiles, as that statistic is a weighted sum over
    cases. For mean overall this is the power of its score alone: the dimensions-passed half
    of the test only adds to it. Infinite when even the most extreme arrangement could not
    reach the level, or there is no spread to read."""
    level = alpha / max(family_size, 1)
    if smallest_p >= level or math.isnan(error):
        return math.inf
    if error == 0:
        return 0.0
    normal = NormalDist()
    return float((normal.inv_cdf(1 - level) + normal.inv_cdf(power)) * error)


def drop_tests(
    comparisons: Comparisons,
    baseline: str,
    current: str,
    metrics: Sequence[Metric],
    gated: Sequence[Metric],
    alpha: float,
) -> dict[tuple[Metric, str], DropTest]:
    """Every shared candidate's drop test of each of ``metrics`` (then the pooled one, shown
    only), Holm-adjusted over the candidates x the ``gated`` metrics."""
    families = {metric: comparisons.across(baseline, current, metric) for metric in metrics}
    members = [
        (metric, label)
        for metric in metrics
        if metric in gated
        for label in families[metric].labels
        if label != POOLED
    ]
    adjusted = holm_adjust([families[metric].raw_drop[label] for metric, label in members])
    holm = dict(zip(members, (float(value) for value in adjusted), strict=True))
    size = len(members)
    found: dict[tuple[Metric, str], DropTest] = {}
    for metric in metrics:
        family = families[metric]
        for label in family.labels:
            comparison = family.comparison(label)
            raw = family.raw_drop[label]
            gated_member = (metric, label) in holm
            found[(metric, label)] = DropTest(
                metric=metric,
                candidate=label,
                comparison=comparison,
                p_drop=raw,
                p_drop_adjusted=holm.get((metric, label), raw),
                gated=gated_member,
                family_size=size if gated_member else 1,
                detectable=minimum_detectable_drop(
                    *family.drop_power(label), alpha, size if gated_member else 1
                ),
            )
    return found
