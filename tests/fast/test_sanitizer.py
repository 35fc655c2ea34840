"""The C extension built with AddressSanitizer and UBSan (``tests/fast/sanitized.py``) scores
the conformance rows, the samples, corrupted observations and the fuzzer's mutated lines and
blocks as the Python scorer does, without a single sanitizer report.

It can fail, and the last two tests show it on builds with a bug planted in a copy of the
sources: strict.c's depth bound moved by one (UBSan stops the process at the first line nested
257 deep, "index 256 out of bounds", where the real build declines the line) and its repeated-key
check switched off (the fuzzer's mutated lines find a line C scores and Python refuses). By hand,
strict.c's vector loop reading 16 bytes where 12 remained was stopped by AddressSanitizer with a
heap-buffer-overflow in ``plain_run``. None of these changes an output of the conformance rows.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import c_only
from tests.fast import sanitized

pytestmark = c_only("this builds the C extension with sanitizers and scores through it")


@pytest.fixture(scope="module")
def sanitized_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sanitized build, skipped (saying why) only where it cannot be made."""
    if sanitized.compiler() is None:
        pytest.skip("no C compiler to build the sanitized extension with")
    if sanitized.runtime() is None:
        pytest.skip("the C compiler has no AddressSanitizer runtime (libasan.so)")
    return sanitized.build(tmp_path_factory.mktemp("sanitized"))


def test_the_sanitized_extension_scores_as_python_without_a_report(
    sanitized_build: Path, tmp_path: Path
) -> None:
    """Every input is declined or scored as the Python path scores it, and neither sanitizer
    reports anything (a report ends the program with a non-zero status)."""
    last = tmp_path / "last-input"
    done = sanitized.run(sanitized_build, sanitized.Sizes(), last)
    unread = last.read_bytes()[:3000] if last.exists() else b""
    assert done.returncode == 0, (
        f"{done.stdout[-2000:]}\n{done.stderr[:6000]}\nthe last input: {unread!r}"
    )
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["extension"] == str(sanitized_build)
    assert (report["conformance"], report["samples"]) == (1200, 560)
    sizes = sanitized.Sizes()
    assert report["corrupted"] >= sizes.corrupted
    assert report["fuzzed"] >= sizes.lines
    assert report["blocks"] >= sizes.blocks


PROBE = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("scorecard.fast._fastscore", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(module.is_unambiguous(sys.stdin.buffer.read()))
"""
"""Loads one build of the extension and asks its scanner (strict.c) about the line on stdin."""

DEEP = b"[" * 257 + b"]" * 257
"""A line nested one level deeper than the scanner reads (it declines it)."""


def planted(folder: Path, file: str, old: str, new: str) -> Path:
    """A sanitized build of a copy of the C sources in which ``old`` (once in ``file``) is
    ``new``."""
    copy = folder / "fastscore"
    shutil.copytree(sanitized.SOURCES, copy)
    text = (copy / file).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    (copy / file).write_text(text.replace(old, new), encoding="utf-8")
    return sanitized.build(folder, copy)


def probe(build: Path, line: bytes) -> subprocess.CompletedProcess[str]:
    runtime = sanitized.runtime()
    assert runtime is not None
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(build)],
        input=line.decode(),
        capture_output=True,
        text=True,
        env=sanitized.environment(runtime),
        timeout=120,
        check=False,
    )


def test_a_planted_write_past_the_scanners_stack_is_reported(
    sanitized_build: Path, tmp_path: Path
) -> None:
    """With strict.c's depth bound moved by one, the line nested 257 deep writes past its
    256-slot stack: UBSan stops the process, where the real build declines the line."""
    assert (probe(sanitized_build, DEEP).returncode, probe(sanitized_build, DEEP).stdout) == (
        0,
        "False\n",
    )
    build = planted(
        tmp_path, "strict.c", "if (depth == MAX_DEPTH) {", "if (depth == MAX_DEPTH + 1) {"
    )
    done = probe(build, DEEP)
    assert done.returncode != 0
    assert "index 256 out of bounds" in done.stderr


def test_a_planted_acceptance_of_repeated_keys_is_found_by_the_fuzzer(
    sanitized_build: Path, tmp_path: Path
) -> None:
    """With strict.c's repeated-key check off, the conformance rows and samples still agree (no
    line repeats a key), but the fuzzer's mutated lines, which the real build passes, find a
    line C scores and Python refuses."""
    sizes = sanitized.Sizes(corrupted=0, blocks=0, references=False)
    control = sanitized.run(sanitized_build, sizes, tmp_path / "last-input")
    assert control.returncode == 0
    assert "fuzzed passed: 300 inputs" in control.stdout.splitlines()
    build = planted(
        tmp_path,
        "strict.c",
        "if (distinct != 1) {\n                    return distinct;",
        "if (distinct < 0) {\n                    return distinct;",
    )
    done = sanitized.run(build, sizes, tmp_path / "last-input")
    assert done.returncode != 0
    assert "fuzzed passed" not in done.stdout
    assert "AssertionError" in done.stderr
    assert repeats_a_key((tmp_path / "last-input").read_bytes())


def repeats_a_key(line: bytes) -> bool:
    """Whether some object of the JSON text ``line`` has a key twice."""
    repeated = False

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        nonlocal repeated
        repeated = repeated or len({key for key, _ in items}) < len(items)
        return dict(items)

    json.loads(line, object_pairs_hook=pairs)
    return repeated
