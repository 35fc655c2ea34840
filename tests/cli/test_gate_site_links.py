"""The gate's markdown and JUnit link each gate-failed run to its page of the report site."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest

ROOT = Path(__file__).resolve().parents[2]
NIGHTS = [ROOT / "observations" / f"2026-11-{day}-nightly" for day in ("01", "08", "15", "22")]


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scorecard", *map(str, args), "--workers", "1"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, ElementTree.Element]:
    """The sample site, and the gate of 2026-11-22 against the three nights before, linked."""
    scratch = tmp_path_factory.mktemp("links")
    site = scratch / "site"
    built = run("report", *NIGHTS, "--out", site)
    assert built.returncode == 0, built.stderr
    summary, junit = scratch / "gate.md", scratch / "gate.xml"
    baselines = [argument for night in NIGHTS[:3] for argument in ("--baseline", night)]
    gated = run(
        "gate", NIGHTS[3], *baselines, "--site-url", site.as_uri(),
        "--markdown", summary, "--junit", junit,
    )  # fmt: skip
    assert gated.returncode == 1, gated.stdout + gated.stderr  # opencode-glm fails
    return site, summary.read_text(encoding="utf-8"), ElementTree.parse(junit).getroot()


def _page(url: str) -> Path:
    parsed = urlparse(url)
    assert parsed.scheme == "file", url
    return Path(url2pathname(parsed.path))


def _shard(url: str, site: Path, repetition: int) -> tuple[str, str]:
    """(candidate, case) of the run ``url`` names: the run page of ``site``, asked for a run
    its shard holds (the page's script reads ``data/runs/<bundle>/<candidate>/<case>.js``)."""
    page = _page(url)
    assert page == site / "run.html"
    assert page.is_file()
    query = urlparse(url).query
    assert query.startswith("run=")
    bundle, candidate, case, number = query.removeprefix("run=").split("/")
    assert int(number) == repetition
    shard = site / "data" / "runs" / bundle / candidate / f"{case}.js"
    text = shard.read_text(encoding="utf-8")
    data = json.loads(text.split(", ", 1)[1].removesuffix(");\n"))
    assert repetition in [run[0] for run in data["runs"]]
    return data["candidate"], data["case"]


def test_every_markdown_run_link_opens_that_runs_page(
    linked: tuple[Path, str, ElementTree.Element],
) -> None:
    site, summary, _ = linked
    failures = summary.split("### Gate failures in the current bundle", 1)[1].split("###", 1)[0]
    rows = [line for line in failures.splitlines() if line.startswith("| opencode-glm")]
    assert rows, failures
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        candidate, case, repetition = cells[0], cells[1], cells[2]
        match = re.fullmatch(r"\[(\d+)\]\((\S+)\) \[then and now\]\((\S+)\)", repetition)
        assert match, repetition
        change = _page(match.group(3))  # the case beside the nights before: a page of the site
        assert change.is_file(), change
        assert change.relative_to(site).parts[:3] == ("changes", "campaign-2026-11-22", candidate)
        assert change.name == f"{case}.html"
        assert _shard(match.group(2), site, int(match.group(1))) == (candidate, case)


def test_a_failed_junit_check_lists_the_pages_of_its_gate_failed_runs(
    linked: tuple[Path, str, ElementTree.Element],
) -> None:
    site, _, root = linked
    failed = [case for case in root.iter("testcase") if case.find("failure") is not None]
    glm = [case for case in failed if case.get("classname") == "opencode-glm"]
    assert glm, [(case.get("classname"), case.get("name")) for case in failed]
    pages = [
        line.removeprefix("page: ")
        for case in glm
        for line in (case.findtext("system-out") or "").splitlines()
        if line.startswith("page: ")
    ]
    assert pages
    changes = [
        line.removeprefix("then and now: ")
        for case in glm
        for line in (case.findtext("system-out") or "").splitlines()
        if line.startswith("then and now: ")
    ]
    assert changes
    for url in changes:
        assert _page(url).is_file()
        assert _page(url).is_relative_to(site / "changes" / "campaign-2026-11-22" / "opencode-glm")
    for url in pages:
        assert _shard(url, site, int(url.rsplit("/", 1)[1]))[0] == "opencode-glm"


def test_without_a_site_no_links_and_a_bad_site_url_is_refused(tmp_path: Path) -> None:
    summary = tmp_path / "gate.md"
    plain = run("gate", NIGHTS[3], "--baseline", NIGHTS[2], "--markdown", summary)
    assert plain.returncode == 1
    assert "](" not in summary.read_text(encoding="utf-8").split("### Gate failures")[1]
    for bad in ["has space", "a)b", 'quote"d', "bell\x07", "https://x/?access_token=abcdefgh12345"]:
        refused = run("gate", NIGHTS[3], "--site-url", bad)
        assert refused.returncode == 2, bad
        assert "--site-url" in refused.stderr
        assert "abcdefgh12345" not in refused.stderr
