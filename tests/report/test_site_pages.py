"""``report.site_pages``: the site ``build_site`` builds, each file made when first asked for
(what ``scorecard view`` serves): the same bytes, in any order of asking, and nothing made that
was not asked for."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from scorecard.contract import load_catalog
from scorecard.report import SitePages, site_pages
from tests.report.test_site import GLM_SHARD, sample_records, sample_site

NEWEST = "campaign-2026-11-22"


@functools.cache
def sample_pages() -> SitePages:
    return site_pages(sample_records(), load_catalog())


def test_files_made_one_by_one_in_any_order_are_the_built_site() -> None:
    """Asked for last page first (the overview before the gates' pages, shards before the
    runs' index), every file is the one build_site writes, and the whole is build_site's."""
    pages = site_pages(sample_records(), load_catalog())
    built = sample_site()
    for name in reversed(pages.names()):
        assert pages.file(name) == built.get(name), name
    assert pages.files() == built
    assert set(pages.names()) == set(built) - {".scorecard-site"}  # every plot was drawn


def test_a_file_is_made_only_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The overview makes the overview and what it shows (its plots, the gates), not one
    candidate, case, change page or shard; explanations wait for the pages that show them, and
    a change page keeps its runs' values, not their explanations."""
    pages = site_pages(sample_records(), load_catalog())
    assert pages.made() == []
    assert pages.file("index.html") == sample_site()["index.html"]
    made = pages.made()
    assert made[-1] == "index.html"
    assert not [name for name in made if name.startswith(("candidates/", "changes/", "data/"))]
    runs = pages.site.runs
    assert not hasattr(runs[0], "__dict__")  # slotted: no room to keep an explanation
    with monkeypatch.context() as patched:  # the runs tables read the facts alone
        patched.setattr("scorecard.report._site_run.explain_failing", _never_explained)
        patched.setattr("scorecard.report._site_values.explain_failing", _never_explained)
        for name in ("runs.html", "data/runs.js"):
            assert pages.file(name) == sample_site()[name]
    change = f"changes/{NEWEST}/opencode-glm/final-response.html"
    assert pages.file(change) == sample_site()[change]
    explained = set(pages._changes._values)  # the runs whose change values were worked out
    assert explained  # the page's runs, and only runs of that candidate and case
    assert all("/opencode-glm/final-response/" in path for path in explained)
    assert pages.file(GLM_SHARD) == sample_site()[GLM_SHARD]
    assert pages.made()[-2:] == [change, GLM_SHARD]


def _never_explained(*_: object) -> None:
    raise AssertionError("explained a run")


def test_a_name_the_site_has_no_file_for_is_none() -> None:
    pages = sample_pages()
    for name in ("nope.html", ".scorecard-site", "receipt.json", "candidates/", ""):
        assert pages.file(name) is None
    assert ".scorecard-site" not in pages.names()


def test_every_name_is_known_before_any_file_is_made() -> None:
    """The names (and so the collisions refused) come from the ids alone: the plan of a
    fresh site already lists every file build_site writes."""
    pages = site_pages(sample_records(), load_catalog())
    assert pages.names()
    assert pages.made() == []
    assert sorted(pages.names()) == sorted(set(sample_site()) - {".scorecard-site"})


def test_pages_are_freed_when_let_go_not_left_to_the_collector() -> None:
    """No maker of a file holds the pages (a cycle through the plan would keep the whole site,
    every run's record with it, until a full collection): with the collector off, letting the
    pages go frees them, their site data and its runs at once."""
    import gc
    import weakref

    import scorecard.plots  # noqa: F401  (imported here, not first while pages are made)

    pages = site_pages(sample_records(), load_catalog())
    for name in pages.names():
        pages.file(name)
    gone: list[weakref.ref[Any]] = [
        weakref.ref(pages),
        weakref.ref(pages.site),
        weakref.ref(pages.site.runs[0]),
    ]
    enabled = gc.isenabled()
    gc.disable()
    try:
        del pages
        assert [ref() is None for ref in gone] == [True, True, True]
    finally:
        if enabled:
            gc.enable()
