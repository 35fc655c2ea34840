"""`compare` and `plot` of Parquet read through Arrow: the same bytes as of the same records read
from a JSON Lines records file, and no Python rows unless a view needs runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scorecard.cli._app import app
from scorecard.simulate import REGRESSED_CANDIDATE
from scorecard.simulate.campaign import simulate_campaign
from tests.conftest import without_receipt


def run(*args: str | Path) -> str:
    """``scorecard ARGS`` in-process; its stdout (it must exit 0)."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A generated three-bundle campaign scored once into each scored form."""
    root = tmp_path_factory.mktemp("campaign")
    folders = simulate_campaign(root / "observations", seed=7, bundles=3)
    forms = {
        "records": ("--format", "records", "--out", root / "scored.jsonl"),
        "parquet": ("--out", root / "scored.parquet"),
        "dataset": ("--out", root / "dataset.parquet", "--partition-by-bundle"),
    }
    for options in forms.values():
        run("score", *folders, "--workers", "1", *options)
    return {
        name: Path(str(options[1 if name == "dataset" else -1])) for name, options in forms.items()
    }


VIEWS = {
    "campaign": ("--format", "json"),
    "campaign-csv": ("--format", "csv"),
    "across-bundles": ("--across-bundles", REGRESSED_CANDIDATE, "--format", "json"),
    "side-by-side": ("--by", "provider", "--format", "json"),
}


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_compare_of_parquet_is_compare_of_the_records(scored: dict[str, Path], view: str) -> None:
    """Every view of the Parquet file and of the bundle-partitioned dataset is, byte for byte,
    the view of the same records read from JSON Lines."""
    expected = without_receipt(run("compare", scored["records"], *VIEWS[view]))
    assert without_receipt(run("compare", scored["parquet"], *VIEWS[view])) == expected
    assert without_receipt(run("compare", scored["dataset"], *VIEWS[view])) == expected


def test_a_view_without_runs_reads_no_python_rows(
    scored: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Following a candidate needs only the frame: Parquet is never read as rows for it."""
    import scorecard.engine.parquet as parquet

    def refused(*_: object) -> None:
        raise AssertionError("Parquet read as Python rows")

    monkeypatch.setattr(parquet, "read_parquet_rows", refused)
    view = VIEWS["across-bundles"]
    assert without_receipt(run("compare", scored["parquet"], *view)) == without_receipt(
        run("compare", scored["records"], *view)
    )


def test_plot_of_parquet_is_plot_of_the_records(
    scored: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plot drawn from Parquet is the plot drawn from the records (SVG, byte for byte, its
    element ids salted alike: matplotlib draws them at random otherwise)."""
    import matplotlib

    monkeypatch.setitem(matplotlib.rcParams, "svg.hashsalt", "scorecard")
    for name in ("records", "parquet"):
        run("plot", "overall", scored[name], "--out", tmp_path / f"{name}.svg")
    assert (tmp_path / "parquet.svg").read_bytes() == (tmp_path / "records.svg").read_bytes()


def test_explain_of_parquet_says_it_needs_the_observations(scored: dict[str, Path]) -> None:
    """Parquet holds no reasons: explain refuses it by name (exit 2), not as broken JSON."""
    result = CliRunner().invoke(app, ["explain", str(scored["parquet"])])
    assert result.exit_code == 2
    assert "[not_observations]" in result.stderr
    assert "invalid_utf8" not in result.stderr


def test_parquet_compare_rejects_what_the_rows_path_rejects(tmp_path: Path) -> None:
    """No records, bytes that are not Parquet: exit 2 with the rows path's rule, listed in
    --errors as load_records lists them."""
    from scorecard.engine.parquet import write_parquet

    empty = tmp_path / "empty.parquet"
    write_parquet([], empty)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet")
    errors = tmp_path / "errors.jsonl"
    for path, rule in ((empty, "no_records"), (broken, "unreadable")):
        result = CliRunner().invoke(app, ["compare", str(path), "--errors", str(errors)])
        assert result.exit_code == 2
        assert f"[{rule}]" in result.stderr
    written = [json.loads(line) for line in errors.read_text().splitlines()]
    assert [(error["source"], error["rule"]) for error in written] == [(str(broken), "unreadable")]
