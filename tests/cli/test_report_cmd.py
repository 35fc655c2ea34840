"""``scorecard report`` and ``scorecard view``: the site written, byte-identical, guarded; the
server started on a free port, answering over HTTP, stopped by SIGTERM, its folder removed."""

from __future__ import annotations

import html
import http.client
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.view_server import assert_serves_every_file, running_view

SAMPLES = ROOT / "observations"


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    """Two small bundles: the first 30 runs of the last two sample nights."""
    root = tmp_path / "campaign"
    for night in ("2026-11-15-nightly", "2026-11-22-nightly"):
        folder = root / night
        folder.mkdir(parents=True)
        shutil.copy(SAMPLES / night / "bundle.json", folder / "bundle.json")
        lines = (SAMPLES / night / "observations.jsonl").read_text().splitlines()[:30]
        (folder / "observations.jsonl").write_text("\n".join(lines) + "\n")
    return root


def scorecard(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scorecard", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_report_writes_the_same_site_twice(campaign: Path, tmp_path: Path) -> None:
    """Exit 0, the index named on stdout; two runs give the same bytes; rewriting replaces the
    site and leaves nothing beside it."""
    first, second = tmp_path / "one", tmp_path / "two"
    done = scorecard("report", str(campaign), "--out", str(first), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{first / 'index.html'}\n"
    assert "pages to" in done.stderr
    again = scorecard("report", str(campaign), "--out", str(second), "--workers", "2")
    assert again.returncode == 0, again.stderr
    assert files_of(first) == files_of(second)
    assert "data/runs/campaign-2026-11-22/codex-luna/final-response.js" in files_of(first)
    overwrite = scorecard("report", str(campaign), "--out", str(first), "--workers", "1")
    assert overwrite.returncode == 0, overwrite.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["campaign", "one", "two"]


def test_report_refuses_outputs_that_would_destroy_something(
    campaign: Path, tmp_path: Path
) -> None:
    """The input folder, a folder holding an input, a non-site folder and a file are refused
    with exit 2 before anything is scored, and left as they were."""
    before = files_of(campaign)
    for out in (campaign, campaign / "2026-11-22-nightly", tmp_path):
        done = scorecard("report", str(campaign / "2026-11-22-nightly"), "--out", str(out))
        assert done.returncode == 2, (out, done.stderr)
        assert "bad_output" in done.stderr
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    done = scorecard("report", str(campaign), "--out", str(busy), "--workers", "1")
    assert done.returncode == 2
    assert "not empty" in done.stderr
    assert (busy / "notes.txt").read_text() == "mine"
    assert files_of(campaign) == before


def test_report_of_bad_input_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema": "nope"}\n')
    done = scorecard("report", str(bad), "--out", str(tmp_path / "site"))
    assert done.returncode == 2
    assert "error:" in done.stderr
    assert not (tmp_path / "site").exists()


def test_report_with_rejected_records_writes_the_site_and_exits_2(
    campaign: Path, tmp_path: Path
) -> None:
    """A bad line among good ones: the site is written from the good records (the index named
    on stdout), each rejection is one located `error:` line, a warning names the list page,
    `--errors` holds the JSON lines `score --errors` writes, and the exit status is 2, as
    `score`'s."""
    runs = campaign / "2026-11-22-nightly" / "observations.jsonl"
    with runs.open("a", encoding="utf-8") as stream:
        stream.write('{"schema": "nope"}\n')
    out, errors = tmp_path / "site", tmp_path / "errors.jsonl"
    done = scorecard(
        "report", str(campaign), "--out", str(out), "--errors", str(errors), "--workers", "1"
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == f"{out / 'index.html'}\n"
    assert f"error: {runs}:31 /schema: " in done.stderr
    assert done.stderr.endswith(
        f"warning: 1 record rejected: the site is built without it; listed in "
        f"{out / 'rejected.html'}\n"
    )
    assert (out / "rejected.html").is_file()
    assert "1 input record was rejected" in (out / "index.html").read_text(encoding="utf-8")
    by_score = tmp_path / "score-errors.jsonl"
    scored = scorecard(
        "score",
        str(campaign),
        "--out",
        str(tmp_path / "s.jsonl"),
        "--errors",
        str(by_score),
        "--workers",
        "1",
    )
    assert scored.returncode == 2
    assert errors.read_text(encoding="utf-8") == by_score.read_text(encoding="utf-8")
    assert len(errors.read_text(encoding="utf-8").splitlines()) == 1


def test_report_of_scored_records_says_it_needs_observations(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    night = SAMPLES / "2026-11-22-nightly"
    scored = scorecard("score", str(night), "--format", "records", "--out", str(records))
    assert scored.returncode == 0, scored.stderr
    done = scorecard("report", str(records), "--out", str(tmp_path / "site"))
    assert done.returncode == 2
    assert "[scored_input]" in done.stderr
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_view_serves_the_site_on_a_free_port_and_stops_on_a_signal(
    campaign: Path, tmp_path: Path, stop: signal.Signals
) -> None:
    """`view` (port 0 by default) prints its address, serves every file the library builds
    (``api.build_report``) byte for byte over HTTP, each made on request (nothing written to a
    folder), and on SIGTERM or Ctrl-C exits 0."""
    from scorecard import api

    built = api.build_report([campaign], workers=1).files
    shard_file = "data/runs/campaign-2026-11-22/codex-luna/final-response.js"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    with (
        (tmp_path / "stderr.txt").open("w") as errors,
        running_view(str(campaign), "--workers", "1", stderr=errors, env=env) as (server, address),
    ):
        port = int(address.rsplit(":", 1)[1].strip("/"))
        assert port > 0
        assert list(scratch.iterdir()) == []  # made on request: no folder written
        with urllib.request.urlopen(address, timeout=30) as answer:
            assert answer.status == 200
            served = answer.read()
        body = served.decode("utf-8")
        assert "<h1>Scorecard report</h1>" in body
        assert 'class="verdict ' in body
        assert served == built["index.html"]
        page = address + "run.html?run=campaign-2026-11-22/codex-luna/final-response/1"
        with urllib.request.urlopen(page, timeout=30) as answer:
            assert answer.read() == built["run.html"]
        shard = address + "data/runs/campaign-2026-11-22/codex-luna/final-response.js"
        with urllib.request.urlopen(shard, timeout=30) as answer:
            assert answer.read() == built[shard_file]
        assert_serves_every_file(address, built)  # the receipt too; not the marker
        # Bad requests get 4xx, the marker and folders are not served, a reset is quiet.
        for path, status in (("/%00", 400), ("/.scorecard-site", 404), ("/data/", 404)):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", path)
            assert connection.getresponse().status == status, path
            connection.close()
        client = socket.create_connection(("127.0.0.1", port), timeout=30)
        client.sendall(b"GET /runs.html HTTP/1.1\r\nHost: x\r\n\r\n")
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()
        server.send_signal(stop)
        assert server.wait(timeout=30) == 0
    assert list(scratch.iterdir()) == []
    assert (tmp_path / "stderr.txt").read_text() == "stopped\n"  # no traceback


def test_the_overview_verdict_is_the_gate_commands(campaign: Path, tmp_path: Path) -> None:
    """The overview states the line `scorecard gate NEWEST --baseline PREVIOUS` prints."""
    gate = scorecard(
        "gate",
        str(campaign / "2026-11-22-nightly"),
        "--baseline",
        str(campaign / "2026-11-15-nightly"),
        "--workers",
        "1",
    )
    assert gate.returncode in (0, 1, 3), gate.stderr
    line = gate.stdout.strip()
    assert line.startswith("gate: ")
    out = tmp_path / "site"
    done = scorecard("report", str(campaign), "--out", str(out), "--workers", "1")
    assert done.returncode == 0, done.stderr
    overview = (out / "index.html").read_text(encoding="utf-8")
    assert f'id="verdict">{html.escape(line)}</div>' in overview


def test_view_with_rejected_records_serves_them_and_exits_2(campaign: Path, tmp_path: Path) -> None:
    """`view` warns of a rejected record before it serves, serves the page that lists it, and
    ends with status 2 once stopped."""
    runs = campaign / "2026-11-22-nightly" / "observations.jsonl"
    with runs.open("a", encoding="utf-8") as stream:
        stream.write('{"schema": "nope"}\n')
    with (
        (tmp_path / "stderr.txt").open("w") as errors,
        running_view(str(campaign), "--workers", "1", stderr=errors) as (server, address),
    ):
        with urllib.request.urlopen(address + "rejected.html", timeout=30) as answer:
            assert "<h1>Rejected records</h1>" in answer.read().decode("utf-8")
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 2
    assert (tmp_path / "stderr.txt").read_text().splitlines() == [
        f"error: {runs}:31 /schema: unsupported workflow observation schema; expected "
        "paperclip.runner.workflow-observation.v1 [unsupported_schema]",
        "warning: 1 record rejected: the site is built without it; listed on the site's "
        "rejected.html",
        "stopped",
    ]
