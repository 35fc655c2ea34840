"""Fuzz the C fast path against the Python scorer for longer than the test suite does.

Usage, from the repository root::

    python dev/fuzz.py --lines 20000 --blocks 2000 --seed 7              # the installed build
    python dev/fuzz.py --sanitize --lines 5000 --blocks 500 --seed 7     # ASan + UBSan build

Each run checks every conformance row and sample line, then the given numbers of corrupted
observations, mutated lines and blocks of them (``tests/fast/fuzzing.py``), seeded: the same
seed checks the same inputs. ``tests/fast/test_fuzz.py`` and ``tests/fast/test_sanitizer.py``
run small, fixed versions of this in the suite. Exits non-zero on a difference or a sanitizer
report, printing it and the input that caused it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fast import sanitized  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sanitize", action="store_true", help="build with ASan and UBSan")
    parser.add_argument("--lines", type=int, default=5000, help="mutated lines")
    parser.add_argument("--blocks", type=int, default=500, help="blocks of mutated lines")
    parser.add_argument("--corrupted", type=int, default=500, help="corrupted observations")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    sizes = sanitized.Sizes(options.corrupted, options.lines, options.blocks, options.seed)
    with tempfile.TemporaryDirectory(prefix="scorecard-fuzz-") as folder:
        build = None
        if options.sanitize:
            if sanitized.runtime() is None:
                print("no C compiler with an AddressSanitizer runtime", file=sys.stderr)
                return 2
            build = sanitized.build(Path(folder))
        last = Path(folder) / "last-input"
        done = sanitized.run(build, sizes, last, timeout=24 * 3600)
        sys.stdout.write(done.stdout)
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            if last.exists():
                print(f"the last input: {last.read_bytes()!r}", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
