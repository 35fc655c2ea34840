"""What the store's tests share: the sample nights, a store of them, and campaigns made here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scorecard.contract import MANIFEST_NAME, manifest_json
from scorecard.simulate import iter_bundles, observation_line
from scorecard.store import Store, open_store
from tests.conftest import ROOT

SAMPLES = ROOT / "observations"
NIGHTS = sorted(folder for folder in SAMPLES.iterdir() if folder.is_dir())


def copy_samples(target: Path) -> Path:
    """A copy of ``observations/`` under ``target`` (to change without touching the samples)."""
    copied = target / "observations"
    shutil.copytree(SAMPLES, copied)
    return copied


def write_campaign(folder: Path, *, seed: int, bundles: int) -> list[Path]:
    """A generated campaign of ``bundles`` nights (another seed than the samples'), one folder
    per night under ``folder``, each with its manifest."""
    written = []
    for bundle in iter_bundles(seed=seed, bundles=bundles):
        night = folder / bundle.folder
        night.mkdir(parents=True)
        (night / MANIFEST_NAME).write_text(manifest_json(bundle.manifest), encoding="utf-8")
        (night / "observations.jsonl").write_text(
            "".join(observation_line(item) for item in bundle.observations), encoding="utf-8"
        )
        written.append(night)
    return written


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """A store of the four sample nights (read-only for the tests that share it), ingested
    from ``observations/`` (its absolute path: what records name as each run's source)."""
    folder = tmp_path_factory.mktemp("store")
    store = open_store(folder / "store", create=True)
    report = store.ingest([str(SAMPLES)], workers=1)
    assert report.ok, report
    return store
