"""A site's context nights (bundles outside ``detail``): each of their runs is kept packed
(``report.keep_for_site``: facts, row and marshalled documents), read back only for the change
page that shows it, and nothing of it is kept once that page is made. None of this may change
a byte of the site."""

from __future__ import annotations

import dataclasses
import json

import pytest

from scorecard.contract import load_catalog
from scorecard.core import ScoredRecord
from scorecard.report import PackedRecord, _site_data, build_site, keep_for_site, site_pages
from tests.report.test_site import sample_records

NEWEST = "campaign-2026-11-22"


def test_a_packed_record_reads_back_as_the_record_it_was() -> None:
    """Every sample run of a context night: the same card and observation (values, types and
    key order: the same JSON text) and the same other fields; a detailed night's run is kept
    as it is (the very object)."""
    packed = 0
    for record in sample_records():
        kept = keep_for_site(record, [NEWEST])
        if record.card["bundleId"] == NEWEST:
            assert kept is record
            continue
        assert isinstance(kept, PackedRecord)
        back = kept.record()
        assert back is not record
        assert back == record
        assert json.dumps(back.card) == json.dumps(record.card)
        assert json.dumps(back.observation) == json.dumps(record.observation)
        for field in dataclasses.fields(ScoredRecord):
            assert getattr(back, field.name) == getattr(record, field.name), field.name
        assert back.record_json() == record.record_json()
        assert kept.facts.bundle == record.card["bundleId"]
        assert kept.row[0] == record.card["bundleId"]
        assert kept.source == record.source
        packed += 1
    assert packed == sum(1 for r in sample_records() if r.card["bundleId"] != NEWEST) > 0
    assert all(keep_for_site(r, None) is r for r in sample_records())


def test_packing_changes_no_byte_of_the_site(monkeypatch: pytest.MonkeyPatch) -> None:
    """The site of the newest night with the nights before as context, built from records,
    from records packed beforehand, and with packing switched off: the same files."""
    records = sample_records()
    packed = build_site(records, load_catalog(), detail=[NEWEST])
    beforehand = build_site(
        [keep_for_site(record, [NEWEST]) for record in records], load_catalog(), detail=[NEWEST]
    )
    assert beforehand == packed
    monkeypatch.setattr(_site_data, "_documents", lambda record: None)
    unpacked = build_site(records, load_catalog(), detail=[NEWEST])
    assert packed == unpacked
    assert any(name.startswith(f"changes/{NEWEST}/") for name in packed)


def test_a_context_run_keeps_nothing_after_its_change_page() -> None:
    """Every context run is packed; making every change page explains them on copies read
    back for the page, and leaves no explanation, no record and no kept cell of theirs."""
    pages = site_pages(sample_records(), load_catalog(), detail=[NEWEST])
    context = [run for run in pages.site.runs if run.facts.bundle != NEWEST]
    assert context
    assert not any(isinstance(run.stored, ScoredRecord) for run in context)
    assert all(isinstance(run.stored, ScoredRecord) for run in pages.site.shown)
    changes = [name for name in pages.names() if name.startswith("changes/")]
    assert changes
    for name in changes:
        assert pages.file(name)
    cells = pages._changes._cells
    kept = set(cells._kept) | set(cells._checks) | set(cells._dimensions)
    assert kept  # the detailed night's runs are kept (they show on later pages, if any)
    assert not kept & {run.path for run in context}
    assert all("explanation" not in vars(run) for run in context)
    assert not any(isinstance(run.stored, ScoredRecord) for run in context)


def test_a_report_over_paths_packs_its_context_nights_and_changes_no_byte() -> None:
    """``build_report`` packs the nights before ``current`` as the scoring run yields them and
    hands each record over as it is read: the site is ``build_site``'s of the plain records."""
    from scorecard import api
    from scorecard.engine import score_run
    from tests.conftest import ROOT

    nights = [
        str(ROOT / "observations" / name) for name in ("2026-11-15-nightly", "2026-11-22-nightly")
    ]
    report = api.build_report(nights, current=NEWEST, workers=1).files
    records = [
        item
        for item in score_run(nights, catalog=load_catalog(), workers=1).records()
        if isinstance(item, ScoredRecord)
    ]
    plain = build_site(records, load_catalog(), detail=[NEWEST])
    own = ("receipt.json", ".scorecard-site")  # the report's receipt, and the marker naming it
    assert {name: data for name, data in report.items() if name not in own} == {
        name: data for name, data in plain.items() if name not in own
    }
    assert "receipt.json" in report
    assert len(report) == len(plain) + 1


def test_site_inputs_are_handed_over_one_by_one() -> None:
    """Each record leaves the inputs' list as it is read, in order."""
    from scorecard.api._report import _SiteInputs

    records = list(sample_records()[:5])
    inputs = _SiteInputs(list(records), load_catalog(), None, None, (), None)  # type: ignore[arg-type]
    handed = inputs.handed_over()
    assert next(handed) is records[0]
    assert len(inputs.records) == 4
    assert list(handed) == records[1:]
    assert inputs.records == []
