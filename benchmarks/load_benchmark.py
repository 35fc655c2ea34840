"""Throughput of ``load_records`` over observations (what compare, plot, ``records_frame`` and the
notebook score with), against ``json.loads`` of the same lines in the same run.

    python benchmarks/load_benchmark.py                        # 50,000 observations, 1 and 2 workers
    python benchmarks/load_benchmark.py --observations 20000 --serial --compare

The corpus is ``score_benchmark.py``'s (the seeded generator, one JSON Lines file). Each
configuration calls ``load_records([CORPUS], workers=N)`` in this process (the catalog loaded
once beforehand, as the CLI does; worker processes are started by every call, as they are by
every command); configurations take turns for ``--repeat`` rounds and each shows its fastest
round. ``--serial`` also times what ``load_records`` did before it ran on the one engine: the
general path record by record (``score_records`` and ``scored_row``). ``--compare`` also times
``scorecard compare CORPUS --format json --workers N`` end to end (a fresh process: start-up,
scoring, the frame, the bootstrap intervals), and ``--compare-with CHECKOUT`` the same command
of another checkout (say the commit before the one engine). Rows of every configuration are compared, value
and type, and the outputs of ``compare`` byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from score_benchmark import build_corpus, in_process_rate

from scorecard.contract._catalog import Catalog, load_catalog
from scorecard.contract._errors import InputError
from scorecard.engine._io import read_records
from scorecard.engine._pipeline import score_records
from scorecard.engine._rows import Row, scored_row
from scorecard.engine._run import load_records


def engine_rows(corpus: Path, catalog: Catalog, workers: int) -> list[Row]:
    """The rows ``load_records`` gives on ``workers`` processes."""
    loaded = load_records([corpus], catalog=catalog, workers=workers)
    assert not loaded.errors
    return loaded.rows


def serial_rows(corpus: Path, catalog: Catalog) -> list[Row]:
    """The rows of the general path, record by record (``load_records`` before the one engine)."""
    return [
        scored_row(result)
        for result in score_records(read_records([str(corpus)]), catalog=catalog)
        if not isinstance(result, InputError)
    ]


def compare_output(corpus: Path, workers: int | None, source: Path | None = None) -> str:
    """``scorecard compare CORPUS --format json --workers N`` in a fresh process: its output.
    ``source``: another checkout whose ``src`` is imported instead (no ``--workers`` given)."""
    environment = dict(os.environ)
    if source is not None:
        environment["PYTHONPATH"] = str(source.resolve() / "src")
    # Compiled bytecode, as an installed program has it (see score_benchmark.run_score).
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment["PYTHONPYCACHEPREFIX"] = str(corpus.parent / "bytecode")
    command = [sys.executable, "-m", "scorecard", "compare", str(corpus), "--format", "json"]
    return subprocess.run(
        [*command, "--workers", str(workers)] if workers is not None else command,
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    ).stdout


def main() -> int:
    """Build the corpus, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--observations", type=int, default=50_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds per configuration; the fastest is shown"
    )
    parser.add_argument(
        "--serial", action="store_true", help="also time the general path, record by record"
    )
    parser.add_argument(
        "--compare", action="store_true", help="also time `scorecard compare` end to end"
    )
    parser.add_argument(
        "--compare-with",
        type=Path,
        metavar="CHECKOUT",
        help="with --compare, also time `scorecard compare` of another checkout",
    )
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scorecard-load-bench-") as scratch:
        corpus = Path(scratch) / "corpus.jsonl"
        lines, size, wire_share = build_corpus(corpus, arguments.observations)
        print(
            f"corpus: {lines:,} observations, {size / lines:,.0f} B each on average, "
            f"{wire_share:.0%} with PRP wire events, {size / 2**20:,.1f} MiB"
        )
        catalog = load_catalog()
        configurations: list[tuple[str, Callable[[], list[Row]]]] = [
            (f"load_records workers={workers}", lambda w=workers: engine_rows(corpus, catalog, w))
            for workers in arguments.workers
        ]
        if arguments.serial:
            configurations.append(
                ("general path, record by record", lambda: serial_rows(corpus, catalog))
            )
        commands: list[tuple[str, Callable[[], str]]] = []
        if arguments.compare:
            compare_output(corpus, 1)  # untimed: compiles the bytecode
            commands = [
                (
                    f"scorecard compare --workers {workers}",
                    lambda w=workers: compare_output(corpus, w),
                )
                for workers in arguments.workers
            ]
            other = arguments.compare_with
            if other is not None:
                compare_output(corpus, None, other)
                commands.append(
                    (
                        f"scorecard compare of {other.name}",
                        lambda: compare_output(corpus, None, other),
                    )
                )
        baseline = 0.0
        best: dict[str, float] = {}
        shapes: set[str] = set()
        outputs: set[str] = set()
        # Configurations (json.loads too) take turns, each keeping its fastest round.
        for _ in range(arguments.repeat):
            baseline = max(baseline, in_process_rate(corpus, 1, json.loads))
            for label, load in configurations:
                start = time.perf_counter()
                rows = load()
                elapsed = time.perf_counter() - start
                best[label] = min(best.get(label, elapsed), elapsed)
                assert len(rows) == lines
                shapes.add(repr(rows))  # exact floats, int and float told apart, NaN == NaN
                del rows
            for label, command in commands:
                start = time.perf_counter()
                outputs.add(command())
                elapsed = time.perf_counter() - start
                best[label] = min(best.get(label, elapsed), elapsed)
        print(f"\n{'configuration':34} {'seconds':>9} {'obs/s':>10} {'x json.loads':>13}")
        print(f"{'json.loads alone':34} {lines / baseline:9.2f} {baseline:10,.0f} {1:13.2f}")
        for label, _ in [*configurations, *commands]:
            rate = lines / best[label]
            print(f"{label:34} {best[label]:9.2f} {rate:10,.0f} {rate / baseline:13.2f}")
        identical = len(shapes) == 1 and len(outputs) <= 1
        print(f"\nrows identical across configurations (value and type): {len(shapes) == 1}")
        if commands:
            print(f"compare outputs identical across worker counts: {len(outputs) == 1}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
