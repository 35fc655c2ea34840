"""The command line's allocator settings: freed chunk-sized blocks are reused, not faulted in
again (each run in a fresh process, since the settings hold for the whole process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import c_only

_FAULTS = """
import resource, sys
from scorecard.fast import reuse_freed_memory
applied = reuse_freed_memory() if sys.argv[2] == "reuse" else None
from scorecard.engine._io import line_blocks
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
with open(sys.argv[1], "rb") as stream:
    size = sum(len(block) for _, block in line_blocks(stream, 2 << 20))
print(applied, size, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(path: Path, mode: str) -> tuple[str, int, int]:
    """(applied, bytes read, page faults) of splitting ``path`` into blocks in a new process."""
    done = subprocess.run(
        [sys.executable, "-c", _FAULTS, str(path), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    applied, size, count = done.stdout.split()
    return applied, int(size), int(count)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
@c_only("the C extension applies the allocator settings")
def test_the_blocks_of_a_file_reuse_freed_memory(tmp_path: Path) -> None:
    """A 48 MiB file split into 2 MiB blocks as a run reads it: by default the blocks fault in
    fresh pages for much of what they hold; with the settings, the memory of the first blocks
    serves the rest."""
    path = tmp_path / "lines.jsonl"
    line = b'{"x": "' + b"y" * 3000 + b'"}\n'
    path.write_bytes(line * (48 * 2**20 // len(line)))
    applied, size, reused = faults(path, "reuse")
    _, same, fresh = faults(path, "default")
    assert applied == "True"
    assert size == same > path.stat().st_size * 0.99  # each block without its final newline
    pages = size // 4096
    assert fresh > pages / 2
    assert reused < pages / 4


def test_the_settings_do_not_load_the_scorer() -> None:
    """The command line applies them before any command: they load neither the scorer nor
    msgspec (``scorecard --help`` stays fast)."""
    code = (
        "import sys; from scorecard.fast import reuse_freed_memory; reuse_freed_memory(); "
        "print(sorted(m for m in ('msgspec', 'scorecard.fast._fastpath') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


_CALLED_BY_MAIN = """
import os, sys
import scorecard.fast
calls = []
scorecard.fast.reuse_freed_memory = lambda: calls.append("asked") or True
leave = os._exit
def report(code):
    sys.stdout.write(f"{calls}\\n")
    sys.stdout.flush()
    leave(code)
os._exit = report
sys.argv = ["scorecard", "--version"]
from scorecard.cli import main
main()
"""


def test_the_console_script_asks_for_the_settings() -> None:
    """``scorecard``'s entry point applies them once, before the command runs (its workers are
    forked after it, so they inherit them)."""
    done = subprocess.run(
        [sys.executable, "-c", _CALLED_BY_MAIN], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "['asked']"
