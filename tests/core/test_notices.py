"""Unknown fields are named: their JSON Pointer, and the known field they most likely meant."""

from __future__ import annotations

from typing import Any

from scorecard.contract import close_field_name
from scorecard.core._validation import accept_observation


def _notices(observation: dict[str, Any]) -> list[tuple[str, str]]:
    _, notices = accept_observation(observation)
    return [(notice.pointer, notice.message) for notice in notices]


def test_a_miscased_optional_field_is_named_with_the_field_it_meant(
    observation: dict[str, Any],
) -> None:
    """`commentcount` is kept, named by its pointer, and hinted as `commentCount` (absent)."""
    observation["presentation"].pop("commentCount", None)
    observation["presentation"]["commentcount"] = 1
    assert _notices(observation) == [
        (
            "/presentation/commentcount",
            "unknown field kept (not read); did you mean commentCount? (commentCount is absent)",
        )
    ]


def test_a_misspelt_field_in_a_list_item_is_hinted_against_its_own_level(
    observation: dict[str, Any],
) -> None:
    """The hint comes from the fields known where the key is (a check's), not elsewhere."""
    observation["lifecycle"]["checks"][0]["reasn"] = "slow"
    observation["lifecycle"]["checks"][0]["reason"] = "slow"
    assert _notices(observation) == [
        ("/lifecycle/checks/0/reasn", "unknown field kept (not read); did you mean reason?")
    ]


def test_an_unrelated_extension_field_gets_no_hint(observation: dict[str, Any]) -> None:
    """A producer's own field (the contract is open) is named, with nothing guessed."""
    observation["runnerBuild"] = "2026.11"
    assert _notices(observation) == [("/runnerBuild", "unknown field kept (not read)")]


def test_close_names_fold_case_and_separators() -> None:
    """Case and separators are folded before spelling distance is measured."""
    known = ["commentCount", "responseSource", "markers"]
    assert close_field_name("comment_count", known) == "commentCount"
    assert close_field_name("COMMENTCOUNT", known) == "commentCount"
    assert close_field_name("responseSorce", known) == "responseSource"
    assert close_field_name("vendorTrace", known) is None
