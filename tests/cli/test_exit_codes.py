"""Library errors become exit codes in one place: every command ends each family's error with
one located line on stderr and its family's code, never a traceback."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from scorecard.cli._app import new_app
from scorecard.cli._exit_codes import EXIT_CODES, exit_code
from scorecard.contract import (
    CatalogError,
    InputError,
    ManifestError,
    ObservationError,
    OutputError,
    PolicyError,
    ScorecardError,
    StoreError,
)

#: The exit code of each family, as the command line has always given them (README, tests).
EXPECTED = {
    InputError: 2,
    ObservationError: 2,
    ManifestError: 2,
    CatalogError: 2,
    PolicyError: 2,
    OutputError: 2,
    StoreError: 2,
}


def test_every_family_has_its_code() -> None:
    """The table lists every family of the tree, each with the code it has always had."""
    assert set(EXIT_CODES) == set(ScorecardError.__subclasses__())
    assert {kind: exit_code(kind("x", rule="r")) for kind in EXPECTED} == EXPECTED


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_a_command_ends_an_error_with_its_family_s_code(kind: type[ScorecardError]) -> None:
    """An error a command raises is one ``error:`` line (located) and the family's code."""
    app = new_app()

    @app.command("fail")
    def fail() -> None:
        raise kind("went wrong", rule="some_rule", source="here.jsonl", line=2)

    @app.command("other")
    def other() -> None:  # two commands: typer then takes the command's name
        pass

    result = CliRunner().invoke(app, ["fail"])
    assert (result.exit_code, result.stdout) == (EXPECTED[kind], "")
    assert result.stderr == "error: here.jsonl:2: went wrong [some_rule]\n"
