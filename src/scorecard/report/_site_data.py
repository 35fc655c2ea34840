"""What the report site shows, gathered once: the runs (facts, explanations, page paths),
the campaign analysis, the gate on each pair of consecutive bundles, and the plots as SVG.

Every number comes from :func:`scorecard.aggregate.analyze_campaign` and every verdict from
:func:`scorecard.gate.evaluate_gate` (what ``scorecard gate`` calls) on the same runs.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import io
import math
import os
import sys
import tempfile
import threading
import warnings
import weakref
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorecard.aggregate import (
    CampaignAnalysis,
    PairedComparison,
    analyze_campaign,
    records_frame,
)
from scorecard.contract import DIMENSIONS, ROW_FIELDS, Catalog, InputError, Row
from scorecard.core import ScoredRecord, failing_of
from scorecard.engine import (
    Background,
    Keep,
    LoadedRecords,
    PackedDocuments,
    in_background,
    scored_row,
)
from scorecard.gate import (
    GateResult,
    GateRules,
    GateSide,
    RunFacts,
    evaluate_gate,
    gate_side,
    numbered_facts,
    scored_facts,
)

from ._site_paths import (
    pair_page_path,
    run_page_path,
)
from ._site_values import ChangeValues, change_values, run_outcome, shared_change_values

__all__ = [
    "BundlePair",
    "PackedRecord",
    "SiteData",
    "SiteRun",
    "draw_plots",
    "keep_for_site",
    "plot_names",
    "site_keeper",
]


@dataclass(frozen=True)
class PackedRecord:
    """A run as a site of some nights keeps it (:func:`keep_for_site`): its facts and row,
    worked out at once, and its card, observation and audit findings as marshalled bytes,
    about a quarter of what the parsed documents weigh, read back (:meth:`record`) for the
    pages that show the run (its shard, the change pages); the site hands the row to its
    numbers' frame and keeps the facts and the bytes. Given the catalog, :func:`keep_for_site`
    also keeps what the change pages show of the run (:attr:`changes`), and of a run of a night
    the site does not detail, which shows on no other page, only that (:attr:`packed` None)."""

    facts: RunFacts
    row: Row
    packed: PackedDocuments | None
    changes: ChangeValues | None = None
    source: str = ""
    """The record's ``source`` (default: the packed documents')."""

    def __post_init__(self) -> None:
        if not self.source and self.packed is not None:
            object.__setattr__(self, "source", self.packed.source)

    def numbered(self, repetition: int) -> PackedRecord:
        """This run as run number ``repetition``, its values shared as this process shares
        them: what a scoring worker kept (:func:`site_keeper`) comes with its own copies."""
        facts = numbered_facts(self.facts, repetition)
        row = list(self.row)
        row[_REPETITION] = repetition
        return PackedRecord(
            facts,
            _shared_row(row, facts),
            None if self.packed is None else self.packed.numbered(repetition),
            None if self.changes is None else shared_change_values(self.changes),
            self.source,
        )

    def record(self) -> ScoredRecord:
        """The record, a new one each call (ValueError: only its change values were kept)."""
        if self.packed is None:
            raise ValueError(f"only the change pages' values of {self.source} were kept")
        return self.packed.record()


def keep_for_site(
    record: ScoredRecord, detail: Collection[str] | None, catalog: Catalog | None = None
) -> ScoredRecord | PackedRecord:
    """``record`` as a site of the bundles ``detail`` keeps it: packed (:class:`PackedRecord`)
    when the site details some bundles, as it is when it details every bundle (None). A caller
    that keeps the records it gives :func:`~scorecard.report.build_site` keeps these instead.
    With ``catalog`` (the one the site is built with), what the change pages show of the run is
    worked out now, and a run of a bundle not in ``detail`` keeps nothing else.

    A site of one night (``report --current``, ``--store``) reads each run back about twice
    (its shard, its change page; a context night's once) and would otherwise hold every run of
    every night parsed, most of what it weighs; a site of every night shows a run on up to
    eight change pages, and keeps its runs as they are."""
    if detail is None:
        return record
    facts, row = _facts_and_row(record)
    changes = None
    if catalog is not None:
        changes = change_values(record, facts, catalog)
        if facts.bundle not in detail:
            return PackedRecord(facts, row, None, changes, record.source)
    packed = PackedDocuments.of(record, compressed=True)
    if packed is None:
        return record
    return PackedRecord(facts, row, packed, changes, record.source)


def site_keeper(detail: Collection[str]) -> Keep:
    """:func:`keep_for_site` for the bundles ``detail``, as the workers that score a report's
    runs work it out (:meth:`~scorecard.engine.ScoringRun.records`): its main process then
    reads back and numbers only what the site keeps of each run."""
    return functools.partial(_kept, tuple(detail))


def _kept(detail: tuple[str, ...], record: ScoredRecord, catalog: Catalog) -> Any:
    return keep_for_site(record, detail, catalog)


def _facts_and_row(record: ScoredRecord) -> tuple[RunFacts, Row]:
    """What a site reads of every run at once: its facts (the gate's) and its row (the
    numbers' frame), its names interned and its scores and metrics the facts' own objects
    (shared among the runs that repeat them: a site holds the rows of all its runs until their
    frame is made)."""
    row = scored_row(record)
    facts = scored_facts(record, row)
    return facts, _shared_row(row, facts)


def _shared_row(row: Iterable[Any], facts: RunFacts) -> Row:
    """``row`` (the run of ``facts``) with its names interned and its numbers the facts' own."""
    shared = [sys.intern(value) if type(value) is str else value for value in row]
    for index, value in zip(_NUMBER_COLUMNS, _numbers(facts), strict=True):
        given = shared[index]
        # The same to the bit: the same type, equal, and a zero of the same sign (-0.0 == 0.0).
        if type(value) is type(given) and value == given and _sign(value) == _sign(given):
            shared[index] = value
    return tuple(shared)


_REPETITION = ROW_FIELDS.index("repetition")


#: The row columns of :func:`_numbers`' values, in its order.
_NUMBER_COLUMNS = (
    *(ROW_FIELDS.index(f"score_{name}") for name in DIMENSIONS),
    ROW_FIELDS.index("overall_score"),
    ROW_FIELDS.index("settlement_ms"),
    ROW_FIELDS.index("cost_usd"),
)


def _sign(value: Any) -> float:
    return math.copysign(1.0, value) if type(value) is float else 1.0


def _numbers(facts: RunFacts) -> tuple[float | None, ...]:
    """The facts' numbers a row repeats (None for a row's NaN)."""
    return (*facts.scores, facts.overall, facts.settlement_ms, facts.cost_usd)


class DocumentFile:
    """The packed documents of the runs a site details, kept in an unlinked temporary file
    instead of this process's memory (and that of every process it forks to work out the
    gates: a fork holds its parent's pages), read back by offset for the pages that show each
    run (its shard; its change page when its change values were not kept). Closed when the
    site lets it go (or at exit; the file has no name)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="scorecard-site-")  # noqa: SIM115 (lives with the site)
        self._end = 0
        self._lock = threading.Lock()
        self.close = weakref.finalize(self, self._file.close)
        """Close the file now (it is closed when this object is let go, or at exit)."""

    def kept(self, packed: PackedDocuments) -> FiledDocuments:
        """``packed``'s bytes written at the file's end: what reads them back."""
        data = packed.documents
        with self._lock:
            where = self._end
            self._end += len(data)
            if _POSITIONAL:
                written = 0
                while written < len(data):
                    written += os.pwrite(self._file.fileno(), data[written:], where + written)
            else:  # pragma: no cover - not POSIX
                self._file.seek(where)
                self._file.write(data)
                self._file.flush()
        return FiledDocuments(self, where, len(data), packed.rest, packed.size)

    def read(self, offset: int, length: int) -> bytes:
        """The ``length`` bytes at ``offset``. Positional where the system has it: the
        processes a site forks to make its change pages read the file at once (they share
        its offset), and ``view`` makes pages on several threads."""
        if _POSITIONAL:
            data = os.pread(self._file.fileno(), length, offset)
        else:  # pragma: no cover - not POSIX (nor forks)
            with self._lock:
                self._file.seek(offset)
                data = self._file.read(length)
        if len(data) != length:
            raise OSError(f"the site's document file ended at {offset + len(data)}")
        return data


_POSITIONAL = hasattr(os, "pread") and hasattr(os, "pwrite")


class FiledDocuments:
    """A run's packed documents as a :class:`DocumentFile` keeps them: where its bytes are, and
    the record's other fields (:class:`~scorecard.engine.PackedDocuments`)."""

    __slots__ = ("file", "length", "offset", "rest", "size")

    def __init__(
        self, file: DocumentFile, offset: int, length: int, rest: tuple[Any, ...], size: int
    ) -> None:
        self.file = file
        self.offset = offset
        self.length = length
        self.rest = rest
        self.size = size

    def record(self) -> ScoredRecord:
        """The record, a new one each call."""
        documents = self.file.read(self.offset, self.length)
        return PackedDocuments(documents, self.rest, self.size).record()


@dataclass(frozen=True, slots=True, weakref_slot=True)
class SiteRun:
    """One scored run and its address (the run page asked for it); slotted: a site of a week
    of 50,000-run nights holds 400,000 of them."""

    stored: ScoredRecord | PackedDocuments | FiledDocuments | None
    """The record, or its packed documents (a site of some nights: :class:`PackedRecord`; in
    the site's :class:`DocumentFile`), or None: a run of a night the site does not detail, of
    which it kept :attr:`changes` only."""
    facts: RunFacts
    path: str
    catalog: Catalog = field(compare=False, repr=False)
    changes: ChangeValues | None = field(default=None, compare=False, repr=False)
    """What the change pages show of the run, when worked out as it was read."""

    @property
    def record(self) -> ScoredRecord:
        stored = self.stored
        if stored is None:
            raise ValueError(f"only the change pages' values of run {self.path} were kept")
        return stored if isinstance(stored, ScoredRecord) else stored.record()

    def unpacked(self) -> SiteRun:
        """This run with its record read back, for one page (itself when the record is kept,
        or when only its change values were)."""
        if not isinstance(self.stored, PackedDocuments | FiledDocuments):
            return self
        return dataclasses.replace(self, stored=self.stored.record())

    @property
    def outcome(self) -> str:
        return run_outcome(self.facts)

    @property
    def failing(self) -> Sequence[str]:
        """The dimensions the explanation explains as failing (:func:`~scorecard.core.failing_of`,
        the card's rule), read from the facts alone: a runs table lists them for every run it
        shows, packed or not."""
        return failing_of(self.facts.overall, self.facts.dimension_passed)


#: (baseline, current) bundles -> candidate -> their comparison of mean overall.
Families = dict[tuple[str, str], dict[str, PairedComparison]]


@dataclass(frozen=True)
class BundlePair:
    baseline: str
    current: str
    result: GateResult

    @property
    def path(self) -> str:
        return pair_page_path(self.baseline, self.current)


class SiteData:
    """Everything the pages show, computed once."""

    def __init__(
        self,
        records: Iterable[ScoredRecord | PackedRecord],
        catalog: Catalog,
        rules: GateRules,
        seed: int,
        detail: Collection[str] | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self._pending_pairs: list[Background[list[BundlePair]]] | None = None
        self._pending_families: Background[Families] | None = None
        self.runs: list[SiteRun] = []
        seen: set[tuple[str, str, str, int]] = set()
        loaded = LoadedRecords()
        documents: DocumentFile | None = None
        for given in records:  # read once, as they come: packed at once (keep_for_site)
            item = (
                given if isinstance(given, PackedRecord) else keep_for_site(given, detail, catalog)
            )
            stored: ScoredRecord | PackedDocuments | FiledDocuments | None
            changes = None
            if isinstance(item, PackedRecord):
                stored, facts, row, changes = item.packed, item.facts, item.row, item.changes
                if stored is not None:
                    documents = documents or DocumentFile()
                    stored = documents.kept(stored)
            else:
                stored = item
                facts, row = _facts_and_row(item)
            key = (facts.bundle, facts.candidate, facts.case, facts.repetition)
            path = run_page_path(*key)
            if key in seen:  # by ids, not page names: ids whose slugs met are different runs
                raise InputError(
                    f"repeats candidate {facts.candidate}, case {facts.case}, repetition "
                    f"{facts.repetition} of bundle {facts.bundle}",
                    rule="duplicate_record",
                    source=item.source,
                )
            seen.add(key)
            self.runs.append(SiteRun(stored, facts, path, catalog, changes=changes))
            loaded.add(row)
        if not self.runs:
            raise InputError("no scored records found in the inputs", rule="no_records")
        del seen
        frame = records_frame(loaded, bundle_order=loaded.bundle_order)
        del loaded  # every run's row, now in the frame: let go before the analysis is made
        _give_back_free_memory()
        self.analysis: CampaignAnalysis = analyze_campaign(frame, rules.settings(seed))
        self.bundles: tuple[str, ...] = self.analysis.bundles
        order = {bundle: index for index, bundle in enumerate(self.bundles)}
        self.runs.sort(key=lambda run: order[run.facts.bundle])  # stable: input order within
        self.candidates = sorted({run.facts.candidate for run in self.runs})
        catalog_order = {case: index for index, case in enumerate(catalog)}
        self.cases = sorted(
            {run.facts.case for run in self.runs},
            key=lambda case: (catalog_order.get(case, len(catalog_order)), case),
        )
        self.by_path = {run.path: run for run in self.runs}
        self.newest = self.bundles[-1]
        #: The bundles whose runs the site lists and details (the others: context, in the
        #: numbers, the gate and the change pages' earlier nights).
        self.detailed = tuple(
            bundle for bundle in self.bundles if detail is None or bundle in set(detail)
        )
        if not self.detailed:
            raise InputError("none of the bundles to detail is in the records", rule="no_records")
        detailed = set(self.detailed)
        self.shown = [run for run in self.runs if run.facts.bundle in detailed]
        #: (bundle, candidate, case) -> [runs, passed, gate failed]
        self.cells: dict[tuple[str, str, str], list[int]] = {}
        for run in self.runs:
            facts = run.facts
            counts = self.cells.setdefault((facts.bundle, facts.candidate, facts.case), [0, 0, 0])
            counts[0] += 1
            counts[1] += run.outcome == "passed"
            counts[2] += run.outcome == "gate failed"

    def work_out_pairs_elsewhere(self) -> None:
        """Start working out :attr:`pairs` and :attr:`families` on other cores
        (:func:`~scorecard.engine.in_background`, :func:`~._site.build_site`): this process
        then holds their results only, none of their working data (each pair's sides, frames
        and analysis; the campaign's comparison columns: docs/performance.md)."""
        _give_back_free_memory()  # before the forks: each would hold it
        if "pairs" not in self.__dict__ and self._pending_pairs is None:
            # Two processes, each the gates of half the pairs (in order): the gate of a week of
            # nights was the longest of the site's background work.
            every = self.analysis.comparison_pairs()
            halves = [every[: len(every) // 2], every[len(every) // 2 :]]
            self._pending_pairs = [
                in_background(functools.partial(self._pairs_worked_out, half))
                for half in halves
                if half
            ]
        if "families" not in self.__dict__ and self._pending_families is None:
            self._pending_families = in_background(self._families_worked_out)

    def stop_working_elsewhere(self) -> None:
        """End the processes :meth:`work_out_pairs_elsewhere` started, if their results are not
        wanted (a site whose making failed); what they did is then worked out here if asked."""
        pending: list[Background[Any] | None] = [
            *(self._pending_pairs or []),
            self._pending_families,
        ]
        self._pending_pairs = self._pending_families = None
        for started in pending:
            if started is not None:
                started.cancel()

    @functools.cached_property
    def pairs(self) -> list[BundlePair]:
        """The gate on each pair of consecutive bundles, oldest first (the costliest part of
        the site: asked for after the plots are started, :func:`~._site.build_site`), worked
        out here or taken from the process :meth:`work_out_pairs_elsewhere` started."""
        pending, self._pending_pairs = self._pending_pairs, None
        if pending is None:
            return self._pairs_worked_out(self.analysis.comparison_pairs())
        return [pair for half in pending for pair in half.result()]

    @functools.cached_property
    def families(self) -> Families:
        """Each pair of consecutive bundles' comparisons of mean overall, by candidate
        (:meth:`~scorecard.aggregate.CampaignAnalysis.family`), worked out here or taken from
        the process :meth:`work_out_pairs_elsewhere` started."""
        pending, self._pending_families = self._pending_families, None
        return pending.result() if pending is not None else self._families_worked_out()

    def family(self, baseline: str, current: str) -> dict[str, PairedComparison]:
        """The comparisons of mean overall between two consecutive bundles, by candidate: from
        :attr:`families` when they are worked out or on their way, else this pair's alone (a
        page served on request, ``scorecard view``'s overview, needs no other pair's)."""
        if "families" in self.__dict__ or self._pending_families is not None:
            return self.families[(baseline, current)]
        return self.analysis.family(baseline, current)

    def across_bundles(self, candidate: str) -> list[PairedComparison]:
        """``candidate``'s comparisons with the bundle before, in bundle order
        (:meth:`~scorecard.aggregate.CampaignAnalysis.across_bundles`, from :attr:`families`)."""
        return [family[candidate] for family in self.families.values() if candidate in family]

    def _families_worked_out(self) -> Families:
        analysis = self.analysis
        return {pair: analysis.family(*pair) for pair in analysis.comparison_pairs()}

    def _pairs_worked_out(self, comparisons: Sequence[tuple[str, str]]) -> list[BundlePair]:
        """The gate of each pair of ``comparisons`` (consecutive bundles, in order)."""
        nights = {night for pair in comparisons for night in pair}
        facts: dict[str, list[RunFacts]] = {}
        for run in self.runs:
            if run.facts.bundle in nights:
                facts.setdefault(run.facts.bundle, []).append(run.facts)
        pairs: list[BundlePair] = []
        # A night is the current side of one pair and the baseline of the next: its side (the
        # runs' table and frame) is made once, and let go after that next pair.
        before: tuple[str, GateSide] | None = None
        for baseline, current in comparisons:
            if before is None or before[0] != baseline:
                before = (baseline, gate_side(facts[baseline], source=baseline))
            side = gate_side(facts[current], source=current)
            result = evaluate_gate(side, before[1], self.rules, seed=self.seed)
            # Kept for the pages, which read its verdict, outcomes, comparisons, failures and
            # alerts: not its analysis and current runs (some 15 MB a pair of 10,000-run
            # nights, most of what a site of a week of nights kept of its gates).
            pairs.append(BundlePair(baseline, current, _for_pages(result)))
            before = (current, side)
        return pairs

    @functools.cached_property
    def verdict(self) -> GateResult:
        """The gate's verdict on the newest bundle (against the one before it, if any)."""
        if self.pairs:
            return self.pairs[-1].result
        runs = [run.facts for run in self.runs if run.facts.bundle == self.newest]
        side = gate_side(runs, source=self.newest)
        return _for_pages(evaluate_gate(side, None, self.rules, seed=self.seed))

    def run_of(self, bundle: str, candidate: str, case: str, repetition: int) -> SiteRun | None:
        return self.by_path.get(run_page_path(bundle, candidate, case, repetition))

    def pair_into(self, bundle: str) -> BundlePair | None:
        return next((pair for pair in self.pairs if pair.current == bundle), None)

    def pair_names_into(self, bundle: str) -> tuple[str, str] | None:
        """The (baseline, current) bundles of :meth:`pair_into`'s pair, without its gate (a
        page that only links to the pair need not wait for the gates)."""
        return next((pair for pair in self.analysis.comparison_pairs() if pair[1] == bundle), None)


def _give_back_free_memory() -> None:
    """Hand the C library's free heap memory back to the system (glibc's ``malloc_trim``; a
    no-op elsewhere). A site's runs come as many small objects, and the ones read and let go
    (the rows, once in the frame; what the workers sent) leave free pages in the heap that
    the process would otherwise keep, and every process it forks would hold too (a night of
    50,000 runs with seven nights of context: its largest process 1,002 MiB without, 848 MiB
    with, in a scratch run recorded in docs/performance.md)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has none)
        return
    trim(0)


def _for_pages(result: GateResult) -> GateResult:
    """``result`` without what no page reads: its analysis and its current runs."""
    return dataclasses.replace(result, analysis=None, runs=())


def svg_bytes(figure: Any) -> bytes:
    import matplotlib  # noqa: TID251  (only the report and plots layers draw)

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "scorecard-report"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return buffer.getvalue()


def plot_names(site: SiteData) -> list[str]:
    """The plots :func:`draw_plots` draws for ``site``, in order (the trends need two bundles)."""
    return ["heatmap", *(["trends"] if len(site.bundles) > 1 else []), "cost"]


def draw_plots(site: SiteData) -> dict[str, tuple[str, bytes | str]]:
    """name -> (caption, SVG bytes, or the message saying why the plot could not be drawn)."""
    from scorecard.plots import plot_dimension_heatmap, plot_quality_vs_cost, plot_trends

    analysis = site.analysis
    every: dict[str, tuple[str, Any]] = {
        "heatmap": (
            f"Mean score per dimension and candidate, {site.newest}",
            lambda: plot_dimension_heatmap(analysis, bundle=site.newest),
        ),
        "trends": ("Candidates across bundles", lambda: plot_trends(analysis)),
        "cost": (
            f"Quality against cost with the Pareto frontier, {site.newest}",
            lambda: plot_quality_vs_cost(analysis, bundle=site.newest),
        ),
    }
    calls = [(name, *every[name]) for name in plot_names(site)]
    drawn: dict[str, tuple[str, bytes | str]] = {}
    for name, caption, draw in calls:
        try:
            with warnings.catch_warnings():
                # An id with a control character draws as a box (SVG text is drawn as paths).
                warnings.filterwarnings("ignore", "Glyph .* missing from font", UserWarning)
                drawn[name] = (caption, svg_bytes(draw()))
        except InputError as error:
            drawn[name] = (caption, error.message)
        except ValueError as error:  # a plot that cannot draw this data must not cost the site
            drawn[name] = (caption, f"{type(error).__name__}: {error}")
    return drawn
