"""`scorecard explain`: failing dimensions with the fields behind each reason, and the audit."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract._catalog import Catalog
from scorecard.core._explain import explain_record, failing_dimensions, render_explanation
from scorecard.core._record import ScoredRecord
from scorecard.engine._pipeline import score_paths_serially
from tests.conftest import ROOT


def resolve(document: Any, pointer: str) -> Any:
    """The value at an RFC 6901 pointer (KeyError/IndexError when it does not exist)."""
    node = document
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


OBSERVATION_ID = "https://paperclip.dev/schemas/runner-workflow-observation.v1.schema.json"


def failing(observation: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``observation`` with a forbidden call, a failed check and a blown budget."""
    broken = copy.deepcopy(observation)
    base = broken["base"]
    base["forbiddenCalls"] = ["request_review"]
    base["observedCalls"] = [*base["observedCalls"], "request_review"]
    base["budget"] = {"maxCostUsd": 0.5}
    base["efficiency"] = {"costUsd": 0.75}
    broken["presentation"]["checks"][0] = {
        "id": "final-comment",
        "passed": False,
        "reason": "final comment missing",
    }
    return broken


def explained(tmp_path: Path, document: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    """Explain one observation written to a file."""
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(document) + "\n")
    (record,) = score_paths_serially([str(path)], catalog=catalog)
    assert isinstance(record, ScoredRecord)
    return explain_record(record, catalog)


def test_every_reason_points_at_fields_that_exist(
    tmp_path: Path, observation: dict[str, Any], catalog: Catalog
) -> None:
    """Each failing reason carries pointers, and every pointer resolves in the observation."""
    document = failing(observation)
    explanation = explained(tmp_path, document, catalog)
    by_dimension = {d["dimension"]: d for d in explanation["failingDimensions"]}
    assert set(by_dimension) >= {"hard_invariants", "quality_efficiency", "presentation_fidelity"}
    for dimension in by_dimension.values():
        for reason in dimension["reasons"]:
            assert reason["pointers"]
            for pointer in reason["pointers"]:
                resolve(document, pointer)
    forbidden = by_dimension["hard_invariants"]["reasons"][0]
    position = len(document["base"]["observedCalls"]) - 1
    assert forbidden == {
        "reason": "forbidden call(s) invoked: request_review",
        "pointers": [f"/base/observedCalls/{position}", "/base/forbiddenCalls"],
        "pointer": f"/base/observedCalls/{position}",
        "expected": "no call of /base/forbiddenCalls (request_review)",
        "observed": "request_review",
        "assertion": None,
        "schema": OBSERVATION_ID,
    }
    cost = by_dimension["quality_efficiency"]["reasons"][0]
    assert cost == {
        "reason": "costUsd 0.75 exceeds budget 0.5",
        "pointers": ["/base/efficiency/costUsd", "/base/budget/maxCostUsd"],
        "pointer": "/base/efficiency/costUsd",
        "expected": "<= 0.5",
        "observed": "0.75",
        "assertion": None,
        "schema": OBSERVATION_ID,
    }
    assert by_dimension["presentation_fidelity"]["reasons"][0]["pointers"] == [
        "/presentation/checks/0"
    ]


def test_the_explanation_agrees_with_the_scorecard(
    tmp_path: Path, observation: dict[str, Any], catalog: Catalog
) -> None:
    """The reasons explained are exactly the scorecard's reasons of the failing dimensions."""
    explanation = explained(tmp_path, failing(observation), catalog)
    card = explanation["scorecard"]
    for dimension in explanation["failingDimensions"]:
        reasons = [reason["reason"] for reason in dimension["reasons"]]
        assert reasons == card["dimensions"][dimension["dimension"]]["reasons"]
        assert card["dimensions"][dimension["dimension"]]["passed"] is False


def test_text_view_names_dimension_reason_and_pointer(
    tmp_path: Path, observation: dict[str, Any], catalog: Catalog
) -> None:
    """The terminal view shows the gate failure, the reason and where it came from."""
    text = render_explanation(explained(tmp_path, failing(observation), catalog))
    assert "GATE FAILED" in text
    assert "  x hard_invariants (gate) 0\n" in text
    assert '      "forbidden call(s) invoked: request_review"\n' in text
    assert "        at /base/efficiency/costUsd, /base/budget/maxCostUsd\n" in text
    assert "  audit: " in text


def test_explain_command_filters_and_prints_json(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """--case-id/--candidate/--failing-only select runs; --format json is parseable."""
    good = copy.deepcopy(observation)
    bad = failing(observation)
    bad["candidateId"] = "the-bad-one"
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scorecard",
            "explain",
            str(path),
            "--failing-only",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    explanations = json.loads(done.stdout)
    assert [e["candidateId"] for e in explanations] == ["the-bad-one"]
    only_good = subprocess.run(
        [
            sys.executable,
            "-m",
            "scorecard",
            "explain",
            str(path),
            "--candidate",
            good["candidateId"],
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert only_good.returncode == 0
    assert "the-bad-one" not in only_good.stdout
    assert good["candidateId"] in only_good.stdout


def _set(document: dict[str, Any], pointer: str, value: Any) -> None:
    *parents, last = pointer.split("/")[1:]
    node: Any = document
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


#: One change to a passing observation per kind of reason, and the reason's contract words
#: (pointer, expected, observed, case assertion), written out by hand.
REASON_CASES = [
    (
        [("/base/finalState/observed", "mutated")],
        "semantic_outcome",
        ("/base/finalState/observed", "unchanged", "mutated", None),
    ),
    (
        [("/base/authorization/expected", "denied"), ("/base/authorization/observed", "allowed")],
        "hard_invariants",
        ("/base/authorization/observed", "denied", "allowed", None),
    ),
    (
        [("/base/budget", {"maxAttempts": 1}), ("/base/efficiency", {})],
        "quality_efficiency",
        ("/base/efficiency/attempts", "<= 1", "missing", None),
    ),
    (
        [("/base/trace/runId", "")],
        "trace_completeness",
        ("/base/trace/runId", "a non-empty runId", "missing", None),
    ),
    (
        [("/traceLineage/frameCount", 0)],
        "trace_completeness",
        (
            "/traceLineage/capture",
            "capture on, frameCount > 0, byteCount > 0",
            "capture on, frameCount 0, byteCount 2048, a traceRef",
            "/assertions/trace/capture",
        ),
    ),
    (
        [("/lifecycle/checks/0/passed", False)],
        "lifecycle_integrity",
        ("/lifecycle/checks/0", "passed: true", "passed: false", None),
    ),
    (
        [("/classification", "candidate_failure")],
        "lifecycle_integrity",
        ("/classification", "completed", "candidate_failure", None),
    ),
]


@pytest.mark.parametrize(("changes", "dimension", "words"), REASON_CASES)
def test_each_kind_of_reason_carries_the_output_contract(
    tmp_path: Path,
    observation: dict[str, Any],
    catalog: Catalog,
    changes: list[tuple[str, Any]],
    dimension: str,
    words: tuple[str, str, str, str | None],
) -> None:
    """A failing reason says its field, what was expected, what was observed, the case
    assertion (where one is checked) and the observation schema's $id."""
    document = copy.deepcopy(observation)
    for pointer, value in changes:
        _set(document, pointer, value)
    explanation = explained(tmp_path, document, catalog)
    reasons = next(
        d["reasons"] for d in explanation["failingDimensions"] if d["dimension"] == dimension
    )
    found = [(r["pointer"], r["expected"], r["observed"], r["assertion"]) for r in reasons]
    assert words in found
    assert {r["schema"] for r in reasons} == {OBSERVATION_ID}


def test_a_lineage_reason_names_the_case_assertion_it_checks(
    tmp_path: Path, observation: dict[str, Any], catalog: Catalog
) -> None:
    """A trace-lineage case's missing disposition points at the case's assertion for it."""
    assert observation["caseId"] == "trace-lineage"
    document = copy.deepcopy(observation)
    document["traceLineage"]["dispositions"] = [
        item for item in document["traceLineage"]["dispositions"] if item != "generic"
    ]
    explanation = explained(tmp_path, document, catalog)
    (trace,) = [
        d for d in explanation["failingDimensions"] if d["dimension"] == "trace_completeness"
    ]
    assert {
        "reason": "provider trace did not exercise generic mapping",
        "pointers": ["/traceLineage/dispositions"],
        "pointer": "/traceLineage/dispositions",
        "expected": "generic among the dispositions",
        "observed": "absent",
        "assertion": "/assertions/trace/dispositions/1",
        "schema": OBSERVATION_ID,
    } in trace["reasons"]


def test_a_secret_shaped_call_name_is_withheld_in_the_contract_words(
    tmp_path: Path, observation: dict[str, Any], catalog: Catalog
) -> None:
    """The observed words are written as --errors writes text: a secret-shaped call redacted."""
    secret = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    document = copy.deepcopy(observation)
    document["base"]["forbiddenCalls"] = [secret]
    document["base"]["observedCalls"] = [*document["base"]["observedCalls"], secret]
    text = json.dumps(explained(tmp_path, document, catalog))
    assert secret not in text
    assert "[redacted]" in text


def test_the_explanation_holds_the_contract_models_values(catalog: Catalog) -> None:
    """Read from the record's card, every value of the explanation is the validated
    scorecard model's, type included (a 1 where the model says 1.0 would print differently),
    on every run of the sample campaign."""
    records = list(score_paths_serially([str(ROOT / "observations")], catalog=catalog))
    assert len(records) > 500
    for record in records:
        assert isinstance(record, ScoredRecord)
        explanation = explain_record(record, catalog)
        model = record.scorecard
        expected = model.overall.model_dump(by_alias=True)
        assert explanation["overall"] == expected
        assert [type(value) for value in explanation["overall"].values()] == [
            type(value) for value in expected.values()
        ]
        for item in explanation["failingDimensions"]:
            dimension = model.dimensions[item["dimension"]]
            assert (item["score"], item["gate"]) == (dimension.score, dimension.gate)
            assert type(item["score"]) is type(dimension.score)
        assert (explanation["caseId"], explanation["classification"]) == (
            model.case_id,
            model.classification,
        )


def test_failing_dimensions_are_the_ones_the_explanation_explains(catalog: Catalog) -> None:
    """Read from the card alone, the failing dimensions are the explanation's, in its order,
    on every run of the sample campaign: scoreable ones that failed (the passing and the
    unscoreable among them too) and none for an unscoreable run."""
    records = [
        record
        for record in score_paths_serially([str(ROOT / "observations")], catalog=catalog)
        if isinstance(record, ScoredRecord)
    ]
    kinds = set()
    for record in records:
        explained = [
            item["dimension"] for item in explain_record(record, catalog)["failingDimensions"]
        ]
        found = failing_dimensions(record)
        assert found == explained
        model = record.scorecard
        expected = (
            []
            if model.overall.score is None
            else [
                name for name, dimension in model.dimensions.items() if dimension.passed is not True
            ]
        )
        assert sorted(found) == sorted(expected)
        kinds.add((model.overall.score is None, bool(found)))
    assert kinds == {(True, False), (False, False), (False, True)}


def test_an_explanation_reads_the_results_its_record_was_scored_from(tmp_path: Path) -> None:
    """A record the general path scored remembers the raw results its card was made from:
    explaining it with the catalog it was scored with reads them, and says exactly what
    scoring its observation again says (every sample run and a campaign of another seed); with
    another catalog (equal, not the same cases) it is scored again. The results are no part of
    the record's value: numbered, it keeps them; pickled, it drops them and equals itself."""
    import dataclasses
    import pickle

    from scorecard.contract import load_catalog
    from scorecard.core import explain_failing
    from scorecard.simulate import simulate_campaign

    catalog = load_catalog()
    other = load_catalog()
    campaign = simulate_campaign(tmp_path, seed=11, bundles=2)
    records = [
        record
        for record in score_paths_serially(
            [str(ROOT / "observations"), *map(str, campaign)], catalog=catalog
        )
        if isinstance(record, ScoredRecord)
    ]
    failing_runs = 0
    for record in records:
        case = catalog[record.card["caseId"]]
        scoreable = record.card["overall"]["score"] is not None
        assert (record.remembered_results(case) is not None) == scoreable
        assert record.remembered_results(other[record.card["caseId"]]) is None
        fresh = dataclasses.replace(record)  # the same record, remembering nothing
        assert fresh.remembered_results(case) is None
        explained = explain_failing(record, catalog)
        assert explained == explain_failing(fresh, catalog) == explain_failing(record, other)
        failing_runs += bool(explained)
        numbered = record.numbered(record.repetition + 1)
        assert numbered.remembered_results(case) is record.remembered_results(case)
        unpickled = pickle.loads(pickle.dumps(record))
        assert unpickled == record
        assert unpickled.remembered_results(case) is None
    assert 0 < failing_runs < len(records)
