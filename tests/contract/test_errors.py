"""The exception tree: one root, sibling families that do not catch each other, every error
located and able to travel between processes."""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest

import scorecard
from scorecard.contract import (
    CaseError,
    CatalogError,
    InputError,
    ManifestError,
    ObservationError,
    OutputError,
    PolicyError,
    ScorecardError,
    StoreError,
)
from scorecard.engine import atomic_writer

FAMILIES = [InputError, CatalogError, PolicyError, OutputError, StoreError]
EVERY_ERROR = [*FAMILIES, ObservationError, ManifestError]


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_is_a_scorecard_error(family: type[ScorecardError]) -> None:
    """Every family derives from the one root, directly."""
    assert family.__bases__ == (ScorecardError,)


@pytest.mark.parametrize(("one", "other"), list(itertools.permutations(FAMILIES, 2)))
def test_no_family_is_a_kind_of_another(
    one: type[ScorecardError], other: type[ScorecardError]
) -> None:
    """``except`` of one family never catches another's errors."""
    assert not issubclass(one, other)


def test_observations_and_manifests_are_input_errors() -> None:
    """The input family holds what is read as input: observations and manifests."""
    assert issubclass(ObservationError, InputError)
    assert issubclass(ManifestError, InputError)


def test_case_error_is_the_catalog_family_by_its_earlier_name() -> None:
    """``CaseError`` is :class:`CatalogError` (callers of the earlier name keep working), and
    a catalog error is no longer an input error."""
    assert CaseError is CatalogError
    assert not issubclass(CaseError, InputError)


def test_the_families_are_public() -> None:
    """Library users catch the families from the top-level package."""
    for family in [ScorecardError, *FAMILIES, CaseError]:
        assert getattr(scorecard, family.__name__) is family


@pytest.mark.parametrize("kind", EVERY_ERROR)
def test_every_error_pickles_with_its_location(kind: type[ScorecardError]) -> None:
    """Workers send errors back pickled: type, message and every location attribute survive."""
    error = kind("bad", rule="some_rule", pointer="/a/0", source="f.jsonl", line=3, index=4)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is kind
    assert (copy.message, copy.rule, copy.pointer, copy.source, copy.line, copy.index) == (
        "bad",
        "some_rule",
        "/a/0",
        "f.jsonl",
        3,
        4,
    )
    assert str(copy) == str(error) == "f.jsonl:3[4] /a/0: bad [some_rule]"


@pytest.mark.parametrize("kind", EVERY_ERROR)
def test_located_keeps_the_family(kind: type[ScorecardError]) -> None:
    """Locating an error in a file keeps its class and what it already knew."""
    error = kind("bad", rule="r", pointer="/x").located(source="f.jsonl", line=7)
    assert type(error) is kind
    assert (error.source, error.line, error.pointer) == ("f.jsonl", 7, "/x")


def _surrogate(tmp_path: Path) -> tuple[Path, str]:
    return tmp_path / "out.jsonl", "a lone surrogate: \ud800\n"


def _full_disk(tmp_path: Path) -> tuple[Path, str]:
    if not Path("/dev/full").exists():  # pragma: no cover - Linux has it
        pytest.skip("no /dev/full")
    return Path("/dev/full"), "x" * 100_000


@pytest.mark.parametrize("failing", [_surrogate, _full_disk], ids=["surrogate", "full-disk"])
def test_a_write_failure_is_an_output_error_not_an_input_error(
    tmp_path: Path, failing: Callable[[Path], tuple[Path, str]]
) -> None:
    """A full disk, or text the output cannot hold, fails as an :class:`OutputError`, which
    ``except InputError`` lets through; a file is left as it was."""
    target, text = failing(tmp_path)
    if target.parent == tmp_path:
        target.write_text("before\n")
    with pytest.raises(OutputError) as raised:  # noqa: PT012 - the write fails in the block
        try:
            with atomic_writer(target) as stream:
                stream.write(text)
        except InputError:  # pragma: no cover - what must not happen
            pytest.fail("a write failure was caught as bad input")
    assert (raised.value.rule, raised.value.source) == ("unwritable", str(target))
    if target.parent == tmp_path:
        assert target.read_text() == "before\n"
        assert sorted(path.name for path in tmp_path.iterdir()) == ["out.jsonl"]
