"""The history of a candidate on a case: each night's outcome and the flakiness ledger."""

from __future__ import annotations

import math
from typing import Any

from scorecard.aggregate import history_frames, records_frame
from tests.aggregate.test_frames import make_record

NIGHTS = ["n1", "n2", "n3", "n4", "n5"]


def night(
    bundle: str, outcome: str, *, case: str = "final-response", runs: int = 2
) -> list[dict[str, Any]]:
    """``runs`` records of cand-a on ``case`` in ``bundle`` whose night is ``outcome``."""
    made = []
    for repetition in range(1, runs + 1):
        first = repetition == 1
        if outcome == "passed":
            made.append(make_record(case=case, repetition=repetition, bundle=bundle))
        elif outcome == "failed":  # one run loses a point, no gate failure
            made.append(
                make_record(case=case, repetition=repetition, bundle=bundle, passed=not first)
            )
        elif outcome == "gate failed":
            made.append(
                make_record(
                    case=case,
                    repetition=repetition,
                    bundle=bundle,
                    gate_passed=not first,
                    passed=not first,
                )
            )
        else:  # not scored: infrastructure failures
            made.append(
                make_record(
                    case=case,
                    repetition=repetition,
                    bundle=bundle,
                    scores=None,
                    classification="infrastructure_failure",
                )
            )
    return made


def test_each_nights_outcome_is_its_worst_scored_run() -> None:
    records = [
        *night("n1", "passed"),
        *night("n2", "failed"),
        *night("n3", "gate failed"),
        *night("n4", "not scored"),
        *night("n5", "passed"),
    ]
    nights, ledger = history_frames(records_frame(records), NIGHTS)
    assert nights["outcome"].tolist() == ["passed", "failed", "gate failed", "not scored", "passed"]
    assert nights["night"].tolist() == [0, 1, 2, 3, 4]
    assert nights["scored"].tolist() == [2, 2, 2, 0, 2]
    assert nights["gate_failures"].tolist() == [0, 0, 1, 0, 0]
    (row,) = ledger.to_dict("records")
    assert row["strip"] == "PFG-P"
    # Scored nights P F G P: passing, not, not, passing -> 2 flips over 3 transitions.
    assert (row["nights"], row["passed_nights"], row["flips"]) == (4, 2, 2)
    assert row["flip_rate"] == 2 / 3
    assert (row["first_failure"], row["last_failure"]) == ("n2", "n3")


def test_a_case_that_never_changes_has_flip_rate_zero_and_its_interval() -> None:
    records = [record for bundle in NIGHTS for record in night(bundle, "passed")]
    _, ledger = history_frames(records_frame(records), NIGHTS)
    (row,) = ledger.to_dict("records")
    assert (row["flips"], row["flip_rate"], row["flip_low"]) == (0, 0.0, 0.0)
    # Wilson upper bound for 0 of 4 at 95%: z^2 / (n + z^2) with z = 1.959964.
    z = 1.959963984540054
    assert math.isclose(row["flip_high"], z * z / (4 + z * z), rel_tol=1e-12)
    assert (row["first_failure"], row["last_failure"]) == (None, None)


def test_one_scored_night_has_no_flip_rate() -> None:
    _, ledger = history_frames(records_frame(night("n2", "failed")), NIGHTS)
    (row,) = ledger.to_dict("records")
    assert row["strip"] == " F   "
    assert math.isnan(row["flip_rate"])
    assert math.isnan(row["flip_low"])


def test_candidates_and_cases_select_the_ledgers_rows() -> None:
    records = [*night("n1", "passed"), *night("n1", "failed", case="trace-lineage")]
    _, ledger = history_frames(records_frame(records), NIGHTS, cases=["trace-lineage"])
    assert ledger["case"].tolist() == ["trace-lineage"]
    _, none = history_frames(records_frame(records), NIGHTS, candidates=["nobody"])
    assert len(none) == 0
