"""The report site: a folder of static pages over one campaign (``scorecard report``).

::

    build_site(records, catalog, rules=..., seed=...) -> {site path: bytes}
    site_pages(records, catalog, ...) -> SitePages   the same files, each made when asked for
    write_site(files, out)        the folder, written atomically (built beside it, renamed)

Pages: ``index.html`` (the gate's verdict on the newest bundle against the previous one, the
candidates of the newest bundle, the heatmap, trends and cost frontier, the bundles, the cases,
the newest bundle's gate failures, and a warning when input records were rejected),
``rejected.html`` (each rejected record, located; only when there are any), ``runs.html`` (every run, searchable), one page per
candidate, per case and per pair of consecutive bundles (the gate on that pair), one page per
candidate x case x night after the first (``changes/``: the night's runs beside the nights
before, :mod:`._site_change`), and one page per run (its scorecard, every failing reason
linked to the observation field it points at, the audit findings, the failure metadata, the
observation with those fields highlighted; drawn by the run page from a data shard per
candidate x case x night). The marker file lists every other file, so a later
``write_site`` replaces only what this one wrote.

Nothing is computed for the site: numbers come from :func:`scorecard.aggregate.analyze_campaign` and
:func:`scorecard.gate.evaluate_gate` (the gate command's function, on the same runs), plots
from :mod:`scorecard.plots` (:mod:`._site_data`). Every interpolated string goes through
:func:`~scorecard.report._escape.html_text`; file names through
:mod:`~scorecard.report._site_paths`. The same records give the same bytes.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from scorecard.contract import Catalog, InputError, OutputError, ScorecardError
from scorecard.core import ScoredRecord
from scorecard.engine import Background, atomic_folder, in_background
from scorecard.gate import (
    GateRules,
)

from ._site_assets import CSS, STYLESHEET
from ._site_change import ChangePages
from ._site_data import PackedRecord, SiteData, SiteRun, draw_plots, plot_names
from ._site_pages import all_runs_page, candidate_page, case_page, overview_page, pair_page
from ._site_paths import (
    PAGE_INDEX,
    PAGE_REJECTED,
    PAGE_RUN,
    PAGE_RUNS,
    RUN_DATA,
    RUN_INDEX,
    candidate_page_path,
    case_page_path,
    change_page_path,
    pair_page_path,
    run_shard_path,
)
from ._site_pieces import run_index
from ._site_rejected import rejected_page
from ._site_run import run_page, run_shard

__all__ = ["SITE_MARKER", "SitePages", "build_site", "site_listing", "site_pages", "write_site"]

#: The file that marks a folder as a report site (the only kind of folder --out replaces).
SITE_MARKER = ".scorecard-site"
_MARKER_TEXT = (
    b"A site written by `scorecard report`; `scorecard report --out` may replace it.\n"
    b"It wrote the files below and no other; it replaces the site only while the folder holds "
    b"nothing else.\n"
)


def build_site(
    records: Iterable[ScoredRecord | PackedRecord],
    catalog: Catalog,
    *,
    rules: GateRules | None = None,
    seed: int = 0,
    detail: Collection[str] | None = None,
    rejected: Sequence[ScorecardError] = (),
) -> dict[str, bytes]:
    """Every file of the site of ``records`` (scored with ``catalog``), by ``/``-separated path.

    The gate's verdicts use ``rules`` (default: :class:`~scorecard.gate.GateRules`) and
    ``seed``, as ``scorecard gate`` does; bundles are in the records' order. ``detail`` names
    the bundles whose runs are listed and shown (default: every bundle); the others are
    context: in the numbers, the gate, and the change pages' nights before. With ``detail``
    every run is kept packed from the moment it is read (:func:`keep_for_site`; give
    :class:`PackedRecord` s to keep no parsed record at all). ``rejected`` are
    the input records validation rejected (located errors, in input order): the overview warns
    of them and ``rejected.html`` lists them; none, no page. Raises
    :class:`~scorecard.contract.InputError` when there are no records or a run repeats.
    """
    pages = site_pages(records, catalog, rules=rules, seed=seed, detail=detail, rejected=rejected)
    # The plots (matplotlib's import and drawing) on another core while this one works out
    # the gates and writes every page but the overview, the one page that shows them: the
    # costliest parts of the site, independent. The change pages (a page per candidate x case
    # x night, no gate in them, each run's explanation read) are shared by two more processes,
    # the plots' and one of their own, in halves of about as many runs: no process holds every
    # run's explanation (the one making every change page was the largest: docs/performance.md).
    # The gates on a third core, first: the pair pages and the overview wait for them, and
    # this process keeps their results, not their working data.
    pages.site.work_out_pairs_elsewhere()
    first, second = pages._change_halves()
    drawing = in_background(functools.partial(_plots_and_change_pages, pages, first))
    changing = in_background(functools.partial(pages._change_pages, second))
    try:
        # The runs' data first: no gate in them, while the pages that show the gates (the
        # pairs', and those of the runs' verdicts) would wait for the process working them out.
        made_here = [name for name in pages.names() if not name.startswith(_DRAWN_THERE)]
        for name in sorted(made_here, key=lambda name: not name.startswith(RUN_DATA)):
            pages.file(name)
        plots, changes = drawing.result()
        changes.update(changing.result())
    except BaseException:
        drawing.cancel()
        changing.cancel()
        pages.site.stop_working_elsewhere()
        raise
    pages._given(plots, changes)
    return pages.files()


def site_pages(
    records: Iterable[ScoredRecord | PackedRecord],
    catalog: Catalog,
    *,
    rules: GateRules | None = None,
    seed: int = 0,
    detail: Collection[str] | None = None,
    rejected: Sequence[ScorecardError] = (),
) -> SitePages:
    """The site :func:`build_site` builds, page by page (:class:`SitePages`): every file's
    name is known at once (two pages that would share a name are refused here), and each file
    is made when it is first asked for, as ``scorecard view`` serves it. The same bytes as
    :func:`build_site`'s, file for file."""
    site = SiteData(records, catalog, rules or GateRules(), seed, detail)
    return SitePages(site, rejected)


_PLOTS = "plots/"
_CHANGES = "changes/"
#: What :func:`build_site` makes on its second core (the change pages, the plots) and the one
#: page that shows the plots, made last.
_DRAWN_THERE = (_PLOTS, _CHANGES, PAGE_INDEX)

Plots = dict[str, tuple[str, bytes | str]]
ChangeKey = tuple[str, str, str]
Maker = Callable[["SitePages"], bytes | None]


class SitePages:
    """A site's files, each made when first asked for (:meth:`file`) and kept.

    The names are planned up front, in the order a whole build makes them, each with what it
    shows (its "owner"), so a name two pages would share is refused at once
    (``page_name_collision``). Making a file is serialised by a lock: a threaded server may
    ask for pages at the same time, and the site's data is worked out once."""

    def __init__(self, site: SiteData, rejected: Sequence[ScorecardError] = ()) -> None:
        self.site = site
        self._made: dict[str, bytes | None] = {}
        self._lock = threading.RLock()
        self._plots: Plots | None = None
        self._drawing: Background[Plots] | None = None
        self._changes = ChangePages(site)
        # What makes each file, given these pages: no maker holds the pages themselves, so they
        # are freed as soon as their last user lets them go (a cycle through the plan would
        # leave a whole site, every run's record with it, to the garbage collector).
        self._plan: dict[str, Maker] = {}
        self._owners: dict[str, str] = {}
        plan = self._planned
        if rejected:
            plan(PAGE_REJECTED, lambda _: rejected_page(rejected), "the rejected records")
        plan(PAGE_RUNS, _on_site(all_runs_page), "the runs")
        plan(STYLESHEET, lambda _: CSS.lstrip().encode(), "the stylesheet")
        for candidate in site.candidates:
            plan(
                candidate_page_path(candidate),
                _on_site(candidate_page, candidate),
                f"candidate {candidate}",
            )
        for case in site.cases:
            plan(
                case_page_path(case),
                _on_site(case_page, case),
                f"case {case}",
            )
        for index, (baseline, current) in enumerate(site.analysis.comparison_pairs()):
            plan(
                pair_page_path(baseline, current),
                _pair_maker(index),
                f"bundles {baseline} and {current}",
            )
        plan(RUN_INDEX, _on_site(run_index), "the runs' index")
        plan(PAGE_RUN, lambda _: run_page(), "the run page")
        cells: dict[tuple[str, str, str], list[SiteRun]] = {}
        for run in site.shown:
            facts = run.facts
            cells.setdefault((facts.bundle, facts.candidate, facts.case), []).append(run)
        for (bundle, candidate, case), runs in cells.items():
            plan(
                run_shard_path(bundle, candidate, case),
                _on_site(run_shard, runs),
                f"the runs of case {case} by {candidate} in {bundle}",
            )
        for key in self._changes.keys:
            name = change_page_path(*key)
            plan(name, _change_maker(key), f"the change page {name}")
        plan(PAGE_INDEX, lambda pages: pages._overview(rejected), "the overview")
        for name in plot_names(site):
            plan(f"{_PLOTS}{name}.svg", _plot_maker(name), f"plot {name}")

    def _planned(self, name: str, make: Maker, owner: str) -> None:
        if name in self._plan:
            raise InputError(
                f"{owner} and {self._owners[name]} would share the page {name}; rename one",
                rule="page_name_collision",
            )
        self._plan[name] = make
        self._owners[name] = owner

    def names(self) -> list[str]:
        """Every name the site may hold, in the order a whole build makes them (a plot that
        cannot be drawn has a name here but no file: :meth:`file` gives None)."""
        return list(self._plan)

    def file(self, name: str) -> bytes | None:
        """The file ``name`` (``/``-separated, relative to the site's root), made now if it
        was not before; None when the site has no such file."""
        made = self._made.get(name)
        if made is not None or name not in self._plan:
            return made
        with self._lock:
            if name not in self._made:
                self._made[name] = self._plan[name](self)
            return self._made[name]

    def made(self) -> list[str]:
        """The names of the files made so far, in the order they were made."""
        return list(self._made)

    def files(self) -> dict[str, bytes]:
        """Every file (each made now that was not before), with the marker listing them:
        :func:`build_site`'s answer."""
        found: dict[str, bytes] = {}
        for name in self._plan:
            data = self.file(name)
            if data is not None:
                found[name] = data
        names = sorted(found)
        found[SITE_MARKER] = _MARKER_TEXT + "".join(f"{name}\n" for name in names).encode()
        return dict(sorted(found.items()))

    def draw_in_background(self) -> None:
        """Start drawing the plots on a second core (:func:`~scorecard.engine.in_background`),
        for the overview, which shows them, to find them drawn."""
        with self._lock:
            if self._plots is None and self._drawing is None:
                self._drawing = in_background(functools.partial(draw_plots, self.site))

    def plots(self) -> Plots:
        """name -> (caption, SVG bytes or why it could not be drawn) of every plot."""
        with self._lock:
            if self._plots is None:
                drawing, self._drawing = self._drawing, None
                self._plots = drawing.result() if drawing else draw_plots(self.site)
            return self._plots

    def _given(self, plots: Plots, changes: Mapping[str, bytes]) -> None:
        """Take the plots and change pages made elsewhere (on another core) as made here."""
        with self._lock:
            self._plots = plots
            for name, data in changes.items():
                if name not in self._plan:
                    raise ValueError(f"no change page {name} in the site")
                self._made.setdefault(name, data)

    def _change_halves(self) -> tuple[list[ChangeKey], list[ChangeKey]]:
        """The change pages in two halves of about as many runs shown, each in site order."""
        weights = [self._changes.runs_shown(*key) for key in self._changes.keys]
        total, running, cut = sum(weights), 0, 0
        while cut < len(weights) and 2 * (running + weights[cut]) <= total:
            running += weights[cut]
            cut += 1
        return self._changes.keys[:cut], self._changes.keys[cut:]

    def _change_pages(self, keys: Sequence[ChangeKey]) -> dict[str, bytes]:
        """The change pages of ``keys``, by name (made elsewhere: :func:`build_site`)."""
        return {change_page_path(*key): self._changes.page(*key) for key in keys}

    def _overview(self, rejected: Sequence[ScorecardError]) -> bytes:
        # The gates first: the plots may still be drawing on the second core meanwhile.
        self.site.pairs  # noqa: B018  (worked out and kept)
        return overview_page(self.site, self.plots(), rejected)

    def _plot(self, name: str) -> bytes | None:
        image = self.plots().get(name, ("", ""))[1]
        return image if isinstance(image, bytes) else None


def _on_site(make: Callable[..., bytes], *args: Any) -> Maker:
    """The maker of ``make(site, *args)``."""
    return lambda pages: make(pages.site, *args)


def _pair_maker(index: int) -> Maker:
    """The maker of the page of the site's pair ``index`` (its gate worked out then)."""
    return lambda pages: pair_page(pages.site, pages.site.pairs[index])


def _change_maker(key: ChangeKey) -> Maker:
    return lambda pages: pages._changes.page(*key)


def _plot_maker(name: str) -> Maker:
    return lambda pages: pages._plot(name)


def _plots_and_change_pages(
    pages: SitePages, keys: Sequence[ChangeKey]
) -> tuple[Plots, dict[str, bytes]]:
    return draw_plots(pages.site), pages._change_pages(keys)


def site_listing(files: Mapping[str, bytes], *added: str) -> dict[str, bytes]:
    """``files`` (a built site) with its marker listing ``added`` too: files a caller adds to
    the site after it is built (its receipt), which a later ``report --out`` may then replace."""
    names = sorted({*files, *added} - {SITE_MARKER})
    marker = _MARKER_TEXT + "".join(f"{name}\n" for name in names).encode()
    return dict(sorted({**files, SITE_MARKER: marker}.items()))


def write_site(files: Mapping[str, bytes], out: str | Path) -> int:
    """Write ``files`` as the folder ``out``, atomically: built in a folder beside it, then
    renamed over it; returns how many files were written. An existing ``out`` is replaced only
    when it is empty or a report site (holds :data:`SITE_MARKER`); anything else raises
    :class:`~scorecard.contract.InputError`, a folder that cannot be written
    :class:`~scorecard.contract.OutputError`.

    Incremental: a file the earlier site already holds with the same bytes is not written
    again but linked into the new folder (a hard link: same file, same modification time), so
    adding a night rewrites only the pages it changed (where the file system cannot link, the
    file is written)."""
    target = Path(out)
    earlier: Path | None = None
    if target.exists():
        if not target.is_dir():
            raise InputError("the output is a file; give a folder for the site", rule="bad_output")
        try:
            foreign = any(target.iterdir()) and not (target / SITE_MARKER).is_file()
        except OSError as error:  # a folder that cannot be listed cannot be replaced either
            raise OutputError(
                f"cannot write: {error.strerror or type(error).__name__}",
                rule="unwritable",
                source=str(target),
            ) from None
        if foreign:
            raise InputError(
                "the output folder is not empty and holds no report site; give a new or empty "
                "folder, or a site written by `scorecard report`",
                rule="bad_output",
                source=str(target),
            )
        added = _not_written_by_site(target)
        if added:
            shown = ", ".join(added[:5]) + (f" and {len(added) - 5} more" if len(added) > 5 else "")
            raise InputError(
                f"the output folder holds {len(added)} file(s) or folder(s) the earlier site did "
                f"not write ({shown}); replacing the site would delete them: move them out of it, "
                "or give another folder",
                rule="bad_output",
                source=str(target),
            )
        earlier = target
    written = 0
    with atomic_folder(target) as staging:
        for name, data in files.items():
            destination = staging.joinpath(*name.split("/"))
            destination.parent.mkdir(parents=True, exist_ok=True)
            if earlier is None or not _kept(earlier.joinpath(*name.split("/")), data, destination):
                destination.write_bytes(data)
                written += 1
    return written


def _kept(old: Path, data: bytes, destination: Path) -> bool:
    """Whether ``old`` (a file of the earlier site) holds ``data`` and is now linked as
    ``destination``."""
    try:
        if old.is_symlink() or not old.is_file() or old.stat().st_size != len(data):
            return False
        if old.read_bytes() != data:
            return False
        os.link(old, destination)
    except OSError:  # unreadable, or a file system without hard links: write it
        return False
    return True


def _not_written_by_site(target: Path) -> list[str]:
    """The entries of the site folder ``target`` (``/``-separated, sorted) its marker does not
    list: files, links and empty folders added since (a marker written before the list was
    kept lists none, so such a site is replaced only when empty of all else)."""
    try:
        text = (target / SITE_MARKER).read_bytes()
        names = set(text.removeprefix(_MARKER_TEXT).decode("utf-8").splitlines())
        if not text.startswith(_MARKER_TEXT):
            names = set()
        names.add(SITE_MARKER)
        folders = {"/".join(name.split("/")[:depth]) for name in names for depth in
                   range(1, name.count("/") + 1)}  # fmt: skip
        added: list[str] = []
        for root, subfolders, entries in os.walk(target, onerror=_raise):
            here = Path(root).relative_to(target).as_posix()
            prefix = "" if here == "." else f"{here}/"
            for name in subfolders:
                path = Path(root, name)
                if path.is_symlink() or f"{prefix}{name}" not in folders:
                    added.append(f"{prefix}{name}" + ("" if path.is_symlink() else "/"))
            subfolders[:] = [name for name in subfolders if f"{prefix}{name}" in folders
                             and not Path(root, name).is_symlink()]  # fmt: skip
            added.extend(f"{prefix}{name}" for name in entries if f"{prefix}{name}" not in names)
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "an unreadable marker"
        raise OutputError(
            f"cannot check what the site folder holds: {reason or type(error).__name__}",
            rule="unwritable",
            source=str(target),
        ) from None
    return sorted(added)


def _raise(error: OSError) -> None:
    raise error
