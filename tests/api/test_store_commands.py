"""A store answers as the folders do: the sample campaign ingested into an empty store gives
every command's output byte for byte as the same command over ``observations/``, through the
command line and through the library; labels and baseline references do what they say."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from scorecard import api
from scorecard.cli._app import app
from scorecard.contract import InputError, InputErrors, StoreError
from scorecard.store import Label
from tests.conftest import ROOT, without_receipt

NIGHTS = [
    f"observations/{name}" for name in sorted(p.name for p in (ROOT / "observations").iterdir())
]
IDS = ["campaign-2026-11-01", "campaign-2026-11-08", "campaign-2026-11-15", "campaign-2026-11-22"]


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(arg) for arg in args], input="")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The samples ingested, from the repository root as the folder commands read them."""
    folder = tmp_path_factory.mktemp("store") / "history"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        report = api.ingest(["observations"], folder, workers=1)
        assert [(item.id, item.status) for item in report.bundles] == [(id, "added") for id in IDS]
        yield folder


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.mark.usefixtures("at_root")
@pytest.mark.parametrize(
    "arguments",
    [
        ("--format", "json"),
        ("--format", "csv", "--across-bundles", "opencode-glm"),
        ("--format", "json", "--bundle", IDS[1], "--by", "provider"),
        ("--baseline", IDS[0]),
    ],
)
def test_compare_from_the_store_is_compare_of_the_folders(
    store: Path, arguments: tuple[str, ...]
) -> None:
    """Byte for byte, but the JSON receipt's ``sources`` (the store and the bundles it read, or
    the folders given): its inputs are the digests the store kept, the folders' own."""
    from_store = invoke("compare", "--store", store, "--workers", "1", *arguments)
    from_folders = invoke("compare", "observations", "--workers", "1", *arguments)
    assert from_store.exit_code == from_folders.exit_code == 0, from_store.output
    outputs = []
    for output in (from_store.stdout, from_folders.stdout):
        receipt = json.loads(output)["receipt"] if "json" in arguments else {}
        receipt.pop("sources", None)
        outputs.append((without_receipt(output), receipt))
    assert outputs[0] == outputs[1]


@pytest.mark.usefixtures("at_root")
@pytest.mark.parametrize("nights", [1, 3])
def test_gate_from_the_store_writes_the_folders_reports(
    store: Path, tmp_path: Path, nights: int
) -> None:
    """`gate --store S --baseline last:N` against `gate NEWEST --baseline ...` of the N folders
    before: the same verdict line, exit status, JSON, markdown and per-run JUnit; the JSON's
    receipt differs only in its ``sources`` (a store and bundle ids, or the folders given): its
    inputs are the digests the store kept at ingest, the folders' own."""
    outputs = {}
    sources: dict[str, dict[str, object]] = {}
    for label, head in (
        ("store", ["--store", str(store), "--baseline", f"last:{nights}"]),
        ("folders", [NIGHTS[-1], *(f"--baseline={night}" for night in NIGHTS[-1 - nights : -1])]),
    ):
        files = [tmp_path / f"{label}.{name}" for name in ("json", "md", "xml")]
        result = invoke(
            "gate", *head, "--json", files[0], "--markdown", files[1], "--junit-runs", files[2]
        )
        document = json.loads(files[0].read_bytes())
        sources[label] = document["receipt"].pop("sources")
        files[0].write_text(json.dumps(document), encoding="utf-8")
        outputs[label] = (result.exit_code, result.stdout, *(path.read_bytes() for path in files))
    assert outputs["store"] == outputs["folders"]
    assert outputs["store"][0] == 1  # opencode-glm regressed
    assert (sources["store"]["store"], sources["store"]["baselines"]) == (
        str(store),
        IDS[-1 - nights : -1],
    )
    assert sources["folders"]["baselines"] == NIGHTS[-1 - nights : -1]


@pytest.mark.usefixtures("at_root")
def test_explain_history_and_plots_from_the_store_are_the_folders(
    store: Path, tmp_path: Path
) -> None:
    for command in (
        ("explain", "--bundle", IDS[-1], "--failing-only", "--format", "json"),
        ("history", "--format", "json"),
    ):
        source = NIGHTS[-1] if command[0] == "explain" else "observations"
        from_store = invoke(*command, "--store", store)
        from_folders = invoke(*command, source, "--workers", "1")
        assert from_store.exit_code == from_folders.exit_code == 0, from_store.output
        assert from_store.stdout == from_folders.stdout
    sources: tuple[tuple[str, tuple[str | Path, ...]], ...] = (
        ("store", ("--store", store)),
        ("folders", ("observations",)),
    )
    for where, read in sources:
        result = invoke(
            "plot", "heatmap", *read, "--out", tmp_path / f"{where}.png", "--workers", "1"
        )
        assert result.exit_code == 0, result.output
    assert (tmp_path / "store.png").read_bytes() == (tmp_path / "folders.png").read_bytes()


@pytest.mark.usefixtures("at_root")
@pytest.mark.parametrize(
    ("arguments", "status"),
    [
        (("--candidate", "opencode-glm"), 0),
        (("--case-id", "restart-recovery", "--case-id", "trace-lineage"), 0),
        (("--candidate", "opencode-glm", "--case-id", "restart-recovery"), 0),
        (("--candidate", "opencode-glm", "--candidate", "no-such-candidate"), 2),
        (("--case-id", "restart-recovry"), 2),
    ],
)
def test_history_of_a_few_candidates_or_cases_from_the_store_is_the_folders(
    store: Path, arguments: tuple[str, ...], status: int
) -> None:
    """The store reads only the rows of the candidates and cases asked for; the output, and
    the error naming an unknown one, are the folders' byte for byte."""
    from_store = invoke("history", "--format", "json", *arguments, "--store", store)
    from_folders = invoke("history", "--format", "json", *arguments, "observations")
    assert (from_store.exit_code, from_store.stdout, from_store.stderr) == (
        from_folders.exit_code,
        from_folders.stdout,
        from_folders.stderr,
    )
    assert from_store.exit_code == status, from_store.output


@pytest.mark.usefixtures("at_root")
def test_the_report_of_a_night_from_the_store_is_the_folders_site(store: Path) -> None:
    """Every page the same bytes; the receipts (``receipt.json``) the same but their
    ``sources`` (the store and the bundles it showed, or the folders given). Only the current
    night's runs are listed and shown: the night before is context."""
    from_store = api.build_report(store=store, current=IDS[-1], baseline="previous").files
    from_folders = api.build_report(NIGHTS[-2:], current=IDS[-1], workers=1).files
    shards = {name.split("/")[2] for name in from_store if name.startswith("data/runs/")}
    assert shards == {IDS[-1]}
    assert {name.split("/")[1] for name in from_store if name.startswith("changes/")} == {IDS[-1]}
    with pytest.raises(InputError, match="no bundle 'nightly-x' among the inputs"):
        api.build_report(NIGHTS[-2:], current="nightly-x", workers=1)
    receipts = []
    for files in (from_store, from_folders):
        receipt = json.loads(files.pop(api.SITE_RECEIPT))["receipt"]
        receipts.append((receipt.pop("sources"), receipt))
    assert from_store == from_folders
    assert receipts[0][1] == receipts[1][1]
    assert receipts[0][0]["bundles"] == IDS[-2:]


def test_baseline_references_name_nights_before_the_one_judged(store: Path) -> None:
    opened = api.open_campaign_store(store)
    assert api.baseline_bundles(opened, IDS[-1], "last:2") == IDS[1:3]
    assert api.baseline_bundles(opened, IDS[-1], "last:99") == IDS[:3]
    assert api.baseline_bundles(opened, IDS[2], "previous") == [IDS[1]]
    assert api.baseline_bundles(opened, IDS[-1], f"{IDS[2]},{IDS[0]}") == [IDS[0], IDS[2]]
    assert api.baseline_bundles(opened, IDS[-1], ["last:1"]) == [IDS[2]]
    with pytest.raises(InputError, match="no night before"):
        api.baseline_bundles(opened, IDS[0], "last:3")
    with pytest.raises(InputError, match="holds the bundle judged"):
        api.baseline_bundles(opened, IDS[1], IDS[1])
    with pytest.raises(InputErrors) as raised:
        api.baseline_bundles(opened, IDS[-1], "campaign-2026-11-07")
    assert "did you mean" in raised.value.errors[0].message


def test_a_quarantined_case_never_fails_the_gate_until_it_expires(
    store: Path, tmp_path: Path
) -> None:
    """opencode-glm's new hard-gate failures of 2026-11-22 are on three cases: with all three
    quarantined the gate no longer fails on them; with the labels expired before the night it
    does again, and the report says so."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(store, copy)
    judged = api.judge(None, "last:1", store=copy)
    assert judged.result.verdict == "fail"
    failing_cases = sorted(
        {
            item.run.case
            for item in judged.result.failures
            if item.run.candidate == "opencode-glm" and item.new
        }
    )
    assert failing_cases
    for case in failing_cases:
        api.add_label(
            copy, Label("opencode-glm", "quarantined", case, owner="ana", reason="triaged")
        )
    quiet = api.judge(None, "last:1", store=copy)
    assert not any(
        item.run.candidate == "opencode-glm" and item.run.case in failing_cases
        for item in quiet.result.failures
    )
    assert sum("label quarantined: opencode-glm" in note for note in quiet.result.notes) == len(
        failing_cases
    )
    for case in failing_cases:
        api.add_label(copy, Label("opencode-glm", "quarantined", case, expires="2026-11-21"))
    again = api.judge(None, "last:1", store=copy)
    assert again.result.failures == judged.result.failures
    assert any(note.startswith("label expired, applies no more") for note in again.result.notes)


def test_labels_are_checked_and_secrets_refused(store: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(store, copy)
    for bad, pointer in (
        (Label("opencode-glm", "Quarantined"), "/label"),
        (Label("opencode-glm", "quarantined", expires="31/12/2026"), "/expires"),
        (Label("opencode-glm", "quarantined", reason="token sk-" + "a" * 24), "/reason"),
        (Label("opencode-glm", "quarantined", "final-response", bundle=IDS[0]), "/repetition"),
    ):
        with pytest.raises(StoreError) as raised:
            api.add_label(copy, bad)
        assert raised.value.pointer == pointer
        assert "sk-" not in str(raised.value)
    assert api.store_labels(copy)[0].labels == ()
    assert api.remove_labels(copy, "opencode-glm") == 0


def test_approved_baseline_is_what_was_approved(store: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(store, copy)
    with pytest.raises(InputError, match="no approved baseline"):
        api.judge(None, "approved", store=copy)
    result = invoke("baseline", "approve", "--store", copy, IDS[1], IDS[0])
    assert (result.exit_code, result.stdout) == (0, f"approved baseline: {IDS[0]}, {IDS[1]}\n")
    approved = api.judge(None, "approved", store=copy)
    assert (
        json.loads(
            __import__("scorecard.report", fromlist=["x"]).render_gate_json(approved.result)
        )["baseline_nights"]
        == IDS[:2]
    )
    with pytest.raises(StoreError):
        api.approve_baseline(copy, ["campaign-1999-01-01"])


def test_query_is_read_only_and_formats_rows(store: Path, tmp_path: Path) -> None:
    result = invoke(
        "query", "--store", store, "select count(*) as n from runs", "--format", "jsonl"
    )
    assert (result.exit_code, result.stdout) == (0, '{"n":560}\n')
    refused = invoke("query", "--store", store, "create table x as select 1")
    assert refused.exit_code == 2
    assert "error:" in refused.stderr
    out = tmp_path / "rows.csv"
    written = invoke(
        "query",
        "--store",
        store,
        "select id, runs from bundles order by position",
        "--out",
        out,
    )
    assert written.exit_code == 0, written.output
    assert out.read_text(encoding="utf-8").splitlines()[0] == "id,runs"


def test_paths_and_a_store_together_are_a_usage_error(store: Path) -> None:
    result = invoke("compare", "observations", "--store", store)
    assert result.exit_code == 2
    assert "give PATH... or --store, not both" in result.stderr


def test_ingest_command_reports_each_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    target = tmp_path / "s"
    first = invoke("ingest", "--store", target, NIGHTS[0], "--workers", "1")
    again = invoke("ingest", "--store", target, NIGHTS[0], "--workers", "1")
    assert (first.exit_code, first.stdout) == (0, f"added {IDS[0]} (140 runs)\n")
    assert (again.exit_code, again.stdout) == (0, f"unchanged {IDS[0]} (140 runs)\n")


def test_the_per_case_ledger_reads_older_nights_when_asked(store: Path, tmp_path: Path) -> None:
    """11-22 against the night before: the ledger holds that one night; with
    ``gate.case.historyNights: 3`` also the two nights before it (11-01 and 11-08), never the
    night judged."""
    shallow = api.judge(None, "previous", store=store).result
    assert shallow.case_findings
    assert max(item.history_nights for item in shallow.case_findings) == 1
    policy = tmp_path / "gate.yaml"
    policy.write_text("gate:\n  case:\n    historyNights: 3\n", encoding="utf-8")
    deep = api.judge(None, "previous", store=store, policy=policy).result
    assert deep.baseline_nights == (IDS[2],)
    assert deep.case_findings
    assert max(item.history_nights for item in deep.case_findings) == 3


def test_a_baseline_older_than_the_limit_warns_from_the_store_and_the_folders(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``gate.baseline.maxAgeDays: 10``, 11-22 against the three nights before it: the
    manifests' nights (and the store's) put 11-01 21 days and 11-08 14 days before it, two
    warnings, the same from the store as from the folders; 11-15 (7 days) none."""
    monkeypatch.chdir(ROOT)
    policy = tmp_path / "gate.yaml"
    policy.write_text("gate:\n  baseline:\n    maxAgeDays: 10\n", encoding="utf-8")
    stored = api.judge(None, "last:3", store=store, policy=policy).result
    folders = api.judge(NIGHTS[3], NIGHTS[:3], policy=policy).result
    for result in (stored, folders):
        warnings = [(o.subject, o.status) for o in result.outcomes if o.rule == "baseline"]
        assert warnings == [(IDS[0], "warn"), (IDS[1], "warn")]
    assert [o.summary for o in stored.outcomes if o.rule == "baseline"] == [
        o.summary for o in folders.outcomes if o.rule == "baseline"
    ]
    assert "is 21 days before the current night (2026-11-22), more than 10" in next(
        o.summary for o in folders.outcomes if o.rule == "baseline"
    )


def test_view_of_a_night_from_the_store_serves_its_report(store: Path) -> None:
    """`view --store` serves, made on request, every file `report --store` writes for the same
    night, byte for byte (the receipt too), and stops on SIGTERM."""
    import signal
    import subprocess

    from tests.view_server import assert_serves_every_file, running_view

    built = api.build_report(store=store, current=IDS[-1], baseline="previous").files
    with running_view("--store", str(store), "--current", IDS[-1], stderr=subprocess.PIPE) as (
        server,
        address,
    ):
        assert_serves_every_file(address, built)
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        assert server.stderr is not None
        assert server.stderr.read() == "stopped\n"
