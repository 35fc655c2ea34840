"""records_frame and long_frame: columns, dtypes, order, every input kind, located errors.

``make_record`` here builds ``scorecard.record.v1`` dicts by hand; the other aggregate test
modules import it.
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from scorecard.aggregate._frames import long_frame, observed_categories, records_frame, select_rows
from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError
from scorecard.contract._models import CASE_IDS, DIMENSIONS
from scorecard.core._record import ScoredRecord
from scorecard.engine._pipeline import score_paths_serially
from scorecard.engine._rows import is_records_file
from scorecard.engine._run import load_records

ALL_DIMENSIONS = (
    "hard_invariants",
    "lifecycle_integrity",
    "semantic_outcome",
    "trajectory_restraint",
    "trace_completeness",
    "quality_efficiency",
    "continuation_integrity",
    "presentation_fidelity",
)


def make_record(
    candidate: str = "cand-a",
    case: str = "final-response",
    repetition: int = 1,
    *,
    bundle: str = "bundle-1",
    provider: str = "codex",
    classification: str = "completed",
    scores: float | Sequence[float] | None = 1.0,
    overall: float | None = None,
    passed: bool | None = None,
    gate_passed: bool | None = None,
    dimension_passed: Sequence[bool] | None = None,
    model: str | None = None,
    tier: str | None = None,
    metrics: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A scored record as ``scorecard score --format records`` writes it.

    ``scores=None`` makes an unscoreable card (every score and flag null). Otherwise each
    dimension gets its score (one number for all eight, or eight numbers), ``passed`` defaults to
    score >= 1, the overall score defaults to 1.0 and the overall flags to True.
    """
    values: list[float | None]
    if scores is None:
        values = [None] * 8
        flags: list[bool | None] = [None] * 8
        overall_score, overall_gate, overall_passed = None, None, None
    else:
        values = [float(scores)] * 8 if isinstance(scores, int | float) else list(scores)
        flags = (
            list(dimension_passed)
            if dimension_passed is not None
            else [value is not None and value >= 1 for value in values]
        )
        overall_score = 1.0 if overall is None else overall
        overall_gate = True if gate_passed is None else gate_passed
        overall_passed = True if passed is None else passed
    return {
        "schema": "scorecard.record.v1",
        "bundleId": bundle,
        "caseId": case,
        "candidateId": candidate,
        "provider": provider,
        "model": model,
        "tier": tier,
        "repetition": repetition,
        "classification": classification,
        "metrics": {"attempts": 1, "toolCount": 2} if metrics is None else metrics,
        "failure": None,
        "source": {"file": "hand-made.jsonl", "line": 1, "index": None},
        "gatePassed": overall_gate,
        "scorecard": {
            "schema": "paperclip.runner.eval-scorecard.v2",
            "bundleId": bundle,
            "caseId": case,
            "candidateId": candidate,
            "classification": classification,
            "dimensions": {
                name: {
                    "dimension": name,
                    "score": value,
                    "passed": flag,
                    "gate": name in ("hard_invariants", "lifecycle_integrity"),
                    "weight": 0,
                    "reasons": [],
                }
                for name, value, flag in zip(ALL_DIMENSIONS, values, flags, strict=True)
            },
            "overall": {
                "score": overall_score,
                "gatePassed": overall_gate,
                "passed": overall_passed,
            },
        },
    }


def write_records(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    """Write records as JSON Lines and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def _key_paths(value: Any, prefix: str = "") -> set[str]:
    """Every object key path of a JSON value (``/scorecard/overall/score``...)."""
    if not isinstance(value, dict):
        return set()
    paths: set[str] = set()
    for key, item in value.items():
        paths.add(f"{prefix}/{key}")
        paths |= _key_paths(item, f"{prefix}/{key}")
    return paths


def _scored(paths: list[str], catalog: Catalog) -> list[ScoredRecord]:
    results = list(score_paths_serially(paths, catalog=catalog))
    assert all(isinstance(result, ScoredRecord) for result in results)
    return [result for result in results if isinstance(result, ScoredRecord)]


def _observation_files(
    tmp_path: Path, observation: dict[str, Any], write_jsonl: Callable[..., Path]
) -> Path:
    """A folder bundle with two candidates, two cases, two repetitions; one run unscoreable."""
    documents = []
    for candidate in ("cand-b", "cand-a"):
        for case in ("trace-lineage", "final-response"):
            for _ in range(2):
                document = copy.deepcopy(observation)
                document["candidateId"] = candidate
                document["caseId"] = case
                document["base"]["caseId"] = case
                documents.append(document)
    broken = documents[-1]
    broken["classification"] = "infrastructure_failure"
    broken["failure"] = {
        "code": "provider_timeout",
        "category": "provider",
        "retryable": True,
        "message": "provider timed out",
    }
    return write_jsonl(documents, "nightly/observations.jsonl").parent


def test_make_record_has_the_layout_the_pipeline_writes(
    tmp_path: Path,
    observation: dict[str, Any],
    write_jsonl: Callable[..., Path],
    catalog: Catalog,
) -> None:
    """Every key of the hand-made record is where a real scored record has it."""
    folder = _observation_files(tmp_path, observation, write_jsonl)
    real = _scored([str(folder)], catalog)[0].record_json()
    assert _key_paths(make_record()) - _key_paths(real) == set()


def test_frame_columns_are_the_documented_ones() -> None:
    """The frame has one column per documented field, in the documented order."""
    frame = records_frame([make_record()])
    assert list(frame.columns) == [
        "bundle",
        "candidate",
        "provider",
        "model",
        "tier",
        "case",
        "repetition",
        "classification",
        *(f"score_{name}" for name in ALL_DIMENSIONS),
        *(f"passed_{name}" for name in ALL_DIMENSIONS),
        "overall_score",
        "gate_passed",
        "passed",
        "scoreable",
        "settlement_ms",
        "first_progress_ms",
        "total_tokens",
        "cost_usd",
        "attempts",
        "tool_count",
    ]


def test_frame_dtypes_are_the_documented_ones() -> None:
    """Labels are categorical, scores float, flags nullable boolean, counts int64."""
    dtypes = {name: str(dtype) for name, dtype in records_frame([make_record()]).dtypes.items()}
    expected = dict.fromkeys(
        ("bundle", "candidate", "provider", "model", "tier", "case", "classification"),
        "category",
    )
    expected.update(repetition="int64", attempts="int64", tool_count="int64", scoreable="bool")
    expected.update({f"score_{name}": "float64" for name in ALL_DIMENSIONS})
    expected.update({f"passed_{name}": "boolean" for name in ALL_DIMENSIONS})
    expected.update(overall_score="float64", gate_passed="boolean", passed="boolean")
    expected.update(
        dict.fromkeys(("settlement_ms", "first_progress_ms", "total_tokens"), "float64")
    )
    expected["cost_usd"] = "float64"
    assert dtypes == expected


def test_rows_are_ordered_by_bundle_candidate_catalog_case_and_repetition() -> None:
    """Input order does not matter: rows come sorted, cases in catalog (not alphabetical) order."""
    records = [
        make_record("cand-b", "trace-lineage", 1, bundle="b2"),
        make_record("cand-a", "trace-lineage", 2, bundle="b1"),
        make_record("cand-a", "final-response", 1, bundle="b1"),
        make_record("cand-a", "trace-lineage", 1, bundle="b1"),
        make_record("cand-b", "rich-activity", 1, bundle="b1"),
    ]
    frame = records_frame(records)
    keys = list(
        frame[["bundle", "candidate", "case", "repetition"]]
        .astype({"bundle": str, "candidate": str, "case": str})
        .itertuples(index=False, name=None)
    )
    assert keys == [
        ("b1", "cand-a", "final-response", 1),
        ("b1", "cand-a", "trace-lineage", 1),
        ("b1", "cand-a", "trace-lineage", 2),
        ("b1", "cand-b", "rich-activity", 1),
        ("b2", "cand-b", "trace-lineage", 1),
    ]


def test_case_categories_follow_the_catalog() -> None:
    """The case column's categories are the 12 catalog ids in catalog order."""
    frame = records_frame([make_record(case="trace-lineage")])
    assert list(frame["case"].cat.categories) == list(CASE_IDS)


def test_bundle_order_can_be_given() -> None:
    """Given bundles come first in the given order; unlisted ones follow, sorted."""
    records = [make_record(bundle=name) for name in ("zeta", "alpha", "mid")]
    frame = records_frame(records, bundle_order=["zeta", "mid"])
    assert list(frame["bundle"].cat.categories) == ["zeta", "mid", "alpha"]
    assert frame["bundle"].astype(str).tolist() == ["zeta", "mid", "alpha"]


def test_unscoreable_rows_have_nan_scores_and_null_flags() -> None:
    """An unscoreable record: NaN scores, null flags, scoreable False."""
    frame = records_frame([make_record(classification="skipped", scores=None)])
    row = frame.iloc[0]
    assert math.isnan(row["score_semantic_outcome"])
    assert math.isnan(row["overall_score"])
    assert row["passed"] is pd.NA
    assert row["passed_hard_invariants"] is pd.NA
    assert not row["scoreable"]


def test_metrics_are_read_and_missing_ones_are_nan() -> None:
    """Metrics map to their columns; an absent metric is NaN."""
    metrics = {"attempts": 2, "toolCount": 5, "settlementMs": 1500, "costUsd": 0.25}
    row = records_frame([make_record(metrics=metrics)]).iloc[0]
    assert (row["attempts"], row["tool_count"], row["settlement_ms"], row["cost_usd"]) == (
        2,
        5,
        1500.0,
        0.25,
    )
    assert math.isnan(row["total_tokens"])
    assert math.isnan(row["first_progress_ms"])


def test_model_and_tier_come_from_the_record() -> None:
    """Model and tier are kept; null ones are missing values."""
    frame = records_frame(
        [make_record("a", model="gpt-x", tier="strong"), make_record("b", model=None)]
    )
    assert frame["model"].tolist()[0] == "gpt-x"
    assert frame["tier"].tolist()[0] == "strong"
    assert frame["model"].isna().tolist() == [False, True]


def test_scored_records_files_and_folders_give_the_same_frame(
    tmp_path: Path,
    observation: dict[str, Any],
    write_jsonl: Callable[..., Path],
    catalog: Catalog,
) -> None:
    """ScoredRecord objects, their record dicts, a records file and the folder agree."""
    folder = _observation_files(tmp_path, observation, write_jsonl)
    scored = _scored([str(folder)], catalog)
    dicts = [item.record_json() for item in scored]
    records_file = write_records(tmp_path / "records.jsonl", dicts)
    from_objects = records_frame(scored)
    pd.testing.assert_frame_equal(records_frame(dicts), from_objects)
    pd.testing.assert_frame_equal(records_frame(records_file), from_objects)
    pd.testing.assert_frame_equal(records_frame(str(folder), catalog=catalog), from_objects)
    assert len(from_objects) == 8
    assert from_objects["scoreable"].tolist().count(False) == 1


def test_records_files_are_recognised_by_their_first_record(
    tmp_path: Path, write_jsonl: Callable[..., Path], observation: dict[str, Any]
) -> None:
    """A .jsonl whose first record is a scored record is a records file; observations are not."""
    records_file = write_records(tmp_path / "records.jsonl", [make_record()])
    observations_file = write_jsonl([observation], "observations.jsonl")
    assert (is_records_file(records_file), is_records_file(observations_file)) == (True, False)


def test_a_bad_record_in_a_file_is_located(tmp_path: Path) -> None:
    """A malformed field is reported with the file, the line and the JSON Pointer."""
    bad = make_record(repetition=2)
    bad["scorecard"]["dimensions"]["semantic_outcome"]["score"] = "high"
    path = write_records(tmp_path / "records.jsonl", [make_record(), bad])
    with pytest.raises(InputError) as raised:
        records_frame(path)
    error = raised.value
    assert (error.source, error.line, error.pointer, error.rule) == (
        str(path),
        2,
        "/scorecard/dimensions/semantic_outcome/score",
        "record_field",
    )


def test_loading_collects_every_bad_record(tmp_path: Path) -> None:
    """load_records keeps the good rows and one located error per bad line."""
    missing = make_record(repetition=2)
    del missing["metrics"]["attempts"]
    negative = make_record(repetition=3, metrics={"attempts": 1, "toolCount": 1, "costUsd": -1})
    path = write_records(tmp_path / "records.jsonl", [make_record(), missing, negative])
    loaded = load_records([path])
    assert len(loaded.rows) == 1
    assert [(error.line, error.pointer, error.rule) for error in loaded.errors] == [
        (2, "/metrics/attempts", "record_missing_field"),
        (3, "/metrics/costUsd", "record_field"),
    ]


def test_a_record_of_another_schema_is_rejected_at_its_position() -> None:
    """A v2 scorecard is not a scored record: the error names the schema and the item's index."""
    with pytest.raises(InputError) as raised:
        records_frame([make_record(), make_record()["scorecard"]])
    error = raised.value
    assert (error.index, error.pointer, error.rule) == (1, "/schema", "unsupported_schema")


def test_invalid_utf8_is_reported_on_its_line(tmp_path: Path) -> None:
    """A line that is not UTF-8 is one located error; the other lines are still read."""
    path = write_records(tmp_path / "records.jsonl", [make_record(), make_record(repetition=3)])
    path.write_bytes(path.read_bytes() + b'{"bad": "\xff"}\n')
    loaded = load_records([path])
    assert len(loaded.rows) == 2
    assert [(error.line, error.rule) for error in loaded.errors] == [(3, "invalid_utf8")]


def test_a_repeated_run_is_rejected() -> None:
    """The same bundle, candidate, case and repetition twice is an error, not double counting."""
    with pytest.raises(InputError) as raised:
        records_frame([make_record(), make_record()])
    assert raised.value.rule == "duplicate_record"


def test_no_records_give_an_empty_frame_with_every_column() -> None:
    """An empty input is an empty frame, not an error."""
    frame = records_frame([])
    assert len(frame) == 0
    assert len(frame.columns) == 34


def test_long_frame_has_one_row_per_record_and_dimension() -> None:
    """Eight rows per record, dimensions in canonical order, scores and flags carried over."""
    scores = [1.0, 0.5, 0.25, 1.0, 0.75, 1.0, 0.0, 1.0]
    frame = records_frame(
        [make_record("a", scores=scores, overall=0.5, passed=False), make_record("b", scores=None)]
    )
    long = long_frame(frame)
    assert len(long) == 16
    assert long["dimension"].astype(str).tolist()[:8] == list(ALL_DIMENSIONS)
    assert list(long["dimension"].cat.categories) == list(DIMENSIONS)
    assert long["score"].tolist()[:8] == scores
    assert long["passed"].tolist()[:8] == [True, False, False, True, False, True, False, True]
    assert long["gate"].tolist()[:8] == [True, True, False, False, False, False, False, False]
    assert long["passed"].isna().tolist()[8:] == [True] * 8
    assert long["candidate"].astype(str).tolist() == ["a"] * 8 + ["b"] * 8


def test_select_rows_names_the_known_values_when_one_is_unknown() -> None:
    """Asking for a candidate that is not there raises an error listing those that are."""
    frame = records_frame([make_record("cand-a"), make_record("cand-b")])
    with pytest.raises(InputError, match=r"no candidate 'cand-z'.*cand-a, cand-b"):
        select_rows(frame, candidate="cand-z")
    assert observed_categories(select_rows(frame, candidate="cand-b")["candidate"]) == ["cand-b"]


def test_select_rows_is_the_masked_rows_whether_they_are_one_stretch_or_not() -> None:
    """A bundle of a sorted frame is one stretch of rows (read as a slice); a candidate's rows
    of several bundles are not; a bundle and candidate together, one stretch again. Each
    selection is pandas' own boolean selection of the same rows, renumbered, and changing it
    leaves the frame as it was."""
    frame = records_frame(
        [
            make_record(candidate, case, repetition, bundle=bundle, scores=0.25 * repetition)
            for bundle in ("bundle-1", "bundle-2")
            for candidate in ("cand-a", "cand-b")
            for case in ("final-response", "rich-activity")
            for repetition in (1, 2)
        ]
    )
    untouched = frame.copy()
    for wanted in (
        {"bundle": "bundle-2"},
        {"candidate": "cand-b"},
        {"bundle": "bundle-1", "candidate": "cand-b"},
    ):
        mask = np.ones(len(frame), dtype=bool)
        for column, value in wanted.items():
            mask &= (frame[column] == value).to_numpy()
        chosen = select_rows(frame, **wanted)
        pd.testing.assert_frame_equal(chosen, frame.loc[mask].reset_index(drop=True))
        chosen.loc[0, "overall"] = -1.0
    pd.testing.assert_frame_equal(frame, untouched)


def test_frames_do_not_depend_on_input_order() -> None:
    """Shuffling the records gives an identical frame."""
    records = [
        make_record(candidate, case, repetition, scores=score)
        for candidate, score in (("a", 1.0), ("b", 0.5))
        for case in CASE_IDS[:4]
        for repetition in (1, 2)
    ]
    shuffled = records[:]
    random.Random(7).shuffle(shuffled)
    pd.testing.assert_frame_equal(records_frame(shuffled), records_frame(records))
    assert np.array_equal(records_frame(shuffled)["repetition"].to_numpy(), np.tile([1, 2], 8))
