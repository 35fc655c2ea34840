"""Library errors become exit codes here, and only here.

Each family of the error tree (``scorecard.contract``: input, catalog, policy, output, store)
has its exit code in :data:`EXIT_CODES`. A command raises (or lets through) the library's
errors; :func:`reporting`, which wraps every command as it is registered, prints the error it
ends with, located, on stderr and exits with its family's code. The console script's ``main``
maps an error that escapes typer (standard output failing as it is flushed) through the same
table, and a command that ends with several errors at once (rejected records) calls
:func:`failure`. Verdicts are not errors: the gate picks 0, 1 or 3 itself.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import ParamSpec, TypeVar

import typer

from scorecard.contract import (
    CatalogError,
    InputError,
    OutputError,
    PolicyError,
    ScorecardError,
    StoreError,
)

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_CODES",
    "EXIT_FAILED",
    "EXIT_OK",
    "exit_code",
    "failure",
    "print_errors",
    "reporting",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
MAX_ERRORS_SHOWN = 20

EXIT_CODES: Mapping[type[ScorecardError], int] = {
    InputError: EXIT_BAD_INPUT,  # bad input, bad usage
    CatalogError: EXIT_BAD_INPUT,
    PolicyError: EXIT_BAD_INPUT,
    OutputError: EXIT_BAD_INPUT,  # an output that cannot be written
    StoreError: EXIT_BAD_INPUT,
}
"""The exit code of each family of errors (an error's nearest family in the table counts)."""


def exit_code(error: ScorecardError) -> int:
    """The exit code of ``error``: its family's (2 for any family not listed)."""
    for kind in type(error).__mro__:
        if issubclass(kind, ScorecardError) and kind in EXIT_CODES:
            return EXIT_CODES[kind]
    return EXIT_BAD_INPUT


def print_errors(errors: Iterable[ScorecardError], *, limit: int = MAX_ERRORS_SHOWN) -> None:
    """One line per error on stderr (``error: file:line /pointer: message [rule]``), bounded."""
    shown = 0
    hidden = 0
    for error in errors:
        if shown < limit:
            sys.stderr.write(f"error: {error}\n")
            shown += 1
        else:
            hidden += 1
    if hidden:
        sys.stderr.write(f"error: ... and {hidden} more (write them all with --errors FILE)\n")


def failure(errors: Iterable[ScorecardError]) -> typer.Exit:
    """Print ``errors`` on stderr (bounded, one located line each) and return the exit that
    ends the command: the highest code of their families."""
    shown = list(errors)
    print_errors(shown)
    return typer.Exit(max((exit_code(error) for error in shown), default=EXIT_BAD_INPUT))


Parameters = ParamSpec("Parameters")
Result = TypeVar("Result")


def reporting(command: Callable[Parameters, Result]) -> Callable[Parameters, Result]:
    """``command`` whose library errors end it through :func:`failure` instead of a traceback
    (typer reads the parameters and help of ``command`` itself, through ``__wrapped__``)."""

    @functools.wraps(command)
    def reported(*args: Parameters.args, **kwargs: Parameters.kwargs) -> Result:
        try:
            return command(*args, **kwargs)
        except ScorecardError as error:
            from scorecard.contract import InputErrors, PolicyErrors

            # Several at once (rejected records, a policy file's problems): each printed.
            errors = (
                list(error.errors) if isinstance(error, InputErrors | PolicyErrors) else [error]
            )
            raise failure(errors) from None

    return reported
