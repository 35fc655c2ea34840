"""What every command shares: its options, spelt and documented once, library errors turned
into messages and exit codes (through ``_exit_codes``' one table), and output checks made
before any work."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Annotated

import typer

from scorecard.contract import InputError, ScorecardError

from ._exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, failure, print_errors

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_OK",
    "BundleIdOption",
    "BundleIdsOption",
    "CandidatesOption",
    "CaseIdsOption",
    "CasesOption",
    "ErrorsOption",
    "OutOption",
    "PolicyOption",
    "SeedOption",
    "StoreOption",
    "WorkersOption",
    "check_outputs",
    "input_paths",
    "library_errors",
    "paths_or_store",
    "print_errors",
    "print_warnings",
    "write_errors",
]


# Options several commands share, spelt and documented once.
CasesOption = Annotated[
    Path | None,
    typer.Option("--cases", help="Case catalog folder (default: the repository's cases/)."),
]
PolicyOption = Annotated[
    Path | None,
    typer.Option(
        "--policy",
        help="YAML/JSON policy file: weights, thresholds, auditGate, and the gate section "
        "(one file for every command; each reads the sections it needs, all are checked).",
    ),
]
BundleIdOption = Annotated[
    str | None, typer.Option("--bundle-id", help="Use this bundle id for every record.")
]
BundleIdsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--bundle-id",
        help="Name the bundle of the records: once for every record, or once per PATH "
        "(in order), e.g. for folders without bundle.json.",
        show_default=False,
    ),
]
CandidatesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--candidate", help="Only these candidates (repeat the option).", show_default=False
    ),
]
CaseIdsOption = Annotated[
    list[str] | None,
    typer.Option("--case-id", help="Only these cases (repeat the option).", show_default=False),
]
ErrorsOption = Annotated[
    Path | None,
    typer.Option("--errors", help="Write one JSON line per rejected record here."),
]
OutOption = Annotated[
    Path | None, typer.Option("--out", help="Write here (atomically) instead of stdout.")
]
StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help="Read the runs from this campaign store (`scorecard ingest`) instead of PATH...",
        show_default=False,
    ),
]
SeedOption = Annotated[int, typer.Option("--seed", min=0, help="Seed of the bootstrap resampling.")]
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


MAX_WARNINGS_SHOWN = 20
"""Warnings printed at most (the rest counted), as for errors."""


def print_warnings(lines: Sequence[str], *, limit: int = MAX_WARNINGS_SHOWN) -> None:
    """One line per warning on stderr (``warning: file:line /pointer: message [rule]``),
    bounded: what a run kept but a person should look at (an unknown field, an empty input)."""
    for line in lines[:limit]:
        sys.stderr.write(f"warning: {line}\n")
    if len(lines) > limit:
        sys.stderr.write(f"warning: ... and {len(lines) - limit} more\n")


def write_errors(errors_file: Path | None, errors: Iterable[ScorecardError]) -> None:
    """``--errors FILE``: one JSON line per rejected record (nothing without a file)."""
    if errors_file is None:
        return
    import json

    from scorecard.engine import atomic_writer

    with atomic_writer(errors_file) as stream:
        for error in errors:
            stream.write(json.dumps(error.to_record(), ensure_ascii=False) + "\n")


@contextlib.contextmanager
def library_errors(
    *, errors_file: Path | None = None, stdout_line: str | None = None
) -> Iterator[None]:
    """The one place library errors become what a person reads and an exit code: every error
    of the block is printed, located, on stderr (several at once: each, and all of them into
    ``errors_file``), ``stdout_line`` goes to stdout (a verdict line saying nothing was
    judged), and the command exits with the code of the errors' families (``_exit_codes``)."""
    from scorecard.contract import InputErrors, PolicyErrors

    try:
        yield
    except ScorecardError as error:
        errors: list[ScorecardError] = [error]
        if isinstance(error, InputErrors | PolicyErrors):  # several at once: each, and a file
            errors = list(error.errors)
            write_errors(errors_file, errors)
        ended = failure(errors)
    else:
        return
    if stdout_line is not None:
        sys.stdout.write(stdout_line + "\n")
    raise ended


def check_outputs(
    outputs: dict[str, Path | None], inputs: Sequence[str] = (), *, folders: Sequence[str] = ()
) -> None:
    """Exit 2, before any work, when an output path is empty, a folder or one of the inputs."""
    from scorecard.engine import output_problems

    problems = output_problems(outputs, inputs, folders=folders)
    if problems:
        raise failure(problems)


def input_paths(paths: Sequence[str] | None) -> list[str]:
    """``paths``, or ``-`` (stdin) when none is given and stdin is not a terminal."""
    if paths:
        return list(paths)
    if not sys.stdin.isatty():
        return ["-"]
    raise failure(
        [InputError("give PATH... (files or folders), or pipe JSON Lines into stdin", rule="usage")]
    )


def paths_or_store(paths: Sequence[str] | None, store: Path | None) -> list[str]:
    """The paths a command reads: none with ``--store`` (giving both is a usage error), else
    :func:`input_paths`."""
    if store is None:
        return input_paths(paths)
    if paths:
        raise failure(
            [InputError("give PATH... or --store, not both", rule="usage", source="--store")]
        )
    return []
