"""The catalog a run scores with."""

from __future__ import annotations

from pathlib import Path

from scorecard.contract import Catalog, load_catalog, read_case_files
from scorecard.fast import case_plans, known_plans

__all__ = ["scoring_catalog"]


def scoring_catalog(directory: Path | None = None) -> Catalog:
    """The catalog of ``directory`` (default: the bundled cases), its files read now.

    They are validated now, with every error located, unless the same bytes validated before
    under the same code (the C scorer keeps their plans: ``fast._plans``): then the catalog is
    :meth:`~scorecard.contract.Catalog.checked`, its cases validated only if the run asks for
    one. What a run scores is the same either way. Validated now, their plans are kept for the
    next run (and for this run's workers, which inherit them)."""
    files = read_case_files(directory)
    if known_plans(files) is not None:
        return Catalog.checked(files)
    catalog = load_catalog(files=files)
    case_plans(catalog)
    return catalog
