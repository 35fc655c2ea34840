"""The store's engine chosen by measuring (issue 29): one synthetic campaign kept four ways.

    python benchmarks/store_engines.py                  # 20 nights x 5,000 runs, a few minutes
    python benchmarks/store_engines.py --big            # 20 nights x 50,000 runs
    python benchmarks/store_engines.py --nights 4 --runs 500   # while iterating

The nights are those of ``store_benchmark.py`` (a pool of distinct simulated observations, night
k a sample of it drawn by ``random.Random(k)`` under its own manifest). Each night is ingested
into the store as it is (``scorecard.store``: scored, Parquet per bundle, JSON index); the
other engines then keep the very rows the store made of it (its runs and detail tables, read
back as Arrow), so every engine holds the same values and only the keeping differs:

- ``parquet+index``: the current design (``scorecard.store``);
- ``duckdb file``: one DuckDB database file, tables ``runs`` and ``detail``, one transaction a
  night;
- ``sqlite wal``: one SQLite file (stdlib ``sqlite3``) in WAL mode, the same tables, indexes on
  the keys the questions filter on, one transaction a night;
- ``hive parquet``: one Parquet dataset partitioned by bundle (``runs/bundle=<id>/...``, the
  ``bundle`` column in the folder name), written as ``pyarrow.dataset`` writes it, no index.

Measured for each: the time to keep one scored night (for the store also its whole ingest, which
scores); size on disk; the common questions, each opening the engine afresh (first and best of
``--repeat``): pass rate and mean overall per candidate x night, one candidate x case across the
nights, one run's detail, the gate's two sides (tonight's rows and the last three nights' rows
with their failed findings, as Python tuples, which is what the gate consumes); a reader looping
while another process commits the last ``--concurrent`` nights (does every read see whole
nights, in both tables, or fail?); and whether DuckDB, Polars, pyarrow and Dask read the files
directly, without scorecard. Ratios only mean something within one run: the load average is
printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from store_benchmark import make_pool, write_night

from scorecard.contract import ROW_FIELDS
from scorecard.store import open_store

CANDIDATE, CASE = "opencode-glm", "restart-recovery"

RATES = (
    "SELECT bundle, candidate, avg(passed::INTEGER) AS pass_rate, "
    "avg(overall_score) AS mean_overall, count(*) AS runs FROM runs GROUP BY ALL"
)
#: One candidate x case per night, the counts ``Store.history`` makes.
HISTORY = (
    "SELECT bundle, count(*) AS runs, "
    "sum(CASE WHEN overall_score IS NULL THEN 1 ELSE 0 END) AS not_scored, "
    "sum(CASE WHEN overall_score IS NOT NULL AND gate_passed = false THEN 1 ELSE 0 END) "
    "AS gate_failed, sum(CASE WHEN passed THEN 1 ELSE 0 END) AS passed "
    'FROM runs WHERE candidate = ? AND "case" = ? GROUP BY bundle'
)
DETAIL_WHERE = 'bundle = ? AND candidate = ? AND "case" = ? AND repetition = ?'
ROW_SELECT = ", ".join(f'"{name}"' for name in ROW_FIELDS)
JOINED_SELECT = ", ".join(f'r."{name}"' for name in ROW_FIELDS)
COUNTS = (
    "SELECT r.bundle, r.n AS runs_rows, d.n AS detail_rows FROM (SELECT bundle, count(*) AS n FROM runs GROUP BY bundle) r "
    "FULL JOIN (SELECT bundle, count(*) AS n FROM detail GROUP BY bundle) d USING (bundle)"
)


def folder_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def night_tables(store_path: Path, bundle: str) -> tuple[pa.Table, pa.Table]:
    """The runs and detail tables the store made of ``bundle``, as Arrow (its values)."""
    store = open_store(store_path)
    runs = pq.read_table(store.runs_files([bundle])[0])
    detail = pq.read_table(store.detail_files([bundle])[0])
    return runs.replace_schema_metadata(None), detail.replace_schema_metadata(None)


# --- the engines -------------------------------------------------------------------------


class Engine:
    """One way of keeping the campaign; ``root`` is its file or folder."""

    name = ""

    def __init__(self, root: Path) -> None:
        self.root = root

    def add(self, bundle: str, runs: pa.Table, detail: pa.Table) -> None:
        raise NotImplementedError

    def query(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def rates(self) -> int:
        return len(self.query(RATES))

    def history(self) -> int:
        return len(self.query(HISTORY, (CANDIDATE, CASE)))

    def run(self, bundle: str) -> int:
        rows = self.query(
            f"SELECT observation, scorecard, findings FROM detail WHERE {DETAIL_WHERE}",
            (bundle, CANDIDATE, CASE, 1),
        )
        return len(rows[0][0]) + len(rows[0][1])

    def sides(self, current: str, baselines: Sequence[str]) -> int:
        """Tonight's rows, and the baselines' rows with each one's failed findings."""
        tonight = self.query(f"SELECT {ROW_SELECT} FROM runs WHERE bundle = ?", (current,))
        marks = ", ".join("?" for _ in baselines)
        before = self.query(
            f"SELECT {JOINED_SELECT}, d.findings FROM runs r JOIN detail d "
            'USING (bundle, candidate, "case", repetition) '
            f"WHERE r.bundle IN ({marks})",
            tuple(baselines),
        )
        return len(tonight) + len(before)

    def counts(self) -> list[tuple[Any, ...]]:
        return self.query(COUNTS)


class StoreEngine(Engine):
    name = "parquet+index"

    def add(self, bundle: str, runs: pa.Table, detail: pa.Table) -> None:
        """What the store's commit does with a scored night (its writer, emulated): two zstd
        files in a staging folder, synced, moved in, and the index replaced by a rename."""
        staging = self.root / "tmp" / "staging"
        staging.mkdir(parents=True, exist_ok=True)
        for kind, table, group in (("runs", runs, 65_536), ("detail", detail, 1_024)):
            path = staging / f"{kind}.parquet"
            pq.write_table(table, path, compression="zstd", row_group_size=group)
            with path.open("rb") as stream:
                os.fsync(stream.fileno())
            (self.root / kind / bundle).mkdir(parents=True, exist_ok=True)
            path.rename(self.root / kind / bundle / "0.parquet")
        index = self.root / "index.json"
        listed = json.loads(index.read_text()) if index.exists() else []
        staged = self.root / "index.json.new"
        staged.write_text(json.dumps([*listed, bundle]))
        staged.rename(index)

    # the questions through scorecard's own calls
    def rates(self) -> int:
        return open_store(self.root).query(RATES).num_rows

    def history(self) -> int:
        return open_store(self.root).history(candidate=CANDIDATE, case=CASE).num_rows

    def run(self, bundle: str) -> int:
        detail = open_store(self.root).run(bundle, CANDIDATE, CASE, 1)
        return len(detail.observation) + len(detail.scorecard)

    def sides(self, current: str, baselines: Sequence[str]) -> int:
        store = open_store(self.root)
        found = sum(1 for _ in store.detailed_rows(current))
        for bundle in baselines:
            found += sum(1 for _ in store.detailed_rows(bundle, findings_only=True))
        return found

    def counts(self) -> list[tuple[Any, ...]]:
        return [tuple(row.values()) for row in open_store(self.root).query(COUNTS).to_pylist()]


class DuckDBEngine(Engine):
    name = "duckdb file"

    def add(self, bundle: str, runs: pa.Table, detail: pa.Table) -> None:
        """One transaction; while a reader has the file open the writer cannot open it at all
        (DuckDB locks the file per process), so it tries again until it can."""
        deadline = time.monotonic() + 600
        while True:
            try:
                connection = duckdb.connect(str(self.root))
                break
            except duckdb.IOException:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.005)
        try:
            connection.execute("BEGIN")
            for name, table in (("runs", runs), ("detail", detail)):
                connection.register("night", table)
                exists = connection.execute(
                    "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name]
                ).fetchone()
                if exists is not None and exists[0]:
                    connection.execute(f"INSERT INTO {name} SELECT * FROM night")
                else:
                    connection.execute(f"CREATE TABLE {name} AS SELECT * FROM night")
                connection.unregister("night")
            connection.execute("COMMIT")
        finally:
            connection.close()

    def query(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        connection = duckdb.connect(str(self.root), read_only=True)
        try:
            return connection.execute(sql, list(parameters)).fetchall()
        finally:
            connection.close()


_SQLITE_TYPES = {"string": "TEXT", "int64": "INTEGER", "double": "REAL", "bool": "INTEGER"}


class SQLiteEngine(Engine):
    name = "sqlite wal"

    def add(self, bundle: str, runs: pa.Table, detail: pa.Table) -> None:
        connection = sqlite3.connect(self.root, isolation_level=None, timeout=60)
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute("BEGIN IMMEDIATE")
            for name, table in (("runs", runs), ("detail", detail)):
                columns = ", ".join(
                    f'"{field.name}" {_SQLITE_TYPES[str(field.type)]}' for field in table.schema
                )
                connection.execute(f"CREATE TABLE IF NOT EXISTS {name} ({columns})")
                marks = ", ".join("?" for _ in table.schema)
                rows = zip(
                    *(table.column(i).to_pylist() for i in range(table.num_columns)), strict=True
                )
                connection.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)
            connection.execute(
                'CREATE INDEX IF NOT EXISTS runs_key ON runs (candidate, "case", bundle)'
            )
            connection.execute("CREATE INDEX IF NOT EXISTS runs_bundle ON runs (bundle)")
            connection.execute(
                "CREATE UNIQUE INDEX IF NOT EXISTS detail_key "
                'ON detail (bundle, candidate, "case", repetition)'
            )
            connection.execute("COMMIT")
        finally:
            connection.close()

    def query(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        connection = sqlite3.connect(f"file:{self.root}?mode=ro", uri=True, timeout=60)
        try:
            # SQLite has no ``::`` nor ``GROUP BY ALL``: the same questions in its words
            sql = sql.replace("passed::INTEGER", "passed").replace("GROUP BY ALL", "GROUP BY 1, 2")
            return connection.execute(sql, tuple(parameters)).fetchall()
        finally:
            connection.close()


class HiveEngine(Engine):
    name = "hive parquet"

    def add(self, bundle: str, runs: pa.Table, detail: pa.Table) -> None:
        """As ``pyarrow.dataset.write_dataset`` partitions by bundle: the file written in place
        (no staging, no index: the folder is the dataset)."""
        for kind, table, group in (("runs", runs, 65_536), ("detail", detail, 1_024)):
            ds.write_dataset(
                table,
                self.root / kind,
                format="parquet",
                partitioning=ds.partitioning(pa.schema([("bundle", pa.string())]), flavor="hive"),
                existing_data_behavior="overwrite_or_ignore",
                basename_template="part-{i}.parquet",
                file_options=ds.ParquetFileFormat().make_write_options(compression="zstd"),
                max_rows_per_group=group,
                min_rows_per_group=min(group, table.num_rows),
            )

    def query(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        connection = duckdb.connect()
        for kind in ("runs", "detail"):
            connection.execute(
                f"CREATE VIEW {kind} AS SELECT * FROM read_parquet("
                f"'{self.root / kind}/*/*.parquet', hive_partitioning = true)"
            )
        try:
            return connection.execute(sql, list(parameters)).fetchall()
        finally:
            connection.close()


ENGINES: dict[str, Callable[[Path], Engine]] = {
    "parquet+index": StoreEngine,
    "duckdb file": DuckDBEngine,
    "sqlite wal": SQLiteEngine,
    "hive parquet": HiveEngine,
}
TARGETS = {
    "parquet+index": "store",
    "duckdb file": "campaign.duckdb",
    "sqlite wal": "campaign.sqlite",
    "hive parquet": "hive",
}


# --- other tools reading the files directly ----------------------------------------------


def other_tools(engine: str, root: Path) -> dict[str, str]:
    """Whether each tool reads the engine's files itself (a count of runs, or why not)."""
    found: dict[str, str] = {}
    if engine in ("parquet+index", "hive parquet"):
        pattern = f"{root}/runs/*/*.parquet"
        attempts: dict[str, Callable[[], int]] = {
            "duckdb": lambda: duckdb.sql(f"SELECT count(*) FROM '{pattern}'").fetchall()[0][0],
            "polars": lambda: _polars_count(pattern),
            "pyarrow": lambda: ds.dataset(
                root / "runs", partitioning="hive" if engine == "hive parquet" else None
            ).count_rows(),
            "dask": lambda: _dask_count(root / "runs"),
        }
    elif engine == "duckdb file":
        attempts = {
            "duckdb": lambda: (
                duckdb.connect(str(root), read_only=True)
                .execute("SELECT count(*) FROM runs")
                .fetchone()[0]
            ),  # type: ignore[index]
            "polars": lambda: _polars_count(str(root)),
            "pyarrow": lambda: ds.dataset(root).count_rows(),
            "dask": lambda: _dask_count(root),
        }
    else:
        attempts = {
            "duckdb": lambda: (
                duckdb.connect(config={"autoinstall_known_extensions": False})
                .execute(f"SELECT count(*) FROM sqlite_scan('{root}', 'runs')")
                .fetchone()[0]
            ),  # type: ignore[index]
            "polars": lambda: _polars_count(str(root)),
            "pyarrow": lambda: ds.dataset(root).count_rows(),
            "dask": lambda: _dask_count(root),
        }
    for tool, attempt in attempts.items():
        try:
            found[tool] = f"yes ({attempt():,})"
        except Exception as error:  # which tool fails, and how, is the answer
            found[tool] = f"no: {type(error).__name__}: {str(error).splitlines()[0][:60]}"
    return found


def _polars_count(pattern: str) -> int:
    import polars

    return int(polars.scan_parquet(pattern).select(polars.len()).collect().item())


def _dask_count(path: Path) -> int:
    import dask.dataframe

    return len(dask.dataframe.read_parquet(str(path), filesystem="arrow"))


# --- a reader while a writer commits -----------------------------------------------------


def write_nights(
    engine: str, root: Path, store: Path, bundles: Sequence[str], nights: Path
) -> None:
    """The writer process: the last nights into ``engine`` (the store: ingested from folders)."""
    if engine == "parquet+index":
        for bundle in bundles:
            report = open_store(root).ingest([nights / bundle], workers=1)
            assert report.ok, report
        return
    keeper = ENGINES[engine](root)
    for bundle in bundles:
        keeper.add(bundle, *night_tables(store, bundle))


def concurrent_reads(
    engine: str, root: Path, store: Path, bundles: Sequence[str], nights: Path, runs: int,
    before: int,
) -> str:  # fmt: skip
    """Loop a reader while a writer process adds ``bundles``: reads, reads that saw a part of a
    night (a bundle short of rows in a table, or in one table and not the other), reads that
    failed (and the first failure), and whether the reader saw the nights appear."""
    start = time.perf_counter()
    writer = subprocess.Popen(
        [
            sys.executable, __file__, "--writer", engine, str(root), str(store), str(nights),
            *bundles,
        ],
        cwd=Path(__file__).parent,
    )  # fmt: skip
    keeper = ENGINES[engine](root)
    reads = torn = failed = 0
    first_failure = ""
    seen: set[int] = set()
    while writer.poll() is None:
        try:
            counts = keeper.counts()
        except Exception as error:  # a failed read is what is counted
            failed += 1
            first_failure = first_failure or f"{type(error).__name__}: {str(error)[:70]}"
            continue
        reads += 1
        seen.add(len(counts))
        if any(row[1] != runs or row[2] != runs for row in counts):
            torn += 1
    if writer.returncode != 0:
        return f"writer failed ({writer.returncode})"
    took = time.perf_counter() - start
    final = keeper.counts()
    ok = len(final) == before + len(bundles) and all(r[1] == r[2] == runs for r in final)
    text = f"writer {took:.1f} s; {reads} reads, {torn} saw part of a night, {failed} failed"
    text += f"; saw {sorted(seen)} nights" if seen else ""
    text += "" if ok else "; END STATE WRONG"
    return text + (f" ({first_failure})" if first_failure else "")


# --- the run -----------------------------------------------------------------------------


def timed(work: Callable[[], int], repeat: int) -> tuple[float, float, int]:
    times, answer = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        answer = work()
        times.append(time.perf_counter() - start)
    return times[0], min(times), answer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nights", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5_000, help="runs per night")
    parser.add_argument("--big", action="store_true", help="20 nights x 50,000 runs")
    parser.add_argument("--concurrent", type=int, default=3, help="nights added under a reader")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scratch", type=Path, help="work here (kept)")
    parser.add_argument("--writer", nargs="+", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.writer:
        engine, root, store, nights, *bundles = arguments.writer
        write_nights(engine, Path(root), Path(store), bundles, Path(nights))
        return 0
    nights, runs = (20, 50_000) if arguments.big else (arguments.nights, arguments.runs)
    kept = nights - arguments.concurrent
    with tempfile.TemporaryDirectory(prefix="scorecard-store-engines-") as name:
        scratch = arguments.scratch or Path(name)
        scratch.mkdir(parents=True, exist_ok=True)
        print(
            f"{nights} nights x {runs:,} runs ({arguments.concurrent} of them added under a "
            f"reader); load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
            flush=True,
        )
        pool, manifest = make_pool(2 * runs)
        folders = scratch / "nights"
        raw = 0
        ids = []
        for index in range(nights):
            raw += write_night(folders / f"tmp-{index}", index, pool, runs, manifest)
            bundle = json.loads((folders / f"tmp-{index}" / "bundle.json").read_text())["id"]
            (folders / f"tmp-{index}").rename(folders / bundle)
            ids.append(bundle)
        store = open_store(scratch / "store", create=True)
        engines = {name: make(scratch / TARGETS[name]) for name, make in ENGINES.items()}
        keeping: dict[str, list[float]] = {name: [] for name in ENGINES}
        ingest: list[float] = []
        for bundle in ids[:kept]:
            start = time.perf_counter()
            report = store.ingest([folders / bundle], workers=arguments.workers)
            ingest.append(time.perf_counter() - start)
            assert report.ok, report
            tables = night_tables(store.path, bundle)
            for name, engine in engines.items():
                if name == "parquet+index":
                    engine = StoreEngine(scratch / "store-emulated")
                start = time.perf_counter()
                engine.add(bundle, *tables)
                keeping[name].append(time.perf_counter() - start)
        print(
            f"store ingest (scores and keeps): mean {sum(ingest) / kept:.2f} s a night",
            flush=True,
        )
        rows: dict[str, dict[str, str]] = {}
        current, baselines = ids[kept - 1], ids[kept - 4 : kept - 1]
        middle = ids[kept // 2]
        for name, engine in engines.items():
            found: dict[str, str] = {}
            mean = sum(keeping[name]) / kept
            found["keep a scored night s"] = f"{mean:.3f}"
            found["size MiB"] = f"{folder_bytes(engine.root) / 2**20:.1f}"
            found["size / JSONL"] = f"{100 * folder_bytes(engine.root) / raw:.1f}%"
            for question, work in (
                ("candidate x night rates s", engine.rates),
                ("candidate x case history s", engine.history),
                ("one run's detail s", lambda engine=engine: engine.run(middle)),
                ("gate sides (1 vs 3) s", lambda engine=engine: engine.sides(current, baselines)),
            ):
                first, best, answer = timed(work, arguments.repeat)
                found[question] = f"{first:.3f} / {best:.3f}"
                found[question + " rows"] = str(answer)
            print(f"  {name}: measured", flush=True)
            rows[name] = found
        for name, engine in engines.items():  # the store first: the others keep its rows
            rows[name]["reader during commits"] = concurrent_reads(
                name, engine.root, store.path, ids[kept:], folders, runs, kept
            )
            print(f"  {name}: reader during commits measured", flush=True)
        for name, engine in engines.items():
            for tool, answer in other_tools(name, engine.root).items():
                rows[name][f"read by {tool}"] = answer
        print(f"\nJSON Lines: {raw / 2**20:.1f} MiB; {kept} nights kept by each engine before the")
        print("concurrent phase; times: first / best of the repeats, engine opened each time\n")
        width = max(len(key) for found in rows.values() for key in found)
        for key in rows["parquet+index"]:
            if key.endswith(" rows"):
                continue
            print(f"{key:{width}}")
            for name in ENGINES:
                answer = rows[name][key]
                counted = rows[name].get(key + " rows")
                print(f"    {name:14} {answer}" + (f"  [answer {counted}]" if counted else ""))
        answers = {key: {rows[name][key] for name in ENGINES} for key in rows["parquet+index"]}
        same = all(len(found) == 1 for key, found in answers.items() if key.endswith(" rows"))
        print(f"\nanswers identical across engines: {same}")
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
