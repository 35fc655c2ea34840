"""Input of one chunk is scored in process whatever the worker count; more starts the pool."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract._catalog import Catalog
from scorecard.contract._policy import Policy
from scorecard.engine._parallel import score_text
from tests.conftest import ROOT

SAMPLE = ROOT / "observations" / "2026-11-08-nightly" / "observations.jsonl"


class NoPool:
    """Stands in for the process pool: starting one fails the test."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise AssertionError("a worker pool was started")


def text(path: Path, catalog: Catalog, chunk_bytes: int) -> str:
    pieces = score_text(
        [str(path)], catalog=catalog, policy=Policy(), workers=2, chunk_bytes=chunk_bytes
    )
    return "".join(piece for piece in pieces if isinstance(piece, str))


def test_one_chunk_starts_no_pool(
    tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One observation, or a whole file within one chunk, is scored here with workers=2, and
    gives the text one worker gives."""
    one = tmp_path / "one.jsonl"
    one.write_bytes(SAMPLE.read_bytes().split(b"\n")[0] + b"\n")
    expected = [text(path, catalog, 2 << 20) for path in (one, SAMPLE)]
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", NoPool)
    assert [text(path, catalog, 2 << 20) for path in (one, SAMPLE)] == expected
    assert expected[0].count("\n") == 1


def test_two_chunks_start_the_pool(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """From the second chunk on, the workers score."""
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", NoPool)
    with pytest.raises(AssertionError, match="a worker pool was started"):
        text(SAMPLE, catalog, 7_000)
