"""Scoring and aggregating on a real Dask cluster give exactly what the local path gives."""

from __future__ import annotations

import json
import math
import multiprocessing
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas.testing
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner, Result

from scorecard.aggregate._frames import records_frame
from scorecard.aggregate._reference import report_aggregate
from scorecard.aggregate.distributed import dask_report, read_dataset
from scorecard.cli import _distributed as command
from scorecard.cli._app import app, new_app
from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError
from scorecard.core._record import ScoredRecord
from scorecard.engine._io import numbered_lines, raw_lines
from scorecard.engine._pipeline import RunSummary, score_paths_serially
from scorecard.engine._rows import LoadedRecords, Row
from scorecard.engine.distributed import (
    SPLIT_BYTES,
    DistributedRun,
    _count_lines,
    _plan,
    _range_bytes,
    score_on_dask,
)
from scorecard.engine.parquet import read_parquet_rows, write_parquet
from tests.conftest import ROOT

# scorecard.engine.distributed imports Dask only when used: without the extra, skip the whole module.
dask = pytest.importorskip("dask")
pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

SAMPLE = ROOT / "observations"
CASES = ROOT / "cases"
SPLIT = 50_000  # cuts each sample file (about 400 kB) into several ranges
BOM = b"\xef\xbb\xbf"


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """A client of a real two-process cluster on this machine, for the whole module."""
    with (
        # ":0": any free port. None still binds 8787 and warns when another cluster holds it.
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as connected,
    ):
        yield connected
    # The cluster's worker processes end with it. One still ending (a slow machine) would be
    # joined as the test process exits, for ever if it is stuck: it gets a while, then is killed.
    deadline = time.monotonic() + 30
    for child in multiprocessing.active_children():
        child.join(timeout=max(0.0, deadline - time.monotonic()))
        if child.is_alive():
            child.kill()
            child.join(timeout=5)


def sample_lines() -> list[bytes]:
    """The raw lines of one sample bundle (valid observations, newline stripped)."""
    data = (SAMPLE / "2026-11-01-nightly" / "observations.jsonl").read_bytes()
    return data.splitlines()


@dataclass(frozen=True)
class Inputs:
    """Sample data plus awkward files, and where the bad lines were put."""

    paths: list[str]
    lines_file: str
    bad_lines: list[int]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    """The sample bundles, then a manifest-less folder of broken and awkward inputs."""
    root = tmp_path_factory.mktemp("inputs")
    folder = root / "bad inputs"
    folder.mkdir()
    good = sample_lines()
    invalid = json.loads(good[3])
    del invalid["classification"]
    bad = [
        b'{"caseId": ',
        b"\xff\xfe{}",
        json.dumps(invalid).encode(),
        BOM + good[4],  # a BOM is only skipped at the start of the file
        b"[1, 2]",
    ]
    lines: list[bytes] = [BOM + good[0] + b"\r"]
    bad_lines: list[int] = []
    for number in range(1, 41):
        if number % 8 == 0:
            lines.append(bad[number // 8 - 1])
            bad_lines.append(len(lines))
        lines.append(good[number % 5] + (b"\r" if number % 3 else b""))  # repeats: repetitions
        if number % 7 == 0:
            lines.extend([b"", b"   \t"])
    lines_file = folder / "lines.jsonl"
    lines_file.write_bytes(b"\n".join(lines))  # the last line has no newline
    array = [json.loads(good[1]), {"schema": "nope"}, json.loads(good[2])]
    (folder / "array.json").write_text(json.dumps(array), encoding="utf-8")
    (folder / "broken.json").write_bytes(b"{not json")
    (folder / "empty.jsonl").write_bytes(b"")
    missing = root / "missing.jsonl"
    return Inputs([str(SAMPLE), str(folder), str(missing)], str(lines_file), bad_lines)


@dataclass(frozen=True)
class Serial:
    """What the local serial path gives for the inputs."""

    scorecards: str
    errors: list[InputError]
    summary: RunSummary


@pytest.fixture(scope="module")
def serial(inputs: Inputs, catalog: Catalog) -> Serial:
    """The local serial run: ``score_paths_serially`` rendered as ``--format jsonl``."""
    summary = RunSummary()
    results = list(score_paths_serially(inputs.paths, catalog=catalog, summary=summary))
    texts = [
        result.render("jsonl") + "\n" for result in results if isinstance(result, ScoredRecord)
    ]
    errors = [result for result in results if isinstance(result, InputError)]
    return Serial("".join(texts), errors, summary)


@dataclass(frozen=True)
class DaskOutput:
    """A run on the cluster and the files it wrote."""

    run: DistributedRun
    dataset: Path
    scorecards: Path


@pytest.fixture(scope="module")
def on_dask(client: Any, inputs: Inputs, tmp_path_factory: pytest.TempPathFactory) -> DaskOutput:
    """The inputs scored on the cluster, files cut into ranges of SPLIT bytes."""
    folder = tmp_path_factory.mktemp("dask")
    dataset, scorecards = folder / "results.parquet", folder / "scorecards.jsonl"
    run = score_on_dask(
        inputs.paths,
        client=client,
        out=dataset,
        cases=CASES,
        split_bytes=SPLIT,
        scorecards_out=scorecards,
    )
    return DaskOutput(run, dataset, scorecards)


@pytest.fixture(scope="module")
def local_dataset(inputs: Inputs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dataset ``scorecard score PATHS --out X.parquet --partition-by-bundle`` writes."""
    out = tmp_path_factory.mktemp("local") / "results.parquet"
    arguments = [*inputs.paths, "--out", str(out), "--partition-by-bundle", "--workers", "1"]
    result = CliRunner().invoke(app, ["score", *arguments, "--cases", str(CASES)])
    assert result.exit_code == 2  # rejected records
    return out


def comparable(rows: list[Row]) -> list[tuple[Any, ...]]:
    """Rows with NaN made equal to NaN."""
    return [
        tuple("NaN" if isinstance(value, float) and math.isnan(value) else value for value in row)
        for row in rows
    ]


def invoke_score_dask(*args: str, stdin: bytes | None = None) -> Result:
    """Run ``scorecard score-dask ARGS`` in-process (the command on an app of its own, which
    maps library errors to exit codes as the command line's app does)."""
    cli = new_app()
    command.register(cli)
    cli.command("unused")(lambda: None)  # a second command keeps `score-dask` a subcommand
    return CliRunner().invoke(cli, ["score-dask", *args], input=stdin)


def error_facts(errors: list[InputError]) -> list[tuple[str, dict[str, object]]]:
    """Everything an error says: its kind and its ``--errors`` record."""
    return [(type(error).__name__, error.to_record()) for error in errors]


def test_every_byte_of_a_file_belongs_to_exactly_one_range(tmp_path: Path) -> None:
    """Ranges cut anywhere, even inside a line or at a newline, cover the file once, in order."""
    data = BOM + b"one\r\n\n" + b"two\n" * 5 + b"a much longer line than the others\n  \nlast"
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    for split in (1, 2, 3, 4, 7, 16, len(data) - 1, len(data), len(data) + 1):
        plan = _plan([str(path)], None, split)
        pieces = [_range_bytes(piece) for piece in plan if not isinstance(piece, InputError)]
        assert len(pieces) == len(plan)
        assert b"".join(pieces) == data
        filled = [piece for piece in pieces if piece]
        assert all(piece.endswith(b"\n") for piece in filled[:-1])  # whole lines only


def test_ranges_number_their_lines_as_the_whole_file_does(tmp_path: Path) -> None:
    """Counts added up give each range's lines the numbers ``raw_lines`` gives the file.

    Blank lines, CRLF, a BOM at the start (skipped) and one at a later line's start (kept, as
    the serial path keeps it) fall at range boundaries for some of the cuts.
    """
    data = BOM + b"a\r\n\n  \n" + BOM + b"b\r\nc\n\n\nd\r\n" + b"e" * 9 + b"\nf"
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    with path.open("rb") as stream:
        expected = list(raw_lines(stream))
    for split in range(1, len(data) + 2):
        numbered: list[tuple[int, bytes]] = []
        first_line = 1
        for piece in _plan([str(path)], None, split):
            assert not isinstance(piece, InputError)
            numbered += numbered_lines(_range_bytes(piece), first_line)
            count = _count_lines(piece)
            assert isinstance(count, int)
            first_line += count
        assert numbered == expected, split


def test_scorecards_are_the_bytes_of_the_serial_run(on_dask: DaskOutput, serial: Serial) -> None:
    """The JSON Lines scorecards written from the cluster are the local ``--format jsonl``."""
    assert on_dask.run.tasks > 4 * 4  # the sample files really were cut into ranges
    assert on_dask.scorecards.read_text(encoding="utf-8") == serial.scorecards


def test_errors_and_summary_are_those_of_the_serial_run(
    on_dask: DaskOutput, serial: Serial, inputs: Inputs
) -> None:
    """Same errors (kind, file, line, index, pointer, rule, message) in the same order."""
    assert error_facts(on_dask.run.errors) == error_facts(serial.errors)
    assert on_dask.run.summary == serial.summary
    in_lines_file = [
        error.line for error in on_dask.run.errors if error.source == inputs.lines_file
    ]
    assert in_lines_file == inputs.bad_lines


def test_dataset_rows_are_those_of_the_local_dataset(
    on_dask: DaskOutput, local_dataset: Path
) -> None:
    """``read_parquet_rows`` gives the same rows in the same order from both datasets."""
    rows = read_parquet_rows(on_dask.dataset)
    assert on_dask.run.rows == len(rows)
    assert comparable(rows) == comparable(read_parquet_rows(local_dataset))


def test_dataset_is_the_local_dataset_byte_for_byte(
    on_dask: DaskOutput, local_dataset: Path, tmp_path: Path
) -> None:
    """One ``bundle=<id>/part-0.parquet`` per bundle, each file the bytes the local writer
    writes for the same rows (files cut into many ranges included; ``score`` also stamps its
    receipt in the metadata, which a cluster run does not yet), and nothing else: no temporary
    file beside it."""
    files = sorted(path.relative_to(on_dask.dataset) for path in on_dask.dataset.rglob("*"))
    assert files == sorted(path.relative_to(local_dataset) for path in local_dataset.rglob("*"))
    assert [str(path) for path in files if path.suffix] == [
        "bundle=campaign-2026-11-01/part-0.parquet",
        "bundle=campaign-2026-11-08/part-0.parquet",
        "bundle=campaign-2026-11-15/part-0.parquet",
        "bundle=campaign-2026-11-22/part-0.parquet",
        "bundle=local-bad-inputs/part-0.parquet",
    ]
    unstamped = tmp_path / "local.parquet"  # the local rows, through the local writer alone
    write_parquet(read_parquet_rows(local_dataset), unstamped, partition_by_bundle=True)
    for path in files:
        if path.suffix:
            assert (on_dask.dataset / path).read_bytes() == (unstamped / path).read_bytes()
            stamped = pq.ParquetFile(local_dataset / path)
            assert stamped.read().equals(pq.ParquetFile(on_dask.dataset / path).read())
            assert b"scorecard.receipt" in (stamped.metadata.metadata or {})
    assert on_dask.run.tasks > len(files)  # the sample files were cut into several ranges
    assert not [path for path in on_dask.dataset.parent.iterdir() if path.name.startswith(".")]


@pytest.mark.parametrize("by", [("bundle", "candidate"), ("case",), ("model", "tier")])
def test_dask_report_is_the_reference_report(
    client: Any, on_dask: DaskOutput, local_dataset: Path, by: tuple[str, ...]
) -> None:
    """Counts and rounded means per group equal ``report_aggregate`` on the local rows."""
    frame = records_frame(LoadedRecords(rows=read_parquet_rows(local_dataset)))
    expected = report_aggregate(frame, by=list(by))
    report = dask_report(read_dataset(on_dask.dataset), by=by)
    pandas.testing.assert_frame_equal(report, expected)


def test_dask_report_refuses_columns_it_cannot_group_by(on_dask: DaskOutput) -> None:
    """Only label columns are group keys."""
    with pytest.raises(ValueError, match="can group only by"):
        dask_report(read_dataset(on_dask.dataset), by=("overall_score",))


def test_repetitions_count_on_across_ranges(client: Any, tmp_path: Path) -> None:
    """Runs of one case by one candidate are numbered 1, 2, 3 in input order, range after range."""
    first = sample_lines()[0]
    document = json.loads(first)
    other = json.dumps({**document, "candidateId": "cand-other"}).encode()
    lines = [first, other, first, b"", first, b"{oops", other]
    path = tmp_path / "runs" / "observations.jsonl"
    path.parent.mkdir()
    path.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "runs.parquet"
    run = score_on_dask(
        [str(path)], client=client, out=out, cases=CASES, split_bytes=len(first) // 2
    )
    assert run.tasks > len(lines)
    assert [(error.line, error.rule) for error in run.errors] == [(6, "malformed_json")]
    runs = [(row[1], row[6]) for row in read_parquet_rows(out)]
    candidate = document["candidateId"]
    assert runs == [
        (candidate, 1),
        ("cand-other", 1),
        (candidate, 2),
        (candidate, 3),
        ("cand-other", 2),
    ]


def test_stdin_is_refused_before_anything_runs(client: Any, tmp_path: Path) -> None:
    """Workers cannot read the driver's stdin: a clear error, and nothing written."""
    with pytest.raises(InputError, match="stdin cannot be scored on a cluster") as raised:
        score_on_dask(["-"], client=client, out=tmp_path / "out.parquet")
    assert raised.value.rule == "stdin_unsupported"
    assert list(tmp_path.iterdir()) == []


def test_command_writes_dataset_errors_and_summary(
    client: Any, inputs: Inputs, serial: Serial, local_dataset: Path, tmp_path: Path
) -> None:
    """``score-dask --scheduler ADDRESS`` writes what the local path writes and exits 2."""
    out, errors = tmp_path / "results.parquet", tmp_path / "errors.jsonl"
    arguments = ["--scheduler", client.scheduler.address, "--out", str(out)]
    arguments += ["--errors", str(errors), "--cases", str(CASES), "--split-bytes", str(SPLIT)]
    result = invoke_score_dask(*inputs.paths, *arguments)
    assert result.exit_code == 2
    assert serial.summary.line() in result.stderr
    records = [json.loads(line) for line in errors.read_text(encoding="utf-8").splitlines()]
    assert records == [error.to_record() for error in serial.errors]
    assert comparable(read_parquet_rows(out)) == comparable(read_parquet_rows(local_dataset))


def test_the_command_writes_what_score_on_cluster_writes(
    client: Any, inputs: Inputs, tmp_path: Path
) -> None:
    """``score-dask`` is ``api.score_on_cluster``: the same dataset, byte for byte, and the same
    rejected records."""
    from scorecard import api

    by_command, by_library = tmp_path / "command", tmp_path / "library"
    options = ["--scheduler", client.scheduler.address, "--cases", str(CASES)]
    options += ["--split-bytes", str(SPLIT)]
    command_files = ["--out", str(by_command / "out.parquet")]
    command_files += ["--errors", str(by_command / "errors.jsonl")]
    result = invoke_score_dask(*inputs.paths, *options, *command_files)
    assert result.exit_code == 2
    run = api.score_on_cluster(
        inputs.paths,
        scheduler=client.scheduler.address,
        out=by_library / "out.parquet",
        errors_out=by_library / "errors.jsonl",
        cases=CASES,
        split_bytes=SPLIT,
    )
    assert run.errors
    written = {
        side: {
            path.relative_to(side).as_posix(): path.read_bytes()
            for path in sorted(side.rglob("*"))
            if path.is_file()
        }
        for side in (by_command, by_library)
    }
    assert "errors.jsonl" in written[by_command]
    assert any(name.endswith(".parquet") for name in written[by_command])
    assert written[by_command] == written[by_library]


def test_command_reports_an_unreachable_scheduler(tmp_path: Path) -> None:
    """A scheduler that does not answer is a clean usage error, not a traceback."""
    arguments = ["--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "x.parquet")]
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = invoke_score_dask(str(SAMPLE), *arguments)
    assert result.exit_code == 2
    assert "cannot connect to the scheduler" in result.stderr
    assert "[scheduler_unreachable]" in result.stderr


def test_command_refuses_stdin_without_starting_a_cluster(tmp_path: Path) -> None:
    """``-`` is a usage error even with ``--scheduler local`` (no cluster is started first)."""
    arguments = ["--scheduler", "local", "--out", str(tmp_path / "x.parquet")]
    result = invoke_score_dask("-", *arguments, stdin=b"{}\n")
    assert result.exit_code == 2
    assert "[stdin_unsupported]" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_command_default_split_is_the_library_default() -> None:
    """The CLI's copy of the split size (kept to start fast) matches the library's."""
    assert command._SPLIT_BYTES == SPLIT_BYTES


_WorkerPlugin: Any = distributed.WorkerPlugin


class _KillFirstWrite(_WorkerPlugin):  # type: ignore[misc]
    """On every worker: the first Parquet row group written anywhere on the cluster (the marker
    file decides which) is followed by SIGKILL of that worker, mid-file. ``named`` also takes
    ``O_TMPFILE`` away, so the write goes through a named ``.part-0.parquet.XXXX.tmp``."""

    def __init__(self, marker: str, named: bool) -> None:
        self.marker, self.named = marker, named

    def setup(self, worker: Any) -> None:
        import os
        import signal

        import pyarrow.parquet as parquet

        from scorecard.engine import _output

        if self.named:
            _output._unnamed_file = lambda folder: None
        write_batch = parquet.ParquetWriter.write_batch
        marker = self.marker

        def write_then_die(writer: Any, *args: Any, **kwargs: Any) -> None:
            write_batch(writer, *args, **kwargs)
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return
            os.kill(os.getpid(), signal.SIGKILL)

        parquet.ParquetWriter.write_batch = write_then_die


@pytest.mark.parametrize(
    ("named", "workers"),
    [(False, 2), (True, 2), (False, 1)],
    ids=["unnamed temporary", "named temporary", "the only worker"],
)
def test_a_worker_killed_mid_write_leaves_the_dataset_whole(
    on_dask: DaskOutput, inputs: Inputs, tmp_path: Path, named: bool, workers: int
) -> None:
    """A worker SIGKILLed in the middle of writing a bundle's file: its nanny starts another,
    the write is done again, and the dataset is the one an undisturbed run writes, byte for
    byte, with no temporary file in it or beside it (a named one, where files cannot be made
    without a name, is swept before the dataset is published). The only worker's death takes
    every result with it, the run's catalog too: it is computed again, not lost (a scattered
    catalog was, and the run failed with the tasks after it cancelled)."""
    marker = tmp_path / "killed"
    out = tmp_path / "out" / "results.parquet"
    with (
        distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as own,
    ):
        own.register_plugin(_KillFirstWrite(str(marker), named), name="kill-first-write")
        run = score_on_dask(inputs.paths, client=own, out=out, cases=CASES, split_bytes=SPLIT)
    assert marker.exists()  # a worker did die mid-write
    assert run.rows == on_dask.run.rows
    written = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    expected = {
        p.relative_to(on_dask.dataset): p.read_bytes()
        for p in on_dask.dataset.rglob("*")
        if p.is_file()
    }
    assert written == expected
    assert [path.name for path in out.parent.iterdir()] == ["results.parquet"]


class _KillEveryWrite(_WorkerPlugin):  # type: ignore[misc]
    """On every worker: each Parquet row group written is followed by SIGKILL of its worker."""

    def setup(self, worker: Any) -> None:
        import os
        import signal

        import pyarrow.parquet as parquet

        write_batch = parquet.ParquetWriter.write_batch

        def write_then_die(writer: Any, *args: Any, **kwargs: Any) -> None:
            write_batch(writer, *args, **kwargs)
            os.kill(os.getpid(), signal.SIGKILL)

        parquet.ParquetWriter.write_batch = write_then_die


def test_a_cluster_that_cannot_finish_the_run_is_a_clear_error(
    inputs: Inputs, tmp_path: Path
) -> None:
    """A task that kills its worker more often than the scheduler allows: the run stops with
    an error that names it (no traceback of the cluster's) and publishes nothing."""
    out = tmp_path / "out" / "results.parquet"
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as own,
    ):
        own.register_plugin(_KillEveryWrite(), name="kill-every-write")
        with pytest.raises(InputError) as raised:
            score_on_dask(inputs.paths, client=own, out=out, cases=CASES, split_bytes=SPLIT)
    assert raised.value.rule == "cluster_failed"
    assert "KilledWorker" in str(raised.value)
    assert "nothing was written: run it again once the workers are sound" in str(raised.value)
    assert not out.exists()
    assert list(out.parent.iterdir()) == []
