"""`scorecard score` through the real entry point: outputs, order, errors, exit codes."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from scorecard.engine import _io as scorecard_io
from scorecard.engine import _output as scorecard_output
from scorecard.engine._output import atomic_writer
from tests.conftest import ROOT, assert_valid_scorecard

SECRET = "sk-ABCDEFGHIJKLMNOPQRSTUVWX"


def run(
    *args: str, stdin: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m scorecard ARGS` and capture everything."""
    return subprocess.run(
        [sys.executable, "-m", "scorecard", *args],
        input=stdin,
        capture_output=True,
        check=False,
        cwd=cwd,
    )


def lines(data: bytes) -> list[dict[str, Any]]:
    """Parse JSON Lines output."""
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def with_candidate(observation: dict[str, Any], candidate: str) -> dict[str, Any]:
    """A copy of ``observation`` run by ``candidate``."""
    copied = copy.deepcopy(observation)
    copied["candidateId"] = candidate
    return copied


def campaign_manifest(bundle_id: str) -> str:
    """A minimal campaign manifest stating ``bundle_id``."""
    return json.dumps(
        {
            "schema": "scorecard.campaign.v1",
            "id": bundle_id,
            "runnerVersion": "0.8.0",
            "promptPolicy": "exact-single-call",
            "providerVersions": {"codex": "1"},
            "scheduleSeed": 1,
            "candidates": [
                {
                    "id": "cand-a",
                    "slot": 0,
                    "adapter": "codex-app-server",
                    "provider": "codex",
                    "model": "gpt-5.6-luna",
                    "tier": "strong",
                    "budget": {
                        "maxLatencyMs": 1,
                        "maxAttempts": 1,
                        "maxCostUsd": 1,
                        "maxTotalTokens": 1,
                    },
                }
            ],
        }
    )


def test_a_folder_of_bundles_is_scored_in_sorted_order(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """Bundles are found by manifest, files read in sorted path order, records in file order."""
    for name in ("b-second", "a-first"):
        folder = tmp_path / "obs" / name
        folder.mkdir(parents=True)
        (folder / "bundle.json").write_text(campaign_manifest(f"campaign-{name}"))
        (folder / "runs.jsonl").write_text(
            "".join(json.dumps(with_candidate(observation, c)) + "\n" for c in ("cand-a", "cand-b"))
        )
    loose = tmp_path / "obs" / "c-loose"
    loose.mkdir()
    (loose / "one.json").write_text(json.dumps(with_candidate(observation, "cand-c")))
    done = run("score", str(tmp_path / "obs"))
    assert done.returncode == 0, done.stderr
    cards = lines(done.stdout)
    assert [(card["bundleId"], card["candidateId"]) for card in cards] == [
        ("campaign-a-first", "cand-a"),
        ("campaign-a-first", "cand-b"),
        ("campaign-b-second", "cand-a"),
        ("campaign-b-second", "cand-b"),
        ("local-c-loose", "cand-c"),
    ]
    for card in cards:
        assert_valid_scorecard(card)
    assert done.stderr.decode() == (
        "scored 5, rejected 0, gate failures 0, unscoreable 0, bundles 3,"
        " failed audit findings 20\n"  # 4 per run: 3 PRP events and finish_task never seen
    )


def test_bad_records_are_reported_and_good_ones_still_scored(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """Each bad record gives one located error line; the good records are all written; exit 2."""
    wrong_type = copy.deepcopy(observation)
    wrong_type["metrics"]["attempts"] = "two"
    unknown_case = copy.deepcopy(observation)
    unknown_case["caseId"] = "made-up"
    secret = copy.deepcopy(observation)
    secret["classification"] = "infrastructure_failure"
    secret["failure"] = {
        "code": "x",
        "category": "provider",
        "retryable": True,
        "message": f"key {SECRET}",
    }
    body = [
        json.dumps(observation).encode(),
        b'{"schema": ',
        json.dumps(wrong_type).encode(),
        json.dumps(unknown_case).encode(),
        b'{"caseId": "\xff\xfe"}',
        json.dumps(secret).encode(),
        json.dumps(with_candidate(observation, "last")).encode(),
    ]
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"\n".join(body) + b"\n")
    array = tmp_path / "runs.json"
    array.write_text(json.dumps([observation, {"schema": "nope"}]))
    errors = tmp_path / "errors.jsonl"
    done = run("score", str(path), str(array), "--errors", str(errors))
    assert done.returncode == 2
    assert [card["candidateId"] for card in lines(done.stdout)] == [
        observation["candidateId"],
        "last",
        observation["candidateId"],
    ]
    rejected = lines(errors.read_bytes())
    assert [(e["source"], e["line"], e["index"], e["pointer"], e["rule"]) for e in rejected] == [
        (str(path), 2, None, "", "malformed_json"),
        (str(path), 3, None, "/metrics/attempts", "wrong_type"),
        (str(path), 4, None, "/caseId", "unknown_case_id"),
        (str(path), 5, None, "", "invalid_utf8"),
        (str(path), 6, None, "/failure/message", "secret_in_failure_message"),
        (str(array), None, 1, "/1/schema", "unsupported_schema"),
    ]
    stderr = done.stderr.decode()
    assert SECRET not in stderr + errors.read_text() + done.stdout.decode()
    assert "Traceback" not in stderr
    assert stderr.count("error: ") == 6
    assert stderr.endswith(
        "scored 3, rejected 6, gate failures 0, unscoreable 0, bundles 1,"
        " failed audit findings 12\n"
    )


def test_stdin_is_read_as_json_lines(observation: dict[str, Any]) -> None:
    """`-` reads JSON Lines from stdin; --bundle-id sets the bundle."""
    data = (json.dumps(observation) + "\r\n").encode()
    done = run("score", "-", "--bundle-id", "nightly-42", stdin=b"\xef\xbb\xbf" + data * 2)
    assert done.returncode == 0, done.stderr
    assert [card["bundleId"] for card in lines(done.stdout)] == ["nightly-42", "nightly-42"]


def test_json_format_and_out_file(
    tmp_path: Path, write_jsonl: Any, observation: dict[str, Any]
) -> None:
    """--format json --out writes one JSON array to the file and nothing to stdout."""
    source = write_jsonl([observation, observation])
    out = tmp_path / "cards.json"
    done = run("score", str(source), "--format", "json", "--out", str(out))
    assert (done.returncode, done.stdout) == (0, b"")
    cards = json.loads(out.read_text())
    assert len(cards) == 2
    assert_valid_scorecard(cards[0])
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_records_format_carries_the_facts(write_jsonl: Any, observation: dict[str, Any]) -> None:
    """--format records adds provider, repetition, metrics and source to each scorecard."""
    source = write_jsonl([observation, observation])
    done = run("score", str(source), "--format", "records")
    records = lines(done.stdout)
    assert [r["repetition"] for r in records] == [1, 2]
    assert records[1]["source"] == {"file": str(source), "line": 2, "index": None}
    assert records[0]["provider"] == observation["provider"]
    assert records[0]["metrics"] == observation["metrics"]
    assert_valid_scorecard(records[0]["scorecard"])


def test_table_format_shows_one_row_per_scorecard(
    write_jsonl: Any, observation: dict[str, Any]
) -> None:
    """--format table renders a table with the candidate and overall score."""
    source = write_jsonl([observation])
    done = run("score", str(source), "--format", "table")
    text = done.stdout.decode()
    assert done.returncode == 0
    assert observation["candidateId"] in text
    assert "overall" in text
    assert "1.00" in text


def test_same_input_gives_identical_bytes(write_jsonl: Any, observation: dict[str, Any]) -> None:
    """Scoring is deterministic to the byte."""
    source = write_jsonl([observation] * 3)
    assert run("score", str(source)).stdout == run("score", str(source)).stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["score", "missing-file.jsonl"], "not_found"),
        (["score", "{src}", "--policy", "{policy}"], "policy_negative_weight"),
        (["score", "{src}", "--cases", "{cases}"], "catalog_incomplete"),
        (["score", "{src}", "--format", "xml"], "xml"),
    ],
)
def test_bad_arguments_exit_2_with_one_clear_line(
    tmp_path: Path, write_jsonl: Any, observation: dict[str, Any], args: list[str], needle: str
) -> None:
    """Unusable arguments give exit status 2 and a message, never a traceback."""
    source = write_jsonl([observation])
    policy = tmp_path / "policy.yaml"
    policy.write_text("weights:\n  semantic_outcome: -1\n")
    cases = tmp_path / "cases"
    cases.mkdir()
    formatted = [a.format(src=source, policy=policy, cases=cases) for a in args]
    done = run(*formatted)
    assert done.returncode == 2
    assert needle in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()


def write_then_fail(target: Path, error: BaseException, text: str = "partial") -> None:
    """Start an atomic write of ``target``, write ``text``, and fail with ``error``."""
    with atomic_writer(target) as stream:
        stream.write(text)
        raise error


def test_an_interrupted_write_leaves_no_file(tmp_path: Path) -> None:
    """If writing fails half way, neither the target nor a temporary file remains."""
    target = tmp_path / "out.jsonl"
    with pytest.raises(RuntimeError):
        write_then_fail(target, RuntimeError("interrupted"))
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_write_keeps_the_old_file(tmp_path: Path) -> None:
    """A failed rewrite (even Ctrl-C) leaves the previous complete file in place."""
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    with pytest.raises(KeyboardInterrupt):
        write_then_fail(target, KeyboardInterrupt())
    assert target.read_text() == "old\n"
    assert [path.name for path in tmp_path.iterdir()] == ["out.jsonl"]


def syncing_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "sync"]


def test_a_large_write_is_flushed_to_disk_while_it_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past SYNC_EVERY characters a background thread syncs the data; it is gone at the end."""
    synced: list[int] = []
    monkeypatch.setattr(scorecard_output, "SYNC_EVERY", 100)
    monkeypatch.setattr(scorecard_output, "_fdatasync", synced.append)
    target = tmp_path / "out.jsonl"
    lines = [f"line {number:04}\n" for number in range(100)]
    with atomic_writer(target) as stream:
        for line in lines:
            stream.write(line)
        handle = stream.fileno()
        assert len(syncing_threads()) == 1
        deadline = time.monotonic() + 10
        while not synced and time.monotonic() < deadline:
            time.sleep(0.01)  # the thread syncs soon after it is asked to
        assert synced
    assert target.read_text() == "".join(lines)
    assert set(synced) == {handle}
    assert syncing_threads() == []


def test_a_short_write_starts_no_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below SYNC_EVERY characters only the closing fsync runs."""
    synced: list[int] = []
    monkeypatch.setattr(scorecard_output, "_fdatasync", synced.append)
    with atomic_writer(tmp_path / "out.jsonl") as stream:
        stream.write("short\n")
        assert syncing_threads() == []
    assert synced == []
    assert (tmp_path / "out.jsonl").read_text() == "short\n"


def test_a_failing_background_sync_leaves_the_write_to_the_closing_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error of the background flush is not raised there: the write still completes."""

    def failing(handle: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(scorecard_output, "SYNC_EVERY", 10)
    monkeypatch.setattr(scorecard_output, "_fdatasync", failing)
    with atomic_writer(tmp_path / "out.jsonl") as stream:
        for _ in range(50):
            stream.write("0123456789\n")
    assert (tmp_path / "out.jsonl").read_text() == "0123456789\n" * 50
    assert syncing_threads() == []


def test_an_interrupted_large_write_stops_its_thread_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the middle of a synced write: no file, no thread left behind."""
    monkeypatch.setattr(scorecard_output, "SYNC_EVERY", 10)
    with pytest.raises(KeyboardInterrupt):
        write_then_fail(tmp_path / "out.jsonl", KeyboardInterrupt(), text="x" * 100)
    assert list(tmp_path.iterdir()) == []
    assert syncing_threads() == []


def test_a_bad_manifest_does_not_lose_other_bundles(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """A broken bundle.json is reported once; other bundles are still scored."""
    good = tmp_path / "good"
    bad = tmp_path / "bad"
    for folder in (good, bad):
        folder.mkdir()
        (folder / "runs.jsonl").write_text(json.dumps(observation) + "\n")
    (bad / "bundle.json").write_text(
        '{"schema": "paperclip.runner.eval-bundle.v1", "token": "abcdefghijklmnop"}'
    )
    done = run("score", str(tmp_path))
    assert done.returncode == 2
    assert [card["bundleId"] for card in lines(done.stdout)] == ["local-good"]
    assert "secret_in_manifest" in done.stderr.decode()
    assert "abcdefghijklmnop" not in done.stderr.decode()


def test_help_is_fast_to_import() -> None:
    """`import scorecard.cli._app` pulls in neither pandas nor matplotlib."""
    code = "import sys, scorecard.cli._app; print(sorted(m for m in ('pandas', 'matplotlib', 'numpy') if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ),
    )
    assert done.stdout.strip() == "[]"


def test_errors_survive_the_trip_between_processes() -> None:
    """A located error pickles and unpickles intact (workers send them back)."""
    import pickle

    from scorecard.contract._errors import ObservationError

    error = ObservationError("bad", rule="wrong_type", pointer="/a", source="f", line=3, index=None)
    copy_ = pickle.loads(pickle.dumps(error))
    assert (type(copy_), copy_.to_record()) == (ObservationError, error.to_record())


@pytest.mark.parametrize("output_format", ["jsonl", "records", "audit", "json", "table"])
def test_worker_count_does_not_change_a_byte(tmp_path: Path, output_format: str) -> None:
    """1 worker and 2 workers write identical output, errors and summary."""
    sample = ROOT / "observations"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema": 1}\n{broken\n')
    outputs = []
    for workers in ("1", "2"):
        out = tmp_path / f"out-{workers}.jsonl"
        errors = tmp_path / f"errors-{workers}.jsonl"
        done = run(
            "score",
            str(sample),
            str(bad),
            "--format",
            output_format,
            "--workers",
            workers,
            "--out",
            str(out),
            "--errors",
            str(errors),
        )
        assert done.returncode == 2, done.stderr
        outputs.append((out.read_bytes(), errors.read_bytes(), done.stderr))
    assert outputs[0] == outputs[1]
    if output_format in ("jsonl", "records", "audit"):
        assert outputs[0][0].count(b"\n") == 560
    assert outputs[0][1].count(b"\n") == 2


NIGHTLY = ROOT / "observations" / "2026-11-22-nightly"
BASELINE = ROOT / "observations" / "2026-11-15-nightly"


@pytest.mark.parametrize(
    ("command", "expected_status"),
    [
        (["compare", str(ROOT / "observations"), "--bundle", "campaign-2026-11-22"], 0),
        (["compare", str(ROOT / "observations"), "--across-bundles", "codex-luna"], 0),
        (["gate", str(NIGHTLY), "--baseline", str(BASELINE)], 1),
        (["explain", str(NIGHTLY), "--failing-only", "--format", "json"], 0),
        (["plot", "heatmap", str(ROOT / "observations"), "--out", "{out}.png"], 0),
    ],
    ids=["compare", "compare-across", "gate", "explain", "plot"],
)
def test_every_scoring_command_takes_workers_and_gives_the_same_result(
    tmp_path: Path, command: list[str], expected_status: int
) -> None:
    """compare, gate, explain and plot score observations on --workers processes; stdout,
    stderr, exit status and files written are the same for one worker and two."""
    results = []
    for workers in ("1", "2"):
        out = tmp_path / f"out-{workers}"
        args = [arg.replace("{out}", str(out)) for arg in command]
        done = run(*args, "--workers", workers)
        written = out.with_suffix(".png").read_bytes() if command[0] == "plot" else b""
        assert done.returncode == expected_status, done.stderr
        named = str(out).encode()
        results.append((done.stdout, done.stderr.replace(named, b"OUT"), written))
    assert results[0] == results[1]
    assert results[0][0] or results[0][2]


@pytest.mark.parametrize("command", ["compare", "gate", "explain", "plot"])
def test_bad_input_is_located_for_every_scoring_command_and_any_worker_count(
    tmp_path: Path, command: str
) -> None:
    """A broken line among good ones: exit 2, the error located by file and line, never a
    traceback, and the same messages for one worker and two."""
    folder = tmp_path / "bundle"
    folder.mkdir()
    lines = (NIGHTLY / "observations.jsonl").read_text(encoding="utf-8").splitlines()
    shutil.copy(NIGHTLY / "bundle.json", folder / "bundle.json")
    broken = folder / "observations.jsonl"
    broken.write_text("\n".join([*lines[:5], "{broken", *lines[5:]]) + "\n", encoding="utf-8")
    args = {
        "compare": ["compare", str(folder)],
        "gate": ["gate", str(folder)],
        "explain": ["explain", str(folder), "--format", "json"],
        "plot": ["plot", "heatmap", str(folder), "--out", str(tmp_path / "x.png")],
    }[command]
    stderrs = []
    for workers in ("1", "2"):
        done = run(*args, "--workers", workers)
        assert done.returncode == 2
        stderrs.append(done.stderr.decode())
    assert stderrs[0] == stderrs[1]
    assert f"error: {broken}:6" in stderrs[0]
    assert "Traceback" not in stderrs[0]


@pytest.mark.parametrize("command", ["compare", "gate", "explain", "plot"])
def test_zero_workers_is_a_usage_error(command: str) -> None:
    """--workers 0 exits 2 with the option named, never a traceback."""
    args = {
        "compare": ["compare", str(NIGHTLY)],
        "gate": ["gate", str(NIGHTLY)],
        "explain": ["explain", str(NIGHTLY)],
        "plot": ["plot", "heatmap", str(NIGHTLY), "--out", "x.png"],
    }[command]
    done = run(*args, "--workers", "0")
    assert done.returncode == 2
    assert "--workers" in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()


def test_an_unreadable_file_is_one_located_error(
    tmp_path: Path, observation: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that cannot be opened is reported once, by name; the other files are still read."""
    from scorecard.contract._errors import InputError
    from scorecard.engine._io import RawRecord, read_records

    locked = tmp_path / "a-locked.jsonl"
    fine = tmp_path / "b-fine.jsonl"
    for path in (locked, fine):
        path.write_text(json.dumps(observation) + "\n")
    real_open = open

    def guarded_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file) == str(locked):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(scorecard_io, "open", guarded_open, raising=False)
    results = list(read_records([str(tmp_path)]))
    assert [type(result) for result in results] == [InputError, RawRecord]
    error = results[0]
    assert isinstance(error, InputError)
    assert (error.source, error.rule, error.message) == (
        str(locked),
        "unreadable",
        "cannot read file: Permission denied",
    )


def run_on_a_terminal(*args: str) -> tuple[bytes, int]:
    """Run `python -m scorecard ARGS` with stderr on a pseudo-terminal: (what it showed, code)."""
    pty = pytest.importorskip("pty")
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "scorecard", *args], stderr=terminal, stdout=subprocess.DEVNULL
    )
    os.close(terminal)
    shown = b""
    while True:
        try:
            data = os.read(controller, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not data:
            break
        shown += data
    os.close(controller)
    return shown, process.wait()


def test_a_terminal_sees_a_live_count_and_the_output_is_unchanged(tmp_path: Path) -> None:
    """On a terminal, a transient count of records; the file written is the same bytes."""
    plain_out, live_out = tmp_path / "plain.jsonl", tmp_path / "live.jsonl"
    plain = run("score", str(ROOT / "observations"), "--out", str(plain_out))
    shown, code = run_on_a_terminal("score", str(ROOT / "observations"), "--out", str(live_out))
    assert plain.returncode == code == 0
    assert b"scoring:" in shown
    assert b"scoring:" not in plain.stderr
    assert b"scored 560, rejected 0" in shown
    assert live_out.read_bytes() == plain_out.read_bytes()


def test_the_process_ends_with_every_byte_written_and_the_command_s_exit_code(
    tmp_path: Path,
) -> None:
    """The entry point leaves through ``sys.exit``: a short output still buffered is written
    whole, the summary reaches stderr, and exit codes are the command's (0 scored, 2 bad
    input)."""
    one = tmp_path / "one.jsonl"
    sample = ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl"
    one.write_bytes(sample.read_bytes().splitlines()[0] + b"\n")
    buffered = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    done = subprocess.run(
        [sys.executable, "-m", "scorecard", "score", str(one)],
        capture_output=True,
        check=False,
        env=buffered,  # stdout keeps a buffer, as it does for users: it must be flushed
    )
    assert done.returncode == 0
    assert done.stdout.count(b"\n") == 1
    assert done.stdout.endswith(b"}}\n")
    assert done.stderr.startswith(b"scored 1, rejected 0")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"{not json\n")
    broken = run("score", str(bad))
    assert broken.returncode == 2
    assert b"malformed_json" in broken.stderr
    assert run("--help").returncode == 0


@pytest.mark.parametrize(
    ("code", "expected", "message"),
    [(None, 0, b""), (3, 3, b""), ("went wrong", 1, b"went wrong\n")],
)
def test_leaving_maps_exit_codes_as_python_does(
    code: str | int | None,
    expected: int,
    message: bytes,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """``SystemExit`` codes keep their meaning: None is 0, a number itself, a message 1."""
    from scorecard.cli import _app as cli

    assert cli._ended(code) == expected
    assert capsysbinary.readouterr().err == message


def test_help_loads_no_model_layer() -> None:
    """`import scorecard.cli` (all `--help` needs) loads neither pydantic, YAML nor msgspec: the
    commands import the exception tree only, and the contract package loads names on use."""
    code = (
        "import sys, scorecard.cli; "
        "print(sorted(m for m in ('pydantic', 'yaml', 'msgspec', 'pyarrow') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
