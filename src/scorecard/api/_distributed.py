"""``score --scheduler`` and ``score-dask``: observations scored on a Dask cluster into a
bundle-partitioned Parquet dataset, the same rows as one machine writes (``docs/distributed.md``).
Dask is an optional extra, imported only here and only when called."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorecard.contract import InputError, Takes, arguments

from ._inputs import PathLike, PolicySource, policy_file

if TYPE_CHECKING:
    from scorecard.engine.distributed import DistributedRun

__all__ = ["LOCAL", "SPLIT_BYTES", "cluster_client", "score_on_cluster"]

LOCAL = "local"
"""The scheduler address that starts a cluster of processes on this machine for the run."""
SPLIT_BYTES = 64 * 1024 * 1024
"""``.jsonl`` files are cut into ranges of about this many bytes, one task each (mirrors
``scorecard.engine.distributed.SPLIT_BYTES`` without importing pyarrow)."""


@contextlib.contextmanager
def cluster_client(scheduler: str) -> Iterator[Any]:
    """A client of the cluster at ``scheduler``, or of a new local one for :data:`LOCAL`."""
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


@arguments(
    paths=Takes.paths,
    scheduler=Takes.text,
    out=Takes.path,
    scorecards=Takes.optional_path,
    errors_out=Takes.optional_path,
    policy=Takes.policy_source,
    cases=Takes.optional_path,
    bundle_id=Takes.optional_text,
)
def score_on_cluster(
    paths: Sequence[PathLike],
    *,
    scheduler: str,
    out: PathLike,
    scorecards: PathLike | None = None,
    errors_out: PathLike | None = None,
    policy: PolicySource = None,
    cases: PathLike | None = None,
    bundle_id: str | None = None,
    split_bytes: int = SPLIT_BYTES,
) -> DistributedRun:
    """Score ``paths`` on the cluster at ``scheduler`` (:data:`LOCAL`: one started here) into
    the dataset folder ``out`` (and the v2 scorecards into ``scorecards``); every rejected
    record is in the run's ``errors`` and, with ``errors_out``, written there."""
    from scorecard.engine import atomic_writer
    from scorecard.engine.distributed import refuse_stdin, score_on_dask

    given = [os.fspath(path) for path in paths]
    refuse_stdin(given)  # before a local cluster is started for nothing
    scoring = policy_file(policy).policy
    with cluster_client(scheduler) as client:
        run = score_on_dask(
            given,
            client=client,
            out=Path(out),
            cases=None if cases is None else Path(cases),
            policy=scoring,
            bundle_id=bundle_id,
            split_bytes=split_bytes,
            scorecards_out=None if scorecards is None else Path(scorecards),
        )
    if errors_out is not None:
        with atomic_writer(Path(errors_out)) as stream:
            for rejected in run.errors:
                stream.write(json.dumps(rejected.to_record(), ensure_ascii=False) + "\n")
    return run
