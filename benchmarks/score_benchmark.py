"""End-to-end throughput and memory of ``scorecard score``, against ``json.loads`` in the same run.

    python benchmarks/score_benchmark.py                      # 50,000 observations, 1 and 2 workers
    python benchmarks/score_benchmark.py --observations 1000000 --workers 2

The corpus comes from the repository's seeded generator (``scorecard.simulate``): campaign
bundles of seven candidates, generated with successive seeds until the requested count, written
as one JSON Lines file. Each configuration runs ``scorecard score CORPUS --out FILE`` as a fresh
process (start-up included; its bytecode compiled by an untimed first run, as an installed
program has it) and records wall time and the peak resident memory of the largest
process; configurations take turns for ``--repeat`` rounds and each shows its fastest round (the
least disturbed by other load). The baseline is the standard library's ``json.loads`` parsing the
same lines in this process, also the fastest of the rounds. Beside each wall time is the least
CPU time of the rounds (user and system, of every process of the run) and its ratio to
``json.loads``' CPU time: on a shared machine under load, the CPU ratio moves far less than the
wall ratio (for more than one worker it sums the workers' time, so it is no speed-up). Also printed: pydantic's
``model_validate_json`` into the full observation model (the issue's other reference), the
start-up alone (an empty input) and with one observation (fastest and median of
``--startup-repeat`` rounds, taking turns with the ``--compare-with`` checkout's), the speed-up
of N workers next to
the speed-up N busy processes get on this machine in the same run (shared virtual cores rarely
give N times one), and with ``--stages`` the cost of the compiled fast path and of each stage of
the general path. ``--compare-with CHECKOUT`` also times another checkout of the repository (say
a git worktree of an older commit) in the same rounds; ``--parquet`` also times
``--out X.parquet``. Outputs of every configuration are compared byte for byte. Figures quoted
anywhere in the repository come from this script; machines here are shared, so quote ratios
from one run, with the load averages it prints.
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
from collections.abc import Callable, Iterator
from pathlib import Path

from scorecard.contract._catalog import load_catalog
from scorecard.contract._models import WorkflowObservation
from scorecard.simulate.campaign import iter_bundles

ROOT = Path(__file__).resolve().parents[1]


def build_corpus(path: Path, count: int) -> tuple[int, int, float]:
    """Write ``count`` generated observations; return (lines, bytes, share with wire events)."""
    written = 0
    size = 0
    wire = 0
    seed = 1
    catalog = load_catalog()
    with path.open("w", encoding="utf-8") as stream:
        while written < count:
            for bundle in iter_bundles(seed=seed, bundles=4, catalog=catalog):
                for observation in bundle.observations:
                    if written == count:
                        break
                    line = json.dumps(observation, separators=(",", ":"), ensure_ascii=False)
                    stream.write(line + "\n")
                    size += len(line.encode("utf-8")) + 1
                    written += 1
                    wire += "wireEvents" in observation["base"]["trace"]
            seed += 1
    return written, size, wire / max(written, 1)


def load_average() -> str:
    """The machine's load averages (1, 5 and 15 minutes), to print beside the figures: the
    machines here are shared, and a ratio means little without the load it was measured under."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:  # pragma: no cover - not available on this platform
        return "load average: unknown"
    return f"load average: {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)"


def in_process_rate(
    path: Path,
    rounds: int,
    parse: Callable[[bytes], object],
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Observations per second of ``clock`` that ``parse`` gets through, the best of
    ``rounds``."""
    with path.open("rb") as stream:
        lines = stream.readlines()
    least = float("inf")
    for _ in range(rounds):
        start = clock()
        for line in lines:
            parse(line)
        least = min(least, clock() - start)
    return len(lines) / max(least, 1e-9)


def in_process_cpu_rate(path: Path, rounds: int, parse: Callable[[bytes], object]) -> float:
    """:func:`in_process_rate` in this process's CPU seconds: on a loaded machine CPU time
    moves far less than wall time, so the CPU ratio says more when other work competes for
    the cores."""
    return in_process_rate(path, rounds, parse, clock=time.process_time)


_MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stderr=subprocess.DEVNULL)
elapsed = time.perf_counter() - start
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(done.returncode, elapsed, used.ru_maxrss, used.ru_utime + used.ru_stime)
"""


def run_measured(
    command: list[str], env: dict[str, str] | None = None
) -> tuple[int, float, float, float, str]:
    """``command`` run under :data:`_MEASURE` (a process of its own, so the figures are this
    command's alone): (exit status, wall seconds, peak MiB of its largest process, CPU seconds
    of all its processes, what it printed on standard output)."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *command],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    *printed, last = done.stdout.strip().split("\n")
    status, seconds, peak, cpu = last.split()
    return int(status), float(seconds), int(peak) / 1024, float(cpu), "\n".join(printed)


def run_score(
    corpus: Path, out: Path, workers: int, source: Path | None = None
) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB of the largest process) of one scoring run
    (:func:`measure_score`)."""
    elapsed, peak, _ = measure_score(corpus, out, workers, source)
    return elapsed, peak


def measure_score(
    corpus: Path,
    out: Path,
    workers: int,
    source: Path | None = None,
    options: tuple[str, ...] = (),
) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MiB of the largest process, CPU seconds of all its processes)
    of one scoring run (``options``: more arguments of ``scorecard score``, ``--format``...).

    ``source``: another checkout of this repository whose ``src`` is imported instead.
    The run imports compiled bytecode, as an installed program does: it is cached under the
    corpus folder (``PYTHONPYCACHEPREFIX``) even where ``PYTHONDONTWRITEBYTECODE`` is set, as it
    is on this project's machines, which would otherwise compile every module at every start.
    """
    return measure_scores_at_once([(corpus, out, workers, source)], options)[0]


def measure_scores_at_once(
    runs: list[tuple[Path, Path, int, Path | None]], options: tuple[str, ...] = ()
) -> list[tuple[float, float, float]]:
    """:func:`measure_score` of each (corpus, out, workers, source), all started together and
    running side by side; each run's figures are its own."""
    started = []
    for corpus, out, workers, source in runs:
        command = [
            sys.executable,
            "-c",
            _MEASURE,
            sys.executable,
            "-m",
            "scorecard",
            "score",
            str(corpus),
            "--out",
            str(out),
            "--workers",
            str(workers),
            *options,
        ]
        # Each run writes a new file: replacing the previous round's output would also time
        # the file system freeing it, which is not scoring.
        out.unlink(missing_ok=True)
        environment = dict(os.environ)
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        environment["PYTHONPYCACHEPREFIX"] = str(corpus.parent / "bytecode")
        if source is not None:
            environment["PYTHONPATH"] = str(source.resolve() / "src")
        started.append(
            subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=environment)
        )
    measured = []
    for process in started:
        printed, _ = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"the measuring process exited {process.returncode}")
        fields = printed.split()
        returncode, elapsed, peak_kib = int(fields[0]), float(fields[1]), int(fields[2])
        if returncode != 0:
            raise SystemExit(f"scorecard score exited {returncode}")
        measured.append((elapsed, peak_kib / 1024, float(fields[3])))
    return measured


def _spin(count: int) -> int:
    total = 0
    for number in range(count):
        total += number
    return total


def machine_scaling(processes: int, count: int = 20_000_000) -> float:
    """How much faster ``processes`` busy processes get through ``processes`` loops than one does.

    Two "cores" of a shared virtual machine may be hyperthreads or may be contended: this says
    what the hardware gave in this run, so the worker speed-up can be read against it.
    """
    from concurrent.futures import ProcessPoolExecutor

    start = time.perf_counter()
    _spin(count)
    one = time.perf_counter() - start
    with ProcessPoolExecutor(processes) as executor:
        list(executor.map(_spin, [1000] * processes))  # start the processes first
        start = time.perf_counter()
        list(executor.map(_spin, [count] * processes))
        many = time.perf_counter() - start
    return processes * one / many


def fast_path_costs(corpus: Path, rounds: int) -> list[tuple[str, float]]:
    """Microseconds per observation of the compiled fast path (``jsonl``), in this process:
    the typed decode alone, then with the strict scanner that clears a line for it, then the whole
    of ``FastScorer.score_block`` (decode, check, contract rules, scoring, audit count, line);
    then the rows the C code makes of the block (``score_rows``: what ``compare``, ``plot`` and
    ``score --out X.parquet`` score with), and a gate worker's rows with the detail a verdict
    shows (the Python audit of lines with failed findings included). Fastest of ``rounds``
    each, taking turns; the corpus is in memory, so no reading is timed.
    """
    from scorecard.contract._bundles import BundleInfo
    from scorecard.contract._policy import Policy
    from scorecard.core._recognize import OBSERVATION_DECODER
    from scorecard.engine._chunk_scorer import ChunkScorer
    from scorecard.engine._chunks import Chunk
    from scorecard.engine._detail import _detailed
    from scorecard.engine._io import line_blocks
    from scorecard.fast._fastpath import fast_scorer
    from scorecard.fast._fastscore import is_unambiguous

    scorer = fast_scorer(load_catalog(), Policy())
    if scorer is None:
        return []
    with corpus.open("rb") as stream:
        blocks = list(line_blocks(stream))
    lines = [line for _, block in blocks for line in block.split(b"\n") if line]
    bundle = BundleInfo(id="local-benchmark", kind="override")

    def decode() -> None:
        for line in lines:
            OBSERVATION_DECODER.decode(line)

    def check() -> None:
        for line in lines:
            assert is_unambiguous(line)
            OBSERVATION_DECODER.decode(line)

    def whole() -> None:
        for first_line, block in blocks:
            scorer.score_block(block, first_line, "local-benchmark")

    def rows() -> None:
        for first_line, block in blocks:
            scorer.score_rows(block, first_line, "local-benchmark", {})

    chunks = [Chunk(str(corpus), bundle, block, first_line) for first_line, block in blocks]
    gate_worker = ChunkScorer(None, Policy(), "rows")

    def detailed() -> None:
        for chunk in chunks:
            _detailed(gate_worker, chunk, False)

    steps = (
        ("typed decode", decode),
        ("+ strict scan", check),
        ("whole block in C", whole),
        ("rows of the block in C", rows),
        ("gate's rows and detail", detailed),
    )
    best = dict.fromkeys((name for name, _ in steps), float("inf"))
    for _ in range(rounds):
        for name, step in steps:
            start = time.perf_counter()
            step()
            best[name] = min(best[name], (time.perf_counter() - start) / len(lines) * 1e6)
    return list(best.items())


_READ = """
import sys, time
from scorecard.fast import reuse_freed_memory
if sys.argv[2] == "reuse":
    reuse_freed_memory()
from scorecard.contract._bundles import BundleInfo
from scorecard.engine._chunks import CHUNK_BYTES, line_chunks
bundle = BundleInfo(id="local-benchmark", kind="override")
best = lines = float("inf")
for _ in range(int(sys.argv[3])):
    start = time.perf_counter()
    with open(sys.argv[1], "rb") as stream:
        lines = sum(
            chunk.block.count(b"\\n") + 1
            for chunk in line_chunks(stream, "c.jsonl", bundle, CHUNK_BYTES)
        )
    best = min(best, time.perf_counter() - start)
print(best / lines * 1e6)
"""


def read_costs(corpus: Path, rounds: int) -> list[tuple[str, float]]:
    """Microseconds per observation of reading the corpus into a one-worker run's chunks
    (``line_chunks``), in a fresh process with the allocator as it is and in one with the
    settings a user may ask the command line for (``SCORECARD_REUSE_FREED_MEMORY=1``,
    ``fast.reuse_freed_memory``: they hold for the whole process, so each is its own process). Fastest of ``rounds`` each; the file is in the page cache."""
    costs = []
    for label, mode in (
        ("default allocator", "default"),
        ("allocator reusing freed memory", "reuse"),
    ):
        printed = subprocess.run(
            [sys.executable, "-c", _READ, str(corpus), mode, str(rounds)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        costs.append((label, float(printed)))
    return costs


def stage_costs(corpus: Path, rounds: int) -> list[tuple[str, float]]:
    """Microseconds per observation of each stage of the general (Python) path, in this
    process: what a line the fast path declines costs, and every line of the other formats.

    Each run streams the corpus through one more stage than the previous one (as
    ``scorecard score`` does), so a stage's cost is the difference of consecutive runs, each the
    fastest of ``rounds``. Under heavy outside load a difference can still come out negative:
    then the split says nothing, rerun it.
    """
    from scorecard.contract._policy import Policy
    from scorecard.contract._wire import ObservationDict
    from scorecard.core._audit import audit_observation
    from scorecard.core._scoring import score_wire
    from scorecard.core._validation import accept_observation
    from scorecard.engine._io import RawRecord, read_records
    from scorecard.engine._pipeline import score_records

    catalog = load_catalog()
    policy = Policy()
    paths = [str(corpus)]

    def parse() -> int:
        return sum(1 for _ in read_records(paths))

    def accepted() -> Iterator[ObservationDict]:
        # As the pipeline calls it: a reader's document is parsed JSON.
        for record in read_records(paths):
            assert isinstance(record, RawRecord)
            yield accept_observation(record.document, parsed_json=True)[0]

    def validate() -> int:
        return sum(1 for _ in accepted())

    def score() -> int:
        count = 0
        for observation in accepted():
            score_wire(observation, catalog[observation["caseId"]], bundle_id="b", policy=policy)
            count += 1
        return count

    def audit() -> int:
        count = 0
        for observation in accepted():
            case = catalog[observation["caseId"]]
            score_wire(observation, case, bundle_id="b", policy=policy)
            audit_observation(case, observation)
            count += 1
        return count

    def render() -> int:
        count = 0
        for result in score_records(read_records(paths), catalog=catalog, policy=policy):
            result.render("jsonl")  # type: ignore[union-attr]
            count += 1
        return count

    stages = (
        ("read + JSON parse", parse),
        ("recognise + contract rules", validate),
        ("score", score),
        ("case-assertion audit", audit),
        ("records, summary, render", render),
    )
    # Stages take turns, `rounds` times, each keeping its fastest run: load that comes and goes
    # then disturbs every stage alike instead of one stage's only run.
    best = dict.fromkeys((name for name, _ in stages), float("inf"))
    for _ in range(rounds):
        for name, stage in stages:
            start = time.perf_counter()
            count = stage()
            best[name] = min(best[name], (time.perf_counter() - start) / count * 1e6)
    costs: list[tuple[str, float]] = []
    previous = 0.0
    for name, _ in stages:
        costs.append((name, best[name] - previous))
        previous = best[name]
    return costs


def main() -> int:
    """Build the corpus, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--observations", type=int, default=50_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds per configuration; the fastest is shown"
    )
    parser.add_argument(
        "--compare-with",
        type=Path,
        metavar="CHECKOUT",
        help="also time another checkout of this repository (one worker), e.g. a git worktree",
    )
    parser.add_argument("--keep", type=Path, help="keep the corpus and outputs in this folder")
    parser.add_argument(
        "--parquet",
        action="store_true",
        help="also time --out X.parquet for each worker count (and the other checkout)",
    )
    parser.add_argument(
        "--stages",
        action="store_true",
        help="also print the cost of the fast path and of each general-path stage",
    )
    parser.add_argument(
        "--startup-repeat",
        type=int,
        default=15,
        help="rounds of each start-up measurement (and of the other checkout's, in turns); "
        "the fastest and the median are shown",
    )
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scorecard-bench-") as scratch:
        folder = arguments.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        corpus = folder / "corpus.jsonl"
        lines, size, wire_share = build_corpus(corpus, arguments.observations)
        print(f"at the start, {load_average()}")
        print(
            f"corpus: {lines:,} observations, {size / lines:,.0f} B each on average, "
            f"{wire_share:.0%} with PRP wire events, {size / 2**20:,.1f} MiB"
        )
        baseline = in_process_rate(corpus, arguments.repeat, json.loads)
        baseline_cpu = in_process_cpu_rate(corpus, arguments.repeat, json.loads)
        print(
            f"\n{'configuration':40} {'seconds':>9} {'obs/s':>10} {'x json.loads':>13} "
            f"{'CPU s':>7} {'x (CPU)':>8} {'peak MiB':>9}"
        )
        print(
            f"{'json.loads alone (in process)':40} {lines / baseline:9.2f} {baseline:10,.0f} "
            f"{1:13.2f} {lines / baseline_cpu:7.2f} {1:8.2f} {'-':>9}"
        )
        models = in_process_rate(corpus, arguments.repeat, WorkflowObservation.model_validate_json)
        print(
            f"{'pydantic model_validate_json':40} {lines / models:9.2f} {models:10,.0f} "
            f"{models / baseline:13.2f} {'-':>7} {'-':>8} {'-':>9}"
        )
        empty = folder / "empty.jsonl"
        empty.write_bytes(b"")
        # Untimed runs of one observation compile the bytecode of each path.
        warm = folder / "warm.jsonl"
        with corpus.open("rb") as stream:
            warm.write_bytes(stream.readline())
        for suffix in (".jsonl", ".parquet") if arguments.parquet else (".jsonl",):
            for source in {None, arguments.compare_with}:
                run_score(warm, folder / f"warm-out{suffix}", 2, source)
        # The start-up figure is `scorecard score` of one observation, written as JSON
        # Lines; each start-up shows its fastest wall time and its least CPU time, then the
        # medians of its rounds (a start-up is short, and one busy moment moves a round a lot).
        # The other checkout's start-ups take turns with this one's.
        for label, source_file in (
            ("start-up alone (empty input)", empty),
            ("start-up, one observation", warm),
        ):
            sources = [(label, None)]
            if arguments.compare_with is not None:
                sources.append(
                    (f"{label} of {arguments.compare_with.name}", arguments.compare_with)
                )
            started: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in sources}
            for _ in range(arguments.startup_repeat):
                for name, source in sources:
                    elapsed, _, used = measure_score(
                        source_file, folder / "start-out.jsonl", 1, source
                    )
                    started[name].append((elapsed, used))
            for name, rounds in started.items():
                walls = sorted(elapsed for elapsed, _ in rounds)
                cpus = sorted(used for _, used in rounds)
                middle = len(rounds) // 2
                print(
                    f"{name:40} {walls[0]:9.2f} {'-':>10} {'-':>13} {cpus[0]:7.2f} {'-':>8} "
                    f"{'-':>9}"
                )
                print(
                    f"{'  median of ' + str(len(rounds)) + ' rounds':40} {walls[middle]:9.2f} "
                    f"{'-':>10} {'-':>13} {cpus[middle]:7.2f} {'-':>8} {'-':>9}"
                )
        digests: dict[str, set[str]] = {}
        rates: dict[int, float] = {}
        # Configurations take turns, `--repeat` rounds; each keeps its fastest (least disturbed)
        # round, and the peak memory of that round, and its least CPU time.
        configurations: list[tuple[str, int, Path | None, str]] = []
        for suffix in (".jsonl", ".parquet") if arguments.parquet else (".jsonl",):
            head = "scorecard score" if suffix == ".jsonl" else "--out X.parquet"
            configurations += [
                (f"{head} --workers {workers}", workers, None, suffix)
                for workers in arguments.workers
            ]
            if arguments.compare_with is not None:
                other = arguments.compare_with
                configurations.append((f"{head} --workers 1 of {other.name}", 1, other, suffix))
        best: dict[str, tuple[float, float]] = {}
        least_cpu: dict[str, float] = {}
        for _ in range(arguments.repeat):
            for index, (label, workers, source, suffix) in enumerate(configurations):
                out = folder / f"scorecards-{index}{suffix}"
                elapsed, peak, cpu = measure_score(corpus, out, workers, source)
                best[label] = min(best.get(label, (elapsed, peak)), (elapsed, peak))
                least_cpu[label] = min(least_cpu.get(label, cpu), cpu)
        for index, (label, workers, source, suffix) in enumerate(configurations):
            elapsed, peak = best[label]
            rate = lines / elapsed
            cpu = least_cpu[label]
            if source is None and suffix == ".jsonl":
                rates[workers] = rate
            print(
                f"{label:40} {elapsed:9.2f} {rate:10,.0f} {rate / baseline:13.2f} "
                f"{cpu:7.2f} {lines / cpu / baseline_cpu:8.2f} {peak:9.0f}"
            )
            out = folder / f"scorecards-{index}{suffix}"
            digests.setdefault(suffix, set()).add(hashlib.sha256(out.read_bytes()).hexdigest())
        identical = all(len(found) == 1 for found in digests.values())
        print(f"\noutputs identical across configurations (per format): {identical}")
        print(f"at the end of the timed rounds, {load_average()}")
        most = max(arguments.workers)
        if most > 1 and 1 in rates:
            print(
                f"speed-up of {most} workers over 1: {rates[most] / rates[1]:.2f}x; "
                f"{most} busy processes on this machine, same run: "
                f"{machine_scaling(most):.2f}x one"
            )
        if arguments.stages:
            print("\nfast path (microseconds per observation, in process):")
            for name, micros in fast_path_costs(corpus, arguments.repeat):
                print(f"  {name:30} {micros:7.1f}")
            print("\nreading the file into chunks (microseconds per observation, fresh process):")
            for name, micros in read_costs(corpus, arguments.repeat):
                print(f"  {name:30} {micros:7.1f}")
            print("\ngeneral path stages (microseconds per observation, in process):")
            for name, micros in stage_costs(corpus, arguments.repeat):
                print(f"  {name:30} {micros:7.1f}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
