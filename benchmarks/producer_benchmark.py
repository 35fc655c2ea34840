"""``scorecard score`` on the same observations as different producers write them.

    python benchmarks/producer_benchmark.py                       # 20,000 observations, 3 rounds
    python benchmarks/producer_benchmark.py --compare-with ../older-worktree

The corpus is ``score_benchmark.py``'s (the seeded generator ``scorecard.simulate``), written
five ways, one JSON Lines file each:

- ``own``: the project's writer (``score_benchmark.build_corpus``: compact, runner field order);
- ``node``: ``JSON.stringify`` of objects built in another key order (compact, UTF-8 raw;
  ``provenance`` after ``trace`` in ``base``, wire events starting with ``schema``, ``schema``
  last at the top, other objects' keys reversed);
- ``python``: ``json.dumps`` defaults (``", "`` and ``": "``, ``ensure_ascii``);
- ``sorted``: ``json.dumps(sort_keys=True)``;
- ``shuffled``: every object's keys in a random order seeded by the document, compact
  (the writers are :mod:`scorecard.simulate.producers`, shared with the fast path's tests);
- ``pretty``: ``.json`` files of 1,000 observations each, ``json.dump(indent=2)``, in a folder
  named as the others' so the bundle id is the same (its ``json.loads`` rate parses each
  whole file; it has no in-process or scaling figures, which read JSON Lines).

For each variant: ``scorecard score FILE --out OUT --workers N`` as a fresh process (start-up
included, bytecode compiled by an untimed first run, as ``score_benchmark.run_score`` does) for
each worker count, its rate against ``json.loads`` of the same lines in this process in the same
rounds, the same ratio in CPU time (the run's least CPU seconds against ``json.loads``' CPU
time: it moves far less than wall time when other work shares the cores), and the peak resident
memory of the largest process (``getrusage`` of the children). In a fresh process
(so that ``--compare-with`` measures another checkout's code): the share of lines the fast path
declines, and how many times faster a worker's scoring of the corpus in memory (fast path and
general path for the declined lines, no start-up, reading or writing) is than ``json.loads``.
With one and two workers among the worker counts, the scaling table sets two workers' speed-up
over one against the best this machine gives in the same rounds: two one-worker runs side by
side, each scoring half of the variant's lines ("halves at once": start-up, reading and writing
included, nothing shared). Its last column is how much of that best two workers reach.
The ``records`` variant is ``own`` written as ``--format records`` (``scorecard.record.v1``,
``docs/records.md``) instead of JSON Lines scorecards, in the same rounds: its table sets its
time beside ``own``'s for each worker count and checkout (records / jsonl, wall and CPU).
Configurations take turns for
``--repeat`` rounds and each shows its fastest round. The outputs of every variant (and worker
count, and checkout) must be byte-identical: the same observations give the same scorecards;
so must the records outputs among themselves.
Machines here are shared and noisy: quote ratios from one run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from score_benchmark import (
    build_corpus,
    in_process_cpu_rate,
    in_process_rate,
    load_average,
    measure_score,
    measure_scores_at_once,
    run_score,
)

from scorecard.simulate.producers import WRITERS


def writers() -> dict[str, Callable[[Any], str]]:
    """The variants other than ``own``, by name: document -> line (no newline). The writers are
    :mod:`scorecard.simulate.producers`', the ones the fast path's tests compare on."""
    return {
        name: (lambda document, write=WRITERS[name]: write(document).decode("utf-8"))
        for name in ("node", "python", "sorted", "shuffled")
    }


def write_variants(own: Path, folder: Path) -> dict[str, Path]:
    """``own`` (the generator's corpus) rewritten by each producer: variant -> file."""
    paths = {"own": own}
    with own.open(encoding="utf-8") as stream:
        documents = [json.loads(line) for line in stream]
    for name, write in writers().items():
        path = paths[name] = folder / f"{name}.jsonl"
        with path.open("w", encoding="utf-8") as stream:
            for document in documents:
                stream.write(write(document) + "\n")
    return paths


ARRAY_SIZE = 1_000
"""Observations per ``.json`` file of the ``pretty`` variant."""


def write_arrays(own: Path, folder: Path) -> Path:
    """``own``'s observations as pretty-printed ``.json`` arrays of :data:`ARRAY_SIZE`, in a
    folder whose name is ``folder``'s (the bundle id comes from it)."""
    target = folder / "arrays" / folder.name
    target.mkdir(parents=True, exist_ok=True)
    with own.open(encoding="utf-8") as stream:
        documents = [json.loads(line) for line in stream]
    for start in range(0, len(documents), ARRAY_SIZE):
        part = target / f"part-{start // ARRAY_SIZE:05d}.json"
        part.write_text(json.dumps(documents[start : start + ARRAY_SIZE], indent=2))
    return target


def array_rate(folder: Path, clock: Callable[[], float] = time.perf_counter) -> float:
    """Observations per second of ``clock`` that ``json.loads`` of each whole file in
    ``folder`` gets through."""
    texts = [path.read_bytes() for path in sorted(folder.glob("*.json"))]
    start = clock()
    count = sum(len(json.loads(text)) for text in texts)
    return count / max(clock() - start, 1e-9)


def write_halves(corpus: Path, folder: Path) -> tuple[Path, Path]:
    """The first and second half of ``corpus``'s lines, one file each."""
    lines = corpus.read_bytes().splitlines(keepends=True)
    middle = len(lines) // 2
    first, second = folder / f"{corpus.stem}-half-1.jsonl", folder / f"{corpus.stem}-half-2.jsonl"
    first.write_bytes(b"".join(lines[:middle]))
    second.write_bytes(b"".join(lines[middle:]))
    return first, second


def print_scaling(
    best: dict[tuple[str, int, Path | None], tuple[float, float]],
    split: dict[tuple[str, Path | None], float],
) -> None:
    """Two workers against one, and against what a perfect split of the same work gives on
    this machine in the same rounds: two one-worker runs, each scoring half the lines, side by
    side (start-up, reading and writing included, nothing shared; their slower one's time)."""
    print(
        f"\n{'variant':9} {'checkout':9} {'2 workers / 1':>15} "
        f"{'halves at once / 1':>18} {'share of it':>11}"
    )
    for (name, source), halves in split.items():
        one = best[(name, 1, source)][0]
        several = best[(name, 2, source)][0]
        checkout = "this" if source is None else source.name
        print(
            f"{name:9} {checkout:9} {one / several:15.2f} {one / halves:18.2f} "
            f"{halves / several:11.0%}"
        )


_IN_PROCESS = """
import json, sys, time
from scorecard.contract._bundles import BundleInfo
from scorecard.contract._policy import Policy
from scorecard.engine._io import line_blocks
try:
    from scorecard.engine._chunk_scorer import ChunkScorer
    from scorecard.engine._chunks import Chunk
except ImportError:  # a checkout from before the engine's chunks had modules of their own
    from scorecard.engine._parallel import _Chunk as Chunk, _ChunkScorer as ChunkScorer

scorer = ChunkScorer(None, Policy(), "jsonl")
bundle = BundleInfo(id="local-benchmark", kind="override")
with open(sys.argv[1], "rb") as stream:
    chunks = [Chunk("c.jsonl", bundle, block, first) for first, block in line_blocks(stream)]
lines = [line for chunk in chunks for line in chunk.block.split(b"\\n") if line]
scored = declined = 0
for chunk in chunks:
    pieces, counts = scorer.fast.score_block(chunk.block, chunk.first_line, bundle.id)
    scored += counts[0]
    declined += sum(not isinstance(piece, str) for piece in pieces)
work = parse = float("inf")
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    for chunk in chunks:
        scorer.text(chunk)
    work = min(work, time.perf_counter() - start)
    start = time.perf_counter()
    for line in lines:
        json.loads(line)
    parse = min(parse, time.perf_counter() - start)
print(scored + declined, declined, parse / work)
"""


def in_process(corpus: Path, rounds: int, source: Path | None = None) -> tuple[float, float]:
    """(share of ``corpus``'s lines the fast path hands back, how many times faster a worker's
    scoring of the corpus in memory gets through it than ``json.loads``), in a fresh process that
    imports ``source``'s ``src`` when given (another checkout). The scoring is
    ``ChunkScorer.text`` on each block: the fast path, and the general path for the lines it
    declines, as a worker does it, without start-up, reading or writing. The two take turns,
    ``rounds`` times, each keeping its fastest."""
    environment = dict(os.environ)
    if source is not None:
        environment["PYTHONPATH"] = str(source.resolve() / "src")
    printed = subprocess.run(
        [sys.executable, "-c", _IN_PROCESS, str(corpus), str(rounds)],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    ).stdout.split()
    lines, declined, ratio = int(printed[0]), int(printed[1]), float(printed[2])
    return declined / max(lines, 1), ratio


RECORDS = ("--format", "records")
"""What the ``records`` variant adds to ``scorecard score``."""


def print_records(
    best: dict[tuple[str, int, Path | None], tuple[float, float]],
    least_cpu: dict[tuple[str, int, Path | None], float],
    records: dict[tuple[int, Path | None], tuple[float, float]],
) -> None:
    """The ``records`` variant's time beside the JSON Lines time of the same corpus (``own``),
    each the fastest of the same rounds, wall and CPU."""
    print(
        f"\n{'variant':9} {'checkout':9} {'workers':>7} {'records s':>9} {'jsonl s':>8} "
        f"{'records / jsonl':>15} {'(CPU)':>6}"
    )
    for (workers, source), (elapsed, cpu) in records.items():
        jsonl = best[("own", workers, source)][0]
        jsonl_cpu = least_cpu[("own", workers, source)]
        checkout = "this" if source is None else source.name
        print(
            f"{'records':9} {checkout:9} {workers:7} {elapsed:9.2f} {jsonl:8.2f} "
            f"{elapsed / jsonl:15.2f} {cpu / jsonl_cpu:6.2f}"
        )


def _size(path: Path) -> int:
    """Bytes of a file, or of the files in a folder."""
    if path.is_dir():
        return sum(part.stat().st_size for part in path.iterdir())
    return path.stat().st_size


def main() -> int:
    """Build the corpus and its variants, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--observations", type=int, default=20_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds per configuration; the fastest is shown"
    )
    parser.add_argument(
        "--compare-with",
        type=Path,
        metavar="CHECKOUT",
        help="also time another checkout of this repository (every worker count), e.g. a git "
        "worktree",
    )
    parser.add_argument("--keep", type=Path, help="keep the corpora and outputs in this folder")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scorecard-producers-") as scratch:
        folder = arguments.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        lines, _, wire_share = build_corpus(folder / "own.jsonl", arguments.observations)
        corpora = write_variants(folder / "own.jsonl", folder)
        corpora["pretty"] = write_arrays(folder / "own.jsonl", folder)
        print(f"at the start, {load_average()}")
        print(
            f"corpus: {lines:,} observations, {wire_share:.0%} with PRP wire events; bytes per "
            "observation: "
            + ", ".join(f"{name} {_size(path) / lines:,.0f}" for name, path in corpora.items())
        )
        sources: list[Path | None] = [None]
        if arguments.compare_with is not None:
            sources.append(arguments.compare_with)
        warm = folder / "warm.jsonl"
        with corpora["own"].open("rb") as stream:
            warm.write_bytes(stream.readline())
        for source in sources:
            run_score(warm, folder / "warm-out.jsonl", 2, source)
        # (variant, workers, checkout): every worker count, for this code and another.
        configurations = [
            (name, workers, source)
            for source in sources
            for name in corpora
            for workers in arguments.workers
        ]
        halves = {
            name: write_halves(path, folder) for name, path in corpora.items() if path.is_file()
        }
        split: dict[tuple[str, Path | None], float] = {}
        baselines = dict.fromkeys(corpora, 0.0)
        baselines_cpu = dict.fromkeys(corpora, 0.0)
        best: dict[tuple[str, int, Path | None], tuple[float, float]] = {}
        least_cpu: dict[tuple[str, int, Path | None], float] = {}
        records: dict[tuple[int, Path | None], tuple[float, float]] = {}
        empty = folder / "empty.jsonl"
        empty.write_bytes(b"")
        startup = float("inf")
        for _ in range(arguments.repeat):
            startup = min(startup, run_score(empty, folder / "empty-out.jsonl", 1)[0])
            # json.loads of each variant in the same rounds as the runs it is compared with.
            for name, path in corpora.items():
                if path.is_dir():
                    rate, cpu_rate = array_rate(path), array_rate(path, time.process_time)
                else:
                    rate = in_process_rate(path, 1, json.loads)
                    cpu_rate = in_process_cpu_rate(path, 1, json.loads)
                baselines[name] = max(baselines[name], rate)
                baselines_cpu[name] = max(baselines_cpu[name], cpu_rate)
            for index, (name, workers, source) in enumerate(configurations):
                out = folder / f"out-{index}.jsonl"
                elapsed, peak, cpu = measure_score(corpora[name], out, workers, source)
                key = (name, workers, source)
                best[key] = min(best.get(key, (elapsed, peak)), (elapsed, peak))
                least_cpu[key] = min(least_cpu.get(key, cpu), cpu)
            for workers, source in (
                (workers, source) for source in sources for workers in arguments.workers
            ):
                out = folder / f"records-{workers}-{sources.index(source)}.jsonl"
                elapsed, _, cpu = measure_score(corpora["own"], out, workers, source, RECORDS)
                earlier = records.get((workers, source), (elapsed, cpu))
                records[(workers, source)] = (min(earlier[0], elapsed), min(earlier[1], cpu))
            if {1, 2} <= set(arguments.workers):
                for name, source in ((name, source) for source in sources for name in halves):
                    first, second = halves[name]
                    both = measure_scores_at_once(
                        [
                            (first, folder / "half-1-out.jsonl", 1, source),
                            (second, folder / "half-2-out.jsonl", 1, source),
                        ]
                    )
                    slower = max(elapsed for elapsed, _, _ in both)
                    split[(name, source)] = min(split.get((name, source), slower), slower)
        measured_in_process = {
            (name, source): in_process(path, arguments.repeat, source)
            for name, path in corpora.items()
            for source in sources
            if path.is_file()
        }
        print(f"start-up alone (empty input, fastest): {startup:.2f} s")
        print(
            f"\n{'variant':9} {'checkout':9} {'workers':>7} {'obs/s':>8} {'json.loads/s':>12} "
            f"{'x json.loads':>12} {'x (CPU)':>8} {'in process':>10} {'declined':>8} "
            f"{'peak MiB':>8}"
        )
        digests = set()
        for index, (name, workers, source) in enumerate(configurations):
            elapsed, peak = best[(name, workers, source)]
            rate = lines / elapsed
            cpu_ratio = lines / least_cpu[(name, workers, source)] / baselines_cpu[name]
            checkout = "this" if source is None else source.name
            if (name, source) in measured_in_process:
                declined, fast_ratio = measured_in_process[(name, source)]
                detail = f"{fast_ratio:10.2f} {declined:8.1%}"
            else:
                detail = f"{'-':>10} {'-':>8}"
            print(
                f"{name:9} {checkout:9} {workers:7} {rate:8,.0f} {baselines[name]:12,.0f} "
                f"{rate / baselines[name]:12.2f} {cpu_ratio:8.2f} {detail} {peak:8.0f}"
            )
            out = folder / f"out-{index}.jsonl"
            digests.add(hashlib.sha256(out.read_bytes()).hexdigest())
        record_digests = {
            hashlib.sha256(path.read_bytes()).hexdigest() for path in folder.glob("records-*.jsonl")
        }
        identical = len(digests) == 1
        print(f"\noutputs identical across variants, worker counts and checkouts: {identical}")
        records_identical = len(record_digests) == 1
        print(f"records identical across worker counts and checkouts: {records_identical}")
        print_records(best, least_cpu, records)
        if split:
            print_scaling(best, split)
        print(f"at the end, {load_average()}")
    return 0 if identical and records_identical else 1


if __name__ == "__main__":
    sys.exit(main())
