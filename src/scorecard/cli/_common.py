"""One module per CLI command; each exposes ``register(app)``. Shared helpers live here."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scorecard.contract import InputError

if TYPE_CHECKING:
    from scorecard.contract import Catalog, Policy

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_OK",
    "BundleIdOption",
    "CasesOption",
    "PolicyOption",
    "WorkersOption",
    "load_catalog_and_policy",
    "print_errors",
    "worker_count",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
MAX_ERRORS_SHOWN = 20

# Options several commands share, spelt and documented once.
CasesOption = Annotated[
    Path | None,
    typer.Option("--cases", help="Case catalog folder (default: the repository's cases/)."),
]
PolicyOption = Annotated[
    Path | None,
    typer.Option("--policy", help="YAML/JSON policy file: weights, thresholds, auditGate."),
]
BundleIdOption = Annotated[
    str | None, typer.Option("--bundle-id", help="Use this bundle id for every record.")
]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="Processes to score observations on (default: all cores). Results are identical "
        "for any count.",
        show_default=False,
    ),
]


def print_errors(errors: Iterable[InputError], *, limit: int = MAX_ERRORS_SHOWN) -> None:
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


def check_outputs(
    outputs: dict[str, Path | None], inputs: Sequence[str] = (), *, folders: Sequence[str] = ()
) -> None:
    """Exit 2, before any work, when an output path is empty, a folder or one of the inputs."""
    from scorecard.engine import output_problems

    problems = output_problems(outputs, inputs, folders=folders)
    if problems:
        print_errors(problems)
        raise typer.Exit(EXIT_BAD_INPUT)


def load_catalog_and_policy(cases: Path | None, policy_file: Path | None) -> tuple[Catalog, Policy]:
    """The case catalog and scoring policy a command scores with; a bad one exits 2, located."""
    from scorecard.contract import Policy, load_catalog
    from scorecard.engine import load_policy

    try:
        return load_catalog(cases), (load_policy(policy_file) if policy_file else Policy())
    except InputError as error:
        print_errors([error])
        raise typer.Exit(EXIT_BAD_INPUT) from None


def worker_count(workers: int | None) -> int:
    """The processes a command scores on: ``--workers``, or every core this process may use."""
    from scorecard.engine import default_workers

    return workers or default_workers()
