"""The command line's own options: ``--version`` and ``-h`` everywhere ``--help`` works."""

from __future__ import annotations

import tomllib

import pytest
from typer.testing import CliRunner

from scorecard.cli._app import COMMAND_MODULES, app
from tests.conftest import ROOT

COMMANDS = [
    "score",
    "bundle-id",
    "explain",
    "compare",
    "plot",
    "gate",
    "history",
    "ingest",
    "query",
    "label",
    "baseline",
    "score-dask",
    "report",
    "view",
    "verify",
]


def test_version_prints_the_project_version() -> None:
    """`scorecard --version` prints the version pyproject.toml declares, and exits 0."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    result = CliRunner().invoke(app, ["--version"])
    assert (result.exit_code, result.stdout) == (0, f"scorecard {declared}\n")


def test_every_command_module_is_listed() -> None:
    """The commands tested here are the ones the app registers."""
    from scorecard.cli._app import COMMANDS as REGISTERED

    assert sorted(COMMANDS) == sorted(REGISTERED)
    assert set(COMMAND_MODULES) == set(REGISTERED.values())


@pytest.mark.parametrize("command", [[], *([name] for name in COMMANDS)])
def test_short_help_is_the_same_as_long_help(command: list[str]) -> None:
    """`-h` prints exactly what `--help` prints, for the app and every command."""
    runner = CliRunner()
    short = runner.invoke(app, [*command, "-h"])
    long = runner.invoke(app, [*command, "--help"])
    assert (short.exit_code, long.exit_code) == (0, 0)
    assert short.stdout == long.stdout
    assert "Usage:" in short.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_a_run_builds_only_its_command(command: str) -> None:
    """`app_for` (what the console script runs) holds only the named command, and its help and
    usage errors are the full app's."""
    from scorecard.cli._app import app_for

    single = app_for([command, "--help"])
    names = [info.name for info in single.registered_commands]
    names += [info.name for info in single.registered_groups]
    assert names == [command]
    runner = CliRunner()
    for args in ([command, "--help"], [command, "--no-such-option"]):
        mine, full = runner.invoke(single, args), runner.invoke(app, args)
        assert (mine.exit_code, mine.output) == (full.exit_code, full.output)


def test_other_arguments_run_the_full_app() -> None:
    """No command, an unknown one or an option first: every command is registered."""
    from scorecard.cli._app import app_for

    for args in ([], ["nope"], ["--help"], ["--version"]):
        assert app_for(args) is app


RENDERERS = {"explanation_text", "write_gate_reports"}
"""Library functions a command may call besides its one call: they render that call's result
(the explanation as text, the verdict's reports), deciding nothing."""


def test_every_command_function_is_a_thin_veneer() -> None:
    """Each registered command is under 60 lines and calls one ``scorecard.api`` function
    (and at most a renderer of its result): the logic lives in the library, where Python
    callers reach it too."""
    import ast
    import inspect

    import scorecard.api
    from scorecard.cli._app import COMMANDS, full_app

    registered = full_app()
    groups = [group.typer_instance for group in registered.registered_groups]
    commands = [
        *registered.registered_commands,
        *(
            command
            for group in groups
            if group is not None
            for command in group.registered_commands
        ),
    ]
    for command in commands:
        function = command.callback
        assert function is not None
        source = inspect.getsource(function)
        lines = len(source.splitlines())
        assert lines < 60, f"{command.name}: {lines} lines"
        tree = ast.parse(source)
        called = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "scorecard.api"
            for alias in node.names
        }
        functions = {name for name in called if inspect.isfunction(getattr(scorecard.api, name))}
        assert len(functions - RENDERERS) == 1, f"{command.name} calls {sorted(functions)}"
    names = {command.name for command in registered.registered_commands}
    assert names | {group.name for group in registered.registered_groups} == set(COMMANDS)
