"""The campaign store: every night's bundle scored once and kept, readable by scorecard's
commands and by DuckDB, Polars, pandas and Dask without it (``docs/store.md``).

::

    store = open_store("history/", create=True)        # the policy and catalog fixed here
    report = store.ingest(["observations/"], workers=2) # each bundle one unit: added, unchanged...
    store.bundles()                                     # night order
    records_frame(store.runs_files(), bundle_order=[b.id for b in store.bundles()])
    store.detailed_rows(bundle)                         # the gate's sides, as from the folder
    store.scored_records([bundle]); store.record_lines(bundle)
    store.run(bundle, candidate, case, repetition)      # one run's detail
    store.query("SELECT ...")                           # read-only DuckDB: runs, detail, bundles
    store.history(candidate=..., case=...)              # outcome per candidate x case x night

Immutable Parquet files (zstd) per bundle and a small JSON index replaced atomically; DuckDB
in this process for SQL. Errors about the store are :class:`scorecard.contract.StoreError`. Names
load on first use (PEP 562).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorecard.contract import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "BundleEntry": "_index",
    "BundleOutcome": "_ingest",
    "IngestReport": "_ingest",
    "RunDetail": "_read",
    "STORE_SCHEMA": "_layout",
    "Store": "_store",
    "open_store": "_store",
}

__all__ = [
    "STORE_SCHEMA",
    "BundleEntry",
    "BundleOutcome",
    "IngestReport",
    "RunDetail",
    "Store",
    "open_store",
]

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, base=__name__)


if TYPE_CHECKING:
    from ._index import BundleEntry
    from ._ingest import BundleOutcome, IngestReport
    from ._layout import STORE_SCHEMA
    from ._read import RunDetail
    from ._store import Store, open_store
