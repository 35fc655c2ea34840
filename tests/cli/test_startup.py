"""What `scorecard score` imports to start: the set of modules, not a timing (start-up time is
measured by ``benchmarks/score_benchmark.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import c_only

HEAVY = ("pandas", "numpy", "matplotlib", "pyarrow", "rich", "dask")
"""Modules a JSON Lines to JSON Lines run never needs."""

UNUSED_MODELS = {
    "WorkflowObservation",
    "BaseObservation",
    "ScorecardV2",
    "ScorecardV1",
    "CampaignManifest",
}
"""Some of the observation and scorecard models, which only the general path needs, and the
campaign manifest's, which only a ``bundle.json`` needs."""

# Runs the console script's entry point and, as it leaves (through SystemExit), prints the
# names of the loaded modules, of the pydantic model classes created, and whether pydantic
# looked for plugins (its loader keeps None until it has read the installed distributions'
# entry points).
_LOADED_AT_EXIT = """
import json, sys
def report():
    loader = sys.modules.get("pydantic.plugin._loader")
    searched = loader is not None and loader._plugins is not None
    models, todo = set(), []
    if "pydantic" in sys.modules:
        todo.append(sys.modules["pydantic"].BaseModel)
    while todo:
        for model in todo.pop().__subclasses__():
            models.add(model.__name__)
            todo.append(model)
    sys.stdout.write(json.dumps([sorted(sys.modules), sorted(models), searched]) + "\\n")
    sys.stdout.flush()
sys.argv = ["scorecard", *sys.argv[1:]]
from scorecard.cli import main
try:
    main()
finally:
    report()
"""


def run_reporting(
    *args: str, disable_plugins: str | None = None, cache: Path | None = None
) -> tuple[int, list[str], list[str], bool]:
    """(exit status, the modules loaded, the pydantic models created, whether pydantic searched
    for plugins) of `scorecard ARGS` in a fresh interpreter, with ``PYDANTIC_DISABLE_PLUGINS``
    unset or ``disable_plugins``, and the catalog plans kept in ``cache`` (default: the test
    session's folder)."""
    environment = {
        name: value for name, value in os.environ.items() if name != "PYDANTIC_DISABLE_PLUGINS"
    }
    if disable_plugins is not None:
        environment["PYDANTIC_DISABLE_PLUGINS"] = disable_plugins
    if cache is not None:
        environment["SCORECARD_CACHE_DIR"] = str(cache)
    done = subprocess.run(
        [sys.executable, "-c", _LOADED_AT_EXIT, *args],
        capture_output=True,
        check=False,
        env=environment,
    )
    modules, models, searched = json.loads(done.stdout.decode().splitlines()[-1])
    return done.returncode, modules, models, searched


def score_args(tmp_path: Path, observation: dict[str, Any]) -> tuple[str, ...]:
    """The arguments of `scorecard score ONE.jsonl --out SCORED.jsonl` for ``observation``
    written as the one line of a file."""
    source = tmp_path / "one.jsonl"
    source.write_text(json.dumps(observation) + "\n")
    return ("score", str(source), "--out", str(tmp_path / "scored.jsonl"))


def loaded_by(*args: str) -> tuple[int, list[str]]:
    """(exit status, the modules loaded) of `scorecard ARGS` in a fresh interpreter."""
    code, modules, _, _ = run_reporting(*args)
    return code, modules


def is_under(module: str, package: str) -> bool:
    """Whether ``module`` is ``package`` or inside it."""
    return module == package or module.startswith(package + ".")


def test_scoring_jsonl_to_jsonl_loads_no_heavy_module(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """`scorecard score one.jsonl --out scored.jsonl` scores without pandas, numpy, matplotlib,
    pyarrow, rich or dask."""
    for workers in ("1", "2"):
        code, modules = loaded_by(*score_args(tmp_path, observation), "--workers", workers)
        assert code == 0
        assert [name for name in modules if any(is_under(name, h) for h in HEAVY)] == []


def test_a_table_of_scorecards_loads_rich_and_no_other_heavy_module(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """`scorecard score ONE.jsonl --format table` (the README's first command's format) draws
    with rich, and loads none of pandas, numpy, matplotlib, pyarrow or dask: the report
    package loads the terminal table alone."""
    source = score_args(tmp_path, observation)[1]
    code, modules = loaded_by("score", source, "--format", "table", "--workers", "1")
    assert code == 0
    assert {h for h in HEAVY if any(is_under(name, h) for name in modules)} == {"rich"}


def test_a_command_loads_only_its_own_command_module(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """A run of `score` imports no other command's module (in the command line or in the
    library layer behind it), nor the worker pool for one chunk."""
    code, modules = loaded_by(*score_args(tmp_path, observation))
    assert code == 0
    commands = {name for name in modules if is_under(name, "scorecard.cli")}
    assert commands == {
        "scorecard.cli",
        "scorecard.cli._app",
        "scorecard.cli._common",
        "scorecard.cli._exit_codes",
        "scorecard.cli._score",
    }
    calls = {name for name in modules if is_under(name, "scorecard.api")}
    assert calls == {"scorecard.api", "scorecard.api._inputs", "scorecard.api._score"}
    assert [name for name in modules if is_under(name, "concurrent.futures.process")] == []


@c_only("a start without pydantic stands on the C scorer scoring every plain line")
def test_scoring_plain_lines_creates_no_observation_or_scorecard_model(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """A `score` of a file whose lines all take the fast path never imports the observation,
    scorecard and campaign manifest models. With a catalog not seen before, the case models
    validate it (they are all it creates); the next start, with the same catalog, creates no
    model and imports neither pydantic nor PyYAML."""
    args = score_args(tmp_path, observation)
    code, modules, models, _ = run_reporting(*args, cache=tmp_path / "cache")
    assert code == 0
    assert "WorkflowCase" in models
    assert UNUSED_MODELS & set(models) == set()
    assert {"pydantic", "yaml"} <= set(modules)
    assert [path.name[:6] for path in (tmp_path / "cache").iterdir()] == ["plans-"]

    code, modules, models, _ = run_reporting(*args, cache=tmp_path / "cache")
    assert code == 0
    assert models == []
    assert [name for name in modules if is_under(name, "pydantic") or is_under(name, "yaml")] == []


def test_the_scores_do_not_depend_on_the_kept_plans(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """The same lines give the same bytes with the catalog validated now, taken as checked
    from the kept plans, or with no cache at all (``SCORECARD_CACHE_DIR`` empty)."""
    declined = {**observation, "note": "an unknown field: the general path"}
    source = tmp_path / "lines.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in (observation, declined)))
    outputs = []
    for cache in ("kept", "kept", ""):
        environment = {**os.environ, "SCORECARD_CACHE_DIR": str(tmp_path / cache) if cache else ""}
        done = subprocess.run(
            [sys.executable, "-m", "scorecard", "score", str(source)],
            capture_output=True,
            check=False,
            env=environment,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0].count(b"\n") == 2
    assert outputs[0] == outputs[1] == outputs[2]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["kept", "lines.jsonl"]


def test_a_declined_line_loads_the_observation_models_where_used(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """A line the fast path declines (an unknown field) is validated by the observation models,
    imported then: the check above is not vacuous."""
    observation["note"] = "kept, and reported"
    code, _, models, _ = run_reporting(*score_args(tmp_path, observation))
    assert code == 0
    assert "WorkflowObservation" in models


def test_the_command_line_leaves_pydantic_plugins_to_the_user(
    tmp_path: Path, observation: dict[str, Any]
) -> None:
    """The command line does not set ``PYDANTIC_DISABLE_PLUGINS``: unset, pydantic looks for
    plugins as it does in any program (when it builds its first validator: a catalog not seen
    before); set by the user to ``__all__``, it does not."""
    args = score_args(tmp_path, observation)
    code, _, _, searched = run_reporting(*args, cache=tmp_path / "first")
    assert (code, searched) == (0, True)
    code, _, _, searched = run_reporting(
        *args, disable_plugins="__all__", cache=tmp_path / "second"
    )
    assert (code, searched) == (0, False)
