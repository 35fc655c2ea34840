"""`scorecard explain`: failing dimensions with the fields behind each reason, and the audit."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from scorecard.contract._catalog import Catalog
from scorecard.core._explain import explain_record, render_explanation
from scorecard.core._record import ScoredRecord
from scorecard.engine._pipeline import score_paths_serially


def resolve(document: Any, pointer: str) -> Any:
    """The value at an RFC 6901 pointer (KeyError/IndexError when it does not exist)."""
    node = document
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


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
    }
    cost = by_dimension["quality_efficiency"]["reasons"][0]
    assert cost == {
        "reason": "costUsd 0.75 exceeds budget 0.5",
        "pointers": ["/base/efficiency/costUsd", "/base/budget/maxCostUsd"],
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
