"""Receipts (docs/receipts.md): the gate's JSON names the bytes, catalog, policy, seed and version
it was computed from, and ``scorecard verify`` re-reads them and says identical or names the
first difference; receipts are the same bytes for any worker count, run and engine (the engine
field aside, which is information, never an identity)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from scorecard import api
from scorecard.cli._app import app
from scorecard.contract import InputError
from tests.conftest import PYTHON_ONLY, ROOT

NIGHTS = ["2026-11-01-nightly", "2026-11-08-nightly", "2026-11-15-nightly", "2026-11-22-nightly"]
SAMPLE = [  # .ci/gate-samples' failing gate: 2026-11-22 against the three nights before it
    "gate",
    "observations/2026-11-22-nightly",
    "--baseline",
    "observations/2026-11-01-nightly",
    "--baseline",
    "observations/2026-11-08-nightly",
    "--baseline",
    "observations/2026-11-15-nightly",
]


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(arg) for arg in args], input="")


def framed(parts: list[tuple[str, bytes]]) -> str:
    """SHA-256 over ``<len(name)>:<name><len(data)>:<data>`` per part (docs/receipts.md),
    written out here rather than taken from the code under test."""
    hashed = hashlib.sha256()
    for name, data in parts:
        encoded = name.encode()
        hashed.update(f"{len(encoded)}:".encode() + encoded + f"{len(data)}:".encode() + data)
    return hashed.hexdigest()


@pytest.fixture
def campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample nights and the case catalog copied to a folder, the working folder."""
    for night in NIGHTS:
        shutil.copytree(ROOT / "observations" / night, tmp_path / "observations" / night)
    shutil.copytree(ROOT / "cases", tmp_path / "cases")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def gate(*options: str | Path, out: str = "gate.json") -> dict[str, object]:
    result = invoke(
        "gate",
        "observations/2026-11-22-nightly",
        "--baseline",
        "observations/2026-11-15-nightly",
        "--json",
        out,
        *options,
    )
    assert result.exit_code == 1, result.output  # opencode-glm regressed
    document: dict[str, object] = json.loads(Path(out).read_text(encoding="utf-8"))
    return document


def verified(output: str = "gate.json", *options: str | Path) -> tuple[int, str]:
    result = invoke("verify", output, *options)
    return result.exit_code, result.stdout


@pytest.mark.usefixtures("campaign")
def test_the_sample_gate_json_carries_the_receipt_and_verifies_identical() -> None:
    """The receipt names each bundle's framed bytes (manifest first), the catalog's files, the
    seed, the version and the engine; verify says identical and exits 0."""
    result = invoke(*SAMPLE, "--json", "gate.json", "--workers", "1")
    assert result.exit_code == 1, result.output
    receipt = json.loads(Path("gate.json").read_text(encoding="utf-8"))["receipt"]
    night = Path("observations/2026-11-22-nightly")
    expected_current = framed(
        [(name, (night / name).read_bytes()) for name in ("bundle.json", "observations.jsonl")]
    )
    cases = sorted(Path("cases").iterdir())
    assert receipt["schema"] == "scorecard.receipt.v1"
    assert receipt["command"] == "gate"
    assert [(item["role"], item["bundle"]) for item in receipt["inputs"]] == [
        ("current", "campaign-2026-11-22"),
        ("baseline", "campaign-2026-11-01"),
        ("baseline", "campaign-2026-11-08"),
        ("baseline", "campaign-2026-11-15"),
    ]
    assert receipt["inputs"][0]["sha256"] == expected_current
    assert receipt["inputs"][0]["files"] == ["bundle.json", "observations.jsonl"]
    assert receipt["catalog"] == framed([(path.name, path.read_bytes()) for path in cases])
    assert (receipt["seed"], receipt["scorecard"]) == (0, "0.1.0")
    assert receipt["engine"] == ("python" if PYTHON_ONLY else "c")
    assert receipt["sources"]["current"] == "observations/2026-11-22-nightly"
    assert verified() == (0, "identical\n")


@pytest.mark.usefixtures("campaign")
def test_the_markdown_footer_is_the_receipt_in_one_line() -> None:
    document = gate("--markdown", "gate.md")
    last = Path("gate.md").read_text(encoding="utf-8").splitlines()[-1]
    assert last.startswith(f"Receipt: payload sha256 {document['receipt']['payload']} · inputs ")  # type: ignore[index]
    assert "· seed 0 · scorecard 0.1.0" in last


@pytest.mark.usefixtures("campaign")
def test_one_byte_of_one_input_changed_is_named() -> None:
    gate()
    runs = Path("observations/2026-11-15-nightly/observations.jsonl")
    data = bytearray(runs.read_bytes())
    data[-2:-1] = b" "  # the last line's closing brace: the file no longer even parses
    runs.write_bytes(bytes(data))
    status, line = verified()
    assert status == 1
    assert line.startswith(
        "differs: input: baseline bundle campaign-2026-11-15: its bytes changed (sha256 "
    )


@pytest.mark.usefixtures("campaign")
def test_a_file_added_to_a_bundle_is_named() -> None:
    gate()
    extra = Path("observations/2026-11-22-nightly/more.jsonl")
    extra.write_bytes(b"")
    assert verified() == (
        1,
        "differs: input: current bundle campaign-2026-11-22: file more.jsonl is new\n",
    )


@pytest.mark.usefixtures("campaign")
def test_another_policy_is_named() -> None:
    policy = Path("policy.yaml")
    policy.write_text("gate:\n  drop:\n    tolerance: 0.05\n", encoding="utf-8")
    gate("--policy", policy)
    assert verified() == (0, "identical\n")
    policy.write_text("gate:\n  drop:\n    tolerance: 0.06\n", encoding="utf-8")
    status, line = verified()
    assert (status, line.split(" sha256")[0]) == (1, "differs: policy: another policy:")


@pytest.mark.usefixtures("campaign")
def test_the_same_policy_spelt_otherwise_is_the_same_policy() -> None:
    """The policy's digest is of the canonical policy, defaults applied: a file that states a
    default is the policy of no file."""
    Path("policy.yaml").write_text("gate:\n  drop:\n    tolerance: 0.05\n", encoding="utf-8")
    first = gate("--policy", "policy.yaml", out="a.json")
    second = gate(out="b.json")
    assert first["receipt"]["policy"] == second["receipt"]["policy"]  # type: ignore[index]


@pytest.mark.usefixtures("campaign")
def test_another_catalog_is_named() -> None:
    gate("--cases", "cases")
    assert verified() == (0, "identical\n")
    case = sorted(Path("cases").iterdir())[0]
    case.write_bytes(case.read_bytes() + b"\n")  # one byte more; the case reads the same
    status, line = verified()
    assert (status, line.split(" sha256")[0]) == (1, "differs: catalog: another catalog:")


@pytest.mark.usefixtures("campaign")
def test_an_edited_output_is_another_payload() -> None:
    gate()
    text = Path("gate.json").read_text(encoding="utf-8")
    Path("gate.json").write_text(text.replace('"verdict": "fail"', '"verdict": "pass"'), "utf-8")
    assert verified() == (
        1,
        "differs: payload: the output is not the one its receipt names: it was changed after "
        "it was written\n",
    )


@pytest.mark.usefixtures("campaign")
def test_another_version_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    gate()
    import scorecard

    monkeypatch.setattr(scorecard, "__version__", "9.9.9")
    assert verified() == (
        1,
        "differs: version: another version: written by scorecard 0.1.0, this is scorecard 9.9.9\n",
    )


@pytest.mark.usefixtures("campaign")
def test_an_output_without_a_receipt_is_bad_input() -> None:
    Path("old.json").write_text('{"schema": "scorecard.gate.v1"}\n', encoding="utf-8")
    result = invoke("verify", "old.json")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: old.json /receipt: has no receipt")
    with pytest.raises(InputError) as raised:
        api.verify("old.json")
    assert (raised.value.rule, raised.value.pointer) == ("no_receipt", "/receipt")


@pytest.mark.usefixtures("campaign")
def test_receipts_are_the_same_bytes_for_any_worker_count_and_run() -> None:
    outputs = []
    for workers in ("1", "2", "1"):
        gate("--workers", workers, out=f"gate-{workers}.json")
        outputs.append(Path(f"gate-{workers}.json").read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]


def _command_line(*args: str, engine: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "SCORECARD_ENGINE": engine}
    return subprocess.run(
        [sys.executable, "-m", "scorecard", *args],
        capture_output=True,
        text=True,
        check=False,
        env=environment,
        cwd=cwd,
    )


@pytest.mark.skipif(PYTHON_ONLY, reason="SCORECARD_ENGINE=python: the C engine is off")
def test_receipts_are_the_same_under_both_engines_but_the_engine_field(campaign: Path) -> None:
    """A gate written by each engine (in processes of their own): the same JSON, the receipt's
    ``engine`` aside; each verifies identical under the other, saying so in a note."""
    written = {}
    for engine in ("c", "python"):
        done = _command_line(*SAMPLE[:4], "--json", f"{engine}.json", engine=engine, cwd=campaign)
        assert done.returncode == 1, done.stderr
        written[engine] = json.loads((campaign / f"{engine}.json").read_text(encoding="utf-8"))
    assert (written["c"]["receipt"]["engine"], written["python"]["receipt"]["engine"]) == (
        "c",
        "python",
    )
    written["python"]["receipt"]["engine"] = "c"
    assert written["c"] == written["python"]
    for output, engine in (("c.json", "python"), ("python.json", "c")):
        done = _command_line("verify", output, engine=engine, cwd=campaign)
        assert (done.returncode, done.stdout) == (0, "identical\n"), done.stderr
        assert "note: written with the " in done.stderr


def test_a_gate_from_the_store_verifies_against_the_store(campaign: Path) -> None:
    """The store's receipt names the digests kept at ingest (the folders' own); verify reads
    them from the store, and names a bundle replaced there since."""
    api.ingest(["observations"], "history", workers=1)
    result = invoke("gate", "--store", "history", "--baseline", "last:2", "--json", "gate.json")
    assert result.exit_code == 1, result.output
    receipt = json.loads(Path("gate.json").read_text(encoding="utf-8"))["receipt"]
    assert receipt["sources"]["baselines"] == ["campaign-2026-11-08", "campaign-2026-11-15"]
    folder = gate(out="folders.json")["receipt"]
    assert receipt["inputs"][0] == folder["inputs"][0]  # type: ignore[index]
    assert verified() == (0, "identical\n")
    shutil.copytree("history", "moved")
    assert verified("gate.json", "--store", "moved") == (0, "identical\n")
    runs = Path("observations/2026-11-15-nightly/observations.jsonl")
    lines = runs.read_bytes().splitlines(keepends=True)
    runs.write_bytes(b"".join(lines[:-1]))  # one run fewer
    report = api.ingest(["observations/2026-11-15-nightly"], "history", workers=1, replace=True)
    assert [item.status for item in report.bundles] == ["replaced"]
    status, line = verified()
    assert status == 1
    assert line.startswith(
        "differs: input: baseline bundle campaign-2026-11-15: its bytes changed (sha256 "
    )


@dataclass
class Digests:
    """Every document whose payload digest was computed since the spy was set, and the real
    digest (not counted)."""

    documents: list[object]
    real: Callable[[Any], str]


@pytest.fixture
def digests(monkeypatch: pytest.MonkeyPatch) -> Digests:
    from scorecard.contract import _receipt

    spy = Digests([], _receipt.payload_digest)

    def counted(document: Any) -> str:
        spy.documents.append(document)
        return spy.real(document)

    monkeypatch.setattr(_receipt, "payload_digest", counted)
    return spy


@pytest.mark.usefixtures("campaign")
def test_a_verdict_digests_its_payload_only_when_a_report_asks_for_its_receipt(
    digests: Digests,
) -> None:
    """The verdict line and the exit status need no receipt: a gate that writes no report
    does not digest its JSON; one that writes a report does, once, and the digest is the
    verdict JSON's."""
    from scorecard.report import gate_document

    digested = digests.documents
    result = invoke(*SAMPLE, "--workers", "1")
    assert result.exit_code == 1, result.output  # the sample's 2026-11-22 fails
    assert digested == []
    result = invoke(*SAMPLE, "--workers", "1", "--markdown", "gate.md")
    assert result.exit_code == 1, result.output
    assert len(digested) == 1
    judgement = api.judge(SAMPLE[1], SAMPLE[3::2], workers=1)
    assert len(digested) == 1
    assert judgement.result.receipt is not None
    expected = digests.real(gate_document(judgement.judged))
    assert judgement.result.receipt.payload == expected
    assert len(digested) == 2


@pytest.mark.usefixtures("campaign")
def test_a_comparison_digests_its_payload_only_when_its_receipt_is_asked_for(
    digests: Digests,
) -> None:
    """The payload digest of a large comparison's JSON costs a tenth of its time: a table or
    CSV, which carries no receipt, does not compute it; the receipt names the view's digest."""
    from scorecard.report import view_document

    digested = digests.documents
    found = api.compare(["observations"], workers=1)
    expected = digests.real(view_document(found.view))
    for written in ("table", "csv"):
        result = invoke("compare", "observations", "--format", written)
        assert result.exit_code == 0, result.output
    assert digested == []
    assert found.receipt is not None
    assert found.receipt.payload == expected
    assert len(digested) == 1
    assert found.receipt.payload == expected  # asked for once
    assert len(digested) == 1
    result = invoke("compare", "observations", "--format", "json", "--out", "compare.json")
    assert result.exit_code == 0, result.output
    assert len(digested) == 2


@pytest.mark.usefixtures("campaign")
def test_a_comparison_carries_its_receipt_and_verifies() -> None:
    """``compare --format json`` names every bundle it read; verify says identical, then names
    a night whose bytes changed."""
    result = invoke("compare", "observations", "--format", "json", "--out", "compare.json")
    assert result.exit_code == 0, result.output
    receipt = json.loads(Path("compare.json").read_text(encoding="utf-8"))["receipt"]
    assert receipt["command"] == "compare"
    assert [item["bundle"] for item in receipt["inputs"]] == [
        f"campaign-{night[:10]}" for night in NIGHTS
    ]
    assert verified("compare.json") == (0, "identical\n")
    runs = Path("observations/2026-11-08-nightly/observations.jsonl")
    runs.write_bytes(runs.read_bytes() + b"\n")
    status, line = verified("compare.json")
    assert status == 1
    assert line.startswith("differs: input: input bundle campaign-2026-11-08: its bytes changed")


def test_a_comparison_from_the_store_names_its_bundles_as_the_folders_do(campaign: Path) -> None:
    api.ingest(["observations"], "history", workers=1)
    from_store = api.compare(store="history", workers=1)
    from_folders = api.compare(["observations"], workers=1)
    assert from_store.receipt is not None
    assert from_folders.receipt is not None
    assert from_store.receipt.inputs == from_folders.receipt.inputs
    assert from_store.receipt.payload == from_folders.receipt.payload
    result = invoke("compare", "--store", "history", "--format", "json", "--out", "c.json")
    assert result.exit_code == 0, result.output
    assert verified("c.json") == (0, "identical\n")
    api.ingest(
        [campaign / "observations" / NIGHTS[0]], "history", workers=1, bundle_id="extra-night"
    )
    status, line = verified("c.json")
    assert (status, line) == (  # the same night as 2026-11-01: it sorts right after it
        1,
        "differs: input: input 2 is now input bundle extra-night, the receipt names input "
        "bundle campaign-2026-11-08\n",
    )


@pytest.mark.usefixtures("campaign")
def test_a_report_site_carries_its_receipt_and_verifies() -> None:
    """``receipt.json`` names the nights shown and the digest of every other file; verify
    (the folder or the file) says identical, then names an edited page or a changed night."""
    night = ["observations/2026-11-15-nightly", "observations/2026-11-22-nightly"]
    result = invoke("report", *night, "--out", "site", "--workers", "1")
    assert result.exit_code == 0, result.output
    receipt = json.loads(Path("site/receipt.json").read_text(encoding="utf-8"))["receipt"]
    assert receipt["command"] == "report"
    assert [item["bundle"] for item in receipt["inputs"]] == [
        "campaign-2026-11-15",
        "campaign-2026-11-22",
    ]
    pages = sorted(
        (path.relative_to("site").as_posix(), path.read_bytes())
        for path in Path("site").rglob("*")
        if path.is_file() and path.name != "receipt.json"
    )
    assert receipt["payload"] == framed(pages)
    assert verified("site") == (0, "identical\n")
    assert verified("site/receipt.json") == (0, "identical\n")
    runs = Path(night[0]) / "observations.jsonl"
    runs.write_bytes(runs.read_bytes() + b"\n")
    status, line = verified("site")
    assert status == 1
    assert line.startswith("differs: input: input bundle campaign-2026-11-15: its bytes changed")
    page = Path("site/index.html")
    page.write_bytes(page.read_bytes() + b" ")
    status, line = verified("site")
    assert (status, line.split(":")[:2]) == (1, ["differs", " payload"])


@pytest.mark.usefixtures("campaign")
def test_a_receipt_whose_sources_were_edited_is_bad_input_never_a_traceback() -> None:
    gate()
    text = Path("gate.json").read_text(encoding="utf-8")
    Path("gate.json").write_text(text.replace('"policy": null', '"policy": 3'), "utf-8")
    result = invoke("verify", "gate.json")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: gate.json /receipt/sources: do not name a run that can be repeated ("
    )
    assert "Traceback" not in result.output


@pytest.mark.usefixtures("campaign")
@pytest.mark.parametrize("partitioned", [False, True])
def test_parquet_carries_its_receipt_in_its_metadata_and_verifies(partitioned: bool) -> None:
    """``score --out X.parquet`` stamps the receipt on the file (each file of a dataset); its
    payload is the rows' digest, the same on any worker count; verify says identical, then
    names a night whose bytes changed."""
    import pyarrow.parquet as pq

    options = ["--partition-by-bundle"] if partitioned else []
    written = []
    for workers in ("1", "2"):
        out = f"scored-{workers}.parquet"
        result = invoke("score", "observations", "--out", out, "--workers", workers, *options)
        assert result.exit_code == 0, result.output
        files = sorted(Path(out).rglob("*.parquet")) if partitioned else [Path(out)]
        stamps = {pq.read_metadata(file).metadata[b"scorecard.receipt"] for file in files}
        assert len(stamps) == 1
        written.append(stamps.pop())
    assert written[0] == written[1]
    receipt = json.loads(written[0])
    assert receipt["command"] == "score"
    assert [item["bundle"] for item in receipt["inputs"]] == [
        f"campaign-{night[:10]}" for night in NIGHTS
    ]
    assert verified("scored-1.parquet") == (0, "identical\n")
    runs = Path("observations/2026-11-22-nightly/observations.jsonl")
    runs.write_bytes(runs.read_bytes() + b"\n")
    status, line = verified("scored-1.parquet")
    assert status == 1
    assert line.startswith("differs: input: input bundle campaign-2026-11-22: its bytes changed")


@pytest.mark.usefixtures("campaign")
def test_parquet_without_a_receipt_is_bad_input() -> None:
    from scorecard.engine.parquet import read_parquet_rows, write_parquet

    invoke("score", "observations/2026-11-01-nightly", "--out", "a.parquet")
    write_parquet(read_parquet_rows("a.parquet"), "plain.parquet")
    result = invoke("verify", "plain.parquet")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: plain.parquet /receipt: has no receipt")


@pytest.mark.usefixtures("campaign")
def test_parquet_whose_rows_were_edited_is_another_payload() -> None:
    import pyarrow.parquet as pq

    from scorecard.engine.parquet import read_parquet_rows, write_parquet

    invoke("score", "observations/2026-11-01-nightly", "--out", "a.parquet")
    stamp = pq.read_metadata("a.parquet").metadata[b"scorecard.receipt"]
    rows = read_parquet_rows("a.parquet")
    write_parquet(rows[1:], "edited.parquet", metadata=lambda: {b"scorecard.receipt": stamp})
    assert verified("edited.parquet") == (
        1,
        "differs: payload: the output is not the one its receipt names: it was changed after "
        "it was written\n",
    )
