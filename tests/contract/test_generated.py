"""The observation contract is written once, as the pydantic models; its other forms are
generated from them by ``dev/generate_contract.py`` and stay what it writes.

The forms: the recogniser's msgspec structs (``core/_plain_observation.py``), the scorer's
``TypedDict`` views (``contract/_observation_views.py``) and the C code's field names
(``src/fastscore/fields.h``, whose recorded digest ``setup.py`` checks before a build).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract._observation import Metrics, WorkflowObservation
from tests.conftest import ROOT, c_only, load_script

GENERATOR = ROOT / "dev" / "generate_contract.py"
HEADER = ROOT / "src" / "fastscore" / "fields.h"


@pytest.fixture(scope="module")
def generator() -> Any:
    return load_script(GENERATOR)


class GrownMetrics(Metrics):
    """Metrics with one more field, as a change to the models would add it."""

    retry_count: int | None = None


class Grown(WorkflowObservation):
    """The observation with the grown metrics."""

    metrics: GrownMetrics


def header_names(text: str) -> list[str]:
    """The names a ``NAMES(X)`` table lists, in order."""
    return re.findall(r"X\((\w+)\)", text.split("#define NAMES(X)", 1)[1])


def test_the_generated_files_are_what_the_models_make_now(generator: Any) -> None:
    """Each generated file is current: a model changed without running the script fails here."""
    files = generator.render()
    assert sorted(path.name for path in files) == [
        "_observation_views.py",
        "_plain_observation.py",
        "fields.h",
    ]
    assert generator.stale(files) == []


def test_the_check_names_a_planted_change_to_the_c_table_and_the_script_repairs_it(
    generator: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """A C table edited by hand (one name dropped) fails ``--check``, naming the file; running
    the script writes it back."""
    for name in ("STRUCTS", "VIEWS", "HEADER"):
        copy = tmp_path / getattr(generator, name).name
        shutil.copyfile(getattr(generator, name), copy)
        monkeypatch.setattr(generator, name, copy)
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    planted = HEADER.read_text(encoding="utf-8").replace(" X(frameCount)", "")
    (tmp_path / "fields.h").write_text(planted, encoding="utf-8")
    assert "frameCount" not in header_names(planted)

    assert generator.main(["--check"]) == 1
    assert capsys.readouterr().err == (
        "fields.h is out of date: run python dev/generate_contract.py\n"
    )
    assert generator.main([]) == 0
    assert generator.main(["--check"]) == 0
    assert (tmp_path / "fields.h").read_text(encoding="utf-8") == HEADER.read_text(encoding="utf-8")


def test_a_field_added_to_the_models_reaches_every_form(generator: Any) -> None:
    """One field added to a model changes all three files: the struct and the view gain it,
    with its presence and type, and the C table gains its name."""
    files = generator.render(Grown, digest="0" * 64)
    views, structs, header = (files[path] for path in sorted(files, key=lambda path: path.name))
    assert "\nclass _GrownMetrics(_Closed):\n" in structs
    assert "\nclass GrownMetricsDict(TypedDict):\n" in views
    assert "    retryCount: int | UnsetType = UNSET\n" in structs
    assert "    metrics: _GrownMetrics\n" in structs
    assert "    retryCount: NotRequired[int]\n" in views
    assert "retryCount" in header_names(header)
    assert len(generator.stale(files)) == 3


def test_the_c_table_lists_every_wire_key_once_in_order() -> None:
    """``fields.h`` holds each key the scorer and the C code read (a sample of them, written
    here by hand), each once, sorted."""
    names = header_names(HEADER.read_text(encoding="utf-8"))
    assert names == sorted(set(names))
    assert {"traceLineage", "frameCount", "byteCount", "attempts", "maxAttempts", "wireEvents"} <= (
        set(names)
    )
    assert "frame_count" not in names


def test_a_type_without_a_derived_form_stops_the_script_at_its_pointer(generator: Any) -> None:
    """A field whose type the generator cannot restate exactly is refused, not loosened."""

    class Dated(Metrics):
        finished_at: datetime

    class Observation(WorkflowObservation):
        metrics: Dated

    with pytest.raises(generator.ContractShapeError, match=r"^/metrics/finishedAt: the type "):
        generator.render(Observation, digest="0" * 64)


@c_only("the extension's names are read from the extension")
def test_the_extension_was_built_from_the_current_c_table() -> None:
    """The compiled extension interns exactly the names ``fields.h`` lists (a stale build of an
    older header fails here)."""
    from scorecard.fast import _fastscore

    assert list(_fastscore.FIELD_NAMES) == header_names(HEADER.read_text(encoding="utf-8"))


def _copy_of_setup(tmp_path: Path) -> Path:
    """``setup.py`` with the two files its check reads, in a tree of their own."""
    for relative in (
        "setup.py",
        "src/scorecard/contract/_observation.py",
        "src/fastscore/fields.h",
    ):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, tmp_path / relative)
    return tmp_path / "src" / "scorecard" / "contract" / "_observation.py"


def _setup_name(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "setup.py", "--name"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_build_stops_when_the_models_changed_after_the_table_was_made(tmp_path: Path) -> None:
    """``setup.py`` reads the models' digest recorded in ``fields.h``: with the models as they
    are it goes on; with a field added and the script not run, it stops and says what to run."""
    models = _copy_of_setup(tmp_path)
    assert _setup_name(tmp_path).returncode == 0

    text = models.read_text(encoding="utf-8")
    models.write_text(
        text.replace(
            "    tool_count: NonNegativeInteger\n",
            "    tool_count: NonNegativeInteger\n"
            "    retry_count: NonNegativeInteger | None = None\n",
        ),
        encoding="utf-8",
    )
    assert models.read_text(encoding="utf-8") != text
    done = _setup_name(tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "src/fastscore/fields.h was generated from another version of "
        "src/scorecard/contract/_observation.py: run python dev/generate_contract.py"
    )
