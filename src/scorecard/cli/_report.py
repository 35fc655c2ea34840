"""``scorecard report PATH... --out SITE/`` and ``scorecard view PATH...``: the static report
site of a campaign, written to a folder or served on 127.0.0.1 (``docs/report.md``)."""

from __future__ import annotations

import functools
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Annotated, Any

import typer

from scorecard.contract import InputError

from ._campaign import rules_from
from ._common import (
    EXIT_BAD_INPUT,
    BundleIdOption,
    CasesOption,
    WorkersOption,
    check_outputs,
    print_errors,
    worker_count,
)

__all__ = ["build_files", "register", "report", "serve", "view"]

PathsArgument = Annotated[
    list[str],
    typer.Argument(
        help="Observation files or folders (as for `score`): every bundle of the campaign.",
        show_default=False,
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
SeedOption = Annotated[int, typer.Option("--seed", min=0, help="Seed of the bootstrap resampling.")]


def build_files(
    paths: list[str],
    *,
    policy_file: Path | None,
    cases: Path | None,
    workers: int | None,
    bundle_id: str | None,
    seed: int,
) -> dict[str, bytes]:
    """Score ``paths`` and build the site's files; rejected records end the command, every
    error printed."""
    from scorecard.contract import load_catalog
    from scorecard.core import ScoredRecord
    from scorecard.engine import is_records_file, score_run
    from scorecard.report import build_site

    for given in paths:
        if given != "-" and (is_records_file(given) or given.endswith(".parquet")):
            raise InputError(
                "is already scored; the report shows each run's observation, so give the "
                "observation files or folders",
                rule="scored_input",
                source=given,
            )
    policy, rules = rules_from(policy_file)
    catalog = load_catalog(cases)
    run = score_run(
        paths,
        catalog=catalog,
        policy=policy,
        workers=worker_count(workers),
        bundle_id=bundle_id,
    )
    records: list[ScoredRecord] = []
    errors: list[InputError] = []
    for item in run.records():
        if isinstance(item, InputError):
            errors.append(item)
        else:
            records.append(item)
    if errors:
        print_errors(errors)
        raise typer.Exit(EXIT_BAD_INPUT)
    return build_site(records, catalog, rules=rules, seed=seed)


def _check_site_folder(out: Path, paths: list[str]) -> None:
    """Refuse (a ``bad_output`` error) a site that would replace an input or a folder holding
    one."""
    target = out.resolve()
    for given in paths:
        if given == "-":
            continue
        source = Path(given).resolve()
        if source == target or target in source.parents:
            raise InputError(
                "the site folder is or holds one of the inputs; writing it would replace them",
                rule="bad_output",
                source="--out",
            )


def report(
    paths: PathsArgument,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="The site's folder (created, or replaced when it is a site written before). "
            "Written atomically: built beside it, then renamed.",
            show_default=False,
        ),
    ],
    policy_file: ReportPolicyOption = None,
    seed: SeedOption = 0,
    bundle_id: BundleIdOption = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
) -> None:
    """Write the campaign's static report site: overview with the gate's verdict (newest
    bundle against the previous one), plots, pages per candidate, case, bundle pair and run.

    The site works from file:// and as a CI artifact (no network). Exit status: 0 written,
    2 bad input (a rejected record, no records, a bad --out).
    """
    check_outputs({"--out": out}, paths, folders=["--out"])
    _check_site_folder(out, paths)
    files = build_files(
        paths, policy_file=policy_file, cases=cases, workers=workers, bundle_id=bundle_id, seed=seed
    )
    from scorecard.report import write_site

    write_site(files, out)
    pages = sum(1 for name in files if name.endswith(".html"))
    sys.stderr.write(f"wrote {pages} pages to {out}\n")
    sys.stdout.write(f"{out / 'index.html'}\n")


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def serve(folder: Path, port: int = 0) -> None:
    """Serve ``folder`` on 127.0.0.1:``port`` (0: any free port) until Ctrl-C or SIGTERM;
    the address goes to stdout first."""
    import http.server  # here, not at the top: `scorecard --help` stays light

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        """Static files, no request log on the terminal."""

        def log_message(self, format: str, *args: Any) -> None:
            return

    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    # While serving, Ctrl-C and SIGTERM are the normal way to stop (exit 0); before (building the
    # site) they are an interruption, handled by the command line's stop handlers (130, 143).
    previous = {signum: signal.signal(signum, _stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        sys.stdout.write(
            f"serving the report at http://127.0.0.1:{server.server_port}/ (Ctrl-C to stop)\n"
        )
        sys.stdout.flush()
        server.serve_forever()
    except KeyboardInterrupt:
        sys.stderr.write("stopped\n")
    finally:
        server.server_close()
        for signum, before in previous.items():
            signal.signal(signum, before)


def view(
    paths: PathsArgument,
    port: Annotated[
        int,
        typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free port)."),
    ] = 0,
    policy_file: ReportPolicyOption = None,
    seed: SeedOption = 0,
    bundle_id: BundleIdOption = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
) -> None:
    """Build the report site in a temporary folder and serve it on 127.0.0.1 until Ctrl-C (or
    SIGTERM); the folder is removed then. Prints the address."""
    import shutil
    import tempfile

    files = build_files(
        paths, policy_file=policy_file, cases=cases, workers=workers, bundle_id=bundle_id, seed=seed
    )
    from scorecard.report import write_site

    folder = Path(tempfile.mkdtemp(prefix="scorecard-view-"))
    try:
        site = folder / "site"
        write_site(files, site)
        try:
            serve(site, port)
        except OSError as error:
            raise InputError(
                f"cannot serve on 127.0.0.1:{port}: {error.strerror or error}", rule="unservable"
            ) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def register(app: typer.Typer) -> None:
    """Add ``report`` to ``app`` (``view`` is registered by :mod:`scorecard.cli._view`)."""
    app.command("report")(report)
