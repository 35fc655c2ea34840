"""One module per CLI command; each exposes ``register(app)``. Shared helpers live here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scorecard.contract import InputError, ScorecardError

from ._exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, failure, print_errors

if TYPE_CHECKING:
    from scorecard.contract import Catalog, Policy

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
    "PolicyOption",
    "WorkersOption",
    "check_known",
    "load_catalog_and_policy",
    "policy_text",
    "print_errors",
    "read_policy",
    "suggest",
    "worker_count",
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
        "(one file for every command; each reads the sections it needs).",
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


def check_outputs(
    outputs: dict[str, Path | None], inputs: Sequence[str] = (), *, folders: Sequence[str] = ()
) -> None:
    """Exit 2, before any work, when an output path is empty, a folder or one of the inputs."""
    from scorecard.engine import output_problems

    problems = output_problems(outputs, inputs, folders=folders)
    if problems:
        raise failure(problems)


def policy_text(policy_file: Path) -> str:
    """The text of a policy file (a BOM allowed); unreadable, a located :class:`PolicyError`."""
    from scorecard.contract import PolicyError

    try:
        return policy_file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise PolicyError(
            f"cannot read policy file: {type(error).__name__}",
            rule="unreadable",
            source=str(policy_file),
        ) from None


def read_policy(policy_file: Path) -> Policy:
    """The scoring section of a policy file (score, explain): the file may hold a ``gate``
    section too (one file for every command), which is checked as the gate checks it."""
    from scorecard.contract import Policy, parse_policy_file

    text = policy_text(policy_file)
    parsed = parse_policy_file(text, source=str(policy_file))
    if parsed.gate is not None:
        from scorecard.gate import gate_policy

        gate_policy(
            text, source=str(policy_file)
        )  # a typo in the gate section is an error here too
    return parsed.policy if parsed.policy is not None else Policy()


def load_catalog_and_policy(cases: Path | None, policy_file: Path | None) -> tuple[Catalog, Policy]:
    """The case catalog and scoring policy a command scores with; a bad one raises its located
    :class:`~scorecard.contract.CatalogError` or :class:`~scorecard.contract.PolicyError`."""
    from scorecard.contract import Policy
    from scorecard.engine import scoring_catalog

    return scoring_catalog(cases), (read_policy(policy_file) if policy_file else Policy())


def write_errors(errors_file: Path | None, errors: Iterable[ScorecardError]) -> None:
    """``--errors FILE``: one JSON line per rejected record (nothing without a file)."""
    if errors_file is None:
        return
    import json

    from scorecard.engine import atomic_writer

    with atomic_writer(errors_file) as stream:
        for error in errors:
            stream.write(json.dumps(error.to_record(), ensure_ascii=False) + "\n")


def suggest(kind: str, given: str, known: Sequence[str], *, option: str) -> InputError:
    """An unknown id given as an option: the error lists the known ids and the closest one."""
    import difflib

    from scorecard.contract import printable

    close = difflib.get_close_matches(given, list(known), n=1, cutoff=0.6)
    hint = f"; did you mean {printable(close[0])!r}?" if close else ""
    listed = ", ".join(printable(name) for name in known) or "none"
    return InputError(
        f"no {kind} {printable(given)!r} in the records{hint} (known: {listed})",
        rule=f"unknown_{kind.replace(' ', '_')}",
        source=option,
    )


def check_known(kind: str, given: Sequence[str], known: Sequence[str], *, option: str) -> None:
    """Every id of ``given`` is one of ``known``, else exit 2 naming the known ones."""
    problems = [suggest(kind, name, known, option=option) for name in given if name not in known]
    if problems:
        raise failure(problems)


def worker_count(workers: int | None) -> int:
    """The processes a command scores on: ``--workers``, or every core this process may use."""
    from scorecard.engine import default_workers

    return workers or default_workers()
