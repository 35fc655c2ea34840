"""The seeded sample generator: committed data reproducible, valid, realistic, regressed."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract._bundles import MANIFEST_NAME, parse_manifest
from scorecard.contract._catalog import Catalog
from scorecard.contract._models import CASE_IDS, ScorecardV2, WorkflowObservation
from scorecard.core._scoring import score_observation
from scorecard.core._validation import collect_unknown_fields, validate_observation
from scorecard.simulate.campaign import OBSERVATIONS_NAME, is_sample_folder, simulate_campaign
from scorecard.simulate.roster import REGRESSED_CANDIDATE, ROSTER

from .conftest import OBSERVATION_SCHEMA

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "observations"


@dataclass(frozen=True)
class ScoredBundle:
    """One generated bundle: its id, raw records, validated observations and scorecards."""

    id: str
    records: list[dict[str, Any]]
    observations: list[WorkflowObservation]
    cards: list[ScorecardV2]


def _sample_files(root: Path) -> dict[str, bytes]:
    """Every file of the generator's bundle folders under ``root``, by relative path."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for folder in sorted(root.iterdir())
        if is_sample_folder(folder)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _score_bundle(folder: Path, catalog: Catalog) -> ScoredBundle:
    bundle_id = parse_manifest((folder / MANIFEST_NAME).read_text(encoding="utf-8")).id
    lines = (folder / OBSERVATIONS_NAME).read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    observations = [validate_observation(record) for record in records]
    cards = [
        score_observation(observation, catalog[observation.case_id], bundle_id=bundle_id)
        for observation in observations
    ]
    return ScoredBundle(bundle_id, records, observations, cards)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Path:
    """A freshly generated default campaign."""
    output = tmp_path_factory.mktemp("campaign")
    simulate_campaign(output, catalog=catalog)
    return output


@pytest.fixture(scope="module")
def campaign(generated: Path, catalog: Catalog) -> list[ScoredBundle]:
    """The generated campaign, validated and scored, oldest bundle first."""
    folders = sorted(folder for folder in generated.iterdir() if is_sample_folder(folder))
    return [_score_bundle(folder, catalog) for folder in folders]


def _mean_score(bundle: ScoredBundle, candidate_id: str) -> float:
    return statistics.mean(
        card.overall.score
        for card in bundle.cards
        if card.candidate_id == candidate_id and card.overall.score is not None
    )


def test_regenerating_reproduces_the_committed_samples_byte_for_byte(generated: Path) -> None:
    """``dev/generate_samples.py`` output equals the committed ``observations/`` files."""
    committed = _sample_files(SAMPLES)
    assert sorted(committed) == sorted(_sample_files(generated))
    for name, content in _sample_files(generated).items():
        assert committed[name] == content, name


def test_every_observation_validates_scores_and_uses_only_known_fields(
    campaign: list[ScoredBundle],
) -> None:
    """Each record passes validation, the upstream schema and scoring with no unknown field."""
    for bundle in campaign:
        for record, observation, card in zip(
            bundle.records, bundle.observations, bundle.cards, strict=True
        ):
            assert [error.message for error in OBSERVATION_SCHEMA.iter_errors(record)] == []
            assert collect_unknown_fields(observation) == []
            assert card.bundle_id == bundle.id


def test_the_newest_bundle_shows_the_regression(campaign: list[ScoredBundle]) -> None:
    """The regressed candidate fails hard gates in the newest bundle and scores lowest there."""
    *history, newest = campaign
    hard_failures = [
        card
        for card in newest.cards
        if card.candidate_id == REGRESSED_CANDIDATE
        and card.dimensions["hard_invariants"].passed is False
    ]
    assert len(hard_failures) >= 2
    assert all(card.overall.gate_passed is False for card in hard_failures)
    newest_mean = _mean_score(newest, REGRESSED_CANDIDATE)
    assert all(newest_mean < _mean_score(bundle, REGRESSED_CANDIDATE) for bundle in history)


def test_older_bundles_have_at_most_one_hard_gate_failure(campaign: list[ScoredBundle]) -> None:
    """Hard-gate failures stay rare before the regression."""
    for bundle in campaign[:-1]:
        failures = [
            card for card in bundle.cards if card.dimensions["hard_invariants"].passed is False
        ]
        assert len(failures) <= 1, bundle.id


def test_every_candidate_runs_every_case_with_the_documented_repetitions(
    campaign: list[ScoredBundle],
) -> None:
    """140 runs per bundle: 7 candidates x (8 cases once + 4 cases three times)."""
    repeated = {"final-response", "rich-activity", "governed-interaction", "completion-robustness"}
    expected = Counter(
        {
            (candidate.spec.id, case_id): 3 if case_id in repeated else 1
            for candidate in ROSTER
            for case_id in CASE_IDS
        }
    )
    for bundle in campaign:
        assert len(bundle.observations) == 140
        runs = Counter((obs.candidate_id, obs.case_id) for obs in bundle.observations)
        assert runs == expected


def test_the_campaign_mixes_wire_traces_and_provider_skewed_infrastructure_failures(
    campaign: list[ScoredBundle],
) -> None:
    """Some runs carry wire events, infrastructure failures carry failure objects and cluster."""
    observations = [obs for bundle in campaign for obs in bundle.observations]
    assert any(obs.base.trace.wire_events for obs in observations)
    infrastructure = [obs for obs in observations if obs.classification == "infrastructure_failure"]
    assert infrastructure
    assert all(obs.failure is not None and obs.failure.retryable for obs in infrastructure)
    per_provider = Counter(obs.provider for obs in infrastructure)
    assert per_provider["opencode"] > per_provider["codex"]


def test_same_seed_gives_the_same_bytes_and_another_seed_does_not(
    tmp_path: Path, catalog: Catalog
) -> None:
    """Generation is a pure function of the seed."""
    first, again, other = (tmp_path / name for name in ("first", "again", "other"))
    simulate_campaign(first, seed=7, bundles=2, catalog=catalog)
    simulate_campaign(again, seed=7, bundles=2, catalog=catalog)
    simulate_campaign(other, seed=8, bundles=2, catalog=catalog)
    assert _sample_files(first) == _sample_files(again)
    first_files, other_files = _sample_files(first), _sample_files(other)
    assert sorted(first_files) == sorted(other_files)
    assert all(first_files[name] != other_files[name] for name in first_files)
