"""``compare --store S --scheduler ADDRESS``: the store's nights read into the campaign frame on
a Dask cluster of worker processes give the frame, and the comparison, of the local read."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from scorecard import api
from scorecard.aggregate import records_frame
from scorecard.cli._app import app
from scorecard.contract import InputError
from scorecard.store import Store, open_store
from tests.store.conftest import NIGHTS, write_campaign

distributed = pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from scorecard.aggregate.distributed import cluster_frame  # noqa: E402 (Dask is there)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """A client of a real cluster of two worker processes, for the whole module."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as connected,
    ):
        yield connected
    deadline = time.monotonic() + 30  # worker processes still ending: joined, then killed
    for child in multiprocessing.active_children():
        child.join(timeout=max(0.0, deadline - time.monotonic()))
        if child.is_alive():
            child.kill()


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """A store of five generated nights (another seed than the samples')."""
    folder = tmp_path_factory.mktemp("generated")
    store = open_store(folder / "store", create=True)
    assert store.ingest(write_campaign(folder / "nights", seed=41, bundles=5), workers=1).ok
    return store


@pytest.fixture(scope="module")
def uneven(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """Three nights holding different candidates (and so providers and models): one without
    opencode-glm, one with it alone, one with all; each night's frame has other categories."""
    folder = tmp_path_factory.mktemp("uneven")
    lines = (NIGHTS[0] / "observations.jsonl").read_text(encoding="utf-8").splitlines()
    kept = {
        "a-without": [line for line in lines if '"opencode-glm"' not in line],
        "b-alone": [line for line in lines if '"opencode-glm"' in line],
        "c-all": lines,
    }
    nights = []
    for name, chosen in kept.items():
        assert chosen
        night = folder / "nights" / name
        night.mkdir(parents=True)
        (night / "observations.jsonl").write_text("\n".join(chosen) + "\n", encoding="utf-8")
        nights.append(night)
    store = open_store(folder / "store", create=True)
    assert store.ingest(nights, workers=1).ok
    return store


@pytest.mark.parametrize("which", ["sample", "generated", "uneven"])
def test_the_cluster_frame_is_the_local_frame(
    client: Any, sample_store: Store, generated: Store, uneven: Store, which: str
) -> None:
    """Every column, value, dtype and category (in order) of the frame read here."""
    store = {"sample": sample_store, "generated": generated, "uneven": uneven}[which]
    order = [entry.id for entry in store.bundles()]
    files = store.runs_files(order)
    expected = records_frame(files, bundle_order=order)
    found = cluster_frame(client, files, order)
    pd.testing.assert_frame_equal(found, expected, check_exact=True)
    for name in ("bundle", "candidate", "provider", "model", "tier", "case"):
        assert list(found[name].cat.categories) == list(expected[name].cat.categories)


def test_a_comparison_on_the_cluster_is_the_local_one_byte_for_byte(
    client: Any, generated: Store
) -> None:
    """The JSON a comparison writes (receipt included) and its CSV, through the library."""
    from scorecard.report import view_csv, view_json

    local = api.compare(store=generated)
    remote = api.compare(store=generated, scheduler=client.scheduler.address)
    assert view_json(remote.view, remote.receipt) == view_json(local.view, local.receipt)
    assert view_csv(remote.view) == view_csv(local.view)


def test_the_command_on_the_cluster_writes_what_it_writes_here(
    client: Any, sample_store: Store, tmp_path: Path
) -> None:
    """``compare --store S --scheduler ADDRESS --format json``: the local output's bytes."""
    written = {}
    for name, extra in (("local", []), ("cluster", ["--scheduler", client.scheduler.address])):
        out = tmp_path / f"{name}.json"
        arguments = ["compare", "--store", str(sample_store.path), "--format", "json"]
        result = CliRunner().invoke(app, [*arguments, "--out", str(out), *extra])
        assert result.exit_code == 0, result.output
        written[name] = out.read_bytes()
    assert written["cluster"] == written["local"]
    assert b"opencode-glm" in written["local"]


def test_a_scheduler_without_a_store_is_a_usage_error() -> None:
    """Folders are scored here; only a store's nights are read on the cluster."""
    with pytest.raises(InputError, match="give --store too") as raised:
        api.compare(["observations"], scheduler="local")
    assert raised.value.rule == "usage"
