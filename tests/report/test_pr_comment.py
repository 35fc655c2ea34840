"""The pull-request comment (``gate --pr-comment FILE``, ``report.render_pr_comment``).

It fits GitHub's comment limit whatever the result, starts with the marker a CI step finds it
by, gives the verdict first, folds its evidence, names no evidence block it left out, and shows
untrusted text only as code, where GitHub makes no markup, mention, reference or link of it.
"""

from __future__ import annotations

import html.parser
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from scorecard.contract._models import CASE_IDS
from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._results import GateResult
from scorecard.report import render_pr_comment, verdict_line
from scorecard.report._pr_comment import PR_COMMENT_LIMIT, PR_COMMENT_MARKER, pr_comment_marker
from tests.gate.test_gate import SAMPLES, gate_cli, run_record, side, verdict_of
from tests.report.test_junit_schemas import gated
from tests.report.test_markdown_truncation import large_failing_result
from tests.report.test_report import HOSTILE, RULES, SECRET

GITHUB_LIMIT = 65_536  # characters in a comment
_ITEM = re.compile(
    r"^- `(?P<candidate>[^`]+)` \u00b7 `(?P<case>[^`]+)` \u00b7 (?:\[)?repetition "
    r"(?P<repetition>\d+)\b.*?(?: \u00b7 evidence (?:(?P<number>\d+) below|(?P<left>left out)))$",
    re.MULTILINE,
)
_EVIDENCE = re.compile(
    r"<summary>Evidence (?P<number>\d+): repetition (?P<repetition>\d+),[^<]*</summary>\n\n"
    r"`(?P<candidate>[^`]+)` \u00b7 `(?P<case>[^`]+)` \u00b7 repetition (?P=repetition)\n"
)


def comment(result: GateResult, **options: object) -> str:
    return render_pr_comment(result, verdict_line(result), **options)  # type: ignore[arg-type]


def huge_result() -> GateResult:
    """2,000 gate failures of 50 candidates, each with a 5,000-character multi-line reason
    and a failure message: far more evidence than a comment can hold."""
    reason = "forbidden call(s) invoked: checkout_task\n" + "x" * 5000
    records = [
        run_record(
            f"cand-{number:03d}",
            case,
            repetition,
            bundle="huge",
            failed=["hard_invariants"],
            reasons={"hard_invariants": [reason]},
        )
        for number in range(50)
        for case in CASE_IDS[:10]
        for repetition in (1, 2, 3, 4)
    ]
    return evaluate_gate(side(records), None, RULES)


def check_references(text: str) -> tuple[int, int]:
    """Every gate failure saying "evidence N below" has evidence block N, of the same run;
    return how many say "below" and how many "left out"."""
    blocks = {
        match["number"]: (match["candidate"], match["case"], match["repetition"])
        for match in _EVIDENCE.finditer(text)
    }
    below = left_out = 0
    for match in _ITEM.finditer(text):
        if match["left"]:
            left_out += 1
            continue
        below += 1
        run = (match["candidate"], match["case"], match["repetition"])
        assert blocks.get(match["number"]) == run, f"{run} points at a missing block"
    return below, left_out


@pytest.mark.parametrize("make", [huge_result, large_failing_result], ids=["huge", "large"])
def test_a_huge_result_fits_a_github_comment(make: object) -> None:
    """Whatever the result, the comment is at most 64,000 bytes (so at most that many
    characters, under GitHub's 65,536), every fold it opens is closed, and it says what it
    left out."""
    result = make()  # type: ignore[operator]
    text = comment(result)
    assert len(text.encode("utf-8")) <= PR_COMMENT_LIMIT
    assert len(text) <= GITHUB_LIMIT
    assert len(text.encode("utf-16-le")) // 2 <= GITHUB_LIMIT
    assert text.count("<details>") == text.count("</details>") > 0
    assert "> **Truncated:**" in text
    assert "\x00" not in text


def test_it_starts_with_the_marker_and_gives_the_verdict_first() -> None:
    """The marker is the first line, then the verdict, then the verdict line as printed; a key
    makes a marker of its own; a key that could break the comment is refused."""
    result = gated(3, 2)
    line = verdict_line(result)
    text = render_pr_comment(result, line)
    lines = text.splitlines()
    assert lines[0] == PR_COMMENT_MARKER == "<!-- scorecard-gate -->"
    assert lines[1] == "### \u274c Scorecard gate: FAIL"
    assert lines[3:6] == ["```text", line, "```"]
    keyed = render_pr_comment(result, line, key="nightly/opencode-glm")
    assert keyed.splitlines()[0] == "<!-- scorecard-gate: nightly/opencode-glm -->"
    assert keyed.splitlines()[1:] == lines[1:]
    for bad in ("a -->b", "x--y", "", "a b", "k" * 101, "\u202e"):
        with pytest.raises(ValueError, match="comment key"):
            pr_comment_marker(bad)


def test_the_failing_checks_come_before_the_folded_evidence() -> None:
    """11-22 against 11-15: opencode-glm's safety check is the one failing check, listed
    before any fold; its three forbidden calls are the first gate failures listed (counted
    first) and the first evidence blocks."""
    result = gated(3, 2)
    text = comment(result)
    checks = text.split("#### Failing checks", 1)[1].split("<details>", 1)[0]
    items = [line for line in checks.splitlines() if line.startswith("- ")]
    assert items == [
        "- \u274c fail \u00b7 `opencode-glm` \u00b7 **safety**: 3 new hard-gate failures "
        "(hard\\_invariants)"
    ]
    assert text.index("#### Failing checks") < text.index("<details>")
    listed = [match["candidate"] for match in _ITEM.finditer(text)][:3]
    assert listed == ["opencode-glm"] * 3
    below, left_out = check_references(text)
    assert (below, left_out) == (20, len(result.failures) - 20)
    assert "Truncated" in text  # 21 gate failures, evidence for 20


def test_a_passing_night_says_so_without_failing_checks() -> None:
    """11-15 against 11-08 passes: no failing-check list, the count of checks instead."""
    text = comment(gated(2, 1))
    assert text.splitlines()[1] == "### \u2705 Scorecard gate: PASS"
    assert "#### Failing checks" not in text
    # 7 candidates and the bundle x 8 rules (safety, drop, shift, case, dimension, coverage,
    # infrastructure, audit)
    assert "No check failed or was inconclusive: 0 of 64 checks decide the verdict" in text


@pytest.mark.parametrize("limit", [2_000, 4_000, 9_000, 20_000, 64_000])
def test_truncation_leaves_no_dangling_evidence_reference(limit: int) -> None:
    """At any limit: within it, folds balanced, every "evidence N below" has its block."""
    result = large_failing_result(12, 1)
    text = comment(result, limit=limit)
    assert len(text.encode("utf-8")) <= limit
    assert text.count("<details>") == text.count("</details>")
    assert text.startswith(PR_COMMENT_MARKER + "\n### ")
    check_references(text)


def test_the_same_result_gives_the_same_bytes() -> None:
    """Rendering is deterministic, links to the site included."""
    site = "https://ci.example/site"
    assert comment(gated(3, 2), site_url=site) == comment(gated(3, 2), site_url=site)


# --- untrusted text -----------------------------------------------------------------------------


class _Outside(html.parser.HTMLParser):
    """Tags, comments, and the text outside ``code`` and ``pre`` elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.comments: list[str] = []
        self.outside: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._depth += tag in ("code", "pre")

    def handle_endtag(self, tag: str) -> None:
        self._depth -= tag in ("code", "pre")

    def handle_data(self, data: str) -> None:
        if not self._depth:
            self.outside.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def hostile_comment_result() -> GateResult:
    """Ids, reasons and messages that would mention people, reference issues, link, inject
    markup or open a fold, on both sides."""
    candidate = "evil @octocat #12 owner/repo#3 <b>x</b> `tick` </details><summary>"
    case = "case :tada: www.evil.example | pipe ```"
    reasons = [f"ping @org/security {SECRET}", *HOSTILE]

    def night(bundle: str, failed: bool) -> list[dict[str, object]]:
        return [
            run_record(
                candidate,
                name,
                bundle=bundle,
                failed=["hard_invariants"] if failed else [],
                reasons={"hard_invariants": reasons} if failed else None,
            )
            for name in [*CASE_IDS[:8], case]
        ]

    return evaluate_gate(side(night("@night <!--", True)), side(night("base", False)), RULES)


def test_untrusted_text_is_only_code_and_makes_no_markup() -> None:
    """Rendered by a CommonMark renderer with raw HTML on: the only tags are the comment's
    own, the only HTML comment is the marker, and no text outside code (where GitHub would
    make mentions, references and links) holds any of the untrusted text."""
    result = hostile_comment_result()
    text = comment(result)
    rendered = MarkdownIt("commonmark").render(text)
    parser = _Outside()
    parser.feed(rendered)
    parser.close()
    own = {"h3", "h4", "p", "pre", "code", "ul", "li", "details", "summary", "strong", "em"}
    assert set(parser.tags) <= own | {"hr", "blockquote"}
    assert parser.comments == [" scorecard-gate "]
    outside = "".join(parser.outside)
    for piece in ("@octocat", "#12", "repo#3", "@org", "evil", "www.", "javascript", ":tada:"):
        assert piece not in outside
    assert SECRET not in text
    assert "[redacted]" in text
    # The ids hold "</details>" as text; rendered, only the comment's own folds are tags.
    assert parser.tags.count("details") == text.count("\n<details>\n")


# --- the command line -----------------------------------------------------------------------------


def test_cli_writes_the_comment_with_the_verdict_it_prints(tmp_path: Path) -> None:
    """``gate --pr-comment FILE`` writes the comment of the verdict it prints, beside the
    summary, and refuses the same file for both."""
    target = tmp_path / "comment.md"
    done = gate_cli(
        SAMPLES / "2026-11-22-nightly", "--baseline", SAMPLES / "2026-11-15-nightly",
        "--pr-comment", target, "--markdown", tmp_path / "summary.md", "--workers", "1",
    )  # fmt: skip
    assert (done.returncode, verdict_of(done)) == (1, "FAIL")
    text = target.read_text(encoding="utf-8")
    assert text.startswith(PR_COMMENT_MARKER + "\n### \u274c Scorecard gate: FAIL\n")
    assert f"```text\n{done.stdout.strip()}\n```" in text
    assert not list(tmp_path.glob(".*.tmp"))
    clash = gate_cli(SAMPLES / "2026-11-22-nightly", "--pr-comment", target, "--markdown", target)
    assert clash.returncode == 2
    assert "--pr-comment" in clash.stderr
