"""The report site (``scorecard report``): pages, links, pointers, escaping, determinism.

Expected values come from the sample data itself (``observations/``: its manifests and
observation lines, read here with ``json``) and from the gate library the site must agree with,
never from the site builder.
"""

from __future__ import annotations

import functools
import html.parser
import itertools
import json
import posixpath
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorecard.contract import InputError, load_catalog
from scorecard.core import ScoredRecord
from scorecard.engine import score_run
from scorecard.gate import GateRules, evaluate_gate, gate_side, run_facts
from scorecard.report import build_site, run_page_path, verdict_line, write_site
from scorecard.report._site_json import render_json, resolve_pointer
from scorecard.report._site_paths import anchor_id, link, slug
from tests.conftest import ROOT

SAMPLES = ROOT / "observations"
NEWEST = SAMPLES / "2026-11-22-nightly"
SCHEMA_ID = "https://paperclip.dev/schemas/runner-workflow-observation.v1.schema.json"
GLM_RUN = "run.html?run=campaign-2026-11-22/opencode-glm/final-response/2"
GLM_SHARD = "data/runs/campaign-2026-11-22/opencode-glm/final-response.js"


@functools.cache
def sample_records() -> tuple[ScoredRecord, ...]:
    """Every sample observation, scored (in this process, once)."""
    return tuple(
        item
        for item in score_run([str(SAMPLES)], catalog=load_catalog()).records()
        if isinstance(item, ScoredRecord)
    )


@functools.cache
def sample_site() -> dict[str, bytes]:
    """The site of the whole sample campaign (built once per test session)."""
    return build_site(sample_records(), load_catalog())


def text_of(files: dict[str, bytes], name: str) -> str:
    return files[name].decode("utf-8")


def shard_of(files: dict[str, bytes], name: str) -> dict[str, Any]:
    """A run shard's data: the file is ``scorecardRuns(KEY, DATA);`` and nothing else."""
    found = re.fullmatch(r'scorecardRuns\(("[a-z0-9/-]+"), (\{.*\})\);\n', text_of(files, name))
    assert found is not None, name
    data: dict[str, Any] = json.loads(found.group(2))
    assert json.loads(found.group(1)) == "/".join(data["slugs"])
    return data


def shard_run(files: dict[str, bytes], name: str, repetition: int) -> dict[str, Any]:
    """One run of a shard, its string references replaced by the strings (as the page shows)."""
    data = shard_of(files, name)
    strings = data["strings"]
    run = next(item for item in data["runs"] if item[0] == repetition)
    return {
        "outcome": strings[run[3]],
        "source": f"{strings[run[4][0]]}:{run[4][1]}",
        "failure": None
        if run[5] is None
        else [strings[run[5][0]], strings[run[5][1]], run[5][2], strings[run[5][3]]],
        "reasons": [
            (item[0], strings[reason[0]], [strings[pointer] for pointer in reason[1]])
            for item in run[7]
            for reason in item[2]
        ],
        "evidence": [
            [None if part is None else strings[part] for part in reason[2]]
            for item in run[7]
            for reason in item[2]
        ],
        "findings": [strings[finding[1]] for finding in run[8][3]],
        "assertions": [strings[finding[6]] for finding in run[8][3]],
        "fields": [[strings[part] for part in field] for field in run[9]],
    }


def run_index_of(files: dict[str, bytes]) -> dict[str, Any]:
    text = text_of(files, "data/runs.js")
    assert text.startswith("window.scorecardIndex = ")
    assert text.endswith(";\n")
    data: dict[str, Any] = json.loads(text.removeprefix("window.scorecardIndex = ")[:-2])
    return data


class _Parsed(html.parser.HTMLParser):
    """Ids, link targets and text of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.targets: list[str] = []
        self.marks: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        for name in ("href", "src", "action"):
            if found.get(name) is not None:
                self.targets.append(str(found[name]))
        if tag == "mark":
            self.marks.append(found)


def parsed(data: bytes) -> _Parsed:
    parser = _Parsed()
    parser.feed(data.decode("utf-8"))
    return parser


# ---------------------------------------------------------------------------------------------
# File names


def test_plain_ids_are_their_own_slugs_and_others_are_hashed_apart() -> None:
    """Lowercase hyphenated ids stay readable; ids differing only by case, punctuation or
    markup get different slugs made of safe characters only."""
    assert slug("opencode-glm") == "opencode-glm"
    assert slug("campaign-2026-11-22") == "campaign-2026-11-22"
    tricky = ["Foo", "foo.", "foo_", "FOO", "foo--", "<foo>", "con", "", "../x", "a" * 80]
    slugs = [slug(text) for text in tricky]
    assert len(set(slugs)) == len(tricky)
    assert "foo" not in slugs
    for value in slugs:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", value), value
        assert len(value) <= 60
        assert "--" not in value
    assert slug("Foo") == slug("Foo")  # a function of the id alone


@settings(max_examples=300, derandomize=True)
@given(st.lists(st.text(max_size=70), min_size=2, max_size=6, unique=True))
def test_slugs_of_different_ids_differ_and_are_safe(ids: list[str]) -> None:
    """Any distinct ids (any characters, case, length) get distinct, safe, short slugs, also
    when compared case-insensitively."""
    slugs = [slug(text) for text in ids]
    assert len({value.lower() for value in slugs}) == len(ids)
    for value in slugs:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", value)
        assert len(value) <= 60


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _pointers_of(document: Any, prefix: str = "") -> list[str]:
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            token = key.replace("~", "~0").replace("/", "~1")
            found += _pointers_of(value, f"{prefix}/{token}")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _pointers_of(value, f"{prefix}/{index}")
    return found


@settings(max_examples=200, derandomize=True)
@given(JSON, st.data())
def test_rendered_json_reads_back_as_the_document(document: Any, data: st.DataObject) -> None:
    """Whatever is marked, the text of the rendering is the document as JSON (strings made
    safe), and every pointer of it has its anchor."""
    pointers = data.draw(st.lists(st.sampled_from(_pointers_of(document)), max_size=5))
    out = render_json(document, pointers)
    plain = html.unescape(re.sub(r"<[^>]+>", "", out))
    unsafe = re.compile(
        "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff\ud800-\udfff]"
    )
    expected = json.loads(json.dumps(document))
    if not unsafe.search(json.dumps(document, ensure_ascii=False)):
        assert json.loads(plain) == expected
    for pointer in pointers:
        assert f'id="{anchor_id(pointer)}"' in out


def test_run_page_path_is_stable_and_relative() -> None:
    """The documented form: run.html?run=<bundle>/<candidate>/<case>/<run>, relative, safe."""
    assert run_page_path("campaign-2026-11-22", "opencode-glm", "final-response", 2) == GLM_RUN
    hostile = run_page_path("../../etc", "<b>", "a/b", 1)
    assert not hostile.startswith("/")
    assert ".." not in hostile
    assert re.fullmatch(r"run\.html\?run=[a-z0-9-]+/[a-z0-9-]+/[a-z0-9-]+/1", hostile)


def test_anchors_of_different_pointers_differ() -> None:
    pointers = ["", "root", "/root", "/a/b", "/a~1b", "/A/b", "/a-b"]
    assert len({anchor_id(pointer) for pointer in pointers}) == len(pointers)


def test_links_are_relative_to_the_page() -> None:
    assert link("index.html", "runs/b/c/x-r1.html") == "runs/b/c/x-r1.html"
    assert link("runs/b/c/x-r1.html", "index.html") == "../../../index.html"
    assert link("candidates/a.html", "cases/b.html#top") == "../cases/b.html#top"
    assert link("changes/a/b/c.html", "run.html?run=a/b/c/1#at-0") == (
        "../../../run.html?run=a/b/c/1#at-0"
    )


# ---------------------------------------------------------------------------------------------
# JSON with pointers


def test_render_json_marks_the_pointed_field_with_its_anchor() -> None:
    document = {"base": {"observedCalls": ["checkout_task", "finish_task"], "a/b": 1}, "n": None}
    out = render_json(document, ["/base/observedCalls/0", "/base/a~1b"])
    mark = (
        f'<mark class="hl" id="{anchor_id("/base/observedCalls/0")}" '
        'data-pointer="/base/observedCalls/0"'
    )
    assert mark in out
    marked = out.split(mark, 1)[1].split("</mark>", 1)[0]
    assert "checkout_task" in marked
    assert "finish_task" not in marked
    assert f'id="{anchor_id("/base/a~1b")}"' in out
    # Every bit of the document is still there, and nothing else is marked.
    plain = re.sub(r"<[^>]+>", "", out)
    assert json.loads(html.unescape(plain)) == document
    assert out.count("<mark") == 2


def test_a_pointer_to_a_missing_field_marks_the_nearest_field() -> None:
    document = {"metrics": {"attempts": 1}}
    assert resolve_pointer(document, "/metrics/costUsd") == (("metrics",), False)
    assert resolve_pointer(document, "/metrics/attempts") == (("metrics", "attempts"), True)
    out = render_json(document, ["/metrics/costUsd", "/nowhere"])
    assert '<mark class="hl near" data-pointer="/metrics/costUsd"' in out
    # Absent at the top: an anchor at the start, nothing wrapped.
    assert out.startswith(f'<span class="anchor" id="{anchor_id("/nowhere")}"></span>')


def test_render_json_escapes_keys_and_strings() -> None:
    document = {"<k>": '</pre><script>alert("x")</script>', "c": "bell\x07rtl\u202e"}
    out = render_json(document, ["/<k>"])
    assert "<script>" not in out
    assert "</pre>" not in out
    assert "&lt;/pre&gt;&lt;script&gt;" in out
    assert "&lt;k&gt;" in out
    assert "\x07" not in out
    assert "\u202e" not in out
    assert 'data-pointer="/&lt;k&gt;"' in out


# ---------------------------------------------------------------------------------------------
# The sample campaign's site


def manifest_candidates(folder: Path) -> list[str]:
    return [item["id"] for item in json.loads((folder / "bundle.json").read_text())["candidates"]]


def test_the_site_has_every_page() -> None:
    """Overview, all runs, the run page, a page per candidate, case and consecutive bundle
    pair, and a shard per candidate x case x night holding its runs (every run once)."""
    files = sample_site()
    for name in ("index.html", "runs.html", "run.html", ".scorecard-site", GLM_SHARD):
        assert name in files
    for candidate in manifest_candidates(NEWEST):
        assert f"candidates/{candidate}.html" in files
    for case in load_catalog():
        assert f"cases/{case}.html" in files
    bundles = sorted(
        json.loads((folder / "bundle.json").read_text())["id"] for folder in SAMPLES.iterdir()
    )
    for baseline, current in itertools.pairwise(bundles):
        assert f"pairs/{baseline}--{current}.html" in files
    lines = sum(
        len((folder / "observations.jsonl").read_text().splitlines())
        for folder in SAMPLES.iterdir()
    )
    shards = [name for name in files if name.startswith("data/runs/")]
    cells = {
        (folder.name, item["candidateId"], item["caseId"])
        for folder in SAMPLES.iterdir()
        for item in map(json.loads, (folder / "observations.jsonl").read_text().splitlines())
    }
    assert len(shards) == len(cells)  # one file per candidate x case x night, not per run
    assert sum(len(shard_of(files, name)["runs"]) for name in shards) == lines == 560
    assert not any(name.startswith("runs/") for name in files)


def test_every_link_resolves_to_a_file_and_anchor_of_the_site() -> None:
    """Crawl every href, src and form action of every page: each names a file of the site
    (and an element id of it when it has a fragment); nothing leaves the site."""
    files = sample_site()
    pages = {name: parsed(data) for name, data in files.items() if name.endswith(".html")}
    checked = anchored = 0
    for name, page in pages.items():
        for target in page.targets:
            assert not re.match(r"^[a-z][a-z0-9+.-]*:", target), (name, target)
            assert not target.startswith("/"), (name, target)
            address, _, fragment = target.partition("#")
            path = address.partition("?")[0]
            resolved = (
                posixpath.normpath(posixpath.join(posixpath.dirname(name), path)) if path else name
            )
            assert resolved in files, (name, target)
            if fragment:
                assert fragment in pages[resolved].ids, (name, target)
                anchored += 1
            checked += 1
    assert checked > 5_000
    assert anchored > 10  # the overview's own headings


def test_no_page_references_anything_outside_the_site() -> None:
    """No URL with a host in any page; the SVGs hold only XML namespace and metadata names."""
    names = re.compile(r"https?://[^\s\"'<>)]+")
    for name, data in sample_site().items():
        text = data.decode("utf-8", errors="replace")
        if name.endswith(".svg"):
            hosts = {url.split("/")[2] for url in names.findall(text)}
            assert hosts <= {"www.w3.org", "purl.org", "creativecommons.org"}, (name, hosts)
            assert "<script" not in text, name
            assert not re.findall(r'href="(?!data:|#)', text), name  # images inline only
        else:  # the schema's $id is an identifier shown as text, never fetched or linked
            assert set(names.findall(text)) <= {SCHEMA_ID}, name
            assert f'href="{SCHEMA_ID}' not in text, name
            for needle in ("@import", "url("):
                assert needle not in text, (name, needle)
            # The one <link> a page has is the site's stylesheet.
            links = re.findall(r"<link[^>]*>", text)
            assert all(re.fullmatch(r'<link rel="stylesheet" href="(\.\./)*style\.css">', item)
                       for item in links), (name, links)  # fmt: skip


def test_the_glm_run_shard_names_each_reason_pointer_and_its_field() -> None:
    """opencode-glm's final-response run 2 of 2026-11-22 failed hard_invariants on a
    forbidden call (sample line 42): its shard gives the reason's pointers and the fields they
    name, with their values."""
    files = sample_site()
    line = (NEWEST / "observations.jsonl").read_text().splitlines()[41]
    observation = json.loads(line)
    assert (observation["candidateId"], observation["caseId"]) == ("opencode-glm", "final-response")
    assert observation["base"]["observedCalls"][0] == "checkout_task"
    run = shard_run(files, GLM_SHARD, 2)
    assert run["outcome"] == "gate failed"
    assert run["source"].endswith("2026-11-22-nightly/observations.jsonl:42")
    assert (0, "forbidden call(s) invoked: checkout_task", ["/base/observedCalls/0", "/base/forbiddenCalls"]) in run["reasons"]  # fmt: skip
    fields = {pointer: (found, value) for pointer, found, value in run["fields"]}
    assert fields["/base/observedCalls/0"] == ("/base/observedCalls/0", '"checkout_task"')
    assert fields["/base/forbiddenCalls"] == (
        "/base/forbiddenCalls",
        json.dumps(observation["base"]["forbiddenCalls"], separators=(", ", ": ")),
    )
    assert "/lifecycle/checks/2" in fields
    # The audit finding and the field it points at.
    assert run["findings"] == ["required_prp_event_missing"]
    assert json.loads(fields["/observedPrpEventTypes"][1]) == observation["observedPrpEventTypes"]


def test_the_run_shard_says_each_reasons_contract() -> None:
    """The glm run's forbidden call: the reason carries expected, observed and the observation
    schema's $id beside its pointer (the runner output contract); each audit finding names its
    case assertion; the run page's script shows both."""
    files = sample_site()
    run = shard_run(files, GLM_SHARD, 2)
    reasons = [reason for _, reason, _ in run["reasons"]]
    expected, observed, assertion, schema = run["evidence"][
        reasons.index("forbidden call(s) invoked: checkout_task")
    ]
    assert expected is not None
    assert expected.startswith("no call of /base/forbiddenCalls (")
    assert (observed, assertion, schema) == ("checkout_task", None, SCHEMA_ID)
    assert run["assertions"] == ["/assertions/requiredPrpEventTypes"]
    assert shard_of(files, GLM_SHARD)["schema"] == SCHEMA_ID
    script = text_of(files, "run.html")
    for label in ('"case assertion"', "reason[2][position]", 'element("code", text(item[6]))'):
        assert label in script, label


def test_the_change_page_says_each_failing_reasons_contract() -> None:
    """The then-and-now page's hard_invariants row says where, expected and observed."""
    page = text_of(sample_site(), "changes/campaign-2026-11-22/opencode-glm/final-response.html")
    row = page.split("dimension hard_invariants", 1)[1].split("</tr>", 1)[0]
    assert (
        "forbidden call(s) invoked: checkout_task (at /base/observedCalls/0, expected no call"
        in row
    )
    assert "observed checkout_task)" in row
    assert "runner-workflow-observation.v1.schema.json" in page
    findings = page.split("audit findings not passed", 1)[1].split("</tr>", 1)[0]
    assert "required_prp_event_missing (failed) at /" in findings
    assert "(case assertion /assertions/requiredPrpEventTypes" in findings


def test_infrastructure_failures_show_code_and_message() -> None:
    files = sample_site()
    line = (NEWEST / "observations.jsonl").read_text().splitlines()[47]
    observation = json.loads(line)
    assert observation["classification"] == "infrastructure_failure"
    name = f"data/runs/campaign-2026-11-22/{observation['candidateId']}/{observation['caseId']}.js"
    failure = shard_run(files, name, 1)["failure"]
    assert failure is not None
    assert failure[0] == observation["failure"]["code"]
    assert failure[3] == observation["failure"]["message"]


def test_the_overview_shows_the_gate_verdict_on_the_newest_pair() -> None:
    """The overview's verdict is the gate library's on 2026-11-22 against 2026-11-15."""
    records = sample_records()
    facts = [run_facts(record.record_json()) for record in records]
    current = gate_side([f for f in facts if f.bundle == "campaign-2026-11-22"])
    baseline = gate_side([f for f in facts if f.bundle == "campaign-2026-11-15"])
    result = evaluate_gate(current, baseline, GateRules(), seed=0)
    line = verdict_line(result)
    assert line.startswith("gate: FAIL - opencode-glm")
    overview = text_of(sample_site(), "index.html")
    assert f'<div class="verdict fail" id="verdict">{html.escape(line)}</div>' in overview
    # The numbers are the gate's: opencode-glm's mean overall in the newest bundle.
    glm = next(item for item in result.candidates if item.candidate == "opencode-glm").current
    assert glm is not None
    mean = glm.mean_overall
    numbers = [value for value in (mean.value, mean.low, mean.high) if value is not None]
    assert len(numbers) == 3
    shown = f"{numbers[0]:.3f} [{numbers[1]:.3f}, {numbers[2]:.3f}]"
    candidates = overview.split('<table class="candidates">', 1)[1].split("</table>", 1)[0]
    glm_row = next(row for row in candidates.split("<tr>") if ">opencode-glm</a>" in row)
    assert shown in glm_row
    trends = overview.split('<table class="trends">', 1)[1].split("</table>", 1)[0]
    assert trends.count("<tr>") == 1 + len(manifest_candidates(NEWEST))
    assert shown in next(row for row in trends.split("<tr>") if ">opencode-glm</a>" in row)
    pair = text_of(sample_site(), "pairs/campaign-2026-11-15--campaign-2026-11-22.html")
    assert html.escape(line) in pair
    # Plots are files of the site, drawn as SVG.
    for name in ("heatmap", "trends", "cost"):
        assert sample_site()[f"plots/{name}.svg"].startswith(b"<?xml")
        assert f'src="plots/{name}.svg"' in overview


def test_runs_tables_read_one_index_of_every_run_and_hold_one_page_of_rows() -> None:
    """The runs' index (data/runs.js) holds every run (560, counted from the sample lines);
    the runs page's table holds only the first 100 rows, each with a data-i into it; the filter
    bar and pager are hidden until the script shows them, and a note says what it pages."""
    files = sample_site()
    page = text_of(files, "runs.html")
    rows = re.findall(r'<tr data-i="(\d+)">', page)
    assert [int(i) for i in rows] == list(range(100))
    index = run_index_of(files)
    assert len(index["runs"]) == 560
    assert '<script src="data/runs.js"></script>' in page
    assert 'id="filters" data-js hidden data-root="" data-scope=""' in page
    assert 'id="pager" data-js hidden' in page
    assert "The first 100 of 560 runs" in page
    assert "forbidden call(s) invoked: checkout_task" in index["strings"]
    glm = [
        run
        for run in index["runs"]
        if (
            index["bundles"][run[0]][0],
            index["candidates"][run[1]][0],
            index["cases"][run[2]][0],
            run[3],
        )
        == ("campaign-2026-11-22", "opencode-glm", "final-response", 2)
    ]
    assert len(glm) == 1
    assert index["candidates"][glm[0][1]] == ["opencode-glm", "opencode-glm", "opencode"]
    assert index["strings"].index("forbidden call(s) invoked: checkout_task") in glm[0][8]
    assert next(index["dimensions"][d] for d in glm[0][7]) == "hard_invariants"
    candidate = text_of(files, "candidates/opencode-glm.html")
    assert 'data-root="../" data-scope="candidate:opencode-glm"' in candidate
    assert '<script src="../data/runs.js"></script>' in candidate


def test_file_names_are_safe() -> None:
    for name in sample_site():
        assert re.fullmatch(r"(\.scorecard-site|[a-z0-9-]+(/[a-z0-9-]+)*\.(html|svg|js|css))", name)


# ---------------------------------------------------------------------------------------------
# Hostile ids, determinism, writing


HOSTILE = '<script>alert("id")</script>\x07\u202e&amp;"\''


def hostile_records(tmp_path: Path) -> list[ScoredRecord]:
    """Three sample runs of one bundle with a hostile candidate id, bundle id and failure
    message."""
    lines = (NEWEST / "observations.jsonl").read_text().splitlines()
    chosen = []
    for number in (41, 47, 0):  # a failing run, an infrastructure failure, a passing run
        document = json.loads(lines[number])
        document["candidateId"] = HOSTILE
        if document.get("failure"):
            document["failure"]["message"] = "<img src=x onerror=alert(1)> </pre>\x1b[31m"
        chosen.append(json.dumps(document))
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    run = score_run([str(path)], catalog=load_catalog(), bundle_id=f"bundle {HOSTILE}")
    records = [item for item in run.records() if isinstance(item, ScoredRecord)]
    assert len(records) == 3
    return records


def test_hostile_ids_and_messages_stay_text(tmp_path: Path) -> None:
    files = build_site(hostile_records(tmp_path), load_catalog())
    escaped = html.escape('<script>alert("id")</script>')
    seen = 0
    for name, data in files.items():
        assert re.fullmatch(r"(\.scorecard-site|[a-z0-9-]+(/[a-z0-9-]+)*\.(html|svg|js|css))", name)
        if name.endswith(".js"):  # data: no markup, no control character, in any string
            assert not re.search("[<>&\x07\x1b\u202e]", text_of(files, name)), name
        if not name.endswith(".html"):
            continue
        text = data.decode("utf-8")
        assert "<script>alert" not in text, name
        assert "<img src=x" not in text, name
        for control in ("\x07", "\x1b", "\u202e"):
            assert control not in text, (name, control)
        assert text.count("<script") == text.count("</script>"), name
        seen += escaped in text
    assert seen >= 3  # overview, all runs, the candidate page
    shard = next(
        name for name in files if name.startswith("data/runs/") and b"onerror" in files[name]
    )
    messages = [item[5][3] for item in shard_of(files, shard)["runs"] if item[5]]
    assert "<img src=x onerror=alert(1)> </pre>\ufffd[31m" in [
        shard_of(files, shard)["strings"][m] for m in messages
    ]


def test_a_single_bundle_has_a_verdict_without_baseline(tmp_path: Path) -> None:
    overview = text_of(build_site(hostile_records(tmp_path), load_catalog()), "index.html")
    assert "without a baseline" in overview
    assert 'class="verdict ' in overview


def test_the_same_records_give_the_same_bytes(tmp_path: Path) -> None:
    records = hostile_records(tmp_path)
    assert build_site(records, load_catalog()) == build_site(list(records), load_catalog())


def test_a_repeated_run_is_an_error(tmp_path: Path) -> None:
    records = hostile_records(tmp_path)
    with pytest.raises(InputError) as raised:
        build_site([*records, records[0]], load_catalog())
    assert raised.value.rule == "duplicate_record"
    with pytest.raises(InputError):
        build_site([], load_catalog())


def test_write_site_replaces_a_site_but_no_other_folder(tmp_path: Path) -> None:
    from scorecard.report._site import _MARKER_TEXT

    marker = _MARKER_TEXT + b"a/b.html\nindex.html\n"  # the site's own files, listed
    files = {".scorecard-site": marker, "index.html": b"<p>one</p>", "a/b.html": b"b"}
    out = tmp_path / "site"
    write_site(files, out)
    assert (out / "a" / "b.html").read_bytes() == b"b"
    write_site({**files, "index.html": b"<p>two</p>"}, out)
    assert (out / "index.html").read_bytes() == b"<p>two</p>"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["site"]  # nothing left beside
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(InputError):
        write_site(files, other)
    assert (other / "keep.txt").read_text() == "mine"
    with pytest.raises(InputError):
        write_site(files, other / "keep.txt")


# ---------------------------------------------------------------------------------------------
# What changed in a case


def sample_lines(candidate: str, case: str) -> dict[str, list[dict[str, Any]]]:
    """The sample observations of ``candidate`` on ``case``, by bundle id (read with json)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for folder in sorted(SAMPLES.iterdir()):
        bundle = json.loads((folder / "bundle.json").read_text())["id"]
        for line in (folder / "observations.jsonl").read_text().splitlines():
            document = json.loads(line)
            if document["candidateId"] == candidate and document["caseId"] == case:
                found.setdefault(bundle, []).append(document)
    return found


def test_the_change_page_marks_the_checks_that_passed_then_and_fail_now() -> None:
    """opencode-glm on final-response, 2026-11-22 beside the nights before: the checks marked
    are those every earlier run passed and a run of 2026-11-22 failed (from the sample lines)."""
    nights = sample_lines("opencode-glm", "final-response")
    newest = "campaign-2026-11-22"
    assert sorted(nights)[-1] == newest
    checks: dict[str, list[bool]] = {}
    failing_now: set[str] = set()
    for bundle, documents in nights.items():
        for document in documents:
            for section in ("lifecycle", "continuation", "presentation"):
                for check in document.get(section, {}).get("checks", []):
                    name = f"{section}/{check['id']}"
                    if bundle == newest:
                        if check["passed"] is False:
                            failing_now.add(name)
                    else:
                        checks.setdefault(name, []).append(check["passed"])
    expected = sorted(name for name in failing_now if all(checks.get(name, [False])))
    assert expected  # the sample has such a check (a forbidden call on run 2)
    page = text_of(sample_site(), "changes/campaign-2026-11-22/opencode-glm/final-response.html")
    marked = re.findall(r'<tr class="changed"><th scope="row">check ([^<]+)<br>', page)
    assert marked == expected
    expected_calls = {tuple(document["base"]["expectedCalls"]) for document in nights[newest]}
    assert len(expected_calls) == 1  # the night's runs agree: the value is said once
    said = ", ".join(next(iter(expected_calls)))
    assert f"all {len(nights[newest])}: {said}</span>" in page
    assert f'href="../../../{GLM_RUN}"' in page  # the night's runs link to the run page
    for bundle in nights:  # every night is a column, this one last
        assert f'<th scope="col">{bundle}' in page
    assert page.index(f'<th scope="col">{newest} (this night)') > page.index(
        '<th scope="col">campaign-2026-11-15'
    )


def test_every_gate_failure_and_run_page_links_to_its_change_page() -> None:
    files = sample_site()
    overview = text_of(files, "index.html")
    failures = overview.split('<table class="failures">', 1)[1].split("</table>", 1)[0]
    links = re.findall(r'<a href="(changes/[^"]+)">then and now</a>', failures)
    assert links
    for target in links:
        assert target in files
    change = "changes/campaign-2026-11-22/opencode-glm/final-response.html"
    assert shard_of(files, GLM_SHARD)["change"] == change  # the run page links it
    first = shard_of(files, "data/runs/campaign-2026-11-01/opencode-glm/final-response.js")
    assert first["change"] is None  # the first night has no night before


def test_the_script_is_only_on_pages_that_use_it() -> None:
    """The overview (its search form) and every page with a runs table carry the script; the
    run page carries its own; a change page none, and its policy allows no script."""
    files = sample_site()
    for name in ("index.html", "runs.html", "candidates/opencode-glm.html", "run.html"):
        assert text_of(files, name).count("<script>") == 1, name
    change = text_of(files, "changes/campaign-2026-11-22/opencode-glm/final-response.html")
    assert "<script" not in change
    assert "script-src 'none'" in change
    assert "'self'" not in text_of(files, "index.html").split("script-src", 1)[1].split(";")[0]


def test_a_site_detailing_one_night_lists_only_its_runs() -> None:
    """detail=[the newest night]: its 140 runs (counted from its sample lines) in the index and
    the shards, change pages of that night only; the numbers and pair pages keep every night."""
    newest = "campaign-2026-11-22"
    files = build_site(sample_records(), load_catalog(), detail=[newest])
    lines = len((NEWEST / "observations.jsonl").read_text().splitlines())
    index = run_index_of(files)
    assert len(index["runs"]) == lines == 140
    assert {index["bundles"][run[0]][0] for run in index["runs"]} == {newest}
    shards = [name for name in files if name.startswith("data/runs/")]
    assert {name.split("/")[2] for name in shards} == {newest}
    assert sum(len(shard_of(files, name)["runs"]) for name in shards) == 140
    assert {name.split("/")[1] for name in files if name.startswith("changes/")} == {newest}
    assert len([name for name in files if name.startswith("pairs/")]) == 3
    assert f"The runs of {newest}; the other bundles" in text_of(files, "runs.html")
    assert files["index.html"] == sample_site()["index.html"]  # the same overview
    with pytest.raises(InputError):
        build_site(sample_records(), load_catalog(), detail=["no-such-night"])


def test_adding_a_night_writes_only_the_files_it_changed(tmp_path: Path) -> None:
    """The site of three nights, then of four over it: the files whose bytes are the same
    (the earlier nights' shards and change pages, their pair pages) are kept (the same file,
    linked), only the others written; the folder holds the new site exactly."""
    records = sample_records()
    newest = "campaign-2026-11-22"
    before = build_site([r for r in records if r.card["bundleId"] != newest], load_catalog())
    after = sample_site()
    out = tmp_path / "site"
    assert write_site(before, out) == len(before)  # a new folder: every file written
    kept_shard = out / "data/runs/campaign-2026-11-15/opencode-glm/final-response.js"
    inode = kept_shard.stat().st_ino
    changed = sorted(name for name, data in after.items() if before.get(name) != data)
    assert 0 < len(changed) < len(after) / 2
    assert not any(name.startswith("data/runs/campaign-2026-11-15/") for name in changed)
    assert write_site(after, out) == len(changed)
    assert kept_shard.stat().st_ino == inode  # not written again
    on_disk = {
        path.relative_to(out).as_posix(): path.read_bytes()
        for path in out.rglob("*")
        if path.is_file()
    }
    assert on_disk == after


def test_a_pointed_field_the_observation_lacks_shows_the_nearest_one() -> None:
    """The run page's field for a pointer: the field itself, or the deepest one on its path
    that exists (with its pointer), as compact JSON, shortened past FIELD_LIMIT."""
    from scorecard.report._site_run import FIELD_LIMIT, _field

    document = {"a": {"b": [1, "x"], "c/d": True}, "long": "y" * (FIELD_LIMIT + 50)}
    assert _field(document, "/a/b/1") == ("/a/b/1", '"x"')
    assert _field(document, "/a/c~1d") == ("/a/c~1d", "true")
    assert _field(document, "/a/b/7") == ("/a/b", '[1, "x"]')
    assert _field(document, "/missing/deeper") == ("", json.dumps(document, sort_keys=True, separators=(", ", ": "))[:FIELD_LIMIT] + f"\n... ({len(json.dumps(document, separators=(', ', ': '))) - FIELD_LIMIT} more characters not shown)")  # fmt: skip


def test_a_change_page_cell_shows_a_bounded_number_of_values() -> None:
    """A value that differs from run to run (a score, a reason) would make a night's cell grow
    with its runs: past eight values (four in a night before the page's), the failing ones come
    first, then those of the most runs, and the rest are counted."""
    from scorecard.report._site_change import Night, _row

    # Tonight: runs 1-20, each its own value; runs 4, 9 and 17 fail; runs 11-13 share a value
    # (11 and 13 one group of runs with equal values, 12 another with the same value of this
    # row: its runs named in their order).
    def value(at: int) -> tuple[str, bool | None]:
        if at in (11, 12, 13):
            return "shared", True
        return f"v{at}", at not in (4, 9, 17)

    def runs(count: int) -> Night:
        groups: list[tuple[dict[str, Any], list[int]]] = []
        alike: tuple[dict[str, Any], list[int]] = ({"aspect": value(11)}, [])
        for at in range(1, count + 1):
            if at in (11, 13):
                if not alike[1]:
                    groups.append(alike)
                alike[1].append(at)
            else:
                groups.append(({"aspect": value(at)}, [at]))
        return Night(groups, count)

    before, tonight = runs(3), runs(20)
    row = _row("aspect", [before, tonight])
    cells = re.findall(r"<td>(.*?)</td>", row)
    assert len(cells) == 2
    assert "note" not in cells[0]  # three values: all shown
    assert re.findall(r"<span[^>]*>([^<]*)</span>", cells[0]) == ["r1: v1", "r2: v2", "r3: v3"]
    shown = re.findall(r"<span[^>]*>([^<]*)</span>", cells[1])
    # The three failing values, the value of three runs, then the first four of one run each,
    # in the order their runs came.
    assert shown == [
        "r1: v1",
        "r2: v2",
        "r3: v3",
        "r4: v4",
        "r5: v5",
        "r9: v9",
        "r11, r12, r13: shared",
        "r17: v17",
    ]
    assert "and 10 other values on 10 runs" in cells[1]  # 18 values, 8 of them on 10 runs shown
    assert 'class="changed"' in row  # every earlier run passed, a run tonight fails

    # A night before the page's shows four: here runs 1-20 before and 1-3 tonight.
    row = _row("aspect", [tonight, before])
    cells = re.findall(r"<td>(.*?)</td>", row)
    shown = re.findall(r"<span[^>]*>([^<]*)</span>", cells[0])
    assert shown == ["r4: v4", "r9: v9", "r11, r12, r13: shared", "r17: v17"]
    assert "and 14 other values on 14 runs" in cells[0]
    assert re.findall(r"<span[^>]*>([^<]*)</span>", cells[1]) == ["r1: v1", "r2: v2", "r3: v3"]
    assert 'class="changed"' not in row  # runs failed before
