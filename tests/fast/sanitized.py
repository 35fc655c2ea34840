"""The C extension built with AddressSanitizer and UBSan, and the program that scores through it.

:func:`build` compiles the sources setup.py compiles (``src/fastscore/*.c``) with
``-fsanitize=address,undefined -fno-sanitize-recover=undefined`` into a folder of its own.
:func:`run` starts ``python -m tests.fast.sanitized`` on that build: a Python that is not itself
sanitized, so the sanitizer runtime is preloaded; CPython's allocator is switched to malloc so
every object is an allocation the sanitizer watches (reading past a line's buffer, or an object
freed too early, is a report, not a quiet read of a neighbour); leak detection is off, since
CPython keeps much of its memory until exit by design. The program checks, through the build,
against the Python scorer: every conformance row, every sample line and the sample files as
blocks, corrupted observations, and the byte-level fuzzer's mutated lines and blocks
(``tests/fast/fuzzing.py``). Any sanitizer report ends it with a non-zero status, as does any
difference. Before each input it writes the input to ``--last``, so a crash names it.

A ``bytes`` object ends in a NUL byte the sanitizer cannot tell from its text, so a read exactly
one byte past a block is invisible to it; two or more are reported.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "src" / "fastscore"
EXTENSION = "scorecard.fast._fastscore"
FLAGS = [
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=undefined",
    "-fno-omit-frame-pointer",
    "-O1",
    "-g",
    "-Wall",
    "-fvisibility=hidden",
    "-shared",
    "-fPIC",
]


def compiler() -> str | None:
    """The C compiler setuptools would use, when it is on this machine."""
    name = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(name)


def runtime() -> str | None:
    """The AddressSanitizer runtime to preload into a Python that is not sanitized, or None
    when the compiler has none (or is not gcc or clang, which both answer this question)."""
    cc = compiler()
    if cc is None:
        return None
    done = subprocess.run(
        [cc, "-print-file-name=libasan.so"], capture_output=True, text=True, check=False
    )
    path = done.stdout.strip()
    return path if done.returncode == 0 and os.path.isabs(path) and os.path.exists(path) else None


def build(folder: Path, source_folder: Path = SOURCES) -> Path:
    """The sanitized extension, built from ``src/fastscore/*.c`` (or the C files of another
    ``source_folder``: a copy with a planted bug) into ``folder``."""
    cc = compiler()
    assert cc is not None, "no C compiler"
    target = folder / f"_fastscore{sysconfig.get_config_var('EXT_SUFFIX')}"
    sources = sorted(str(path) for path in source_folder.glob("*.c"))
    include = sysconfig.get_paths()["include"]
    subprocess.run([cc, *FLAGS, f"-I{include}", *sources, "-o", str(target)], check=True)
    return target


def environment(library: str) -> dict[str, str]:
    """The environment of a Python that loads a sanitized extension (see the module's doc)."""
    return {
        **os.environ,
        "LD_PRELOAD": library,
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:halt_on_error=1",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        "PYTHONMALLOC": "malloc",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "SCORECARD_ENGINE": "c",
    }


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much the program checks: conformance rows and sample lines (unless ``references``
    is False); these many corrupted observations, mutated lines and blocks of mutated lines."""

    corrupted: int = 60
    lines: int = 300
    blocks: int = 40
    seed: int = 0
    references: bool = True


def run(
    extension: Path | None, sizes: Sizes, last: Path, *, timeout: float = 1800
) -> subprocess.CompletedProcess[str]:
    """The checks through ``extension`` (sanitized: its runtime preloaded) in a new process;
    ``None`` checks the installed extension, unsanitized."""
    command = [sys.executable, "-m", "tests.fast.sanitized", "--last", str(last)]
    command += ["--corrupted", str(sizes.corrupted), "--lines", str(sizes.lines)]
    command += ["--blocks", str(sizes.blocks), "--seed", str(sizes.seed)]
    if not sizes.references:
        command.append("--no-references")
    if extension is None:
        env = {**os.environ, "SCORECARD_ENGINE": "c"}
    else:
        library = runtime()
        assert library is not None, "no sanitizer runtime"
        env = environment(library)
        command += ["--extension", str(extension)]
    return subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout, check=False
    )


# --- the program ----------------------------------------------------------------------------


def _load(path: Path) -> None:
    """Makes ``path`` the extension the package imports (before the package looks for it)."""
    spec = importlib.util.spec_from_file_location(EXTENSION, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[EXTENSION] = module
    spec.loader.exec_module(module)


def _checks(sizes: Sizes, last: Path) -> dict[str, int]:
    """Every check, in order; how many inputs each saw."""
    from hypothesis import HealthCheck, Phase, given, seed, settings
    from hypothesis import strategies as st

    from scorecard.contract._catalog import load_catalog
    from scorecard.contract._policy import Policy
    from scorecard.simulate.producers import WRITERS
    from tests.conftest import conformance_rows, runner_line
    from tests.fast import fuzzing
    from tests.strategies import corrupted

    catalog = load_catalog(ROOT / "cases")
    counts = dict.fromkeys(["conformance", "samples", "blocks", "corrupted", "fuzzed"], 0)

    def line(raw: bytes, kind: str, policy: Policy | None = None) -> None:
        last.write_bytes(raw)
        fuzzing.check_line(raw, catalog, policy)
        counts[kind] += 1

    def block(lines: list[bytes], first_line: int) -> None:
        last.write_bytes(b"\n".join(lines))
        fuzzing.check_block(lines, first_line, catalog)
        fuzzing.check_array(lines, first_line > 1, catalog)  # as a .json array too
        counts["blocks"] += 1

    writers = list(WRITERS.values())
    rows = conformance_rows() if sizes.references else []
    samples = sorted((ROOT / "observations").rglob("*.jsonl")) if sizes.references else []
    for index, row in enumerate(rows):
        options = row["options"]
        policy = Policy.from_overrides(
            options.get("weights"), options.get("thresholds"), require_positive_total=False
        )
        # The runners' spelling and, in turn, one other producer's.
        for raw in (
            runner_line(row["observation"]),
            writers[index % len(writers)](row["observation"]),
        ):
            line(raw, "conformance", policy)
    _done("conformance", counts)
    for path in samples:
        lines = path.read_bytes().splitlines()
        for raw in lines:
            line(raw, "samples")
        block(lines, 1)
    _done("samples", counts)

    profile = settings(
        max_examples=1,
        deadline=None,
        database=None,
        derandomize=False,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: a report comes at once
        suppress_health_check=list(HealthCheck),
    )

    def hypothesis_run(
        examples: int, test: Callable[..., None], *strategies: st.SearchStrategy[Any]
    ) -> None:
        if examples > 0:
            checked = given(*strategies)(test)
            wrapped: Callable[[], None] = seed(sizes.seed)(
                settings(profile, max_examples=examples)(checked)
            )
            wrapped()

    def every_spelling(document: Any) -> None:
        for raw in (runner_line(document), *(write(document) for write in writers)):
            line(raw, "corrupted")

    hypothesis_run(sizes.corrupted, every_spelling, corrupted())
    _done("corrupted", counts)
    hypothesis_run(sizes.lines, lambda raw: line(raw, "fuzzed"), fuzzing.mutated_lines())
    _done("fuzzed", counts)
    some = st.lists(
        fuzzing.mutated_lines() | st.sampled_from(fuzzing.seed_lines()), min_size=1, max_size=4
    )
    hypothesis_run(sizes.blocks, block, some, st.sampled_from([1, 41]))
    return counts


def _done(stage: str, counts: dict[str, int]) -> None:
    """Says a stage passed (so a failure's output shows how far the run came)."""
    print(f"{stage} passed: {counts[stage]} inputs", flush=True)


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fast.sanitized", description=__doc__)
    parser.add_argument("--extension", type=Path, help="a build to load (default: the installed)")
    parser.add_argument("--last", type=Path, required=True, help="each input is written here")
    defaults = Sizes()
    for name in ("corrupted", "lines", "blocks", "seed"):
        parser.add_argument(f"--{name}", type=int, default=getattr(defaults, name))
    parser.add_argument(
        "--no-references",
        dest="references",
        action="store_false",
        help="skip the conformance rows and the samples (the generated inputs alone)",
    )
    options = parser.parse_args(arguments)
    if options.extension is not None:
        _load(options.extension)
    from scorecard.fast._extension import extension as loaded

    assert loaded is not None, "the extension is off"
    expected = options.extension or Path(loaded.__file__ or "")
    assert Path(loaded.__file__ or "") == expected, loaded.__file__
    started = time.monotonic()
    sizes = Sizes(
        options.corrupted, options.lines, options.blocks, options.seed, options.references
    )
    counts = _checks(sizes, options.last)
    counts["seconds"] = round(time.monotonic() - started)
    print(json.dumps({"extension": str(expected), **counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
