"""The report site's rejected records (``build_site(..., rejected=...)``): the overview warns,
``rejected.html`` lists each one located, escaped, redacted and bounded, and nothing else of
the site changes.

The errors are made here by hand, so every expected cell is written out, not computed by the
site builder.
"""

from __future__ import annotations

import html.parser
from pathlib import Path

from scorecard.contract import InputError, ObservationError, load_catalog
from scorecard.report import build_site
from scorecard.report._site_rejected import REJECTED_MESSAGE_LIMIT, REJECTED_SHOWN
from tests.report.test_site import sample_records, sample_site, text_of

KEY = "sk-" + "a1b2c3d4" * 4


class Cells(html.parser.HTMLParser):
    """The text of each ``<td>`` of the page's tables, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def rows_of(page: str) -> list[list[str]]:
    parser = Cells()
    parser.feed(page)
    return [row for row in parser.rows if row]  # the header row has no <td>


def two_errors() -> list[InputError]:
    return [
        ObservationError(
            "expected an integer, got a string",
            rule="wrong_type",
            pointer="/usage/totalTokens",
            source="night/observations.jsonl",
            line=7,
        ),
        InputError(
            "malformed JSON: Expecting value", rule="malformed_json", source="a.json", index=3
        ),
    ]


def test_no_rejected_record_changes_nothing() -> None:
    """Without rejected records the site is the one built before the parameter existed: no
    ``rejected.html``, no warning."""
    files = build_site(sample_records(), load_catalog(), rejected=[])
    assert files == sample_site()
    assert "rejected.html" not in files
    assert "rejected" not in text_of(files, "index.html")


def test_rejected_records_are_listed_each_located() -> None:
    """One row per rejected record, in the order given: file, line (or array item), pointer,
    rule and message."""
    files = build_site(sample_records(), load_catalog(), rejected=two_errors())
    assert rows_of(text_of(files, "rejected.html")) == [
        [
            "night/observations.jsonl",
            "7",
            "/usage/totalTokens",
            "wrong_type",
            "expected an integer, got a string",
        ],
        ["a.json", "item 3", "-", "malformed_json", "malformed JSON: Expecting value"],
    ]


def test_the_overview_warns_and_links_the_list() -> None:
    """The overview says how many records were rejected, before the verdict, and links the
    page that lists them."""
    overview = text_of(
        build_site(sample_records(), load_catalog(), rejected=two_errors()), "index.html"
    )
    warning = overview.index("2 input records were rejected by validation")
    assert warning < overview.index('id="verdict"')
    assert '<a href="rejected.html">the rejected records</a>' in overview


def test_only_the_overview_and_the_list_change() -> None:
    """The good records' pages are byte for byte those of the site without rejections; the same
    rejections give the same bytes."""
    with_rejected = build_site(sample_records(), load_catalog(), rejected=two_errors())
    again = build_site(sample_records(), load_catalog(), rejected=two_errors())
    assert with_rejected == again
    clean = sample_site()
    changed = {
        name
        for name in with_rejected.keys() | clean.keys()
        if with_rejected.get(name) != clean.get(name)
    }
    assert changed == {"index.html", "rejected.html", ".scorecard-site"}


def test_rejected_text_is_escaped_and_redacted() -> None:
    """A file name or message holding markup is shown as text, and a secret-shaped string in
    any of them is never written."""
    hostile = [
        InputError(
            f"bad value near {KEY} <img src=x onerror=alert(1)>",
            rule="wrong_type",
            pointer=f"/notes/{KEY}",
            source=f"<script>alert(1)</script>{KEY}.jsonl",
            line=1,
        )
    ]
    page = text_of(build_site(sample_records(), load_catalog(), rejected=hostile), "rejected.html")
    assert KEY not in page
    assert "<script>alert" not in page
    assert "<img" not in page
    [row] = rows_of(page)
    assert row[0].startswith("<script>alert(1)</script>")  # shown, as text
    assert "[redacted]" in row[0]
    assert "[redacted]" in row[4]


def test_the_list_is_bounded_in_rows_and_length(tmp_path: Path) -> None:
    """Past the row limit the rest is counted, not listed; a long message is cut with a note."""
    many = [
        InputError("x" * 5000, rule="wrong_type", source="big.jsonl", line=number)
        for number in range(1, REJECTED_SHOWN + 6)
    ]
    files = build_site(sample_records(), load_catalog(), rejected=many)
    page = text_of(files, "rejected.html")
    rows = rows_of(page)
    assert len(rows) == 1000
    assert [row[1] for row in rows[:2]] == ["1", "2"]
    assert "... and 5 more, not listed here" in page
    assert rows[0][4].startswith("x" * REJECTED_MESSAGE_LIMIT + "\n... (4700 more characters")
    assert len(rows[0][4]) < 400
    assert "1005 input records were rejected" in text_of(files, "index.html")
