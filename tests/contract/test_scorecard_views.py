"""The scorecard's ``TypedDict`` views (what the scorer builds) against the scorecard models
(what reads scorecards back): the same keys at every level, with their kinds, in contract order.

(The observation's views are generated from its models: ``tests/contract/test_generated.py``.)
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from scorecard.contract._models import DimensionName
from scorecard.contract._scorecards import DimensionScore, Overall, ScorecardV2
from scorecard.contract._wire import DimensionDict, OverallDict, ScorecardDict
from tests.contract.shapes import differences, model_fields, view_fields


def test_the_scorecard_views_list_every_scorecard_model_field_in_contract_order() -> None:
    """What the scorer builds (``ScorecardDict``) is what ``ScorecardV2`` reads back: the same
    keys at every level, with their kinds, in the order the contract writes them."""
    assert differences(ScorecardV2, ScorecardDict, view_fields, "", exact=False) == []
    pairs: list[tuple[type[BaseModel], Any]] = [
        (ScorecardV2, ScorecardDict),
        (DimensionScore, DimensionDict),
    ]
    for model, view in pairs:
        assert list(view_fields(view)) == list(model_fields(model))
    assert (
        list(view_fields(OverallDict))
        == list(model_fields(Overall))
        == [
            "score",
            "gatePassed",
            "passed",
        ]
    )


def test_a_field_added_to_a_scorecard_dimension_only_is_named() -> None:
    """The comparison looks inside the dimensions' map, not only at its keys' container."""

    class GrownDimension(DimensionScore):
        extra_field: int | None = None

    class GrownScorecard(ScorecardV2):
        dimensions: dict[DimensionName, GrownDimension]  # type: ignore[assignment]

    assert differences(GrownScorecard, ScorecardDict, view_fields, "", exact=False) == [
        "/dimensions/*/extraField: in the models only"
    ]
