"""``scorecard score-dask PATH... --scheduler ADDRESS``: score on a Dask cluster into a dataset.

Dask is an optional extra; it is imported only when the command runs, so ``scorecard --help``
stays fast and works without it. :func:`run_on_scheduler` is the whole command, shared with
``scorecard score --scheduler``.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from scorecard.contract import InputError

from ._common import EXIT_BAD_INPUT, BundleIdOption, CasesOption, PolicyOption, print_errors

#: ``--scheduler local``: start a cluster of processes on this machine for the run.
LOCAL = "local"
# Mirrors scorecard.engine.distributed.SPLIT_BYTES without importing pyarrow at CLI start.
_SPLIT_BYTES = 64 * 1024 * 1024


@contextlib.contextmanager
def _client(scheduler: str) -> Iterator[Any]:
    """A client of the cluster at ``scheduler``, or of a new local one for ``local``."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError(
            "Dask is not installed: pip install 'scorecard[distributed]'",
            rule="missing_extra",
            source="--scheduler",
        ) from None
    with contextlib.ExitStack() as stack:
        try:
            if scheduler == LOCAL:
                from scorecard.engine import default_workers

                # Scoring holds the GIL: one single-threaded process per core. Dashboard on any
                # free port: None would still take 8787, and warn when another cluster has it.
                cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=default_workers(), threads_per_worker=1, dashboard_address=":0"
                )
                stack.enter_context(cluster)
                client = stack.enter_context(Client(cluster))  # type: ignore[no-untyped-call]
            else:
                client = stack.enter_context(Client(scheduler))  # type: ignore[no-untyped-call]
        except (OSError, ValueError) as error:  # TimeoutError is an OSError
            raise InputError(
                f"cannot connect to the scheduler: {error}",
                rule="scheduler_unreachable",
                source=scheduler,
            ) from None
        yield client


def run_on_scheduler(
    paths: list[str],
    *,
    scheduler: str,
    out: Path,
    scorecards: Path | None = None,
    policy_file: Path | None = None,
    cases: Path | None = None,
    bundle_id: str | None = None,
    errors_file: Path | None = None,
    split_bytes: int = _SPLIT_BYTES,
) -> None:
    """Score ``paths`` on the cluster at ``scheduler``; print errors and the summary line.

    Exits with 2 (after writing everything) when any record was rejected, like ``score``.
    """
    from scorecard.contract import Policy
    from scorecard.engine import atomic_writer, load_policy
    from scorecard.engine.distributed import refuse_stdin, score_on_dask

    refuse_stdin(paths)  # before a local cluster is started for nothing
    policy = load_policy(policy_file) if policy_file else Policy()
    with _client(scheduler) as client:
        run = score_on_dask(
            paths,
            client=client,
            out=out,
            cases=cases,
            policy=policy,
            bundle_id=bundle_id,
            split_bytes=split_bytes,
            scorecards_out=scorecards,
        )
    if errors_file is not None:
        with atomic_writer(errors_file) as stream:
            for rejected in run.errors:
                stream.write(json.dumps(rejected.to_record(), ensure_ascii=False) + "\n")
    print_errors(run.errors)
    sys.stderr.write(run.summary.line() + "\n")
    if run.summary.rejected:
        raise typer.Exit(EXIT_BAD_INPUT)


def score_dask(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Observation files (.json, .jsonl) and folders, on a file system every worker "
            "sees at the same path (stdin cannot be used).",
            show_default=False,
        ),
    ],
    scheduler: Annotated[
        str,
        typer.Option(
            "--scheduler",
            help="Dask scheduler address (tcp://host:8786), or local to start a cluster of "
            "processes on this machine.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Dataset folder to write (atomically): one bundle=<id> partition per bundle, "
            "the rows of `score --out X.parquet --partition-by-bundle`.",
            show_default=False,
        ),
    ],
    scorecards: Annotated[
        Path | None,
        typer.Option("--scorecards", help="Also write the v2 scorecards here as JSON Lines."),
    ] = None,
    policy_file: PolicyOption = None,
    cases: CasesOption = None,
    bundle_id: BundleIdOption = None,
    errors_file: Annotated[
        Path | None,
        typer.Option("--errors", help="Write one JSON line per rejected record here."),
    ] = None,
    split_bytes: Annotated[
        int,
        typer.Option(
            "--split-bytes",
            min=1,
            help="Cut .jsonl files into ranges of about this many bytes, one task each.",
        ),
    ] = _SPLIT_BYTES,
) -> None:
    """Score observations on a Dask cluster into a bundle-partitioned Parquet dataset.

    The dataset, scorecards, errors and summary are those of `scorecard score` on one machine
    (docs/distributed.md).

    Exit status: 0 when every record was scored, 2 when any was rejected or an argument is bad
    (the good records are still written). A one-line summary goes to stderr.
    """
    run_on_scheduler(
        paths,
        scheduler=scheduler,
        out=out,
        scorecards=scorecards,
        policy_file=policy_file,
        cases=cases,
        bundle_id=bundle_id,
        errors_file=errors_file,
        split_bytes=split_bytes,
    )


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("score-dask")(score_dask)
