"""The C extension built with AddressSanitizer and UBSan (``tests/fast/sanitized.py``) scores
the conformance rows, the samples, corrupted observations and the fuzzer's mutated lines and
blocks as the Python scorer does, without a single sanitizer report.

It can fail: with a bound of strict.c's depth check moved by one (``depth > MAX_DEPTH``),
UBSan stopped the run at the first line nested 257 deep ("index 256 out of bounds"); with its
vector loop reading 16 bytes where 12 remained, AddressSanitizer stopped it with a
heap-buffer-overflow in ``plain_run``. Neither changes an output the unsanitized tests compare.
"""

from __future__ import annotations

import json
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
