"""Reading a few candidates or cases of a store: the rows of the full frame, nothing else."""

from __future__ import annotations

import pandas as pd
import pytest

from scorecard.aggregate import held_labels, observed_categories, records_frame
from scorecard.store import Store

ONLY = [
    {"candidate": ["opencode-glm"]},
    {"case": ["restart-recovery", "trace-lineage"]},
    {"candidate": ["opencode-glm", "claude-sonnet"], "case": ["restart-recovery"]},
    {"candidate": ["nobody"]},
]


def _full_frame(store: Store) -> tuple[pd.DataFrame, list[str]]:
    order = [entry.id for entry in store.bundles()]
    return records_frame(store.runs_files(), bundle_order=order), order


@pytest.mark.parametrize("only", ONLY)
def test_a_filtered_frame_holds_the_full_frames_rows_of_those_labels(
    sample_store: Store, only: dict[str, list[str]]
) -> None:
    """Row for row and value for value, the filtered frame is the full frame's selection."""
    full, order = _full_frame(sample_store)
    wanted = pd.Series(True, index=full.index)
    for name, ids in only.items():
        wanted &= full[name].astype(str).isin(ids)
    expected = full[wanted].reset_index(drop=True)
    found = records_frame(sample_store.runs_files(), bundle_order=order, only=only)
    assert list(found.columns) == list(expected.columns)
    assert len(found) == int(wanted.sum())
    for name in found.columns:  # values (the categories are those of the rows kept)
        pd.testing.assert_series_equal(found[name].astype(object), expected[name].astype(object))


@pytest.mark.parametrize("only", ONLY)
def test_parquet_and_records_give_the_same_filtered_frame(
    sample_store: Store, only: dict[str, list[str]]
) -> None:
    """The Parquet path filters batch by batch; records are filtered after the frame is made:
    the same frame, categories included."""
    order = [entry.id for entry in sample_store.bundles()]
    records = list(sample_store.scored_records())
    from_records = records_frame(records, bundle_order=order, only=only)
    from_files = records_frame(sample_store.runs_files(), bundle_order=order, only=only)
    pd.testing.assert_frame_equal(from_files, from_records)


def test_held_labels_are_the_full_frames_observed_categories(sample_store: Store) -> None:
    full, _ = _full_frame(sample_store)
    held = held_labels(sample_store.runs_files(), ("candidate", "case", "bundle"))
    assert held == {
        "candidate": observed_categories(full["candidate"]),
        "case": observed_categories(full["case"]),
        "bundle": sorted(observed_categories(full["bundle"])),
    }
    assert held["candidate"]  # the samples hold candidates: the comparison above means something
