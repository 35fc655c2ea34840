"""``scorecard gate CURRENT [--baseline BASELINE ...]``: the regression gate for CI.

Exit status: 0 pass, 1 fail, 2 bad input or usage, 3 inconclusive (1 with
``--fail-on-inconclusive``). Exactly one verdict line goes to stdout and agrees with the status.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scorecard.contract import InputError, OutputError, ScorecardError

from ._campaign import rules_from
from ._common import (
    EXIT_FAILED,
    EXIT_OK,
    BundleIdOption,
    CasesOption,
    WorkersOption,
    check_outputs,
    worker_count,
)
from ._exit_codes import failure

if TYPE_CHECKING:
    from scorecard.contract import Catalog, Policy, Row
    from scorecard.gate import GateSide, RunFacts

__all__ = ["EXIT_INCONCLUSIVE", "gate", "register"]

EXIT_INCONCLUSIVE = 3
_BAD_INPUT_LINE = "gate: ERROR - bad input, nothing judged (see stderr)"


def _read_records_file(path: str) -> tuple[list[RunFacts], list[InputError]]:
    """The runs of a JSON Lines records file, with every bad line's located error."""
    from scorecard.engine import read_json_lines
    from scorecard.gate import run_facts

    found: list[RunFacts] = []
    errors: list[InputError] = []
    for item in read_json_lines(path):
        if isinstance(item, InputError):
            errors.append(item)
            continue
        number, document = item
        try:
            found.append(run_facts(document))
        except InputError as error:
            errors.append(error.located(source=path, line=number))
    return found, errors


class GateFormat(enum.StrEnum):
    """What ``gate`` prints on stdout."""

    line = "line"
    json = "json"


def _bad_site_url(url: str) -> bool:
    """Whether ``url`` cannot sit in a markdown link and an XML attribute as it is (or would
    publish a secret)."""
    from scorecard.contract import find_secret

    return (
        not url
        or any(character.isspace() or not character.isprintable() for character in url)
        or any(character in url for character in "()<>[]\"'`\\")
        or find_secret(url) is not None
    )


def _load_side(
    path: str,
    catalog: Callable[[], Catalog],
    policy: Policy | None,
    workers: int,
    bundle_id: str | None = None,
    every_detail: bool = False,
    shown: bool = True,
) -> tuple[GateSide | None, list[InputError]]:
    """One side from a records file or Parquet, or from observations scored here (rows on the
    fast path; the detail a verdict shows only for the runs that need it, ``every_detail``: for
    all; a side not ``shown``, a baseline, keeps only the failed findings the rules read)."""
    from scorecard.engine import is_records_file, score_run
    from scorecard.gate import gate_side, rows_side

    facts: list[RunFacts] = []
    runs: Iterable[tuple[Row, Any]] = ()
    errors: list[InputError] = []
    if path.endswith(".parquet") and Path(path).exists():
        return _parquet_side(path, bundle_id)
    if is_records_file(path):
        if policy is not None:
            sys.stderr.write(
                f"note: {path} is already scored; the policy's weights, thresholds and "
                "auditGate do not apply to it\n"
            )
        facts, errors = _read_records_file(path)
        if bundle_id is not None:
            facts = [dataclasses.replace(run, bundle=bundle_id) for run in facts]
    else:
        run = score_run(
            [path], catalog=catalog(), policy=policy, workers=workers, bundle_id=bundle_id
        )
        runs = _without_errors(run.detailed_rows(every=every_detail), errors)
    try:
        # Observations: the rows are read as columns while they come.
        side = gate_side(facts, source=path) if facts else rows_side(runs, source=path, shown=shown)
    except InputError as error:
        return None, errors or [error]
    return (None, errors) if errors else (side, [])


def _parquet_side(path: str, bundle_id: str | None) -> tuple[GateSide | None, list[InputError]]:
    """A side from Parquet, read column by column through Arrow into the records frame that
    ``compare`` reads (ids redacted as ids read from files are; the same errors); a given
    ``bundle_id`` names its bundle, as it does a records file's."""
    from scorecard.aggregate import records_frame
    from scorecard.engine.parquet import parquet_input_error, unreadable_parquet
    from scorecard.gate import frame_side

    refused = parquet_input_error(path)
    if refused is not None:
        return None, [refused]
    try:
        frame = records_frame(Path(path))
        if not len(frame):
            raise InputError("no scored records found", rule="no_records", source=path)
        return frame_side(frame, source=path, bundle=bundle_id), []
    except InputError as error:
        return None, [error if error.source else error.located(source=path)]
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        return None, [unreadable_parquet(path, error)]


def _without_errors(
    items: Iterable[tuple[Row, Any] | InputError], errors: list[InputError]
) -> Iterator[tuple[Row, Any]]:
    """``items`` but the errors, which are appended to ``errors`` (in order) as they come."""
    for item in items:
        if isinstance(item, InputError):
            errors.append(item)
        else:
            yield item


def _nothing_judged(errors: Sequence[ScorecardError]) -> typer.Exit:
    """Print ``errors`` and the verdict line saying nothing was judged; the exit that ends."""
    ended = failure(errors)
    sys.stdout.write(_BAD_INPUT_LINE + "\n")
    return ended


def _write(path: Path, text: str) -> None:
    from scorecard.engine import atomic_writer

    with atomic_writer(path) as stream:
        stream.write(text)


def gate(
    current: Annotated[
        str,
        typer.Argument(
            help="The bundle under test: an observation (bundle) folder or a scored-records "
            "file (`scorecard score --format records`). One bundle.",
            show_default=False,
        ),
    ],
    baseline: Annotated[
        list[str] | None,
        typer.Option(
            "--baseline",
            help="A bundle to compare against (same forms, or Parquet). Repeat it to pool "
            "several nights (or a fixed approved baseline) per candidate and case. Without it "
            "only the safety, infrastructure and audit rules apply.",
        ),
    ] = None,
    policy_file: Annotated[
        Path | None,
        typer.Option(
            "--policy",
            help="YAML/JSON file with a `gate` section (rules) and optionally weights, "
            "thresholds and auditGate for scoring observations (docs/gate.md).",
        ),
    ] = None,
    tolerance: Annotated[
        float | None,
        typer.Option(
            "--tolerance",
            min=0.0,
            max=1.0,
            help="Drops within this (score or rate units) do not fail. [default: 0.05]",
            show_default=False,
        ),
    ] = None,
    fail_on_inconclusive: Annotated[
        bool,
        typer.Option("--fail-on-inconclusive", help="Exit 1 instead of 3 when inconclusive."),
    ] = False,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="Write the markdown summary here.")
    ] = None,
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit",
            help="Write JUnit XML here: one test case per gate check (candidate x rule), red "
            "exactly when the gate fails on it; inconclusive checks are skipped.",
        ),
    ] = None,
    junit_runs: Annotated[
        Path | None,
        typer.Option(
            "--junit-runs",
            help="Write the per-run JUnit XML here (one test case per run of the current bundle: "
            "it judges runs, so a healthy night has failures).",
        ),
    ] = None,
    json_file: Annotated[
        Path | None,
        typer.Option("--json", help="Write the gate result as JSON (scorecard.gate.v1) here."),
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Write the self-contained HTML report here.")
    ] = None,
    output_format: Annotated[
        GateFormat,
        typer.Option(
            "--format",
            help="What stdout gets: the verdict line, or the result as JSON "
            "(scorecard.gate.v1, what --json writes). The exit status is the same.",
        ),
    ] = GateFormat.line,
    site_url: Annotated[
        str | None,
        typer.Option(
            "--site-url",
            help="Where `scorecard report` publishes its site (an address or a relative path, "
            "e.g. the CI artifact's): the markdown and JUnit link each gate-failed run to its "
            "page there.",
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="Seed of the bootstrap resampling.")
    ] = 0,
    bundle_id: BundleIdOption = None,
    baseline_bundle_id: Annotated[
        str | None,
        typer.Option(
            "--baseline-bundle-id",
            help="Use this bundle id for the baseline's records (one --baseline only).",
        ),
    ] = None,
    cases: CasesOption = None,
    workers: WorkersOption = None,
) -> None:
    """Judge a bundle for CI: safety gate, and paired regressions against a baseline.

    Exit status: 0 pass, 1 fail, 2 bad input or usage, 3 inconclusive (1 with
    --fail-on-inconclusive). Prints one verdict line; appends the markdown summary to
    $GITHUB_STEP_SUMMARY when that is set.
    """
    if site_url is not None and _bad_site_url(site_url):
        raise InputError(
            "must be an address or path without spaces, quotes, brackets, control characters "
            "or anything secret-shaped",
            rule="usage",
            source="--site-url",
        )
    if baseline_bundle_id is not None and len(baseline or []) > 1:
        raise InputError(
            "names one baseline's bundle; several --baseline nights keep their own bundle ids",
            rule="usage",
            source="--baseline-bundle-id",
        )
    from scorecard.engine import check_bundle_id

    try:  # a given bundle id is written in every report: refused before anything is read
        check_bundle_id(bundle_id)
        check_bundle_id(baseline_bundle_id, option="--baseline-bundle-id")
    except InputError as error:
        raise _nothing_judged([error]) from None
    check_outputs(
        {
            "--markdown": markdown,
            "--junit": junit,
            "--junit-runs": junit_runs,
            "--json": json_file,
            "--html": html,
        },
        [current, *(baseline or [])],
    )
    from scorecard.engine import scoring_catalog
    from scorecard.gate import evaluate_gate, pool_sides
    from scorecard.report import (
        PlotFailure,
        plot_images,
        render_gate_json,
        render_html,
        render_junit,
        render_markdown,
        verdict_line,
        write_junit_runs,
    )

    try:
        policy, rules = rules_from(policy_file)
        if tolerance is not None:
            rules = dataclasses.replace(rules, tolerance=tolerance)
        if fail_on_inconclusive:
            rules = dataclasses.replace(rules, fail_on_inconclusive=True)
        catalogs: list[Catalog] = []

        def catalog() -> Catalog:
            if not catalogs:
                catalogs.append(scoring_catalog(cases))
            return catalogs[0]

        # Only the per-run JUnit shows every run's reasons, failure and source.
        current_side, errors = _load_side(
            current, catalog, policy, worker_count(workers), bundle_id, junit_runs is not None
        )
        baseline_sides: list[GateSide] = []
        for path in baseline or []:
            side, more = _load_side(
                path, catalog, policy, worker_count(workers), baseline_bundle_id, shown=False
            )
            errors += more
            if side is not None:
                baseline_sides.append(side)
        baseline_side = pool_sides(baseline_sides) if baseline_sides and not errors else None
    except ScorecardError as error:  # the inputs, the policy or the catalog: nothing judged
        raise _nothing_judged([error]) from None
    if errors or current_side is None:
        raise _nothing_judged(errors)
    result = evaluate_gate(current_side, baseline_side, rules, seed=seed)
    line = verdict_line(result, fail_on_inconclusive=rules.fail_on_inconclusive)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    # The markdown lists every failure: made only when a file or the job summary takes it.
    summary = ""
    if markdown is not None or step_summary:
        summary = render_markdown(result, line, site_url=site_url)
    if markdown is not None:
        _write(markdown, summary)
    if junit is not None:
        _write(junit, render_junit(result, site_url=site_url))
    if junit_runs is not None:
        from scorecard.engine import atomic_writer

        with atomic_writer(junit_runs) as stream:  # a test case per run: written as made
            write_junit_runs(result, stream, site_url=site_url)
    if json_file is not None:
        _write(json_file, render_gate_json(result))
    if html is not None:
        images = plot_images(result)
        _write(html, render_html(result, line, images=images))
        broken = [
            OutputError(
                f"the plot {caption!r} could not be drawn: {image.error}",
                rule="plot_failed",
                source=str(html),
            )
            for caption, image in images
            if isinstance(image, PlotFailure)
        ]
        if broken:  # written with the failure in the plot's place; the run still fails
            raise failure(broken)
    if step_summary:
        try:
            with open(step_summary, "a", encoding="utf-8") as stream:
                stream.write(summary + "\n")
        except OSError as error:  # the verdict stands; the job summary is a convenience
            sys.stderr.write(f"warning: cannot append to GITHUB_STEP_SUMMARY: {error.strerror}\n")
    if output_format is GateFormat.json:
        sys.stdout.write(render_gate_json(result))
        sys.stderr.write(line + "\n")  # the verdict still reaches the log
    else:
        sys.stdout.write(line + "\n")
    if result.verdict == "pass":
        code = EXIT_OK
    elif result.verdict == "fail" or rules.fail_on_inconclusive:
        code = EXIT_FAILED
    else:
        code = EXIT_INCONCLUSIVE
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("gate")(gate)
