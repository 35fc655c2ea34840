"""The report site: a folder of static pages over one campaign (``scorecard report``).

::

    build_site(records, catalog, rules=..., seed=...) -> {site path: bytes}
    write_site(files, out)        the folder, written atomically (built beside it, renamed)

Pages: ``index.html`` (the gate's verdict on the newest bundle against the previous one, the
candidates of the newest bundle, the heatmap, trends and cost frontier, the bundles, the cases,
the newest bundle's gate failures), ``runs.html`` (every run, searchable), one page per
candidate, per case and per pair of consecutive bundles (the gate on that pair), and one page
per run (its scorecard, every failing reason linked to the observation field it points at, the
audit findings, the failure metadata, the observation with those fields highlighted).

Nothing is computed for the site: numbers come from :func:`scorecard.aggregate.analyze_campaign` and
:func:`scorecard.gate.evaluate_gate` (the gate command's function, on the same runs), plots
from :mod:`scorecard.plots` (:mod:`._site_data`). Every interpolated string goes through
:func:`~scorecard.report._escape.html_text`; file names through
:mod:`~scorecard.report._site_paths`. The same records give the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from scorecard.contract import Catalog, InputError, OutputError
from scorecard.core import ScoredRecord
from scorecard.engine import atomic_folder
from scorecard.gate import (
    GateRules,
)

from ._site_data import SiteData, draw_plots
from ._site_pages import all_runs_page, candidate_page, case_page, overview_page, pair_page
from ._site_paths import (
    PAGE_INDEX,
    PAGE_RUNS,
    candidate_page_path,
    case_page_path,
)
from ._site_run import run_page

__all__ = ["SITE_MARKER", "build_site", "write_site"]

#: The file that marks a folder as a report site (the only kind of folder --out replaces).
SITE_MARKER = ".scorecard-site"
_MARKER_TEXT = b"A site written by `scorecard report`; `scorecard report --out` may replace it.\n"


def build_site(
    records: Iterable[ScoredRecord],
    catalog: Catalog,
    *,
    rules: GateRules | None = None,
    seed: int = 0,
) -> dict[str, bytes]:
    """Every file of the site of ``records`` (scored with ``catalog``), by ``/``-separated path.

    The gate's verdicts use ``rules`` (default: :class:`~scorecard.gate.GateRules`) and
    ``seed``, as ``scorecard gate`` does; bundles are in the records' order. Raises
    :class:`~scorecard.contract.InputError` when there are no records or a run repeats.
    """
    site = SiteData(list(records), catalog, rules or GateRules(), seed)
    plots = draw_plots(site)
    files: dict[str, bytes] = {SITE_MARKER: _MARKER_TEXT}
    files[PAGE_INDEX] = overview_page(site, plots)
    files[PAGE_RUNS] = all_runs_page(site)
    for name, (_, image) in plots.items():
        if isinstance(image, bytes):
            files[f"plots/{name}.svg"] = image
    for candidate in site.candidates:
        files[candidate_page_path(candidate)] = candidate_page(site, candidate)
    for case in site.cases:
        files[case_page_path(case)] = case_page(site, case)
    for pair in site.pairs:
        files[pair.path] = pair_page(site, pair)
    for run in site.runs:
        files[run.path] = run_page(site, run)
    return dict(sorted(files.items()))


def write_site(files: Mapping[str, bytes], out: str | Path) -> None:
    """Write ``files`` as the folder ``out``, atomically: built in a folder beside it, then
    renamed over it. An existing ``out`` is replaced only when it is empty or a report site
    (holds :data:`SITE_MARKER`); anything else raises :class:`~scorecard.contract.InputError`,
    a folder that cannot be written :class:`~scorecard.contract.OutputError`."""
    target = Path(out)
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
    with atomic_folder(target) as staging:
        for name, data in files.items():
            destination = staging.joinpath(*name.split("/"))
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(data)
