"""``gate``: a bundle judged for CI (the safety gate, and paired regressions against baseline
bundles), and the reports a CI job keeps written from the one result."""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from scorecard.contract import (
    ROW_FIELDS,
    InputError,
    InputErrors,
    OutputError,
    ScorecardError,
    StoreError,
    Takes,
    arguments,
    written_name,
)

from ._inputs import PathLike, PolicySource, gate_rules_of, policy_file, scoring_catalog_of
from ._receipts import new_receipt, path_inputs, store_inputs

if TYPE_CHECKING:
    from scorecard.contract import Catalog, Policy, PolicyFile, Receipt, Row
    from scorecard.gate import GateResult, GateRules, GateSide, RunFacts
    from scorecard.store import Label, Store

__all__ = ["GateReports", "Judgement", "judge", "write_gate_reports"]


@dataclass(frozen=True)
class Judgement:
    """What :func:`judge` found: the verdict as data, its one line, and notes for the reader."""

    judged: GateResult
    """Every check, outcome and the verdict (``scorecard.gate.GateResult``), as :attr:`result`
    without its receipt's payload digest."""
    line: str
    """The verdict line (``gate: PASS ...``), agreeing with the verdict."""
    rules: GateRules
    """The rules the verdict was reached under (the policy's, options applied)."""
    notes: list[str] = field(default_factory=list)
    """Choices or facts the reader should know (e.g. a policy that did not apply), one each."""
    rejected: tuple[InputError, ...] = ()
    """With ``judge_valid``: each input record validation rejected, located, in input order
    (the verdict is on the others)."""
    inputs_receipt: Receipt | None = field(default=None, repr=False)
    """What the verdict was judged from (:attr:`result`'s receipt before its payload digest)."""

    @functools.cached_property
    def result(self) -> GateResult:
        """Every check, outcome and the verdict, with its receipt (``docs/receipts.md``) naming
        the digest of the verdict's JSON. Digested when first asked for: the verdict line and
        the exit status need none, and the JSON of a large comparison is a fifth of its gate's
        time."""
        if self.inputs_receipt is None:
            return self.judged
        return _receipted(self.judged, self.inputs_receipt)

    @property
    def failed(self) -> bool:
        """Whether the gate failed: a failing verdict, or an inconclusive one when the rules
        ask that inconclusive fail."""
        return self.judged.verdict == "fail" or (
            self.judged.verdict == "inconclusive" and self.rules.fail_on_inconclusive
        )


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


def _parquet_side(path: str, bundle_id: str | None) -> GateSide:
    """A side from Parquet, read column by column through Arrow into the records frame that
    ``compare`` reads; a given ``bundle_id`` names its bundle, as it does a records file's."""
    from scorecard.aggregate import records_frame
    from scorecard.engine.parquet import parquet_input_error, unreadable_parquet
    from scorecard.gate import frame_side

    refused = parquet_input_error(path)
    if refused is not None:
        raise refused
    try:
        frame = records_frame(Path(path))
        if not len(frame):
            raise InputError("no scored records found", rule="no_records", source=path)
        return frame_side(frame, source=path, bundle=bundle_id)
    except InputError as error:
        raise error if error.source else error.located(source=path) from None
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        raise unreadable_parquet(path, error) from None


def _without_errors(
    items: Iterable[tuple[Row, Any] | InputError], errors: list[InputError]
) -> Iterator[tuple[Row, Any]]:
    """``items`` but the errors, which are appended to ``errors`` (in order) as they come."""
    for item in items:
        if isinstance(item, InputError):
            errors.append(item)
        else:
            yield item


@dataclass
class _Loader:
    """Reads the sides of a verdict from paths: the catalog made once, when first needed."""

    cases: PathLike | None
    policy: Policy | None
    workers: int
    notes: list[str]
    judge_valid: bool = False
    rejected: list[InputError] = field(default_factory=list)
    _catalog: Catalog | None = None

    @property
    def loaded_catalog(self) -> Catalog | None:
        """The catalog, if an input was scored with it."""
        return self._catalog

    def catalog(self) -> Catalog:
        if self._catalog is None:
            self._catalog = scoring_catalog_of(self.cases)
        return self._catalog

    def side(
        self, path: str, bundle_id: str | None, *, every_detail: bool = False, shown: bool = True
    ) -> GateSide:
        """One side from a records file or Parquet, or from observations scored here (rows on
        the fast path; the detail a verdict shows only for the runs that need it,
        ``every_detail``: for all; a side not ``shown``, a baseline, keeps only the failed
        findings the rules read). Rejected records raise :class:`InputErrors`; with
        ``judge_valid`` they are kept in ``rejected`` and the side is the valid records' (a
        side with none still raises)."""
        from scorecard.engine import is_records_file, score_run
        from scorecard.gate import gate_side, rows_side

        if path.endswith(".parquet") and Path(path).exists():
            return _parquet_side(path, bundle_id)
        errors: list[InputError] = []
        if is_records_file(path):
            if self.policy is not None:
                self.notes.append(
                    f"{path} is already scored; the policy's weights, thresholds and auditGate "
                    "do not apply to it"
                )
            facts, errors = _read_records_file(path)
            if errors and not (self.judge_valid and facts):
                raise InputErrors(errors)
            self.rejected.extend(errors)
            if bundle_id is not None:
                facts = [dataclasses.replace(run, bundle=bundle_id) for run in facts]
            return gate_side(facts, source=path)
        run = score_run(
            [path],
            catalog=self.catalog(),
            policy=self.policy,
            workers=self.workers,
            bundle_id=bundle_id,
        )
        # The rows are read as columns while they come.
        runs = _without_errors(run.detailed_rows(every=every_detail), errors)
        try:
            side = rows_side(runs, source=path, shown=shown)
        except InputError as error:
            raise InputErrors(errors or [error]) from None
        if errors and not self.judge_valid:
            raise InputErrors(errors)
        self.rejected.extend(errors)
        return side


def _baselines(value: Any, where: str) -> Any:
    """Baseline paths, or (with a store) a reference such as ``last:7``."""
    return value if isinstance(value, str) else Takes.paths(value, where)


@arguments(
    current=Takes.optional_path,
    baselines=_baselines,
    policy=Takes.policy_source,
    seed=Takes.seed,
    bundle_id=Takes.optional_text,
    baseline_bundle_id=Takes.optional_text,
    cases=Takes.optional_path,
    workers=Takes.workers,
)
def judge(
    current: PathLike | None,
    baselines: Sequence[PathLike] | str = (),
    *,
    store: PathLike | Store | None = None,
    policy: PolicySource = None,
    tolerance: float | None = None,
    fail_on_inconclusive: bool = False,
    seed: int = 0,
    bundle_id: str | None = None,
    baseline_bundle_id: str | None = None,
    cases: PathLike | None = None,
    workers: int | None = None,
    every_detail: bool = False,
    judge_valid: bool = False,
) -> Judgement:
    """Judge the bundle at ``current`` (an observation folder, a records file or Parquet)
    against ``baselines`` (the same forms, pooled per candidate and case; none: only the safety,
    infrastructure and audit rules apply) under ``policy``'s gate rules (``tolerance`` and
    ``fail_on_inconclusive`` overriding). ``every_detail`` keeps every current run's reasons,
    failure and source (the per-run JUnit shows them); otherwise only the runs a report shows.

    With ``store``, ``current`` is a bundle id of the store (None: its newest night) and
    ``baselines`` a reference: ``last:N``, ``approved``, ``previous`` or ``ID,ID`` (or the ids);
    the runs are the store's, the verdict byte for byte the one of the same folders, and the
    store's labels apply: quarantined runs never fail the gate, and every label of the
    candidates, applying or expired, is in the result's notes.

    The result carries its receipt (``result.receipt``, ``docs/receipts.md``): the inputs'
    digests (a store's: those it kept at ingest), catalog, canonical policy, seed, version,
    engine and the digest of the verdict's JSON, which :func:`verify` re-checks.

    Bad input raises (:class:`InputError`, :class:`InputErrors` with every rejected record);
    the verdict is data, never an exception. With ``judge_valid`` (paths only) rejected records
    do not stop the verdict: it is reached on the valid records of each side, every rejected
    one is located in :attr:`Judgement.rejected`, and the result's notes say how many were left
    out and where the first were (every report shows them); a side left with no valid record
    still raises.
    """
    from scorecard.engine import check_bundle_id, default_workers
    from scorecard.gate import evaluate_gate
    from scorecard.report import verdict_line

    if baseline_bundle_id is not None and len(baselines) > 1:
        raise InputError(
            "--baseline-bundle-id names one baseline's bundle; several --baseline nights keep "
            "their own bundle ids",
            rule="usage",
            source="--baseline-bundle-id",
        )
    check_bundle_id(bundle_id)  # a given id is written in every report: refused before reading
    check_bundle_id(baseline_bundle_id, option="--baseline-bundle-id")
    settings = policy_file(policy)
    rules = gate_rules_of(settings)
    if tolerance is not None:
        rules = dataclasses.replace(rules, tolerance=tolerance)
    if fail_on_inconclusive:
        rules = dataclasses.replace(rules, fail_on_inconclusive=True)
    if store is not None:
        judged = _judge_store(store, current, baselines, settings, rules, seed, every_detail)
        opened, judged_id, baseline_ids = judged.read
        sources = {
            "store": str(opened.path)
            if not isinstance(store, str | os.PathLike)
            else os.fspath(store),
            "current": judged_id,
            "baselines": baseline_ids,
            **_option_sources(policy, None, tolerance, fail_on_inconclusive),
        }
        roles = [("current", judged_id), *(("baseline", bundle) for bundle in baseline_ids)]
        receipt = new_receipt(
            "gate",
            sources,
            store_inputs(opened, roles),
            catalog=opened.bundle(judged_id).catalog_digest,
            policy=opened.policy,
            rules=rules,
            seed=seed,
        )
        return dataclasses.replace(judged.judgement, inputs_receipt=receipt)
    if current is None:
        raise InputError("give the bundle under test (CURRENT), or --store", rule="usage")
    if isinstance(baselines, str):
        raise TypeError("without a store, baselines is a list of paths")
    loader = _Loader(cases, settings.policy, workers or default_workers(), [], judge_valid)
    errors: list[ScorecardError] = []
    current_side: GateSide | None = None
    try:
        current_side = loader.side(os.fspath(current), bundle_id, every_detail=every_detail)
    except InputErrors as rejected:
        errors.extend(rejected.errors)
    except InputError as error:
        errors.append(error)
    baseline_sides: list[GateSide] = []
    for path in baselines:
        try:
            baseline_sides.append(loader.side(os.fspath(path), baseline_bundle_id, shown=False))
        except InputErrors as rejected:
            errors.extend(rejected.errors)
        except InputError as error:
            errors.append(error)
    if errors or current_side is None:
        raise InputErrors(errors)
    # The nights go in unpooled: the gate pools them and judges each night's outages.
    dates = _night_dates(
        [
            (os.fspath(current), bundle_id),
            *((os.fspath(path), baseline_bundle_id) for path in baselines),
        ]
    )
    result = evaluate_gate(current_side, baseline_sides, rules, seed=seed, dates=dates)
    if loader.rejected:
        result = dataclasses.replace(result, notes=(*result.notes, _rejected_note(loader.rejected)))
    given = [os.fspath(path) for path in baselines]
    inputs = [
        *path_inputs("current", os.fspath(current), bundle_id),
        *(item for path in given for item in path_inputs("baseline", path, baseline_bundle_id)),
    ]
    sources = {
        "current": os.fspath(current),
        "baselines": given,
        "bundleId": bundle_id,
        "baselineBundleId": baseline_bundle_id,
        **_option_sources(policy, cases, tolerance, fail_on_inconclusive),
        **({"judgeValid": True} if judge_valid else {}),
    }
    receipt = new_receipt(
        "gate",
        sources,
        inputs,
        catalog=loader.loaded_catalog,
        policy=settings.policy,
        rules=rules,
        seed=seed,
    )
    line = verdict_line(result, fail_on_inconclusive=rules.fail_on_inconclusive)
    if loader.rejected:
        count = len(loader.rejected)
        line += f" ({count} input record{'s' if count != 1 else ''} rejected, not judged)"
    return Judgement(result, line, rules, loader.notes, tuple(loader.rejected), receipt)


def _night_dates(paths: Sequence[tuple[str, str | None]]) -> dict[str, str]:
    """Bundle id -> the ISO date of its night, of the bundles under ``paths`` (each with the
    bundle id given for it) whose campaign manifest states one (records and Parquet files have
    none)."""
    from scorecard.engine import bundle_files, is_records_file

    dates: dict[str, str] = {}
    for path, bundle_id in paths:
        if path == "-" or path.endswith(".parquet") or is_records_file(path):
            continue
        found, _ = bundle_files([path], bundle_id=bundle_id)  # its errors: the side's already
        for bundle in found:
            campaign = bundle.info.campaign
            if campaign is not None and campaign.night is not None:
                dates[bundle.id] = campaign.night
    return dates


REJECTED_NAMED = 5
"""Rejected records a verdict's note locates at most (the rest counted)."""


def _rejected_note(rejected: Sequence[InputError]) -> str:
    """The result's note on records judged without: how many, and the first located (each
    redacted as on the terminal)."""
    count = len(rejected)
    named = "; ".join(str(error) for error in rejected[:REJECTED_NAMED])
    more = f"; and {count - REJECTED_NAMED} more" if count > REJECTED_NAMED else ""
    return (
        f"{count} input record{'s' if count != 1 else ''} rejected by validation "
        f"{'was' if count == 1 else 'were'} not judged (--judge-valid): {named}{more}"
    )


def _option_sources(
    policy: PolicySource, cases: PathLike | None, tolerance: float | None, fail: bool
) -> dict[str, Any]:
    """The options a verdict depends on, as given (a policy read already names no file)."""
    return {
        "policy": os.fspath(policy) if isinstance(policy, str | os.PathLike) else None,
        "cases": None if cases is None else os.fspath(cases),
        "tolerance": tolerance,
        "failOnInconclusive": fail,
    }


def _receipted(result: GateResult, receipt: Receipt) -> GateResult:
    """``result`` with ``receipt``, naming the digest of the verdict's JSON without it."""
    from scorecard.report import gate_document

    return dataclasses.replace(result, receipt=receipt.with_payload(gate_document(result)))


@dataclass(frozen=True)
class GateReports:
    """Where the gate's reports go (None: not written); each is written atomically."""

    markdown: Path | None = None
    """The bounded markdown summary."""
    pr_comment: Path | None = None
    """A pull-request comment (at most 64,000 bytes, a hidden marker first to update it by)."""
    junit: Path | None = None
    """JUnit XML, one test case per check."""
    junit_runs: Path | None = None
    """JUnit XML, one test case per run of the current bundle."""
    json: Path | None = None
    """The result as JSON (``scorecard.gate.v1``)."""
    html: Path | None = None
    """The self-contained HTML page."""
    step_summary: Path | None = None
    """A file the markdown summary is appended to (a CI job summary, e.g.
    ``$GITHUB_STEP_SUMMARY``)."""
    site_url: str | None = None
    """Where ``scorecard report`` publishes the site: the markdown and JUnit link each
    gate-failed run to its page there."""

    def linked_to(self, site_url: str | None) -> GateReports:
        """These reports linking each gate-failed run to its page at ``site_url`` (None: no
        links); an address that cannot sit in a markdown link and an XML attribute as it is,
        or that is secret-shaped, raises :class:`InputError`."""
        if site_url is not None and bad_site_url(site_url):
            raise InputError(
                "must be an address or path without spaces, quotes, brackets, control "
                "characters or anything secret-shaped",
                rule="bad_site_url",
                source="--site-url",
            )
        return dataclasses.replace(self, site_url=site_url)

    def paths(self) -> dict[str, Path | None]:
        """The written files by the option that names them (for the output checks)."""
        return {
            "--markdown": self.markdown,
            "--pr-comment": self.pr_comment,
            "--junit": self.junit,
            "--junit-runs": self.junit_runs,
            "--json": self.json,
            "--html": self.html,
        }


def bad_site_url(url: str) -> bool:
    """Whether ``url`` cannot sit in a markdown link and an XML attribute as it is (or would
    publish a secret)."""
    from scorecard.contract import find_secret

    return (
        not url
        or any(character.isspace() or not character.isprintable() for character in url)
        or any(character in url for character in "()<>[]\"'`\\")
        or find_secret(url) is not None
    )


def write_gate_reports(judgement: Judgement, reports: GateReports) -> list[str]:
    """Write the reports ``reports`` asks for, from the one result; returns warnings (a job
    summary that could not be appended to: the verdict stands). A report that cannot be
    written raises :class:`~scorecard.contract.OutputError`; plots that could not be drawn are
    shown as such in the HTML page, which is written, and then raised (``plot_failed``, in
    :class:`~scorecard.contract.InputErrors`)."""
    from scorecard.engine import atomic_writer
    from scorecard.report import (
        PlotFailure,
        plot_images,
        render_gate_json,
        render_html,
        render_junit,
        render_markdown,
        render_pr_comment,
        write_junit_runs,
    )

    reports = reports.linked_to(reports.site_url)
    if not any(reports.paths().values()) and reports.step_summary is None:
        return []  # nothing to write: the receipt's payload digest is not needed either
    result, site_url = judgement.result, reports.site_url
    # The markdown lists every failure: made only when a file or the job summary takes it.
    summary = ""
    if reports.markdown is not None or reports.step_summary is not None:
        summary = render_markdown(result, judgement.line, site_url=site_url)
    writers: list[tuple[Path | None, Callable[[IO[str]], object]]] = [
        (reports.markdown, lambda stream: stream.write(summary)),
        (
            reports.pr_comment,
            lambda stream: stream.write(
                render_pr_comment(result, judgement.line, site_url=site_url)
            ),
        ),
        (reports.junit, lambda stream: stream.write(render_junit(result, site_url=site_url))),
        # A test case per run: written as made.
        (reports.junit_runs, lambda stream: write_junit_runs(result, stream, site_url=site_url)),
        (reports.json, lambda stream: stream.write(render_gate_json(result))),
        (
            reports.html,
            lambda stream: stream.write(render_html(result, judgement.line, images=images)),
        ),
    ]
    images = plot_images(result) if reports.html is not None else []
    for path, write in writers:
        if path is None:
            continue
        try:
            with atomic_writer(path) as stream:
                write(stream)
        except OSError as error:
            raise OutputError(
                f"cannot write report: {error.strerror or type(error).__name__}",
                rule="unwritable",
                source=str(path),
            ) from None
    broken = [
        OutputError(
            f"the plot {caption!r} could not be drawn: {image.error}",
            rule="plot_failed",
            source=str(reports.html),
        )
        for caption, image in images
        if isinstance(image, PlotFailure)
    ]
    if broken:  # written with the failure in the plot's place; the run still fails
        raise InputErrors(broken)
    warnings: list[str] = []
    if reports.step_summary is not None:
        try:
            with open(reports.step_summary, "a", encoding="utf-8") as stream:
                stream.write(summary + "\n")
        except OSError as error:
            warnings.append(f"cannot append to GITHUB_STEP_SUMMARY: {error.strerror}")
    return warnings


def _judge_store(
    store: PathLike | Store,
    current: PathLike | None,
    reference: Sequence[PathLike] | str,
    settings: PolicyFile,
    rules: GateRules,
    seed: int,
    every_detail: bool,
) -> _StoreJudgement:
    """:func:`judge` of a store's bundle against baseline bundles named by reference."""
    from scorecard.gate import evaluate_gate, rows_side
    from scorecard.report import verdict_line

    from ._store import (
        baseline_bundles,
        current_bundle,
        label_notes,
        open_campaign_store,
        quarantined,
    )

    opened = open_campaign_store(store, policy=settings)
    judged = current_bundle(opened, None if current is None else os.fspath(current))
    ids = (
        baseline_bundles(
            opened,
            judged,
            reference if isinstance(reference, str) else [os.fspath(item) for item in reference],
        )
        if reference
        else []
    )
    labels = opened.labels()
    night = opened.bundle(judged).night
    skipped = quarantined(labels, night)

    candidates: set[str] = set()

    def kept(rows: Iterable[tuple[Row, Any]], seen: set[str]) -> Iterator[tuple[Row, Any]]:
        for row, detail in rows:
            seen.add(str(row[_CANDIDATE]))
            if not any(_quarantines(label, row) for label in skipped):
                yield row, detail

    source = f"{opened.path}:{judged}"
    current_rows = opened.detailed_rows(judged, every=every_detail)
    current_side = rows_side(kept(current_rows, candidates), source=source)
    sides = [
        rows_side(
            kept(opened.detailed_rows(bundle, findings_only=True), set()),
            source=bundle,
            shown=False,
        )
        if skipped  # quarantined runs leave the rows
        else _baseline_side(opened, bundle)
        for bundle in ids
    ]
    # The per-case ledger reads older nights too when the rules ask (gate.case.historyNights).
    order = [entry.id for entry in opened.bundles()]
    earlier = [bundle for bundle in order[: order.index(judged)] if bundle not in ids]
    extra = max(0, rules.case_history - len(ids))
    history = [
        rows_side(
            kept(opened.detailed_rows(bundle, findings_only=True), set()),
            source=bundle,
            shown=False,
        )
        for bundle in (earlier[-extra:] if extra else [])
    ]
    dates = {entry.id: entry.night for entry in opened.bundles() if entry.night is not None}
    result = evaluate_gate(current_side, sides, rules, seed=seed, history=history, dates=dates)
    notes = label_notes(labels, night, sorted(candidates))
    if notes:
        result = dataclasses.replace(result, notes=(*result.notes, *notes))
    line = verdict_line(result, fail_on_inconclusive=rules.fail_on_inconclusive)
    return _StoreJudgement(Judgement(result, line, rules, []), (opened, judged, ids))


@dataclass(frozen=True)
class _StoreJudgement:
    judgement: Judgement
    read: tuple[Store, str, list[str]]
    """The store, the bundle judged and the baseline bundles read."""


def _baseline_side(store: Store, bundle: str) -> GateSide:
    """A baseline night of the store as a side, from its runs file's frame and the findings of
    the runs that have them (no Python row per run): the side ``rows_side(shown=False)`` makes
    of ``detailed_rows(bundle, findings_only=True)``."""
    from scorecard.aggregate import column_values, records_frame
    from scorecard.gate import findings_side

    frame = records_frame(store.runs_files([bundle]), bundle_order=[bundle])
    keys = column_values(frame, ("candidate", "case", "repetition"))
    position = {
        key: index
        for index, key in enumerate(
            zip(keys["candidate"], keys["case"], keys["repetition"], strict=True)
        )
    }
    details = {}
    for (candidate, case, repetition), detail in store.keyed_findings(bundle):
        key = (written_name(candidate), written_name(case), repetition)
        if key not in position:  # the bundle was replaced between the two reads
            raise StoreError(
                f"bundle {bundle} changed while it was read: run the gate again",
                rule="changed_while_read",
                source=str(store.path),
            )
        details[position[key]] = detail
    return findings_side(frame, details, source=bundle)


_CANDIDATE, _CASE, _BUNDLE, _REPETITION = (
    ROW_FIELDS.index(name) for name in ("candidate", "case", "bundle", "repetition")
)


def _quarantines(label: Label, row: Row) -> bool:
    """Whether a quarantine label covers a run (its candidate and case; a run label, that run)."""
    if not label.covers(str(row[_CANDIDATE]), str(row[_CASE])):
        return False
    return label.bundle is None or (label.bundle, label.repetition) == (
        row[_BUNDLE],
        row[_REPETITION],
    )
