"""``score``: observations scored into v2 scorecards (or records, audit findings, Parquet
columns), written atomically, rejected records located and kept apart."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from scorecard.contract import InputError, Takes, arguments

from ._inputs import PathLike, PolicySource, policy_file, scoring_catalog_of

if TYPE_CHECKING:
    from scorecard.contract import Receipt
    from scorecard.core import ScoredRecord
    from scorecard.engine import Row, RunSummary

__all__ = ["OUTPUT_FORMATS", "OutputFormat", "Scored", "output_format_for", "score"]

OutputFormat = Literal["jsonl", "json", "table", "records", "audit"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("jsonl", "json", "table", "records", "audit")
"""How scorecards are written (``scorecard score --format``)."""
_STREAMING = ("jsonl", "records", "audit")
_OUT_FORMATS: dict[str, OutputFormat] = {".json": "json", ".jsonl": "jsonl", ".txt": "table"}


@dataclass
class Scored:
    """What a :func:`score` run did: its counts, and every rejected record, located."""

    summary: RunSummary
    errors: list[InputError] = field(default_factory=list)


def output_format_for(out: PathLike | None, *, interactive: bool) -> OutputFormat:
    """The format ``--out``'s name implies (``.json``, ``.jsonl``, ``.txt``), else ``table``
    for a person at a terminal (``interactive``) and ``jsonl`` otherwise; ``.csv`` is refused."""
    suffix = Path(out).suffix.lower() if out is not None else ""
    if suffix == ".csv":
        raise InputError(
            "score writes JSON Lines (.jsonl), JSON (.json), a table (.txt) or Parquet "
            "(.parquet), not CSV; `scorecard compare --out X.csv` writes CSV tables",
            rule="bad_output",
            source="--out",
        )
    if suffix in _OUT_FORMATS:
        return _OUT_FORMATS[suffix]
    return "table" if interactive else "jsonl"


@arguments(
    paths=Takes.paths,
    errors_out=Takes.optional_path,
    policy=Takes.policy_source,
    cases=Takes.optional_path,
    bundle_id=Takes.optional_text,
    workers=Takes.workers,
)
def score(
    paths: Sequence[PathLike],
    *,
    out: PathLike | IO[str],
    output_format: str | None = None,
    errors_out: PathLike | None = None,
    policy: PolicySource = None,
    cases: PathLike | None = None,
    bundle_id: str | None = None,
    workers: int | None = None,
    partition_by_bundle: bool = False,
    scheduler: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    progress_every: int = 1000,
) -> Scored:
    """Score the observations under ``paths`` (files, folders, ``-`` for stdin) into ``out``:
    a path (written atomically; a ``.parquet`` name writes the records as columns, one
    ``bundle=<id>`` folder per bundle with ``partition_by_bundle``) or an open text stream, in
    ``output_format`` (default: from ``out``'s name, else ``jsonl``). Every rejected record is
    located in :attr:`Scored.errors` and, with ``errors_out``, written there as one JSON line
    each; the good records are written all the same. ``on_progress`` is called with the count
    of records read every ``progress_every`` of them. With ``scheduler`` (a Dask scheduler's
    address, or ``local``) the records are scored on that cluster into the ``.parquet`` dataset
    ``out`` (:func:`score_on_cluster`)."""
    from scorecard.engine import atomic_writer, default_workers, empty_input_notices, score_run

    if scheduler is not None:
        if not isinstance(out, str | os.PathLike) or Path(out).suffix != ".parquet":
            raise InputError("needs --out DATASET.parquet", rule="usage", source="--scheduler")
        from ._distributed import score_on_cluster

        on_cluster = score_on_cluster(
            paths,
            scheduler=scheduler,
            out=out,
            errors_out=errors_out,
            policy=policy,
            cases=cases,
            bundle_id=bundle_id,
        )
        return Scored(on_cluster.summary, on_cluster.errors)

    if output_format is not None and output_format not in OUTPUT_FORMATS:
        raise InputError(
            f"unknown format {output_format!r}; expected one of {', '.join(OUTPUT_FORMATS)}",
            rule="usage",
            source="--format",
        )
    catalog = scoring_catalog_of(cases)
    scoring = policy_file(policy).policy
    target = None if not isinstance(out, str | os.PathLike) else Path(out)
    parquet = target is not None and target.suffix == ".parquet"
    if partition_by_bundle and not parquet:
        raise InputError("needs --out FILE.parquet", rule="usage", source="--partition-by-bundle")
    chosen: str = (
        "records" if parquet else output_format or output_format_for(target, interactive=False)
    )
    run = score_run(
        [os.fspath(path) for path in paths],
        catalog=catalog,
        policy=scoring,
        workers=workers or default_workers(),
        bundle_id=bundle_id,
    )
    summary = run.summary
    scored = Scored(summary)
    results: Iterator[ScoredRecord | str | Row | InputError]
    # Parquet is written from rows, the streaming formats from text; the table and the JSON
    # array need the records themselves.
    if parquet:
        results = run.rows()
    elif chosen in _STREAMING:
        results = run.text(chosen)
    else:
        results = run.records()
    with contextlib.ExitStack() as stack:
        error_stream = stack.enter_context(atomic_writer(Path(errors_out))) if errors_out else None

        def accepted() -> Iterator[ScoredRecord | str | Row]:
            shown = 0
            for result in results:
                done = summary.scored + summary.rejected
                if on_progress is not None and done - shown >= progress_every:
                    on_progress(done)
                    shown = done
                if isinstance(result, InputError):
                    scored.errors.append(result)
                    if error_stream is not None:
                        error_stream.write(
                            json.dumps(result.to_record(), ensure_ascii=False) + "\n"
                        )
                else:
                    yield result

        if parquet:
            assert target is not None
            given = [os.fspath(path) for path in paths]
            sources: dict[str, object] = {
                "paths": given,
                "bundleId": bundle_id,
                "policy": os.fspath(policy) if isinstance(policy, str | os.PathLike) else None,
                "cases": None if cases is None else os.fspath(cases),
                "partitionByBundle": partition_by_bundle,
            }

            def receipt() -> Receipt:  # only Parquet takes one: JSON Lines never load this
                from ._receipts import new_receipt, path_inputs

                inputs = [item for path in given for item in path_inputs("input", path, bundle_id)]
                return new_receipt(
                    "score", sources, inputs, catalog=catalog, policy=scoring, rules=None, seed=None
                )

            _write_parquet(
                accepted(), target, partition_by_bundle=partition_by_bundle, receipt=receipt
            )
        else:
            stream = _opened(out) if target is None else stack.enter_context(atomic_writer(target))
            _write_text(accepted(), stream, chosen)
    if summary.scored + summary.rejected == 0:
        # Nothing read is not an error (the output, empty, is still written) but is said.
        for notice in empty_input_notices([os.fspath(path) for path in paths]):
            summary.notice(notice)
    return scored


def _opened(out: PathLike | IO[str]) -> IO[str]:
    if isinstance(out, str | os.PathLike):
        raise TypeError("a path is written atomically, not as a stream")
    return out


def _write_text(
    results: Iterator[ScoredRecord | str | Row], stream: IO[str], output_format: str
) -> None:
    from scorecard.contract import js_json
    from scorecard.core import ScoredRecord

    if output_format in _STREAMING:
        for result in results:
            if not isinstance(result, str):
                raise TypeError("streaming formats are written from rendered text")
            stream.write(result)
        return
    records = [result for result in results if isinstance(result, ScoredRecord)]
    if output_format == "json":
        stream.write(js_json([record.scorecard_json() for record in records], 2) + "\n")
    else:
        from scorecard.report import scorecard_table

        scorecard_table(records, stream)


def _write_parquet(
    results: Iterator[ScoredRecord | str | Row],
    out: Path,
    *,
    partition_by_bundle: bool,
    receipt: Callable[[], Receipt],
) -> None:
    """The rows as Parquet, stamped with their receipt (``scorecard.receipt`` in the key-value
    metadata; its payload the rows' digest, ``RowsDigest``)."""
    from scorecard.contract import RECEIPT_METADATA_KEY, RowsDigest, js_json
    from scorecard.engine.parquet import write_parquet

    digest = RowsDigest()

    def rows() -> Iterator[Row]:
        for result in results:  # rows come ready from the chunk scorers (ScoringRun.rows)
            if not isinstance(result, tuple):
                raise TypeError("Parquet is written from aggregation rows")
            digest.add(result)
            yield result

    def metadata() -> dict[bytes, bytes]:
        stamped = dataclasses.replace(receipt(), payload=digest.hexdigest())
        return {RECEIPT_METADATA_KEY: js_json(stamped.to_json()).encode("utf-8")}

    write_parquet(rows(), out, partition_by_bundle=partition_by_bundle, metadata=metadata)
