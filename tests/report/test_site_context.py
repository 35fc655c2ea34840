"""A site of some bundles (``detail``): each run of a detailed night is kept packed
(``report.keep_for_site``: facts, row and marshalled documents), read back only for the pages
that show it (its shard, the change pages), and nothing of it is kept once they are made; of a
context night's run, given the catalog, only its facts, row and change values. None of this may
change a byte of the site."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from scorecard.contract import load_catalog
from scorecard.core import ScoredRecord
from scorecard.report import PackedRecord, build_site, keep_for_site, site_pages
from tests.report.test_site import sample_records

NEWEST = "campaign-2026-11-22"


def test_a_packed_record_reads_back_as_the_record_it_was() -> None:
    """Every sample run: the same card and observation (values, types and key order: the same
    JSON text) and the same other fields; a site of every bundle keeps it as it is."""
    packed = 0
    for record in sample_records():
        kept = keep_for_site(record, [NEWEST])
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
        assert PackedRecord(kept.facts, kept.row, kept.packed).source == record.source
        packed += 1
    assert packed == len(sample_records())
    assert all(keep_for_site(r, None) is r for r in sample_records())


def test_a_runs_failing_dimensions_read_from_its_facts_are_the_explanations() -> None:
    """``SiteRun.failing`` (the runs tables' column, read from the facts so a packed run is
    not read back for it) names what ``core.failing_dimensions`` and the explanation name."""
    from scorecard.core import explain_record, failing_dimensions

    pages = site_pages(sample_records(), load_catalog())
    failing = 0
    for run in pages.site.runs:
        assert list(run.failing) == failing_dimensions(run.record)
        explained = explain_record(run.record, load_catalog())["failingDimensions"]
        assert list(run.failing) == [item["dimension"] for item in explained]
        failing += bool(run.failing)
    assert 0 < failing < len(pages.site.runs)
    assert any(run.facts.overall is None for run in pages.site.runs)  # unscored: none


def test_packing_changes_no_byte_of_the_site(monkeypatch: pytest.MonkeyPatch) -> None:
    """The site of the newest night with the nights before as context, built from records,
    from records packed beforehand, and with packing switched off: the same files."""
    records = sample_records()
    packed = build_site(records, load_catalog(), detail=[NEWEST])
    beforehand = build_site(
        [keep_for_site(record, [NEWEST]) for record in records], load_catalog(), detail=[NEWEST]
    )
    assert beforehand == packed
    # The nights before kept as their change values only (the report's way): the same files.
    with_catalog = [keep_for_site(record, [NEWEST], load_catalog()) for record in records]
    assert sum(isinstance(item, PackedRecord) and item.packed is None for item in with_catalog)
    assert build_site(with_catalog, load_catalog(), detail=[NEWEST]) == packed
    from scorecard.engine import PackedDocuments

    monkeypatch.setattr(PackedDocuments, "of", classmethod(lambda cls, record, **_: None))
    unpacked = build_site(records, load_catalog(), detail=[NEWEST])
    assert packed == unpacked
    assert any(name.startswith(f"changes/{NEWEST}/") for name in packed)


def test_a_packed_run_keeps_nothing_after_its_pages() -> None:
    """A site of one night packs the runs of its night, and keeps of each run of the nights
    before only what the change pages show of it (its documents are let go as it is read);
    making every change page and shard reads the night's runs back on copies, and leaves no
    explanation, no record and no values worked out there. A site of every night keeps its
    runs as they are."""
    from scorecard.report._site_data import FiledDocuments

    pages = site_pages(sample_records(), load_catalog(), detail=[NEWEST])
    runs = pages.site.runs
    context = [run for run in runs if run.facts.bundle != NEWEST]
    assert context  # context nights too
    assert all(run.stored is None and run.changes for run in context)
    assert all(isinstance(run.stored, FiledDocuments) for run in runs if run not in context)
    with pytest.raises(ValueError, match="only the change pages' values"):
        context[0].record  # noqa: B018
    made = [name for name in pages.names() if name.startswith(("changes/", "data/"))]
    assert any(name.startswith("changes/") for name in made)
    for name in made:
        assert pages.file(name)
    assert not pages._changes._values  # every run's values came with it
    assert not hasattr(runs[0], "__dict__")  # slotted: no room to keep an explanation
    assert not any(isinstance(run.stored, ScoredRecord) for run in runs)
    every = site_pages(sample_records(), load_catalog())
    assert all(isinstance(run.stored, ScoredRecord) for run in every.site.runs)


def test_a_nights_documents_kept_in_a_file_read_back_as_they_were() -> None:
    """A site of one night keeps its night's documents in one unlinked file, not in memory:
    each run's, read back (twice, in any order), is its record; the file holds each run's
    packed bytes once, one after the other."""
    from scorecard.report._site_data import FiledDocuments

    records = {
        (record.card["candidateId"], record.card["caseId"], record.repetition): record
        for record in sample_records()
        if record.card["bundleId"] == NEWEST
    }
    site = site_pages(sample_records(), load_catalog(), detail=[NEWEST]).site
    shown = site.shown
    assert len(shown) == len(records)
    filed = [run.stored for run in shown]
    assert all(isinstance(stored, FiledDocuments) for stored in filed)
    assert len({id(stored.file) for stored in filed}) == 1  # type: ignore[union-attr]
    spans = sorted((stored.offset, stored.length) for stored in filed)  # type: ignore[union-attr]
    assert spans[0][0] == 0
    ends = [start + length for start, length in spans]
    assert [start for start, _ in spans[1:]] == ends[:-1]
    for run in [*reversed(shown), *shown]:
        facts = run.facts
        assert run.record == records[facts.candidate, facts.case, facts.repetition]


def test_a_context_runs_values_are_those_its_record_gives() -> None:
    """Kept with the catalog, a run of a night before keeps the values the change pages would
    work out from its record, and reads back nothing; of a detailed night, its documents
    too."""
    from scorecard.report._site_change import ChangePages

    catalog = load_catalog()
    whole = ChangePages(site_pages(sample_records(), catalog).site)
    by_path = {run.path: run for run in whole.site.runs}
    checked = 0
    for record in sample_records():
        kept = keep_for_site(record, [NEWEST], catalog)
        assert isinstance(kept, PackedRecord)
        run = next(run for run in by_path.values() if run.facts == kept.facts)
        assert kept.changes == whole.values_of(run)
        labels = [label for label, _ in kept.changes]
        assert labels[:4] == [
            "outcome",
            "expected calls",
            "observed calls",
            "forbidden calls invoked",
        ]
        assert labels[-2:] == ["audit findings not passed", "failure"]
        if kept.facts.bundle == NEWEST:
            assert kept.record() == record
        else:
            assert kept.packed is None
            with pytest.raises(ValueError, match=str(record.source)):
                kept.record()
        checked += 1
    assert checked == len(sample_records())


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


@pytest.mark.parametrize("workers", [1, 2])
def test_runs_kept_by_the_workers_are_those_kept_here(workers: int) -> None:
    """``records(site_keeper(...))`` gives, numbered in input order, what ``keep_for_site``
    keeps of each numbered record (facts, row, documents and change values, by ``repr``: kinds
    and signs too), from the pool's workers as from this process; and what comes from the
    workers shares its names and repeated values here, as runs kept here do."""
    from scorecard.engine import score_run
    from scorecard.report import site_keeper
    from tests.conftest import ROOT
    from tests.report.kept_runs import assert_kept_as_here

    catalog = load_catalog()
    samples = [str(ROOT / "observations")]
    run = score_run(samples, catalog=catalog, workers=workers, chunk_bytes=1 << 16)
    kept = [item for item in run.records(site_keeper([NEWEST])) if not isinstance(item, Exception)]
    here = [keep_for_site(record, [NEWEST], catalog) for record in sample_records()]
    assert len(here) == len(sample_records())
    assert_kept_as_here(here, kept)


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


def test_kept_runs_share_what_they_repeat_and_change_no_value() -> None:
    """Runs kept for a site share the rows of their change values (label and value) and their
    rows' numbers with their facts: one object where the values are equal, the same values as
    a run kept with nothing to share with, and as its record's row (kinds and signs too)."""
    from scorecard.contract import DIMENSIONS, ROW_FIELDS
    from scorecard.engine import scored_row
    from scorecard.report import _site_values

    catalog = load_catalog()
    records = sample_records()
    kept = [keep_for_site(record, [NEWEST], catalog) for record in records]
    assert all(isinstance(run, PackedRecord) for run in kept)
    pairs: dict[tuple[str, Any], int] = {}
    for record, run in zip(records, kept, strict=True):
        assert isinstance(run, PackedRecord)
        assert run.changes is not None
        for pair in run.changes:
            assert pairs.setdefault(pair, id(pair)) == id(pair)  # equal rows: one object
        assert [repr(value) for value in run.row] == [repr(value) for value in scored_row(record)]
        for position, name in enumerate(DIMENSIONS):
            score = run.facts.scores[position]
            assert score is None or run.row[ROW_FIELDS.index(f"score_{name}")] is score
    assert len(pairs) * 10 < sum(len(getattr(run, "changes", ())) for run in kept)
    for record, run in zip(records, kept, strict=True):
        _site_values._shared_values.clear()
        alone = keep_for_site(record, [NEWEST], catalog)
        assert isinstance(alone, PackedRecord)
        assert alone.changes == getattr(run, "changes", None)


def test_a_rows_zero_keeps_its_sign_when_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    """A zero's sign survives the sharing of values among runs: a run whose row holds -0.0
    where an earlier run's equal scores held 0.0 (equal, not the same) keeps -0.0 in its facts
    and its row, and the earlier run keeps its 0.0."""
    from scorecard.contract import DIMENSIONS, ROW_FIELDS
    from scorecard.engine import scored_row
    from scorecard.gate import run_facts
    from scorecard.report import _site_data

    record = next(
        record for record in sample_records() if 0.0 in run_facts(record.record_json()).scores
    )
    position = run_facts(record.record_json()).scores.index(0.0)
    column = ROW_FIELDS.index(f"score_{DIMENSIONS[position]}")
    earlier, earlier_row = _site_data._facts_and_row(record)
    negative = list(scored_row(record))
    negative[column] = -0.0
    monkeypatch.setattr(_site_data, "scored_row", lambda _: tuple(negative))
    facts, row = _site_data._facts_and_row(record)
    assert repr(facts.scores[position]) == "-0.0"
    assert repr(row[column]) == "-0.0"
    assert repr(earlier.scores[position]) == "0.0"
    assert repr(earlier_row[column]) == "0.0"


def test_gates_worked_out_elsewhere_are_those_worked_out_here() -> None:
    """A site's gates and comparisons from the processes
    :meth:`SiteData.work_out_pairs_elsewhere` starts equal those worked out in this process
    (and the analysis' own); stopped before their results are asked for, they are worked out
    here."""
    catalog = load_catalog()
    site = site_pages(sample_records(), catalog, detail=[NEWEST]).site
    here, families = site.pairs, site.families
    elsewhere = site_pages(sample_records(), catalog, detail=[NEWEST]).site
    elsewhere.work_out_pairs_elsewhere()
    assert repr(elsewhere.pairs) == repr(here)  # (repr: a NaN equals no other NaN)
    assert repr(elsewhere.families) == repr(families)
    for candidate in site.candidates:
        expected = repr(site.analysis.across_bundles(candidate))
        assert repr(elsewhere.across_bundles(candidate)) == expected
    stopped = site_pages(sample_records(), catalog, detail=[NEWEST]).site
    stopped.work_out_pairs_elsewhere()
    stopped.stop_working_elsewhere()
    assert repr(stopped.pairs) == repr(here)
    assert repr(stopped.families) == repr(families)
    assert len(here) == len(families) == 3
    assert sum(len(site.across_bundles(name)) for name in site.candidates) > 10
    alone = site_pages(sample_records(), catalog, detail=[NEWEST]).site
    previous = alone.bundles[-2]
    assert repr(alone.family(previous, NEWEST)) == repr(families[(previous, NEWEST)])
    assert "families" not in alone.__dict__  # one pair's comparisons, not every pair's
