"""A truncated markdown summary never refers to what it left out, and says how much it left out.

A gate failure whose first reason is too long or multi-line for its table cell says "details
below" only when its details block is in the summary; when truncation dropped the block, the
row says "details left out" and the closing note counts them.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from scorecard.contract._models import CASE_IDS
from scorecard.gate._evaluate import evaluate_gate
from scorecard.gate._results import GateResult
from scorecard.report._dispatch import verdict_line
from scorecard.report._markdown import render_markdown
from tests.gate.test_gate import run_record, side
from tests.report.test_report import RULES

#: A row's last cell ends with one of these when its reason did not fit the cell.
KEPT, LEFT_OUT = "(details below)", "(details left out)"
_BLOCK = re.compile(r"^\*\*(.+?)\*\* \u00b7 (.+?) \u00b7 repetition (\d+) \u00b7 ", re.MULTILINE)


@cache
def large_failing_result(candidates: int = 30, repetitions: int = 2) -> GateResult:
    """Every run of ``candidates`` x 12 cases x ``repetitions`` failed the gate with a
    multi-line reason (each failure's row refers to its details block), and a third of the
    candidates also failed an audit finding."""
    records = [
        run_record(
            f"cand-{number:03d}",
            case,
            repetition,
            bundle="huge",
            failed=["hard_invariants"],
            reasons={
                "hard_invariants": [
                    f"forbidden call(s) invoked: checkout_task\nrun {repetition} of {case}\n"
                    + "trace: " * 40
                ]
            },
            findings=[
                {
                    "code": "comment_count_mismatch",
                    "pointer": "/presentation/commentCount",
                    "expected": 1,
                    "actual": 0,
                }
            ]
            if number % 3 == 0
            else [],
        )
        for number in range(candidates)
        for case in CASE_IDS
        for repetition in range(1, repetitions + 1)
    ]
    return evaluate_gate(side(records), None, RULES)


def failure_rows(text: str) -> list[list[str]]:
    """The cells of the gate-failure table's rows."""
    if "### Gate failures in the current bundle" not in text:
        return []
    table = text.split("### Gate failures in the current bundle", 1)[1].split("\n\n###", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---|" not in line]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[1:]]


def detail_blocks(text: str) -> set[tuple[str, str, str]]:
    """(candidate, case, repetition) of every details block in ``text``."""
    if "### Details (untrusted text)" not in text:
        return set()
    details = text.split("### Details (untrusted text)", 1)[1]
    return {(match[1], match[2], match[3]) for match in _BLOCK.finditer(details)}


def check_no_dangling_reference(text: str) -> tuple[int, int]:
    """Assert that every row saying "details below" has its block; return how many rows say
    each wording."""
    blocks = detail_blocks(text)
    kept = left_out = 0
    for cells in failure_rows(text):
        who = (cells[0].replace("\\", ""), cells[1].replace("\\", ""), cells[2])
        if cells[-1].endswith(KEPT):
            kept += 1
            assert who in blocks, f"{who} says {KEPT!r} but its block was left out"
        elif cells[-1].endswith(LEFT_OUT):
            left_out += 1
            assert who not in blocks, f"{who} says {LEFT_OUT!r} but its block is there"
    return kept, left_out


def test_a_truncated_summary_has_no_row_pointing_at_a_left_out_block() -> None:
    """720 gate failures, each referring to its details block: the summary keeps as many rows
    as fit, every row saying "details below" has its block, the others say "details left
    out", and the note counts them, the blocks and the table rows left out."""
    result = large_failing_result()
    text = render_markdown(result, verdict_line(result))
    assert len(text.encode("utf-8")) <= 60_000
    rows = failure_rows(text)
    kept, left_out = check_no_dangling_reference(text)
    assert len(rows) == kept + left_out
    assert left_out > 100
    blocks = len(result.failures) + len(result.runs_with_findings)
    shown = len(detail_blocks(text))
    note = text.split("> **Truncated:**", 1)[1]
    assert f"{blocks - shown:,} details blocks" in note
    assert f"{left_out:,} gate failures shown above say *details left out*" in note
    rows_left_out = re.search(r"([0-9,]+) table rows", note)
    assert rows_left_out is not None  # the failures' and the later tables'
    assert int(rows_left_out.group(1).replace(",", "")) >= len(result.failures) - len(rows)


@pytest.mark.parametrize("limit", [2_000, 5_000, 12_000, 20_000, 35_000, 60_000, 200_000])
def test_any_limit_gives_a_bounded_summary_without_dangling_references(limit: int) -> None:
    """Whatever the limit, the summary fits it, no reference dangles, and the note is there
    exactly when something was left out."""
    result = large_failing_result(12, 1)
    text = render_markdown(result, verdict_line(result), limit=limit)
    assert len(text.encode("utf-8")) <= max(limit, 800)
    check_no_dangling_reference(text)
    whole = render_markdown(result, verdict_line(result), limit=10_000_000)
    assert ("> **Truncated:**" in text) == (text != whole)
    assert "\x00" not in text


def test_an_untruncated_summary_keeps_every_reference_and_block() -> None:
    """With room for everything every long reason says "details below" and has its block."""
    result = large_failing_result(3, 1)
    text = render_markdown(result, verdict_line(result), limit=10_000_000)
    kept, left_out = check_no_dangling_reference(text)
    assert (kept, left_out) == (len(result.failures), 0)
    assert "Truncated" not in text
