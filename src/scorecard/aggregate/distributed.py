"""The reference aggregate of a scored dataset, computed on a Dask cluster.

The dataset is what :func:`scorecard.engine.distributed.score_on_dask` (or ``--out X.parquet
--partition-by-bundle``) writes. Dask is an optional extra (``scorecard[distributed]``), imported
only inside the functions that use it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from scorecard.contract import CASE_IDS
from scorecard.engine import ROW_FIELDS, LoadedRecords, Row
from scorecard.engine.parquet import PARQUET_SCHEMA, rows_of

from ._frames import records_frame
from ._reference import report_aggregate

__all__ = ["REPORT_KEYS", "cluster_frame", "dask_report", "read_dataset"]

#: Columns :func:`dask_report` can group by.
REPORT_KEYS = ("bundle", "candidate", "provider", "model", "tier", "case")
_FILES_PER_REPORT_PARTITION = 16


def read_dataset(path: str | Path) -> Any:
    """A bundle-partitioned dataset (``bundle=<id>`` folders) as a ``dask.dataframe``.

    ``bundle`` comes from the folder names (Hive partitioning), as a categorical column.
    """
    import dask.dataframe as dd

    text = str(path)
    location = text if "://" in text else os.path.abspath(text)
    # pyarrow's own file system reader: dask's fsspec reader resets indexes in place, which
    # pandas 3.1 deprecates with a warning on every partition.
    return dd.read_parquet(location, filesystem="arrow")


def _rows(partition: pd.DataFrame) -> list[Row]:
    """A partition's rows as :func:`scorecard.engine.parquet.read_parquet_rows` gives them."""
    table = pa.Table.from_pandas(partition, preserve_index=False)
    table = table.select(list(ROW_FIELDS)).cast(PARQUET_SCHEMA)
    return list(zip(*rows_of(table, PARQUET_SCHEMA), strict=True))


def _partition_report(partition: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The reference aggregate of every group wholly inside ``partition``, keys as plain text."""
    frame = records_frame(LoadedRecords(rows=_rows(partition)))
    table = report_aggregate(frame, by=keys)
    for key in keys:
        table[key] = table[key].astype(object)
    return table


def dask_report(frame: Any, by: Sequence[str] = ("bundle", "candidate")) -> pd.DataFrame:
    """:func:`scorecard.aggregate.report_aggregate` per ``by`` group, on the cluster.

    ``frame`` is a dask dataframe of dataset rows (:func:`read_dataset`). Each group is moved
    whole onto one worker (a shuffle on ``by``) and aggregated there by the reference code, so
    means are summed in the same order and round the same way; the result is the frame
    ``report_aggregate(records_frame(rows), by=by)`` gives for the same rows: ``by`` columns
    (categorical, groups in sorted order, cases in catalog order), ``executions``, ``scoreable``,
    ``passed``, ``candidate_failures``, ``infrastructure_failures``, ``skipped``,
    ``mean_overall`` and ``mean_<dimension>``. A single group must fit in a worker's memory.
    """
    from dask.base import compute

    keys = list(by)
    unknown = [key for key in keys if key not in REPORT_KEYS]
    if not keys or unknown:
        raise ValueError(f"can group only by {', '.join(REPORT_KEYS)}; got {keys}")
    meta = _partition_report(frame._meta, keys)
    # Dataset partitions are small (a part file per input range) and each report partition
    # costs a frame build, so groups are gathered into fewer partitions than were read.
    partitions = -(-frame.npartitions // _FILES_PER_REPORT_PARTITION)
    shuffled = frame.shuffle(on=keys, npartitions=partitions, shuffle_method="tasks")
    groups = shuffled.map_partitions(_partition_report, keys, meta=meta)
    # Categories are every value of the frame (as records_frame makes them), not only those of
    # the groups: a null in another key column drops a row's group but not its value.
    uniques = (frame[key].dropna().unique(split_out=1) for key in keys)
    table, *values = compute(groups, *uniques)  # type: ignore[no-untyped-call]
    for key, found in zip(keys, values, strict=True):
        first = CASE_IDS if key == "case" else ()
        categories = [*first, *sorted({str(value) for value in found} - set(first))]
        table[key] = table[key].astype("category").cat.set_categories(categories)
    report: pd.DataFrame = table.sort_values(keys, kind="stable").reset_index(drop=True)
    return report


def _bundle_frame(path: str, bundle_order: list[str]) -> pd.DataFrame:
    """Task: the records frame of one bundle's Parquet file (a store's runs file)."""
    return records_frame([Path(path)], bundle_order=bundle_order)


def cluster_frame(client: Any, files: Sequence[Path], bundle_order: Sequence[str]) -> pd.DataFrame:
    """The records frame of ``files``, one bundle's rows each, given in ``bundle_order`` (a
    store's runs files), read and built on the Dask cluster of ``client``: a task per file
    makes that bundle's frame, which the driver places end to end. The frame is sorted by
    bundle first, so this is ``records_frame(files, bundle_order=...)`` value for value, once
    each label column has the categories the whole frame has (those held, sorted, after the
    bundles of ``bundle_order`` and the catalog's cases), which the parts get here."""
    from scorecard.aggregate._frames import LABEL_COLUMNS, _categories

    order = list(bundle_order)
    futures = client.map(_bundle_frame, [str(path) for path in files], [order] * len(files))
    parts: list[pd.DataFrame] = client.gather(futures)
    if not parts:
        return records_frame([], bundle_order=order)
    first = {"bundle": order, "case": list(CASE_IDS)}
    for name in LABEL_COLUMNS:
        held = (value for part in parts for value in part[name].cat.categories)
        dtype = pd.CategoricalDtype(_categories(held, first.get(name, ())))
        for part in parts:
            part[name] = part[name].cat.set_categories(dtype.categories)
    return pd.concat(parts, ignore_index=True)
