"""`gate` of Parquet sides reads them through Arrow, as `compare` does: the verdict is the one
the rows of the same files give, ids are redacted as ids read from files are, and a file that
is not the records' Parquet is the error `compare` reports for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scorecard.cli._app import app
from scorecard.engine.parquet import read_parquet_rows, write_parquet
from scorecard.gate import evaluate_gate, rows_side
from scorecard.report import render_gate_json, verdict_line
from scorecard.simulate.campaign import simulate_campaign
from tests.conftest import without_receipt


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two generated nights, each scored into its own Parquet file: (baseline, current)."""
    root = tmp_path_factory.mktemp("nights")
    folders = simulate_campaign(root / "observations", seed=11, bundles=2)
    files = []
    for index, folder in enumerate(folders):
        target = root / f"night-{index}.parquet"
        status, _, stderr = invoke("score", folder, "--workers", "1", "--out", target)
        assert status == 0, stderr
        files.append(target)
    return files[0], files[1]


def by_rows(current: Path, baseline: Path) -> tuple[str, str]:
    """The verdict line and JSON the gate gives of the Parquet files' Python rows."""
    result = evaluate_gate(
        rows_side(((row, None) for row in read_parquet_rows(current)), source=str(current)),
        rows_side(((row, None) for row in read_parquet_rows(baseline)), source=str(baseline)),
    )
    return verdict_line(result), render_gate_json(result)


def test_the_verdict_of_parquet_sides_is_the_verdict_of_their_rows(
    sides: tuple[Path, Path], tmp_path: Path
) -> None:
    baseline, current = sides
    out = tmp_path / "gate.json"
    status, stdout, _ = invoke("gate", current, "--baseline", baseline, "--json", out)
    line, document = by_rows(current, baseline)
    assert stdout == line + "\n"
    written = json.loads(out.read_text(encoding="utf-8"))
    receipt = written.pop("receipt")  # the command's own: what it read (docs/receipts.md)
    assert written == json.loads(document)
    assert [(item["role"], item["files"]) for item in receipt["inputs"]] == [
        ("current", [current.name]),
        ("baseline", [baseline.name]),
    ]
    assert status == {"pass": 0, "fail": 1, "inconclusive": 3}[json.loads(document)["verdict"]]


def test_secret_shaped_ids_in_parquet_are_redacted(
    sides: tuple[Path, Path], tmp_path: Path
) -> None:
    """A candidate id that another tool wrote secret-shaped never reaches the gate's outputs:
    the side's frame redacts it as `compare`'s does (and the reports redact what they write)."""
    from scorecard.contract import ROW_FIELDS

    baseline, current = sides
    secret = "ghp_" + "a" * 36
    candidate = ROW_FIELDS.index("candidate")
    for path in sides:
        rows = list(read_parquet_rows(path))
        renamed = rows[0][candidate]  # every run of one candidate
        rows = [
            (*row[:candidate], secret, *row[candidate + 1 :]) if row[candidate] == renamed else row
            for row in rows
        ]
        write_parquet(rows, tmp_path / path.name)
    out = tmp_path / "gate.json"
    status, stdout, stderr = invoke(
        "gate", tmp_path / current.name, "--baseline", tmp_path / baseline.name, "--json", out
    )
    assert status in (0, 1, 3), stderr
    assert "[redacted]" in out.read_text(encoding="utf-8")
    for text in (stdout, stderr, out.read_text(encoding="utf-8")):
        assert secret not in text


def test_a_file_that_is_not_the_records_parquet_is_refused(
    sides: tuple[Path, Path], tmp_path: Path
) -> None:
    """Not Parquet at all: unreadable; Parquet of another schema: wrong_schema (exit 2), as
    for `compare`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    baseline, _ = sides
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet")
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), other)
    for path, rule in ((broken, "unreadable"), (other, "wrong_schema")):
        status, _, stderr = invoke("gate", path, "--baseline", baseline)
        assert status == 2
        assert rule in stderr
        assert str(path) in stderr
        status, _, compared = invoke("compare", path)
        assert status == 2
        assert rule in compared


@pytest.fixture(scope="module")
def baseline_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The baseline night of :func:`sides` (the same seeded campaign) as a records file."""
    root = tmp_path_factory.mktemp("records")
    folders = simulate_campaign(root / "observations", seed=11, bundles=2)
    target = root / "night-0.jsonl"
    status, _, stderr = invoke(
        "score", folders[0], "--workers", "1", "--format", "records", "--out", target
    )
    assert status == 0, stderr
    return target


def test_the_baseline_bundle_id_names_a_parquet_side_as_it_names_a_records_file(
    sides: tuple[Path, Path], baseline_records: Path, tmp_path: Path
) -> None:
    """`--baseline-bundle-id` renames the baseline whatever file holds it: the gate's JSON of a
    Parquet baseline is that of the same runs read from a records file, both renamed, and it
    names the given id, not the file's."""
    baseline, current = sides
    documents = []
    for given in (baseline, baseline_records):
        out = tmp_path / f"{given.suffix[1:]}.json"
        status, _, stderr = invoke(
            "gate",
            current,
            "--baseline",
            given,
            "--baseline-bundle-id",
            "renamed-night",
            "--json",
            out,
        )
        assert status in (0, 1, 3), stderr
        documents.append(out.read_text(encoding="utf-8"))
    assert without_receipt(documents[0]) == without_receipt(documents[1])
    assert json.loads(documents[0])["baseline_bundle"] == "renamed-night"
    _, unnamed = by_rows(current, baseline)
    assert json.loads(unnamed)["baseline_bundle"] != "renamed-night"


def test_a_secret_shaped_bundle_id_is_refused_for_every_kind_of_side(
    sides: tuple[Path, Path], baseline_records: Path
) -> None:
    """A given bundle id is written in every report, so a secret-shaped one is refused (exit 2,
    the option named, the value withheld) before any side is read, Parquet and records files
    included."""
    baseline, current = sides
    secret = "ghp_" + "b" * 36
    for given in (baseline, baseline_records):
        for option in ("--baseline-bundle-id", "--bundle-id"):
            status, stdout, stderr = invoke("gate", current, "--baseline", given, option, secret)
            assert status == 2
            assert f"{option}: the bundle id is secret-shaped" in stderr
            assert "secret_in_identifier" in stderr
            assert secret not in stdout + stderr
