"""Parallel scoring renders exactly what the serial path renders, chunking notwithstanding."""

from __future__ import annotations

import fcntl
import multiprocessing
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import cast

import pytest

from scorecard.contract._bundles import BundleInfo
from scorecard.contract._catalog import Catalog
from scorecard.contract._errors import InputError
from scorecard.contract._policy import Policy
from scorecard.engine._chunk_scorer import ChunkScorer
from scorecard.engine._chunks import Chunk, input_chunks
from scorecard.engine._parallel import score_rows_parallel, score_text
from scorecard.engine._pipeline import RunSummary, score_paths_serially
from scorecard.engine._pool import PIPE_BYTES, widen_pipes
from scorecard.engine._rows import scored_row
from tests.conftest import ROOT

SAMPLE = str(ROOT / "observations")


def lines_of(pieces: Iterable[str | InputError]) -> list[str | InputError]:
    """``score_text``'s pieces as one item per output line (newline removed) or error."""
    lines: list[str | InputError] = []
    for piece in pieces:
        if isinstance(piece, InputError):
            lines.append(piece)
        else:
            assert piece.endswith("\n")
            lines.extend(piece[:-1].split("\n"))
    return lines


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(
    ("output_format", "chunk_bytes"), [("jsonl", 7_000), ("records", 30_000), ("audit", 1)]
)
def test_small_chunks_match_the_serial_run(
    catalog: Catalog, output_format: str, chunk_bytes: int, workers: int
) -> None:
    """Chunk boundaries inside files change neither lines, order, run numbers nor the summary."""
    serial_summary = RunSummary()
    serial = [
        result if isinstance(result, InputError) else result.render(output_format)
        for result in score_paths_serially([SAMPLE], catalog=catalog, summary=serial_summary)
    ]
    parallel_summary = RunSummary()
    parallel = lines_of(
        score_text(
            [SAMPLE],
            catalog=ROOT / "cases",
            policy=Policy(),
            workers=workers,
            output_format=output_format,
            summary=parallel_summary,
            chunk_bytes=chunk_bytes,
        )
    )
    assert parallel == serial
    assert parallel_summary == serial_summary


def test_only_streaming_formats_run_in_parallel() -> None:
    """Formats that need every record at once are refused."""
    with pytest.raises(ValueError, match="streaming"):
        next(score_text([SAMPLE], catalog=None, policy=Policy(), workers=2, output_format="table"))


def test_a_loaded_catalog_is_handed_to_the_workers(catalog: Catalog) -> None:
    """Workers given the loaded catalog (as the CLI does) score exactly as the serial run."""
    serial = [
        result if isinstance(result, InputError) else result.render("records")
        for result in score_paths_serially([SAMPLE], catalog=catalog)
    ]
    parallel = lines_of(
        score_text([SAMPLE], catalog=catalog, policy=Policy(), workers=2, output_format="records")
    )
    assert parallel == serial


@pytest.mark.parametrize("chunk_bytes", [1, 20_000])
def test_rows_from_the_workers_equal_the_serial_rows(catalog: Catalog, chunk_bytes: int) -> None:
    """Aggregation rows built by workers, run numbers set by the main process, are the serial
    run's ``scored_row`` of every record, in order, with the same summary."""
    serial_summary = RunSummary()
    serial = [
        result if isinstance(result, InputError) else scored_row(result)
        for result in score_paths_serially([SAMPLE], catalog=catalog, summary=serial_summary)
    ]
    parallel_summary = RunSummary()
    parallel = list(
        score_rows_parallel(
            [SAMPLE],
            catalog=catalog,
            policy=Policy(),
            workers=2,
            summary=parallel_summary,
            chunk_bytes=chunk_bytes,
        )
    )
    assert len(serial) == 560
    # repr: exact for every float, and NaN (no metric) equals NaN, which == does not give.
    assert [repr(row) for row in parallel] == [repr(row) for row in serial]
    assert parallel_summary == serial_summary


@pytest.mark.parametrize("output_format", ["jsonl", "records"])
def test_a_file_that_shrank_before_its_span_was_read_is_reported(
    tmp_path: Path, catalog: Catalog, output_format: str
) -> None:
    """A worker that cannot read the span the main process found reports the file unreadable
    instead of scoring part of a line."""
    path = tmp_path / "observations.jsonl"
    path.write_bytes(b"{}\n")
    chunk = Chunk(str(path), BundleInfo(id="local-x", kind="folder"), span=(0, 100))
    scorer = ChunkScorer(catalog, Policy(), output_format)
    assert_unreadable(scorer, chunk, scorer.text)


def assert_unreadable(
    scorer: ChunkScorer,
    chunk: Chunk,
    view: Callable[[Chunk], tuple[Sequence[object], RunSummary]],
) -> None:
    """``chunk``'s outcomes and ``view`` of it are one unreadable error, counted as rejected."""
    items, summary = view(chunk)
    for found in (scorer.outcomes(chunk), items):
        assert len(found) == 1
        error = found[0]
        assert isinstance(error, InputError)
        assert (error.rule, error.source) == ("unreadable", chunk.source)
    assert summary.rejected == 1


@pytest.mark.parametrize("output_format", ["jsonl", "records", "rows"])
def test_a_json_file_gone_before_its_worker_reads_it_is_reported(
    tmp_path: Path, catalog: Catalog, output_format: str
) -> None:
    """A pool's ``.json`` chunk carries only its path (its bytes need not travel): a file gone
    by the time the worker reads it is one unreadable error, counted as rejected."""
    path = tmp_path / "observations.json"
    chunk = Chunk(str(path), BundleInfo(id="local-x", kind="folder"), read_whole=True)
    assert chunk.json_file
    assert chunk.whole_file is None
    scorer = ChunkScorer(catalog, Policy(), output_format)
    views: dict[str, Callable[[Chunk], tuple[Sequence[object], RunSummary]]] = {
        "jsonl": scorer.text,
        "records": scorer.records,
        "rows": scorer.rows,
    }
    assert_unreadable(scorer, chunk, views[output_format])


def test_a_pool_reads_json_files_in_its_workers(tmp_path: Path) -> None:
    """The pool's main process names a ``.json`` file; a single process reads it itself."""
    folder = tmp_path / "night"
    folder.mkdir()
    (folder / "observations.json").write_bytes(b"[]")
    pooled = list(input_chunks([str(folder)], None, None, 1 << 20, spans=True))
    single = list(input_chunks([str(folder)], None, None, 1 << 20))
    assert all(isinstance(chunk, Chunk) for chunk in (*pooled, *single))
    chunks = cast(list[Chunk], pooled + single)
    assert [(chunk.read_whole, chunk.whole_file) for chunk in chunks] == [
        (True, None),
        (False, b"[]"),
    ]
    assert [chunk.file_bytes() for chunk in chunks] == [b"[]", b"[]"]


def awkward_file(folder: Path) -> tuple[Path, list[int]]:
    """Sample observations with a byte order mark, blank and CRLF lines, broken lines (one a
    stray byte order mark inside the file) and long lines spread through; and the line numbers
    of the broken ones."""
    good = (ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl").read_bytes()
    lines = good.splitlines()
    out: list[bytes] = [b"\xef\xbb\xbf" + lines[0]]
    broken: list[int] = []
    for index, line in enumerate(lines[1:], start=1):
        if index % 7 == 0:
            out.append(b"")
        if index % 5 == 0:
            out.append(line + b"\r")
        elif index % 11 == 0:
            out.append(b"\xef\xbb\xbf" + line)
            broken.append(len(out))
        elif index % 13 == 0:
            out.append(line[: len(line) // 2])
            broken.append(len(out))
        else:
            out.append(line)
    path = folder / "observations.jsonl"
    path.write_bytes(b"\n".join(out) + b"\n")
    return path, broken


@pytest.mark.parametrize("chunk_bytes", [1, 3_000, 40_000])
def test_workers_that_number_their_own_lines_locate_errors_as_the_serial_run(
    tmp_path: Path, catalog: Catalog, chunk_bytes: int
) -> None:
    """A pool's main process does not count lines for ``jsonl`` and rows (workers number each
    chunk's lines, the main process moves its errors): every error still names its line of the
    file, for chunk cuts anywhere, and the scored lines and rows are the serial run's."""
    path, broken = awkward_file(tmp_path)
    serial_summary = RunSummary()
    serial = list(score_paths_serially([str(path)], catalog=catalog, summary=serial_summary))
    assert [r.line for r in serial if isinstance(r, InputError)] == broken
    assert len(broken) > 10

    def located(items: Iterable[object]) -> list[object]:
        return [
            (item.source, item.line, item.rule, item.pointer)
            if isinstance(item, InputError)
            else item
            for item in items
        ]

    expected_text = [
        result if isinstance(result, InputError) else result.render("jsonl") for result in serial
    ]
    summary = RunSummary()
    text = lines_of(
        score_text(
            [str(path)],
            catalog=catalog,
            policy=Policy(),
            workers=2,
            summary=summary,
            chunk_bytes=chunk_bytes,
        )
    )
    assert located(text) == located(expected_text)
    assert summary == serial_summary

    expected_rows = [
        result if isinstance(result, InputError) else scored_row(result) for result in serial
    ]
    rows = list(
        score_rows_parallel(
            [str(path)], catalog=catalog, policy=Policy(), workers=2, chunk_bytes=chunk_bytes
        )
    )
    assert [repr(row) for row in located(rows)] == [repr(row) for row in located(expected_rows)]


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="pipe sizes are Linux's")
def test_a_pools_pipes_hold_a_chunks_output() -> None:
    """The pipes a pool's results and calls travel through are widened to ``PIPE_BYTES``."""
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    try:
        widen_pipes(pool)
        readers = [pool._result_queue._reader, pool._call_queue._reader]  # type: ignore[attr-defined]
        sizes = [fcntl.fcntl(reader.fileno(), fcntl.F_GETPIPE_SZ) for reader in readers]
    finally:
        pool.shutdown()
    assert sizes == [PIPE_BYTES, PIPE_BYTES]


def test_a_json_file_a_worker_reads_is_read_once(
    tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An array with an element the C scorer declines takes the general path whole: from the
    bytes the worker read once, with the serial run's results."""
    from scorecard.engine._chunk_scorer import chunk_text
    from scorecard.engine._chunks import worked

    sample = ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl"
    lines = sample.read_text(encoding="utf-8").splitlines()[:3]
    path = tmp_path / "observations.json"
    path.write_text("[" + ",".join([*lines, '{"schema": 1}']) + "]", encoding="utf-8")
    bundle = BundleInfo(id="local-x", kind="folder")
    scorer = ChunkScorer(catalog, Policy(), "jsonl")
    expected = chunk_text(scorer, Chunk(str(path), bundle, whole_file=path.read_bytes()))
    reads: list[str] = []
    real = Chunk.file_bytes

    def counted(chunk: Chunk) -> bytes:
        if chunk.whole_file is None:  # read from the file, not handed over
            reads.append(chunk.source)
        return real(chunk)

    monkeypatch.setattr(Chunk, "file_bytes", counted)
    found = worked(scorer, chunk_text, Chunk(str(path), bundle, read_whole=True))
    assert reads == [str(path)]
    assert repr(found) == repr(expected)
    _, summary = expected
    assert (summary.scored, summary.rejected) == (3, 1)


def test_forked_map_gives_every_result_in_order_from_forked_workers(tmp_path: Path) -> None:
    """``forked_map`` runs ``work`` in other processes (two workers, more items than its
    window), which inherit what this process holds (an open file read at an offset), and gives
    the results in the items' order; one worker does the work here."""
    import os

    from scorecard.engine import forked_map

    data = tmp_path / "data.bin"
    data.write_bytes(bytes(range(256)))
    handle = os.open(data, os.O_RDONLY)
    try:

        def work(item: int) -> tuple[int, int, int]:
            return item, os.pread(handle, 1, item)[0], os.getpid()

        items = list(range(100))
        forked = list(forked_map(work, items, 2))
        here = list(forked_map(work, items, 1))
    finally:
        os.close(handle)
    assert [(item, byte) for item, byte, _ in forked] == [(item, item) for item in items]
    assert {pid for _, _, pid in forked} - {os.getpid()}
    assert os.getpid() not in {pid for _, _, pid in forked}
    assert here == [(item, item, os.getpid()) for item in items]


def test_forked_map_raises_the_works_exception_and_ends_its_workers() -> None:
    """An exception a worker raises is raised here, in its turn (the results before it given
    first), and the pool's workers are ended."""
    from scorecard.engine import forked_map
    from scorecard.engine._lifetime import _pools

    def work(item: int) -> int:
        if item == 30:
            raise InputError("item 30 is bad", rule="bad", source=f"item {item}")
        return item * 2

    given: list[int] = []
    results = forked_map(work, range(100), 2)
    with pytest.raises(InputError) as raised:
        given.extend(results)
    assert given == [item * 2 for item in range(30)]
    assert raised.value.rule == "bad"
    assert raised.value.source == "item 30"
    assert not _pools
    assert not multiprocessing.active_children()
