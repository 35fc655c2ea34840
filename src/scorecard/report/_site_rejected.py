"""The report site's rejected records: the overview's warning and the page listing each record
validation rejected (``rejected.html``), so a site built from the good records loses none of
the bad ones from sight (``docs/report.md``)."""

from __future__ import annotations

from collections.abc import Sequence

from scorecard.contract import ScorecardError

from ._site_assets import page
from ._site_paths import PAGE_INDEX, PAGE_REJECTED
from ._site_pieces import esc, html_table, link_to

__all__ = ["REJECTED_MESSAGE_LIMIT", "REJECTED_SHOWN", "rejected_page", "rejected_warning"]

#: Rejected records listed at most on the page (the rest counted): a file of a million bad
#: lines must not make a page of a million rows.
REJECTED_SHOWN = 1000
#: Characters of a message, a file name or a pointer shown at most (the rest counted).
REJECTED_MESSAGE_LIMIT = 300


def rejected_warning(page_path: str, rejected: Sequence[ScorecardError]) -> str:
    """The overview's warning: how many records were rejected, that no number, plot or verdict
    of the site counts them, and a link to the page listing them (nothing when none was)."""
    if not rejected:
        return ""
    count = len(rejected)
    records = "record was" if count == 1 else "records were"
    return (
        f'<div class="verdict inconclusive rejected" role="alert">{count} input {records} rejected by '
        "validation: no number, plot or verdict on this site counts "
        f"{'it' if count == 1 else 'them'} "
        f"({link_to(page_path, PAGE_REJECTED, 'the rejected records')}).</div>"
    )


def rejected_page(rejected: Sequence[ScorecardError]) -> bytes:
    """``rejected.html``: each rejected record's file, line (or array index), the JSON Pointer of
    the field, the rule and the message, in input order; texts redacted as in ``--errors``
    lines, escaped and shortened, at most :data:`REJECTED_SHOWN` rows."""
    limit = REJECTED_MESSAGE_LIMIT
    rows = []
    for error in rejected[:REJECTED_SHOWN]:
        record = error.to_record()  # secret-shaped text already redacted, as --errors writes it
        where = (
            str(record["line"])
            if record["line"] is not None
            else f"item {record['index']}"
            if record["index"] is not None
            else "-"
        )
        rows.append(
            [
                esc(record["source"] or "-", limit),
                where,
                f"<code>{esc(record['pointer'], limit)}</code>" if record["pointer"] else "-",
                f"<code>{esc(record['rule'], limit)}</code>",
                esc(record["message"], limit),
            ]
        )
    count = len(rejected)
    hidden = count - len(rows)
    more = (
        f'<p class="note">... and {hidden} more, not listed here '
        "(<code>scorecard report --errors FILE</code> writes them all).</p>"
        if hidden
        else ""
    )
    records = "record broke" if count == 1 else "records broke"
    verb = "it is" if count == 1 else "they are"
    body = (
        "<h1>Rejected records</h1>"
        f"<p>{count} input {records} the observation contract: {verb} in no number, plot or "
        "verdict of this site. Fix them where they are written and build the site again.</p>"
        + html_table(
            ["file", "line", "field (JSON Pointer)", "rule", "message"],
            rows,
            numeric=[1],
            css="rejected",
        )
        + more
    )
    return page(
        PAGE_REJECTED, "Rejected records", body, [("Overview", PAGE_INDEX), ("Rejected", None)]
    )
