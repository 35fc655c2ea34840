"""``SCORECARD_ENGINE=python``: the switch that scores every line, in a run and in the whole
test suite, through the Python general path. Under it the C extension is never loaded, so no
line can be scored in C; the run's bytes are those of the default engine."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scorecard.contract._errors import ScorecardError
from scorecard.engine._run import score_run
from scorecard.fast._extension import ENGINE_VARIABLE, chosen_engine
from tests.conftest import PYTHON_ONLY, ROOT

# Started as its own program: any import of the extension, in it or in its forked workers, fails
# (an AssertionError, not the ImportError that would read as "not built").
_REFUSE_EXTENSION = """
import importlib.abc, sys
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "scorecard.fast._fastscore":
            raise AssertionError("the C extension was imported")
sys.meta_path.insert(0, Refuse())
"""

_LIBRARY_RUN = (
    _REFUSE_EXTENSION
    + """
import hashlib
from scorecard.engine import score_run
from scorecard.fast import _fastpath, count_newlines, reuse_freed_memory
paths = sys.argv[1:]
text = "".join(str(piece) for piece in score_run(paths, workers=2, chunk_bytes=1 << 15).text())
rows = repr(list(score_run(paths, workers=2, chunk_bytes=1 << 15).rows()))
print(hashlib.sha256(text.encode()).hexdigest(), hashlib.sha256(rows.encode()).hexdigest())
print(_fastpath.compiled(), reuse_freed_memory(), count_newlines(b"a\\nb\\n", 9))
print("scorecard.fast._fastscore" in sys.modules)
"""
)

_COMMAND_LINE = (
    _REFUSE_EXTENSION
    + """
from scorecard.cli import main
sys.argv = ["scorecard", *sys.argv[1:]]
main()
"""
)


def _python_engine() -> dict[str, str]:
    return {**os.environ, ENGINE_VARIABLE: "python"}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The sample bundles and a file of lines either engine declines (broken JSON, an unknown
    field): errors must come out the same too."""
    folder = tmp_path_factory.mktemp("inputs")
    sample = next((ROOT / "observations").rglob("*.jsonl")).read_bytes().splitlines()[0]
    (folder / "odd.jsonl").write_bytes(
        b"\n".join([sample, b"{not json", sample.replace(b"}", b',"extra":1}', 1), b""])
    )
    return [str(ROOT / "observations"), str(folder / "odd.jsonl")]


def test_the_variable_chooses_an_engine() -> None:
    """Unset or empty is the default (C where built); only ``c`` and ``python`` are engines,
    and a misspelling is refused, not read as the default."""
    assert [chosen_engine(value) for value in (None, "", "c", "python")] == [
        "c",
        "c",
        "c",
        "python",
    ]
    for value in ("pyhton", "Python", "C", "0"):
        with pytest.raises(ScorecardError, match=ENGINE_VARIABLE):
            chosen_engine(value)


def test_under_the_switch_a_run_never_loads_the_extension(inputs: list[str]) -> None:
    """On two workers, text and rows of the samples (and of declined lines) are this process's
    bytes, with the extension unimportable: nothing was scored in C, nothing needed it. The
    newline count and the allocator settings leave it alone too."""
    text = "".join(str(piece) for piece in score_run(inputs, workers=1).text())
    rows = repr(list(score_run(inputs, workers=1).rows()))
    done = subprocess.run(
        [sys.executable, "-c", _LIBRARY_RUN, *inputs],
        capture_output=True,
        text=True,
        check=False,
        env=_python_engine(),
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        f"{hashlib.sha256(text.encode()).hexdigest()} {hashlib.sha256(rows.encode()).hexdigest()}",
        "False False 2",
        "False",
    ]
    assert text.count('"schema":"paperclip.runner.eval-scorecard.v2"') == 562


def test_under_the_switch_the_command_line_never_loads_the_extension(
    inputs: list[str], tmp_path: Path
) -> None:
    """``scorecard score`` on two workers writes this process's bytes with the extension
    unimportable, and reports the same two errors."""
    expected = "".join(
        piece for piece in score_run(inputs, workers=1).text() if isinstance(piece, str)
    )
    out = tmp_path / "scored.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _COMMAND_LINE,
            "score",
            *inputs,
            "--workers",
            "2",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
        env=_python_engine(),
        cwd=ROOT,
    )
    assert done.returncode == 2, done.stderr[-3000:]  # the broken line
    assert "Traceback" not in done.stderr
    assert out.read_text(encoding="utf-8") == expected


def test_a_misspelt_engine_stops_the_command_line_cleanly(tmp_path: Path) -> None:
    """A value that names no engine is one error line and exit status 2, before any work."""
    done = subprocess.run(
        [sys.executable, "-m", "scorecard", "score", str(ROOT / "observations")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, ENGINE_VARIABLE: "pyhton"},
        cwd=tmp_path,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"error: {ENGINE_VARIABLE}: names no engine")
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not PYTHON_ONLY, reason="checks the suite's own pass with the switch on")
def test_this_pass_of_the_suite_has_not_loaded_the_extension() -> None:
    """The suite's ``SCORECARD_ENGINE=python`` pass has scored nothing in C so far (tests/conftest.py
    refuses the import from its start and checks again at its end)."""
    assert "scorecard.fast._fastscore" not in sys.modules
