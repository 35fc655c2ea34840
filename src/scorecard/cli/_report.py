"""``scorecard report PATH... --out SITE/`` and ``scorecard view PATH...``: the static report
site of a campaign, written to a folder or served on 127.0.0.1 (``docs/report.md``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._common import (
    EXIT_BAD_INPUT,
    BundleIdOption,
    CasesOption,
    ErrorsOption,
    SeedOption,
    StoreOption,
    WorkersOption,
    check_outputs,
    library_errors,
    paths_or_store,
    print_errors,
    write_errors,
)

if TYPE_CHECKING:
    from scorecard.contract import InputError

__all__ = ["register", "report", "view"]

PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        help="Observation files or folders (as for `score`): every bundle of the campaign.",
        show_default=False,
    ),
]
CurrentOption = Annotated[
    str | None,
    typer.Option(
        "--current",
        help="The night whose runs are listed and shown (the others: context). With --store "
        "the default is the newest; over paths, every bundle.",
        show_default=False,
    ),
]
ContextOption = Annotated[
    str,
    typer.Option(
        "--baseline",
        help="With --store: the nights shown beside it (previous, last:N, approved, ID,ID).",
    ),
]
ReportPolicyOption = Annotated[
    Path | None,
    typer.Option(
        "--policy",
        help="YAML/JSON policy file, as for `gate`: its `gate` section sets the verdicts' rules, "
        "its weights, thresholds and auditGate the scoring.",
    ),
]
SiteOption = Annotated[
    Path,
    typer.Option(
        "--out",
        help="The site's folder (created, or replaced when it is a site written before). "
        "Written atomically: built beside it, then renamed.",
        show_default=False,
    ),
]
PortOption = Annotated[
    int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free port).")
]


def report(
    out: SiteOption,
    paths: PathsArgument = None,
    policy_file: ReportPolicyOption = None,
    seed: SeedOption = 0,
    bundle_id: BundleIdOption = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
    store: StoreOption = None,
    current: CurrentOption = None,
    baseline: ContextOption = "previous",
    errors_file: ErrorsOption = None,
) -> None:
    """Write the campaign's static report site: overview with the gate's verdict (newest
    bundle against the previous one), plots, pages per candidate, case, bundle pair and run.

    The site works from file:// and as a CI artifact (no network). A rejected record leaves
    the site to the good records, as in `score`: the overview warns and rejected.html lists
    each one. Exit status: 0 written, 2 bad input (the site written without rejected records,
    or none written: no records, a bad --out).
    """
    given = paths_or_store(paths, store)
    check_outputs({"--out": out, "--errors": errors_file}, given, folders=["--out"])
    from scorecard.api import report_site

    with library_errors(errors_file=errors_file):
        written = report_site(
            given, out=out, policy=policy_file, seed=seed, bundle_id=bundle_id, cases=cases,
            workers=workers, store=store, current=current, baseline=baseline,
        )  # fmt: skip
    write_errors(errors_file, written.rejected)
    print_errors(written.rejected)
    kept = written.files - written.written
    unchanged = f" ({written.written} files written, {kept} unchanged kept)" if kept else ""
    sys.stderr.write(f"wrote {written.pages} pages to {out}{unchanged}\n")
    if written.rejected:
        sys.stderr.write(_rejected_line(written.rejected, out / "rejected.html"))
    sys.stdout.write(f"{out / 'index.html'}\n")
    if written.rejected:
        raise typer.Exit(EXIT_BAD_INPUT)


def _rejected_line(rejected: Sequence[InputError], page: Path | None) -> str:
    """The warning after a site built without rejected records: how many, and where listed."""
    count = len(rejected)
    them = "it" if count == 1 else "them"
    where = f"listed in {page}" if page is not None else "listed on the site's rejected.html"
    return (
        f"warning: {count} record{'s' if count != 1 else ''} rejected: the site is built "
        f"without {them}; {where}\n"
    )


def view(
    paths: PathsArgument = None,
    port: PortOption = 0,
    policy_file: ReportPolicyOption = None,
    seed: SeedOption = 0,
    bundle_id: BundleIdOption = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
    store: StoreOption = None,
    current: CurrentOption = None,
    baseline: ContextOption = "previous",
) -> None:
    """Serve the report site on 127.0.0.1 until Ctrl-C (or SIGTERM), each page made when it is
    first asked for (the files `report` writes, byte for byte). Prints the address."""
    from scorecard.api import view_site

    def ready(address: str) -> None:
        sys.stdout.write(f"serving the report at {address} (Ctrl-C to stop)\n")
        sys.stdout.flush()

    def rejected(errors: Sequence[InputError]) -> None:
        print_errors(errors)
        sys.stderr.write(_rejected_line(errors, None))
        sys.stderr.flush()

    given = paths_or_store(paths, store)
    with library_errors():
        left_out = view_site(
            given, port=port, on_ready=ready, on_rejected=rejected, policy=policy_file, seed=seed,
            bundle_id=bundle_id, cases=cases, workers=workers, store=store, current=current,
            baseline=baseline,
        )  # fmt: skip
    sys.stderr.write("stopped\n")
    if left_out:
        raise typer.Exit(EXIT_BAD_INPUT)


def register(app: typer.Typer) -> None:
    """Add ``report`` to ``app`` (``view`` is registered by :mod:`scorecard.cli._view`)."""
    app.command("report")(report)
