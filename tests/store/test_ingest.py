"""Ingest: each bundle one unit, idempotent, refused when changed or rejected (the others still
land), ordered by night, and the same bytes stored for any worker count and without C."""

from __future__ import annotations

import inspect
import io
import json
import shutil
from pathlib import Path

import pytest

from scorecard.contract import InputError, Policy, StoreError, load_catalog
from scorecard.engine._run import score_run
from scorecard.fast import _fastpath as fastpath
from scorecard.store import open_store
from tests.conftest import ROOT
from tests.store.conftest import NIGHTS, SAMPLES, copy_samples, write_campaign


def stored_bytes(root: Path) -> dict[str, bytes]:
    """Every file of a store but its lock and staging, by path inside it."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name != ".lock" and "tmp" not in path.relative_to(root).parts
    }


def test_the_sample_nights_land_in_night_order(tmp_path: Path) -> None:
    """Each bundle is added with its runs; the index lists them by night."""
    store = open_store(tmp_path / "s", create=True)
    report = store.ingest([NIGHTS[2], NIGHTS[0], NIGHTS[3], NIGHTS[1]])
    assert [(outcome.id, outcome.status) for outcome in report.bundles] == [
        ("campaign-2026-11-15", "added"),
        ("campaign-2026-11-01", "added"),
        ("campaign-2026-11-22", "added"),
        ("campaign-2026-11-08", "added"),
    ]
    assert report.ok
    assert [entry.id for entry in store.bundles()] == [
        "campaign-2026-11-01",
        "campaign-2026-11-08",
        "campaign-2026-11-15",
        "campaign-2026-11-22",
    ]
    assert [entry.night for entry in store.bundles()] == [
        "2026-11-01",
        "2026-11-08",
        "2026-11-15",
        "2026-11-22",
    ]
    assert [entry.runs for entry in store.bundles()] == [140] * 4
    assert report.summary.scored == 560


def test_the_same_bundle_again_is_unchanged(tmp_path: Path) -> None:
    """Whichever way it is pointed at: nothing is written, the index keeps its bytes."""
    store = open_store(tmp_path / "s", create=True)
    store.ingest([NIGHTS[0]])
    index = (tmp_path / "s" / "index.json").read_bytes()
    again = store.ingest([SAMPLES])
    statuses = {outcome.id: outcome.status for outcome in again.bundles}
    assert statuses["campaign-2026-11-01"] == "unchanged"
    assert statuses["campaign-2026-11-08"] == "added"
    third = store.ingest([NIGHTS[0], NIGHTS[1]], replace=True)  # same digest, same code
    assert [outcome.status for outcome in third.bundles] == ["unchanged", "unchanged"]
    assert json.loads(index)["generation"] == 1


def test_a_changed_bundle_is_refused_unless_replaced(tmp_path: Path) -> None:
    """Other bytes under the same id: refused, located, the store untouched; ``replace``
    swaps the bundle's files."""
    observations = copy_samples(tmp_path)
    night = observations / NIGHTS[0].name
    store = open_store(tmp_path / "s", create=True)
    first = store.ingest([night]).bundles[0].entry
    assert first is not None
    lines = (night / "observations.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (night / "observations.jsonl").write_text("".join(lines[:100]), encoding="utf-8")
    before = stored_bytes(tmp_path / "s")
    (refused,) = store.ingest([night]).bundles
    assert refused.status == "refused"
    (error,) = refused.errors
    assert isinstance(error, StoreError)
    assert (error.rule, error.source) == ("bundle_changed", str(night))
    assert stored_bytes(tmp_path / "s") == before
    (replaced,) = store.ingest([night], replace=True).bundles
    assert replaced.status == "replaced"
    assert replaced.entry is not None
    assert replaced.entry.runs == 100
    assert replaced.entry.files != first.files
    files = {path.name for path in (tmp_path / "s").rglob("*.parquet")}
    assert files == {Path(name).name for name in replaced.entry.files.values()}


def test_a_bundle_with_rejected_records_is_refused_and_the_others_land(tmp_path: Path) -> None:
    """Its errors come back located (file, line, pointer, rule); nothing of it is stored."""
    observations = copy_samples(tmp_path)
    night = observations / NIGHTS[1].name
    path = night / "observations.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    bad = json.loads(lines[6])
    bad["classification"] = "finished"
    lines[6] = json.dumps(bad) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    store = open_store(tmp_path / "s", create=True)
    report = store.ingest([observations])
    statuses = {outcome.id: outcome.status for outcome in report.bundles}
    assert statuses == {
        "campaign-2026-11-01": "added",
        "campaign-2026-11-08": "refused",
        "campaign-2026-11-15": "added",
        "campaign-2026-11-22": "added",
    }
    (refused,) = report.refused
    (error,) = refused.errors
    assert isinstance(error, InputError)
    assert (error.source, error.line, error.pointer) == (str(path), 7, "/classification")
    assert not report.ok
    assert report.summary.rejected == 1
    assert "campaign-2026-11-08" not in [entry.id for entry in store.bundles()]


def test_rejected_records_may_be_kept_with_their_bundle(tmp_path: Path) -> None:
    """``keep_rejected``: the scored runs land and the rejects' errors are kept, as
    ``--errors`` lines."""
    observations = copy_samples(tmp_path)
    night = observations / NIGHTS[1].name
    path = night / "observations.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    store = open_store(tmp_path / "s", create=True)
    (outcome,) = store.ingest([night], keep_rejected=True).bundles
    assert outcome.status == "added"
    assert outcome.entry is not None
    assert (outcome.entry.runs, outcome.entry.rejected) == (140, 1)
    assert [error.rule for error in outcome.errors] == ["malformed_json"]
    (kept,) = store.rejects("campaign-2026-11-08")
    assert (kept["source"], kept["line"], kept["rule"]) == (str(path), 141, "malformed_json")


def test_a_path_not_found_is_an_error_of_the_ingest(tmp_path: Path) -> None:
    """It belongs to no bundle; the bundles found still land."""
    store = open_store(tmp_path / "s", create=True)
    report = store.ingest([tmp_path / "nowhere", NIGHTS[0]])
    assert [error.rule for error in report.errors] == ["not_found"]
    assert [outcome.status for outcome in report.bundles] == ["added"]


def test_another_policy_or_catalog_is_refused_naming_the_difference(tmp_path: Path) -> None:
    """Before any work; the store keeps the policy and catalog it was made with."""
    store = open_store(tmp_path / "s", create=True)
    other = Policy.from_overrides({"semantic_outcome": 0.3})
    with pytest.raises(StoreError) as raised:
        store.ingest([NIGHTS[0]], policy=other)
    assert (raised.value.rule, raised.value.pointer) == (
        "policy_differs",
        "/weights/semantic_outcome",
    )
    assert "0.2" in raised.value.message
    assert "0.3" in raised.value.message
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", cases)
    changed = cases / "03-verification-policy.yaml"
    changed.write_text(changed.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    with pytest.raises(StoreError) as raised:
        store.ingest([NIGHTS[0]], catalog=load_catalog(cases))
    assert raised.value.rule == "catalog_differs"
    assert "03-verification-policy.yaml" in raised.value.message
    with pytest.raises(StoreError, match="auditGate"):
        open_store(tmp_path / "s", policy=Policy(audit_gate=True))
    assert store.bundles() == []


def test_a_store_keeps_a_policy_of_its_own(tmp_path: Path) -> None:
    """Made with another policy, a store scores with it and says so in store.json."""
    policy = Policy.from_overrides({"semantic_outcome": 0.5}, {"trace_completeness": 0.5})
    store = open_store(tmp_path / "s", create=True, policy=policy)
    assert open_store(tmp_path / "s").policy == policy
    document = json.loads((tmp_path / "s" / "store.json").read_text(encoding="utf-8"))
    assert document["schema"] == "scorecard.store.v1"
    assert document["policy"]["weights"]["semantic_outcome"] == 0.5
    assert store.ingest([NIGHTS[0]], policy=policy).ok


def test_nights_come_from_manifests_else_the_folder_name_or_the_night_given(
    tmp_path: Path,
) -> None:
    """Bundles without a manifest stand by their folder's name, or the night given."""
    line = (NIGHTS[0] / "observations.jsonl").read_text(encoding="utf-8").splitlines()[0]
    for name in ("2026-11-20-late", "zzz-unnamed", "aaa-given"):
        (tmp_path / "in" / name).mkdir(parents=True)
        (tmp_path / "in" / name / "runs.jsonl").write_text(line + "\n", encoding="utf-8")
    store = open_store(tmp_path / "s", create=True)
    store.ingest([NIGHTS[3], NIGHTS[0]])
    store.ingest([tmp_path / "in" / "2026-11-20-late", tmp_path / "in" / "zzz-unnamed"])
    store.ingest([tmp_path / "in" / "aaa-given"], night="2026-11-10")
    assert [(entry.id, entry.night) for entry in store.bundles()] == [
        ("campaign-2026-11-01", "2026-11-01"),
        ("local-aaa-given", "2026-11-10"),
        ("local-2026-11-20-late", None),
        ("campaign-2026-11-22", "2026-11-22"),
        ("local-zzz-unnamed", None),
    ]
    with pytest.raises(InputError, match="YYYY-MM-DD"):
        store.ingest([tmp_path / "in" / "aaa-given"], night="2026-13-01")
    observations = copy_samples(tmp_path)
    (outcome,) = store.ingest(
        [observations / NIGHTS[1].name], night="2026-11-09"
    ).bundles  # the manifest says 2026-11-08
    assert outcome.status == "refused"
    assert [error.rule for error in outcome.errors] == ["night_differs"]


def test_one_id_from_two_folders_is_refused(tmp_path: Path) -> None:
    """Two folders of one name (``local-nightly``) are not silently made one bundle."""
    line = (NIGHTS[0] / "observations.jsonl").read_text(encoding="utf-8").splitlines()[0]
    for parent in ("a", "b"):
        (tmp_path / parent / "nightly").mkdir(parents=True)
        (tmp_path / parent / "nightly" / "runs.jsonl").write_text(line + "\n", encoding="utf-8")
    store = open_store(tmp_path / "s", create=True)
    (outcome,) = store.ingest([tmp_path / "a", tmp_path / "b"]).bundles
    assert [error.rule for error in outcome.errors] == ["bundle_in_two_folders"]
    (outcome,) = store.ingest([tmp_path / "a", tmp_path / "b"], bundle_id="x").bundles
    assert outcome.status == "refused"


def test_standard_input_is_a_bundle_too(tmp_path: Path) -> None:
    """``-`` with a bundle id and a night: hashed and scored from the bytes given."""
    data = (NIGHTS[0] / "observations.jsonl").read_bytes()
    store = open_store(tmp_path / "s", create=True)
    (outcome,) = store.ingest(
        ["-"], stdin=io.BytesIO(data), bundle_id="piped", night="2026-11-02"
    ).bundles
    assert outcome.status == "added"
    assert outcome.entry is not None
    assert (outcome.entry.runs, outcome.entry.folder, outcome.entry.inputs) == (140, "", ("-",))
    (again,) = store.ingest(["-"], stdin=io.BytesIO(data), bundle_id="piped").bundles
    assert again.status == "unchanged"


@pytest.mark.parametrize(("workers", "compiled"), [(2, True), (1, False)])
def test_the_store_holds_the_same_bytes_for_any_worker_count_and_without_c(
    tmp_path: Path, workers: int, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file, the index included, byte for byte what one worker with C writes."""
    campaign = write_campaign(tmp_path / "campaign", seed=31, bundles=2)
    reference = open_store(tmp_path / "one", create=True)
    reference.ingest(campaign, workers=1)
    if not compiled:
        monkeypatch.setattr(fastpath, "_fastscore", None)
    other = open_store(tmp_path / "other", create=True)
    # Chunks of a few dozen lines: two workers share each night.
    scorer = inspect.unwrap(score_run)  # under the public boundary's argument checks
    assert scorer.__kwdefaults__ is not None
    monkeypatch.setitem(scorer.__kwdefaults__, "chunk_bytes", 60_000)
    other.ingest(campaign, workers=workers)
    assert stored_bytes(tmp_path / "one") == stored_bytes(tmp_path / "other")
