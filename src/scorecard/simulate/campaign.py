"""Campaigns: the nightly schedule, planted incidents, bundle manifests and the files written.

Each bundle's draws come from a ``random.Random`` seeded from the campaign seed and the bundle
index (schedule, drift, incidents), and one per candidate seeded from that and the candidate id
(its runs), so one candidate's runs never shift another's.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from scorecard.contract import (
    CAMPAIGN_SCHEMA,
    MANIFEST_NAME,
    CampaignManifest,
    Catalog,
    load_catalog,
    manifest_json,
)
from scorecard.engine import atomic_writer

from .cases import CASE_TRAITS, JsonObject, Setting
from .randomness import chance, derive_seed
from .roster import REGRESSED_CANDIDATE, ROSTER, drift, regress
from .runs import simulate_run

OBSERVATIONS_NAME = "observations.jsonl"
#: Names of the bundle folders this generator writes (and may therefore replace).
SAMPLE_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2}-nightly$")
FIRST_NIGHT = date(2026, 11, 1)
NIGHTS_BETWEEN_BUNDLES = 7
REPEATED_CASES = frozenset(
    {"final-response", "rich-activity", "governed-interaction", "completion-robustness"}
)
REPETITIONS = 3


@dataclass(frozen=True)
class SimulatedBundle:
    """One campaign night: its folder name, manifest and observations in schedule order."""

    folder: str
    manifest: CampaignManifest
    observations: list[JsonObject]


def _schedule(catalog: Catalog) -> list[tuple[str, int]]:
    """(case, repetition) pairs a candidate runs, in catalog order then repetition."""
    return [
        (case_id, repetition)
        for case_id in catalog
        for repetition in range(REPETITIONS if case_id in REPEATED_CASES else 1)
    ]


def _incidents(rng: random.Random, runs: int, *, newest: bool) -> dict[str, set[int]]:
    """Schedule positions at which a candidate invokes a forbidden call (a hard-gate failure).

    Older nights have at most one, most likely from a less restrained candidate; the newest
    night adds two or three for the regressed candidate.
    """
    incidents: dict[str, set[int]] = {}
    if chance(rng, 0.5):
        weights = [1 - candidate.skills.restraint for candidate in ROSTER]
        chosen = rng.choices(ROSTER, weights)[0]
        incidents.setdefault(chosen.spec.id, set()).add(rng.randrange(runs))
    if newest:
        positions = rng.sample(range(runs), 2 + rng.randrange(2))
        incidents.setdefault(REGRESSED_CANDIDATE, set()).update(positions)
    return incidents


def _manifest(bundle_id: str, night: date, index: int, schedule_seed: int) -> CampaignManifest:
    return CampaignManifest.model_validate(
        {
            "schema": CAMPAIGN_SCHEMA,
            "id": bundle_id,
            "night": night.isoformat(),
            "runnerVersion": f"0.8.{index}",
            "promptPolicy": "paperclip-default-v3",
            "providerVersions": {"codex": f"0.98.{index}", "opencode": "1.4.2", "acpx": "0.6.0"},
            "scheduleSeed": schedule_seed,
            "candidates": [candidate.spec for candidate in ROSTER],
        }
    )


def simulate_bundle(index: int, *, seed: int, bundles: int, catalog: Catalog) -> SimulatedBundle:
    """Bundle ``index`` (0 = oldest) of a ``bundles``-night campaign."""
    night = FIRST_NIGHT + timedelta(days=NIGHTS_BETWEEN_BUNDLES * index)
    bundle_id = f"campaign-{night.isoformat()}"
    schedule_seed = derive_seed(seed, "bundle", index)
    bundle_rng = random.Random(schedule_seed)
    schedule = _schedule(catalog)
    newest = index == bundles - 1
    incidents = _incidents(bundle_rng, len(schedule), newest=newest)
    observations: list[JsonObject] = []
    for candidate in ROSTER:
        skills = drift(bundle_rng, candidate.skills)
        if newest and candidate.spec.id == REGRESSED_CANDIDATE:
            skills = regress(skills)
        rng = random.Random(derive_seed(schedule_seed, candidate.spec.id))
        planned = incidents.get(candidate.spec.id, set())
        for position, (case_id, repetition) in enumerate(schedule):
            case = catalog[case_id]
            setting = Setting(bundle_id, candidate, skills, case, CASE_TRAITS[case_id], repetition)
            observations.append(simulate_run(rng, setting, incident=position in planned))
    return SimulatedBundle(
        f"{night.isoformat()}-nightly",
        _manifest(bundle_id, night, index, schedule_seed),
        observations,
    )


def observation_line(observation: JsonObject) -> str:
    """One observation as a compact JSON line."""
    return json.dumps(observation, separators=(",", ":"), ensure_ascii=False) + "\n"


def is_sample_folder(path: Path) -> bool:
    """Whether ``path`` is a bundle folder this generator writes (so it may replace it)."""
    return path.is_dir() and SAMPLE_FOLDER.match(path.name) is not None


def _write_bundle(folder: Path, bundle: SimulatedBundle) -> None:
    with atomic_writer(folder / MANIFEST_NAME) as stream:
        stream.write(manifest_json(bundle.manifest))
    with atomic_writer(folder / OBSERVATIONS_NAME) as stream:
        stream.writelines(observation_line(observation) for observation in bundle.observations)


def iter_bundles(
    *, seed: int = 20261129, bundles: int = 4, catalog: Catalog | None = None
) -> Iterator[SimulatedBundle]:
    """The campaign's bundles, oldest first, without touching any file."""
    if bundles < 1:
        raise ValueError("a campaign has at least one bundle")
    catalog = catalog or load_catalog()
    for index in range(bundles):
        yield simulate_bundle(index, seed=seed, bundles=bundles, catalog=catalog)


def simulate_campaign(
    output_dir: Path, *, seed: int = 20261129, bundles: int = 4, catalog: Catalog | None = None
) -> list[Path]:
    """Write ``bundles`` sample bundle folders under ``output_dir``; return them oldest first.

    Each folder (``YYYY-MM-DD-nightly``, so name order is campaign order) holds ``bundle.json``
    and ``observations.jsonl``. Same seed and catalog, same bytes.
    """
    folders: list[Path] = []
    for bundle in iter_bundles(seed=seed, bundles=bundles, catalog=catalog):
        folder = output_dir / bundle.folder
        _write_bundle(folder, bundle)
        folders.append(folder)
    return folders
