"""The only pandas: frames of scored rows, statistics, paired comparisons, tables, trends and the
reference aggregate (REPORTS.md). :mod:`scorecard.aggregate.distributed` runs the reference
aggregate on a Dask cluster.
"""

from ._analysis import (
    POOLED,
    CampaignAnalysis,
    GroupTables,
    analyze_campaign,
    compare_across_bundles,
    compare_to_baseline,
)
from ._campaign import pair_analysis
from ._compare import (
    METRICS,
    ComparisonSettings,
    Difference,
    DropStatistic,
    Exclusions,
    Metric,
    PairedComparison,
    Side,
    adjust_family,
    bound_text,
    compare_bundles,
    compare_candidates,
    compare_paired,
)
from ._families import DropTest
from ._frames import (
    column_codes,
    column_values,
    flag_array,
    held_labels,
    observed_categories,
    records_frame,
    rows_frame,
    select_rows,
    stack_frames,
)
from ._history import COUNT_COLUMNS, OUTCOMES, Outcome, history_frames, nights_history
from ._reference import Alert, alerts, report_aggregate
from ._stats import reference_p95
from ._tables import cost_frame, dimension_frame, reliability_frame, summary_frame, trend_frame

__all__ = [
    "COUNT_COLUMNS",
    "METRICS",
    "OUTCOMES",
    "POOLED",
    "Alert",
    "CampaignAnalysis",
    "ComparisonSettings",
    "Difference",
    "DropStatistic",
    "DropTest",
    "Exclusions",
    "GroupTables",
    "Metric",
    "Outcome",
    "PairedComparison",
    "Side",
    "adjust_family",
    "alerts",
    "analyze_campaign",
    "bound_text",
    "column_codes",
    "column_values",
    "compare_across_bundles",
    "compare_bundles",
    "compare_candidates",
    "compare_paired",
    "compare_to_baseline",
    "cost_frame",
    "dimension_frame",
    "flag_array",
    "held_labels",
    "history_frames",
    "nights_history",
    "observed_categories",
    "pair_analysis",
    "records_frame",
    "reference_p95",
    "reliability_frame",
    "report_aggregate",
    "rows_frame",
    "select_rows",
    "stack_frames",
    "summary_frame",
    "trend_frame",
]
