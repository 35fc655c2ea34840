"""The allocator settings a user may ask the command line for: freed chunk-sized blocks are
reused, not faulted in again (each run in a fresh process, since the settings hold for the
whole process)."""

from __future__ import annotations

import os
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
    """Applied (when asked) before any command, they load neither the scorer nor
    msgspec (``scorecard --help`` stays fast)."""
    code = (
        "import sys; from scorecard.fast import reuse_freed_memory; reuse_freed_memory(); "
        "print(sorted(m for m in ('msgspec', 'scorecard.fast._fastpath') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


_CALLED_BY_MAIN = """
import sys
import scorecard.fast
calls = []
scorecard.fast.reuse_freed_memory = lambda: calls.append("asked") or True
sys.argv = ["scorecard", "--version"]
from scorecard.cli import main
try:
    main()
finally:
    sys.stdout.write(f"{calls}\\n")
"""


@pytest.mark.parametrize(("setting", "expected"), [(None, "[]"), ("0", "[]"), ("1", "['asked']")])
def test_the_console_script_asks_for_the_settings_only_when_the_user_does(
    setting: str | None, expected: str
) -> None:
    """``scorecard``'s entry point leaves the allocator alone unless
    ``SCORECARD_REUSE_FREED_MEMORY=1`` asks; then it applies the settings once, before the
    command runs (its workers are forked after it, so they inherit them)."""
    environment = {
        name: value for name, value in os.environ.items() if name != "SCORECARD_REUSE_FREED_MEMORY"
    }
    if setting is not None:
        environment["SCORECARD_REUSE_FREED_MEMORY"] = setting
    done = subprocess.run(
        [sys.executable, "-c", _CALLED_BY_MAIN],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    )
    assert done.stdout.splitlines()[-1] == expected
