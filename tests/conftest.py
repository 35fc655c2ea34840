"""Shared fixtures: where things are, the catalog, schema validators, a valid observation."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from scorecard.contract._catalog import Catalog, load_catalog

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"
SCHEMAS = SHARED / "upstream-schemas"


def load_schema(name: str) -> Draft202012Validator:
    """A validator for one of the published upstream schemas."""
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


SCORECARD_SCHEMA = load_schema("eval-scorecard.v2.schema.json")
CASE_SCHEMA = load_schema("runner-workflow-eval-case.v1.schema.json")
OBSERVATION_SCHEMA = load_schema("runner-workflow-observation.v1.schema.json")


def assert_valid_scorecard(card: Any) -> None:
    """Fail with every schema violation when ``card`` is not a valid v2 scorecard."""
    problems = [error.message for error in SCORECARD_SCHEMA.iter_errors(card)]
    assert problems == []


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The repository's 12-case catalog."""
    return load_catalog(ROOT / "cases")


def conformance_rows() -> list[dict[str, Any]]:
    """Every row of the reference scoring conformance table."""
    with (CONFORMANCE / "scoring-v2.jsonl").open(encoding="utf-8") as stream:
        return [json.loads(line) for line in stream]


_GOOD = next(
    row["observation"]
    for row in conformance_rows()
    if row["expected"].get("overall", {}).get("passed") is True
    and row["observation"]["classification"] == "completed"
    and "wireEvents" not in row["observation"]["base"]["trace"]
)


@pytest.fixture
def observation() -> dict[str, Any]:
    """A fresh copy of an observation the reference scores as fully passed."""
    return copy.deepcopy(_GOOD)


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[..., Path]:
    """Write records as JSON Lines into a new file and return its path."""

    def write(records: list[Any], name: str = "observations.jsonl") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
        return path

    return write
