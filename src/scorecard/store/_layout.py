"""Where everything is in a store folder, and the Parquet schemas of its files (``docs/store.md``).

::

    STORE/
      store.json    schema, scoring policy, catalog digest: written once, on creation
      catalog/      the case files the store scores with, as read at creation
      index.json    the bundles in night order and their files: replaced atomically
      runs/<percent-encoded id>/<stem>.parquet     one row per run (ROW_COLUMNS + source)
      detail/<percent-encoded id>/<stem>.parquet   per run: scorecard, findings, failure,
                                                   observation (small row groups)
      rejects/<percent-encoded id>/<stem>.jsonl    rejected records kept (opt-in)

A bundle's folder is its id percent-encoded, not Hive-style (``bundle=<id>``): its files hold the
``bundle`` column (each is what ``scorecard score --out X.parquet`` writes), and pandas,
``pyarrow.dataset`` and Dask's Arrow reader refuse a Hive folder key that is also a column of
the files (``Unable to merge: Field bundle has incompatible types``).
      pending/...   files of a commit moved under their final names by the commit
      tmp/          writers' staging folders
      .lock         writers take it (flock) to commit
"""

from __future__ import annotations

import hashlib
import urllib.parse
from pathlib import PurePosixPath

import pyarrow as pa

from scorecard.engine.parquet import PARQUET_SCHEMA

__all__ = [
    "CATALOG",
    "DETAIL",
    "DETAIL_ROW_GROUP",
    "DETAIL_SCHEMA",
    "INDEX",
    "INDEX_SCHEMA",
    "KINDS",
    "LOCK",
    "METADATA_KEY",
    "PENDING",
    "REJECTS",
    "ROW_COUNT",
    "RUNS",
    "RUNS_ROW_GROUP",
    "RUNS_SCHEMA",
    "SOURCE_COLUMNS",
    "STORE_JSON",
    "STORE_SCHEMA",
    "TALLY_COLUMNS",
    "TMP",
    "file_stem",
    "partition",
    "relative_file",
]

STORE_SCHEMA = "scorecard.store.v1"
"""Schema name of ``store.json``."""
INDEX_SCHEMA = "scorecard.store.index.v1"
"""Schema name of ``index.json``."""

STORE_JSON = "store.json"
INDEX = "index.json"
CATALOG = "catalog"
RUNS = "runs"
DETAIL = "detail"
REJECTS = "rejects"
PENDING = "pending"
TMP = "tmp"
LOCK = ".lock"

KINDS = (RUNS, DETAIL, REJECTS)
"""The folders of a bundle's files, each partitioned by bundle."""

TALLY_COLUMNS = (
    "candidate",
    "case",
    "runs",
    "passed",
    "failed",
    "gate_failed",
    "not_scored",
    "gate_failed_passed",
)
"""A runs file's tally (in its stamp): how its runs ended, per candidate x case (the last
count: of the gate failed runs, those the scorecard passed, which only the audit's gate fails)."""

METADATA_KEY = b"scorecard.store"
"""The Parquet key-value metadata key of a store file: JSON saying whose file it is."""

RUNS_ROW_GROUP = 65_536
"""Rows per row group of a runs file (as ``scorecard score --out X.parquet`` writes them)."""
DETAIL_ROW_GROUP = 1024
"""Rows per row group of a detail file: one run's detail reads one small group."""
ROW_COUNT = 1 << 20
"""A row group is never larger than this (a bundle of one group per file is fine)."""

SOURCE_COLUMNS = (
    pa.field("source_file", pa.string()),
    pa.field("source_line", pa.int64()),
    pa.field("source_index", pa.int64()),
)
"""Where each run was read from, as records say (``source.file``, ``line``, ``index``)."""

RUNS_SCHEMA = pa.schema([*PARQUET_SCHEMA, *SOURCE_COLUMNS])
"""A runs file: the columns ``scorecard score --out X.parquet`` writes (same names and types),
then the source."""

DETAIL_SCHEMA = pa.schema(
    [
        pa.field("bundle", pa.string()),
        pa.field("candidate", pa.string()),
        pa.field("case", pa.string()),
        pa.field("repetition", pa.int64()),
        pa.field("scorecard", pa.string()),
        pa.field("findings", pa.string()),
        pa.field("failure", pa.string()),
        pa.field("observation", pa.string()),
        *SOURCE_COLUMNS,
    ]
)
"""A detail file: a run's key, its v2 scorecard line, its failed audit findings (a JSON array,
null when none failed), its failure (a JSON object as records hold it, or null), its
observation as given, and its source; rows in the runs file's order."""


def partition(bundle_id: str) -> str:
    """A bundle's folder name: its id percent-encoded (UTF-8; every byte but unreserved
    characters, so never a ``/``, nor an ``=`` that would make it a Hive partition), a leading
    dot too (never ``.``, ``..`` or a hidden folder)."""
    encoded = urllib.parse.quote(bundle_id, safe="")
    return "%2E" + encoded[1:] if encoded.startswith(".") else encoded


def file_stem(digest: str, version: str) -> str:
    """The name of a bundle's files (without suffix): 16 hex digits of SHA-256 over its input
    digest and the scorecard version that scored it, so the same inputs scored by the same
    code have the same name, and a bundle scored again by another version another."""
    return hashlib.sha256(f"{digest}\n{version}".encode()).hexdigest()[:16]


def relative_file(kind: str, bundle_id: str, stem: str) -> str:
    """A bundle file's path inside the store, ``/``-separated (as the index names it)."""
    suffix = ".jsonl" if kind == REJECTS else ".parquet"
    return str(PurePosixPath(kind, partition(bundle_id), stem + suffix))
