"""The scorecard model reads exactly the documents the published v2 schema allows.

``ScorecardV2`` is how scored records and ``score_observation`` read scorecards back; the
published ``eval-scorecard.v2.schema.json`` is the contract. Every reference scorecard of the
conformance rows, and each of many small changes to one (a key removed or added at every level, a
value of the wrong kind or out of range), is given to both: they must agree on every one.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from scorecard.contract import DIMENSIONS
from scorecard.contract._scorecards import ScorecardV2
from tests.conftest import SCORECARD_SCHEMA, conformance_rows

Change = Callable[[dict[str, Any]], None]


CARDS = [row["expected"] for row in conformance_rows() if "schema" in row["expected"]]
"""The reference scorecards (the other rows expect an error)."""


def model_accepts(card: dict[str, Any]) -> bool:
    try:
        ScorecardV2.model_validate(card)
    except ValidationError:
        return False
    return True


def schema_accepts(card: dict[str, Any]) -> bool:
    return bool(SCORECARD_SCHEMA.is_valid(card))


def _parent(card: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    for key in path[:-1]:
        card = card[key]
    return card


def _removed(*path: str) -> Change:
    return lambda card: _parent(card, path).pop(path[-1])


def _set(value: Any, *path: str) -> Change:
    return lambda card: _parent(card, path).__setitem__(path[-1], value)


def changes() -> Iterator[tuple[str, Change]]:
    """Small changes to a valid scorecard, named by the JSON Pointer they touch."""
    top = ["schema", "bundleId", "caseId", "candidateId", "classification", "dimensions"]
    for key in [*top, "overall"]:
        yield f"/{key} removed", _removed(key)
    yield "/extra added", _set(1, "extra")
    yield "/schema of v1", _set("paperclip.runner.eval-scorecard.v1", "schema")
    yield "/bundleId empty", _set("", "bundleId")
    yield "/caseId a number", _set(3, "caseId")
    yield "/classification unknown", _set("timeout", "classification")
    yield "/classification null", _set(None, "classification")
    for name in DIMENSIONS:
        yield f"/dimensions/{name} removed", _removed("dimensions", name)
    yield (
        "/dimensions/unknown added",
        lambda card: card["dimensions"].update(
            unknown=copy.deepcopy(card["dimensions"][DIMENSIONS[0]])
        ),
    )
    yield "/dimensions an array", _set([], "dimensions")
    first = DIMENSIONS[0]
    for key in ["dimension", "score", "passed", "gate", "weight", "reasons"]:
        yield f"/dimensions/{first}/{key} removed", _removed("dimensions", first, key)
    yield f"/dimensions/{first}/extra added", _set(True, "dimensions", first, "extra")
    yield f"/dimensions/{first}/score above 1", _set(1.5, "dimensions", first, "score")
    yield f"/dimensions/{first}/score below 0", _set(-0.25, "dimensions", first, "score")
    yield f"/dimensions/{first}/score null", _set(None, "dimensions", first, "score")
    yield f"/dimensions/{first}/score a string", _set("1", "dimensions", first, "score")
    yield f"/dimensions/{first}/passed null", _set(None, "dimensions", first, "passed")
    yield f"/dimensions/{first}/passed a number", _set(2, "dimensions", first, "passed")
    yield f"/dimensions/{first}/gate null", _set(None, "dimensions", first, "gate")
    yield f"/dimensions/{first}/weight negative", _set(-1.0, "dimensions", first, "weight")
    yield f"/dimensions/{first}/weight large", _set(7.5, "dimensions", first, "weight")
    yield f"/dimensions/{first}/reasons a string", _set("x", "dimensions", first, "reasons")
    yield f"/dimensions/{first}/reasons of numbers", _set([1], "dimensions", first, "reasons")
    yield f"/dimensions/{first}/reasons of two", _set(["a", "b"], "dimensions", first, "reasons")
    for key in ["score", "gatePassed", "passed"]:
        yield f"/overall/{key} removed", _removed("overall", key)
        yield f"/overall/{key} null", _set(None, "overall", key)
    yield "/overall/extra added", _set(0, "overall", "extra")
    yield "/overall/score above 1", _set(2, "overall", "score")
    yield "/overall/score an integer", _set(1, "overall", "score")
    yield "/overall/gatePassed a string", _set("true", "overall", "gatePassed")


CHANGES = list(changes())


def test_the_conformance_rows_hold_scorecards_of_every_classification() -> None:
    assert len(CARDS) > 50
    assert {card["classification"] for card in CARDS} == {
        "completed",
        "candidate_failure",
        "infrastructure_failure",
        "skipped",
    }


@pytest.mark.parametrize("index", range(len(CARDS)))
def test_every_reference_scorecard_is_read(index: int) -> None:
    card = CARDS[index]
    assert schema_accepts(card)
    assert ScorecardV2.model_validate(card).model_dump(mode="json", by_alias=True) == card


@pytest.mark.parametrize(("name", "change"), CHANGES, ids=[name for name, _ in CHANGES])
def test_the_model_and_the_published_schema_agree_on_a_changed_scorecard(
    name: str, change: Change
) -> None:
    card = copy.deepcopy(CARDS[0])
    change(card)
    assert card != CARDS[0]
    assert model_accepts(card) == schema_accepts(card), name


def test_the_changes_include_both_verdicts() -> None:
    """Some changes are still valid scorecards (a null score, an integer score, two reasons):
    the comparison is not only of rejections."""
    verdicts = []
    for _, change in CHANGES:
        card = copy.deepcopy(CARDS[0])
        change(card)
        verdicts.append(schema_accepts(card))
    assert 0 < sum(verdicts) < len(verdicts)
