"""Each runs file's tally (how its runs ended per candidate x case, in its footer) gives the
history DuckDB gives over every run, and a tally that does not add up is a located error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from scorecard.contract import StoreError
from scorecard.store import Store, open_store
from scorecard.store import _writer as writer
from scorecard.store._layout import METADATA_KEY, RUNS
from scorecard.store._query import HISTORY_SCHEMA, HISTORY_SQL
from tests.store.conftest import NIGHTS, write_campaign

ASKED = [
    (None, None),
    ("opencode-glm", None),
    (None, "restart-recovery"),
    ("opencode-glm", "restart-recovery"),
    ("nobody", None),
]


def scanned(store: Store, candidate: str | None, case: str | None) -> pa.Table:
    """The history as DuckDB counts it over every run of every runs file."""
    table = store._sql(HISTORY_SQL, {"candidate": candidate, "case": case}, (RUNS,))
    return table.cast(HISTORY_SCHEMA)


@pytest.mark.parametrize(("candidate", "case"), ASKED)
def test_the_tallies_give_what_duckdb_counts_over_the_runs(
    sample_store: Store, candidate: str | None, case: str | None
) -> None:
    """The sample nights: every candidate x case x night, the same rows in the same order."""
    from_tallies = sample_store.history(candidate=candidate, case=case)
    assert from_tallies.schema == HISTORY_SCHEMA
    assert from_tallies.equals(scanned(sample_store, candidate, case))
    assert from_tallies.num_rows > 0 or candidate == "nobody"


def test_a_generated_campaign_too(tmp_path: Path) -> None:
    """Other candidates, cases and outcomes (a seed the samples were not made with)."""
    store = open_store(tmp_path / "store", create=True)
    assert store.ingest(write_campaign(tmp_path / "nights", seed=23, bundles=3), workers=2).ok
    table = store.history()
    assert set(table.column("outcome").to_pylist()) >= {"passed", "failed", "gate failed"}
    assert table.equals(scanned(store, None, None))


def test_bundles_kept_before_tallies_are_counted_over_their_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose first nights were written before runs files kept a tally (their stamps
    have none): those nights are counted by DuckDB, the others from their tallies, one
    history in one order."""
    store = open_store(tmp_path / "store", create=True)
    old_stamp = writer._stamp

    def without_tally(*args: Any, **kwargs: Any) -> dict[bytes, bytes]:
        stamp = json.loads(old_stamp(*args, **kwargs)[METADATA_KEY])
        stamp.pop("tally", None)  # as the stamp was before it kept one
        return {METADATA_KEY: json.dumps(stamp, ensure_ascii=False).encode()}

    with monkeypatch.context() as patched:
        patched.setattr(writer, "_stamp", without_tally)
        assert store.ingest(NIGHTS[:2], workers=1).ok
    assert store.ingest(NIGHTS[2:], workers=1).ok
    snapshot = store._snapshot()
    kept = [snapshot.tally(entry) is not None for entry in snapshot.index.bundles]
    assert kept == [False, False, True, True]
    for candidate, case in ASKED:
        assert store.history(candidate, case).equals(scanned(store, candidate, case))


def spoil(path: Path, old: bytes, new: bytes) -> None:
    """Change bytes of the file's footer in place (the same length: the index's size holds)."""
    assert len(old) == len(new)
    data = path.read_bytes()
    assert data.count(old) == 1
    path.write_bytes(data.replace(old, new))


def test_a_tally_that_does_not_add_up_is_a_located_error(tmp_path: Path) -> None:
    """One count changed in a runs file's footer: the history names the file and the row."""
    store = open_store(tmp_path / "store", create=True)
    assert store.ingest([NIGHTS[0]], workers=1).ok
    entry = store.bundles()[0]
    path = store.path / entry.files[RUNS]
    spoil(
        path,
        b'["acpx-claude-sonnet", "cancellation-permissions", 1, 1,',
        b'["acpx-claude-sonnet", "cancellation-permissions", 1, 2,',
    )
    with pytest.raises(StoreError) as raised:
        store.history()
    assert raised.value.rule == "corrupt_file"
    assert raised.value.source == str(path)
    assert raised.value.pointer == "/tally/rows/0"
    assert "add up" in str(raised.value)


def test_a_tally_of_more_runs_than_the_bundle_is_a_located_error(tmp_path: Path) -> None:
    """Rows that each add up but count runs the bundle does not have."""
    store = open_store(tmp_path / "store", create=True)
    assert store.ingest([NIGHTS[0]], workers=1).ok
    path = store.path / store.bundles()[0].files[RUNS]
    spoil(
        path,
        b'["acpx-claude-sonnet", "cancellation-permissions", 1, 1, 0, 0, 0, 0]',
        b'["acpx-claude-sonnet", "cancellation-permissions", 2, 1, 1, 0, 0, 0]',
    )
    with pytest.raises(StoreError, match="the index says") as raised:
        store.history()
    assert raised.value.pointer == "/tally/rows"


def test_the_history_command_from_tallies_is_the_folders(tmp_path: Path) -> None:
    """The command's history (nights and ledger) from the store's tallies is the folders',
    value for value, with the audit gating too; asked for one candidate and case as well."""
    from scorecard import api
    from scorecard.contract import Policy

    policy = tmp_path / "policy.yaml"
    policy.write_text("auditGate: true\n", encoding="utf-8")
    for name, settings, given in (
        ("plain", Policy(), None),
        ("audit", Policy(audit_gate=True), policy),
    ):
        store = open_store(tmp_path / name, create=True, policy=settings)
        assert store.ingest(NIGHTS, workers=1).ok
        assert store.night_counts() is not None  # the command takes the tallies' way
        for asked in ({}, {"candidates": ["opencode-glm"], "case_ids": ["restart-recovery"]}):
            from_store = api.history(store=store, **asked)  # type: ignore[arg-type]
            from_folders = api.history(NIGHTS, policy=given, workers=1, **asked)  # type: ignore[arg-type]
            assert from_store == from_folders
            assert from_store.nights


def test_runs_the_scorecard_passed_but_the_audit_gate_failed_count_as_the_frame_counts(
    sample_store: Store,
) -> None:
    """No sample run passes every dimension with a failed audit finding, so such runs are
    made here: in the samples' rows, some passed runs get a failed gate. Their tallies, as
    the history command reads them, give the nights and ledger the records frame gives."""
    from scorecard.aggregate import history_frames, nights_history, records_frame
    from scorecard.engine import ROW_FIELDS
    from scorecard.store._store import night_counts

    order = [entry.id for entry in sample_store.bundles()]
    frame = records_frame(sample_store.runs_files(), bundle_order=order)
    passed = frame.index[frame["passed"].fillna(False).astype(bool)]
    frame.loc[passed[::3], "gate_passed"] = False
    assert (
        frame["passed"].fillna(False).astype(bool) & ~frame["gate_passed"].fillna(True).astype(bool)
    ).sum() > 10
    counts = []
    for bundle in order:
        part = frame[frame["bundle"] == bundle]
        columns = [part[name].astype(object).where(part[name].notna(), None) for name in ROW_FIELDS]
        tally = writer.Tally()
        tally.add([tuple(row) for row in zip(*columns, strict=True)])
        counts.extend(night_counts(bundle, tally.document()["rows"]))
    expected = history_frames(frame, order)
    found = nights_history(counts, order)
    for mine, theirs in zip(found, expected, strict=True):
        pd.testing.assert_frame_equal(mine, theirs, check_exact=True)
