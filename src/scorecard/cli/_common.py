"""What every command shares: its options, spelt and documented once, the one mapping of
library errors to messages and exit codes, and output checks made before any work."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Annotated

import typer

from scorecard.contract import InputError, ScorecardError

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
    "WorkersOption",
    "check_outputs",
    "input_paths",
    "library_errors",
    "print_errors",
    "print_warnings",
    "write_errors",
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


def print_warnings(lines: Sequence[str], *, limit: int = MAX_ERRORS_SHOWN) -> None:
    """One line per warning on stderr (``warning: file:line /pointer: message [rule]``),
    bounded: what a run kept but a person should look at (an unknown field, an empty input)."""
    for line in lines[:limit]:
        sys.stderr.write(f"warning: {line}\n")
    if len(lines) > limit:
        sys.stderr.write(f"warning: ... and {len(lines) - limit} more\n")


def write_errors(errors_file: Path | None, errors: Iterable[InputError]) -> None:
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
    judged), and the command exits 2 (bad input, bad usage, an output that cannot be written)."""
    from scorecard.contract import InputErrors

    try:
        yield
    except InputErrors as many:
        print_errors(many.errors)
        write_errors(errors_file, many.errors)
    except ScorecardError as error:
        print_errors([error])
    else:
        return
    if stdout_line is not None:
        sys.stdout.write(stdout_line + "\n")
    raise typer.Exit(EXIT_BAD_INPUT)


def check_outputs(
    outputs: dict[str, Path | None], inputs: Sequence[str] = (), *, folders: Sequence[str] = ()
) -> None:
    """Exit 2, before any work, when an output path is empty, a folder or one of the inputs."""
    from scorecard.engine import output_problems

    problems = output_problems(outputs, inputs, folders=folders)
    if problems:
        print_errors(problems)
        raise typer.Exit(EXIT_BAD_INPUT)


def input_paths(paths: Sequence[str] | None) -> list[str]:
    """``paths``, or ``-`` (stdin) when none is given and stdin is not a terminal."""
    if paths:
        return list(paths)
    if not sys.stdin.isatty():
        return ["-"]
    print_errors(
        [InputError("give PATH... (files or folders), or pipe JSON Lines into stdin", rule="usage")]
    )
    raise typer.Exit(EXIT_BAD_INPUT)
