"""The report site in real headless Chromium (Debian's package, driven by Playwright's Python
API): opened from file:// with the network cut off, clicked from the overview to opencode-glm's
failing run of 2026-11-22, the pointer's highlighted field found, the filters and the search
hiding rows, readable without JavaScript, screenshots taken.

Skipped when Playwright or Chromium is missing (CI's ``.ci/run`` installs chromium). Set
``SCORECARD_SCREENSHOTS=folder`` to keep the screenshots.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorecard.report import write_site
from tests.conftest import ROOT
from tests.report.test_site import sample_site

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Chromium (apt-get install chromium)"
)

POINTER = "/base/observedCalls/0"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser") / "site"
    write_site(sample_site(), folder)
    return folder


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("SCORECARD_SCREENSHOTS")
    if chosen:
        Path(chosen).mkdir(parents=True, exist_ok=True)
        return Path(chosen)
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


class Watched:
    """A page whose errors, CSP reports and attempted network requests are kept."""

    def __init__(self, browser: Any, *, javascript: bool = True) -> None:
        self.context = browser.new_context(
            viewport={"width": 1280, "height": 900}, java_script_enabled=javascript
        )
        self.requests: list[str] = []
        self.errors: list[str] = []

        def only_files(route: Any) -> None:
            url = route.request.url
            if url.startswith("file://"):
                route.continue_()
            else:
                self.requests.append(url)
                route.abort()

        self.context.route("**/*", only_files)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on(
            "console",
            lambda message: self.errors.append(message.text) if message.type == "error" else None,
        )

    def close(self) -> None:
        self.context.close()
        assert self.requests == []
        assert self.errors == []


def visible_rows(page: Any) -> int:
    return int(page.locator("table.runs tbody tr:visible").count())


def test_click_from_the_overview_to_the_pointer_of_a_failing_run(
    browser: Any, site: Path, shots: Path
) -> None:
    watched = Watched(browser)
    page = watched.page
    page.goto((site / "index.html").as_uri())
    verdict = page.locator("#verdict")
    assert verdict.inner_text().startswith("gate: FAIL - opencode-glm")
    for name in ("heatmap", "trends", "cost"):  # the plots load (and have a size)
        image = page.locator(f"#plot-{name} img")
        assert image.evaluate("element => element.complete && element.naturalWidth") > 100
    page.screenshot(path=str(shots / "overview.png"))
    page.screenshot(path=str(shots / "overview-full.png"), full_page=True)

    page.locator("table.candidates a", has_text="opencode-glm").filter(has_not_text="flash").click()
    assert page.url.endswith("/candidates/opencode-glm.html")
    total = visible_rows(page)
    assert total > 20
    page.select_option("select[name=bundle]", "bundle:campaign-2026-11-22")
    page.select_option("select[name=outcome]", "outcome:gate failed")
    shown = visible_rows(page)
    assert 0 < shown < total
    for row in page.locator("table.runs tbody tr:visible").all():
        assert "campaign-2026-11-22" in row.inner_text()
        assert "gate failed" in row.inner_text()
    assert page.locator("#shown").inner_text().startswith(f"{shown} of {total} runs match")
    page.screenshot(path=str(shots / "candidate-filtered.png"), full_page=True)

    row = page.locator("table.runs tbody tr:visible", has_text="final-response").filter(
        has_text="run 2"
    )
    row.locator("a", has_text="run 2").click()
    assert page.url.endswith("/run.html?run=campaign-2026-11-22/opencode-glm/final-response/2")
    playwright_api.expect(page.locator("h1")).to_have_text("final-response | opencode-glm | run 2")
    assert "forbidden call(s) invoked: checkout_task" in page.locator("main").inner_text()

    page.locator("a.ptr", has_text=POINTER).first.click()
    assert re.search(r"#at-\d+$", page.url)
    target = page.locator("mark.hl:target")
    assert target.count() == 1
    assert target.get_attribute("data-pointer") == POINTER
    assert "checkout_task" in page.locator("tr", has=target).inner_text()
    box = target.bounding_box()
    assert box is not None
    assert 0 <= box["y"] < 900  # scrolled into view
    colour = target.evaluate("element => getComputedStyle(element).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent")
    page.screenshot(path=str(shots / "run-pointer.png"))
    page.screenshot(path=str(shots / "run-full.png"), full_page=True)
    watched.close()


def matching(page: Any) -> int:
    """The runs the filters keep, as the page counts them ("N of M runs match")."""
    return int(page.locator("#shown").inner_text().split(" of ", 1)[0])


def test_search_hides_rows_and_reads_the_query_string(browser: Any, site: Path) -> None:
    watched = Watched(browser)
    page = watched.page
    page.goto((site / "runs.html").as_uri())
    assert visible_rows(page) == 100  # one page of the 560 runs in the table
    assert matching(page) == 560
    assert page.locator("#page").inner_text() == "page 1 of 6, rows 1-100"
    page.fill("#q", "checkout_task")
    playwright_api.expect(page.locator("#shown")).not_to_have_text(re.compile("^560 "))
    found = matching(page)
    assert 0 < found < 560
    assert visible_rows(page) == min(found, 100)
    assert f"hidden: {560 - found} by the search" in page.locator("#shown").inner_text()
    assert "q=checkout_task" in page.url  # the state is in the address
    page.fill("#q", "no run says this")
    playwright_api.expect(page.locator("#shown")).to_have_text(re.compile("^0 "))
    assert visible_rows(page) == 0
    page.fill("#q", "")
    playwright_api.expect(page.locator("#shown")).to_have_text(re.compile("^560 "))
    assert visible_rows(page) == 100
    page.goto((site / "runs.html").as_uri() + "?q=opencode-glm+final-response", wait_until="load")
    assert 0 < visible_rows(page) < 560
    assert page.locator("#q").input_value() == "opencode-glm final-response"
    # The overview's search form leads there.
    page.goto((site / "index.html").as_uri())
    page.fill("form input[name=q]", "provider_unavailable")
    with page.expect_navigation():
        page.locator("form button").click()
    page.wait_for_load_state("load")  # the filter runs on load; a loaded machine is slow
    assert "runs.html?q=provider_unavailable" in page.url
    assert 0 < visible_rows(page) < 560
    watched.close()


def overall_of(row: Any) -> float:
    return float(row.locator("td.num").inner_text())


def test_runs_sort_and_page_and_the_address_brings_them_back(browser: Any, site: Path) -> None:
    """Sorting by overall (descending), going to page 2, then opening the page's address in a
    new tab shows the same rows; the order holds across the page boundary."""
    watched = Watched(browser)
    page = watched.page
    page.goto((site / "runs.html").as_uri())
    page.locator("th button.sort", has_text="overall").click()
    page.locator("th button.sort", has_text="overall").click()  # again: descending
    assert page.locator("th", has_text="overall").get_attribute("aria-sort") == "descending"
    first_page = [overall_of(row) for row in page.locator("table.runs tbody tr").all()]
    assert first_page == sorted(first_page, reverse=True)
    page.click("#next")
    assert page.locator("#page").inner_text() == "page 2 of 6, rows 101-200"
    second_page = [overall_of(row) for row in page.locator("table.runs tbody tr").all()]
    assert second_page == sorted(second_page, reverse=True)
    assert min(first_page) >= max(second_page)
    shown = [row.inner_text() for row in page.locator("table.runs tbody tr").all()]
    address = page.url
    assert "sort=5" in address
    assert "dir=desc" in address
    assert "page=2" in address
    again = watched.context.new_page()
    again.goto(address)
    assert [row.inner_text() for row in again.locator("table.runs tbody tr").all()] == shown
    watched.close()


def test_pages_are_readable_without_javascript(browser: Any, site: Path, shots: Path) -> None:
    watched = Watched(browser, javascript=False)
    page = watched.page
    page.goto((site / "runs.html").as_uri())
    assert visible_rows(page) == 100  # the first page, and a note on the rest
    assert page.get_by_text("The first 100 of 560 runs").is_visible()
    assert not page.locator("#filters").is_visible()
    page.goto((site / "run.html").as_uri() + RUN_QUERY)
    assert page.get_by_text("A run is shown by this page's script").is_visible()
    page.goto((site / "candidates/opencode-glm.html").as_uri())
    assert visible_rows(page) > 20  # the summary pages read as they are
    page.screenshot(path=str(shots / "run-no-js.png"))
    watched.close()


def axe_source() -> str | None:
    """axe-core's script: ``SCORECARD_AXE_CORE`` names it, or ``.ci/run`` installed it with npm
    under ``.ci/node``."""
    chosen = os.environ.get("SCORECARD_AXE_CORE")
    path = Path(chosen) if chosen else ROOT / ".ci/node/node_modules/axe-core/axe.min.js"
    return path.read_text(encoding="utf-8") if path.is_file() else None


AXE = axe_source()
RUN_QUERY = "?run=campaign-2026-11-22/opencode-glm/final-response/2"
RUN_PAGE = f"run.html{RUN_QUERY}"


@pytest.mark.skipif(AXE is None, reason="needs axe-core (.ci/run installs it with npm)")
@pytest.mark.parametrize(
    "page_name",
    [
        "index.html",
        "runs.html",
        "candidates/opencode-glm.html",
        "cases/final-response.html",
        "pairs/campaign-2026-11-15--campaign-2026-11-22.html",
        RUN_PAGE,
        f"{RUN_PAGE}#at-0",  # the pointed field highlighted (the target)
        "changes/campaign-2026-11-22/opencode-glm/final-response.html",
    ],
)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_any_page_kind(
    browser: Any, site: Path, page_name: str, scheme: str
) -> None:
    """axe-core on every page kind, in light and dark colour schemes: nothing serious or
    critical (the highlighted pointer's contrast was 4.42:1), and the overview's headings in
    order."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, bypass_csp=True, color_scheme=scheme
    )
    try:
        page = context.new_page()
        file, mark, rest = ([*re.split(r"([?#])", page_name, maxsplit=1), "", ""])[:3]
        assert (site / file).is_file(), file
        page.goto((site / file).as_uri() + mark + rest)
        if file == "run.html":  # drawn by the script from the shard
            playwright_api.expect(page.locator("#scorecard")).to_be_visible()
        page.add_script_tag(content=AXE)
        found = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    finally:
        context.close()
    problems = [
        (item["id"], item["impact"], [node["target"] for node in item["nodes"]][:3])
        for item in found["violations"]
        if item["impact"] in ("serious", "critical") or item["id"] == "heading-order"
    ]
    assert problems == []


def test_click_from_a_gate_failure_to_the_case_then_and_now(browser: Any, site: Path) -> None:
    """From the overview's gate failure of opencode-glm's final-response run 2 to the page of
    that case on 2026-11-22 beside the nights before: the check that failed is highlighted."""
    watched = Watched(browser)
    page = watched.page
    page.goto((site / "index.html").as_uri())
    row = page.locator("table.failures tbody tr", has_text="opencode-glm").filter(
        has_text="final-response"
    )
    row.locator("a", has_text="then and now").first.click()
    assert page.url.endswith("/changes/campaign-2026-11-22/opencode-glm/final-response.html")
    changed = page.locator("tr.changed", has_text="check continuation/trajectory-restraint")
    assert changed.count() == 1
    assert "passed then, failing now" in changed.inner_text()
    assert "r2: failed" in changed.locator("td").last.inner_text()
    colour = changed.locator("td").last.evaluate(
        "element => getComputedStyle(element).backgroundColor"
    )
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent", "rgb(255, 255, 255)")
    watched.close()


def test_a_skip_link_leads_the_keyboard_to_the_content(browser: Any, site: Path) -> None:
    watched = Watched(browser)
    page = watched.page
    page.goto((site / "index.html").as_uri())
    skip = page.locator("a.skip")
    box = skip.bounding_box()
    assert box is not None
    assert box["x"] < 0  # off screen until focused
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    box = skip.bounding_box()
    assert box is not None
    assert box["x"] >= 0  # shown while focused
    page.keyboard.press("Enter")
    assert page.url.endswith("#main")
    watched.close()


def test_the_dark_scheme_is_dark(browser: Any, site: Path) -> None:
    context = browser.new_context(color_scheme="dark")
    try:
        page = context.new_page()
        page.goto((site / "run.html").as_uri() + RUN_QUERY)
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    finally:
        context.close()
    assert background == "rgb(13, 17, 23)"


def test_the_search_waits_for_the_typing_to_stop(browser: Any, site: Path) -> None:
    """Five keystrokes in one burst rebuild the table once (debounced by 150 ms), not five
    times. The keystrokes are input events dispatched by the page itself: typed through the
    DevTools protocol, a loaded machine stretched a gap between two keys past the debounce
    (two rebuilds, in a check run beside another suite)."""
    watched = Watched(browser)
    page = watched.page
    page.goto((site / "runs.html").as_uri())
    page.evaluate(
        """() => {
          window.rebuilt = 0;
          new MutationObserver(() => { window.rebuilt++; })
            .observe(document.querySelector("table.runs"), { childList: true });
        }"""
    )
    page.evaluate(
        """() => {
          const search = document.querySelector("#q");
          for (const text of ["c", "ch", "che", "chec", "check"]) {
            search.value = text;
            search.dispatchEvent(new Event("input", { bubbles: true }));
          }
        }"""
    )
    playwright_api.expect(page.locator("#shown")).not_to_have_text(re.compile("^560 "))
    page.wait_for_timeout(400)
    assert page.evaluate("() => window.rebuilt") == 1
    watched.close()


def test_a_run_the_site_lacks_is_said_so(browser: Any, site: Path) -> None:
    """An address naming a run the site does not hold (no shard, or no such repetition in one,
    or not slugs at all) says so, with no error."""
    watched = Watched(browser)
    page = watched.page
    for query in (
        "?run=campaign-2026-11-22/opencode-glm/final-response/9",
        "?run=campaign-2026-11-22/nobody/final-response/1",
        "?run=../../etc/1",
        "",
    ):
        page.goto((site / "run.html").as_uri() + query)
        playwright_api.expect(page.locator("#run-missing")).to_be_visible()
    watched.errors = [error for error in watched.errors if "ERR_FILE_NOT_FOUND" not in error]
    watched.close()


def test_hostile_ids_in_the_paged_table_stay_text(browser: Any, tmp_path: Path) -> None:
    """The script builds rows from the JSON index as text: a candidate id holding markup shows
    as those characters, no element or dialog comes of it."""
    from scorecard.contract import load_catalog
    from scorecard.report import build_site
    from tests.report.test_site import hostile_records

    folder = tmp_path / "site"
    write_site(build_site(hostile_records(tmp_path), load_catalog()), folder)
    watched = Watched(browser)
    page = watched.page
    dialogs: list[str] = []

    def dismissed(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismissed)
    page.goto((folder / "runs.html").as_uri())
    page.locator("th button.sort", has_text="candidate").click()  # rows rebuilt by the script
    cell = page.locator("table.runs tbody tr").first.locator("td").nth(1)
    assert '<script>alert("id")</script>' in cell.inner_text()
    assert page.locator("table.runs tbody script, table.runs tbody img").count() == 0
    assert dialogs == []
    watched.close()
