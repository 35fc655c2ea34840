"""The package installs: a wheel built from this tree, installed into a fresh virtual
environment outside the checkout, scores the samples with the case catalog it carries.

Slow (a wheel build compiles the C extension: about 10 s in all on the shared 2-core machine),
so marked ``packaging``; it runs with the rest of the suite. The fresh environment gets the
project's dependencies by a ``.pth`` line naming this environment's site-packages (appended
after its own, so ``scorecard`` is the wheel's; a path a ``.pth`` line adds is not a site
folder, so this environment's editable install of the checkout is not seen there).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import ROOT

#: What a build reads (``MANIFEST.in`` names the rest of an sdist).
BUILD_INPUTS = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "cases", "src"]


def _copy_build_inputs(target: Path) -> Path:
    """This tree's build inputs in ``target`` (a build writes ``build/`` and ``*.egg-info``
    beside its sources: the checkout is not touched), without compiled or cached files."""
    target.mkdir()
    ignored = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info", "build")
    for name in BUILD_INPUTS:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignored)
        else:
            shutil.copy2(source, target / name)
    return target


def _run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, f"{command}: {done.stderr[-3000:]}"
    return done.stdout


def _clean_environment(**extra: str) -> dict[str, str]:
    """This process's environment without what would point a run at the checkout."""
    cleared = {"PYTHONPATH", "SCORECARD_CASES", "PYTHONHOME", "VIRTUAL_ENV"}
    environment = {name: value for name, value in os.environ.items() if name not in cleared}
    return {**environment, "COLUMNS": "120", **extra}


@pytest.mark.packaging
def test_a_wheel_installed_outside_the_checkout_scores_the_samples(tmp_path: Path) -> None:
    """Build the wheel, install it (no dependencies fetched) into a new environment, and run
    ``scorecard score OBSERVATIONS --format table`` from a folder outside the checkout: 560
    scored, exit 0, the catalog read from the installed package, and the same table as the
    checkout's."""
    major = int(importlib.metadata.version("setuptools").split(".")[0])
    assert major >= 77, "the build needs setuptools>=77 here: pip install -e '.[dev]'"
    sources = _copy_build_inputs(tmp_path / "sources")
    dist = tmp_path / "dist"
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "--quiet",
        "--wheel-dir",
        dist,
        sources,
        cwd=tmp_path,
        env=_clean_environment(),
    )
    (wheel,) = dist.glob("scorecard-*.whl")

    fresh = tmp_path / "fresh"
    _run(sys.executable, "-m", "venv", "--without-pip", fresh, cwd=tmp_path)
    python = fresh / "bin" / "python"
    site = Path(
        _run(
            python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=tmp_path
        ).strip()
    )
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "_scorecard_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--no-deps",
        "--no-index",
        "--quiet",
        wheel,
        cwd=tmp_path,
        env=_clean_environment(),
    )

    work = tmp_path / "elsewhere"
    shutil.copytree(ROOT / "observations", work / "observations")
    environment = _clean_environment(SCORECARD_CACHE_DIR=str(tmp_path / "cache"))
    installed = _run(
        python,
        "-c",
        "import scorecard, scorecard.contract._catalog as catalog; "
        "print(scorecard.__file__); print(catalog.default_cases_dir())",
        cwd=work,
        env=environment,
    ).split()
    assert installed == [
        str(site / "scorecard" / "__init__.py"),
        str(site / "scorecard" / "cases"),
    ]

    done = subprocess.run(
        [fresh / "bin" / "scorecard", "score", "observations", "--format", "table"],
        capture_output=True,
        text=True,
        check=False,
        cwd=work,
        env=environment,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("scored 560, rejected 0")
    checkout = _run(
        sys.executable,
        "-m",
        "scorecard",
        "score",
        "observations",
        "--format",
        "table",
        cwd=work,
        env=environment,
    )
    assert done.stdout == checkout
