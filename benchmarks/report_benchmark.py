"""Time ``scorecard report`` end to end and measure the site it writes.

Usage: ``python benchmarks/report_benchmark.py [PATH...] [--repeat N] [--compare-with CHECKOUT]``
(default PATH: the sample campaign, ``observations/``), or
``python benchmarks/report_benchmark.py --runs 50000 --nights 8 [--repeat N]``: a generated
campaign of ``--nights`` nights of ``--runs`` runs each, reported as CI does it, the newest night
detailed (``--current``) and the nights before it as its baseline context. The nights are drawn
from a pool of simulated observations (:mod:`scorecard.simulate`, as ``store_benchmark.py``
makes them), each line's repetition renumbered so a night holds no run twice. The site's size
is then also given as a share of the newest night's raw JSON Lines.

Each round is a fresh ``python -m scorecard report PATH... --out SITE`` process writing a new
folder; the script prints, per configuration, the fastest round's wall time, the CPU seconds of
that process (user + system) and its peak resident memory, then the site's size in bytes, its
file count, its largest file and ``runs.html``. ``--compare-with CHECKOUT`` also runs another
checkout of this repository (its ``src`` imported instead; build its C extension first, or it
scores in pure Python), the two taking turns. The machine's load (``os.getloadavg``, as
``uptime`` shows it) is printed before and after: quote it with the figures.

``--view`` also times ``python -m scorecard view`` (same inputs) in each round, after the
report: from the process's start to its "serving" line and to the overview; with Chromium
(``--chromium``, default the ``chromium`` on PATH, driven by Playwright) the overview and then
``runs.html`` are opened in it (to their ``load`` events) and the runs table's sort, next page,
select filter and search are timed in the page (their handlers, layout included); without it
the overview is asked over HTTP. Then the first change page and run shard (in name order) are
asked for over HTTP, each timed when first asked; every file asked must be the byte-identical
file ``report`` wrote in that round.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from score_benchmark import run_measured

ROOT = Path(__file__).resolve().parent.parent


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} CPUs)"


def generated_campaign(folder: Path, nights: int, runs: int) -> tuple[list[str], str, int]:
    """``nights`` folders of ``runs`` observations each under ``folder``: (their paths, the
    newest night's bundle id, the bytes of its observations)."""
    import json
    import random
    from datetime import date, timedelta

    from scorecard.contract import MANIFEST_NAME, manifest_json
    from scorecard.simulate import iter_bundles

    pool: list[dict[str, object]] = []
    manifest = None
    seed = 1
    while len(pool) < runs:
        for bundle in iter_bundles(seed=seed, bundles=4):
            manifest = manifest or bundle.manifest
            pool.extend(bundle.observations)
        seed += 1
    paths: list[str] = []
    newest, size = "", 0
    for index in range(nights):
        night = date(2026, 1, 1) + timedelta(days=index)
        where = folder / f"night-{index}"
        where.mkdir(parents=True)
        stated = manifest.model_copy(  # type: ignore[attr-defined]
            update={"id": f"night-{night.isoformat()}", "night": night.isoformat()}
        )
        (where / MANIFEST_NAME).write_text(manifest_json(stated), encoding="utf-8")
        counts: dict[tuple[object, object], int] = {}
        lines = []
        for item in random.Random(index).sample(pool, runs):
            key = (item["candidateId"], item["caseId"])
            counts[key] = counts.get(key, 0) + 1
            document = json.loads(json.dumps(item))
            document["base"]["provenance"]["repetition"] = counts[key]
            lines.append(json.dumps(document, separators=(",", ":")) + "\n")
        data = "".join(lines).encode("utf-8")
        (where / "observations.jsonl").write_bytes(data)
        paths.append(str(where))
        newest, size = stated.id, len(data)
    return paths, newest, size


def one_round(
    paths: list[str], out: Path, source: Path | None, extra: list[str]
) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS MiB of its largest process) of one report process,
    run under ``score_benchmark``'s measuring process: the peak is this round's own, not the
    largest of every round so far (which hid a smaller checkout's peak behind a bigger one)."""
    environment = dict(os.environ)
    if source is not None:
        environment["PYTHONPATH"] = str(source.resolve() / "src")
    command = [sys.executable, "-m", "scorecard", "report", *paths, *extra, "--out", str(out)]
    status, seconds, peak, cpu, _ = run_measured(command, environment)
    if status != 0:
        raise SystemExit(f"scorecard report exited {status}: run {' '.join(command)}")
    return seconds, cpu, peak


#: In the runs page, each a function of no argument returning the milliseconds its event
#: handler took, layout included (``offsetHeight`` forces it): a sort (the overall column, twice:
#: descending), the next page, a select (outcome "gate failed"); the search types a word and
#: waits for the count to change (the search's 150 ms wait included).
_IN_PAGE = {
    "sort": """() => { const t0 = performance.now();
        const b = [...document.querySelectorAll('th button.sort')]
            .find(x => x.textContent.includes('overall'));
        b.click(); b.click(); document.body.offsetHeight; return performance.now() - t0; }""",
    "next page": """() => { const t0 = performance.now();
        document.querySelector('#next').click(); document.body.offsetHeight;
        return performance.now() - t0; }""",
    "filter": """() => { const s = document.querySelector('select[name=outcome]');
        const t0 = performance.now();
        s.value = [...s.options].find(o => o.value === 'outcome:gate failed').value;
        s.dispatchEvent(new Event('change')); document.body.offsetHeight;
        return performance.now() - t0; }""",
    "search (150 ms wait included)": """() => new Promise(done => {
        const shown = document.querySelector('#shown'), q = document.querySelector('#q');
        const before = shown.textContent, t0 = performance.now();
        new MutationObserver((_, watcher) => { if (shown.textContent !== before) {
            watcher.disconnect(); document.body.offsetHeight; done(performance.now() - t0); } })
            .observe(shown, {childList: true, characterData: true, subtree: true});
        q.value = 'final'; q.dispatchEvent(new Event('input')); })""",
}


def view_round(
    paths: list[str], site: Path, source: Path | None, extra: list[str], chromium: str | None
) -> dict[str, float]:
    """Seconds from the start of a ``view`` process to its address and to the overview, and
    then to each of a few more pages (each compared with ``site``, the report of the same
    inputs). With ``chromium`` (the browser's executable, driven by Playwright) the overview
    and the runs page are opened in it (to their ``load`` events) and the runs table's
    handlers timed in the page (:data:`_IN_PAGE`)."""
    import signal
    import urllib.parse
    import urllib.request

    environment = dict(os.environ)
    if source is not None:
        environment["PYTHONPATH"] = str(source.resolve() / "src")
    command = [sys.executable, "-m", "scorecard", "view", *paths, *extra]
    changes = sorted(path for path in site.rglob("changes/*/*/*.html"))
    shards = sorted(path for path in site.rglob("data/runs/*/*/*.js"))
    asked = ["index.html", "runs.html", "data/runs.js"]
    asked += [path.relative_to(site).as_posix() for path in [*changes[:1], *shards[:1]]]
    times: dict[str, float] = {}
    opened: set[str] = set()
    with contextlib.ExitStack() as stack:
        page = None
        if chromium:
            from playwright.sync_api import sync_playwright

            driver = stack.enter_context(sync_playwright())
            browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            stack.callback(browser.close)
            page = browser.new_page()
        started = time.perf_counter()
        server = stack.enter_context(
            subprocess.Popen(
                command,
                env=environment,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            times["address"] = time.perf_counter() - started
            if not line.startswith("serving the report at "):
                raise SystemExit(f"scorecard view printed {line!r}")
            address = line.split()[4]
            if page is not None:
                page.goto(address, wait_until="load", timeout=600_000)
                times["index.html"] = time.perf_counter() - started  # in Chromium, loaded
                before = time.perf_counter()
                page.goto(address + "runs.html", wait_until="load", timeout=600_000)
                page.wait_for_selector("table.runs tbody tr")
                times["runs.html in Chromium, rows drawn"] = time.perf_counter() - before
                opened = {"runs.html", "data/runs.js"}  # made for the browser
                for name, script in _IN_PAGE.items():
                    times[f"{name} in the page"] = float(page.evaluate(script)) / 1000
            for name in asked:
                before = time.perf_counter()
                with urllib.request.urlopen(address + urllib.parse.quote(name), timeout=600) as got:
                    data = got.read()
                if name not in times and name not in opened:  # first asked
                    times[name] = time.perf_counter() - (
                        started if name == "index.html" else before
                    )
                if data != (site / name).read_bytes():
                    raise SystemExit(f"view served another {name} than report wrote")
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)
    return times


def site_figures(folder: Path, raw: int = 0) -> str:
    sizes = {
        path.relative_to(folder).as_posix(): path.stat().st_size
        for path in folder.rglob("*")
        if path.is_file()
    }
    largest = max(sizes, key=lambda name: sizes[name])
    return (
        f"{sum(sizes.values()):,} bytes in {len(sizes):,} files; largest {largest} "
        f"({sizes[largest]:,} bytes); runs.html {sizes.get('runs.html', 0):,} bytes"
        + (
            f"; {sum(sizes.values()) / raw:.1%} of the night's raw JSON Lines ({raw:,} bytes)"
            if raw
            else ""
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=[str(ROOT / "observations")])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare-with", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=0, help="generate nights of this many runs")
    parser.add_argument("--nights", type=int, default=8, help="with --runs: how many nights")
    parser.add_argument("--view", action="store_true", help="also time `scorecard view`")
    parser.add_argument(
        "--chromium",
        default=shutil.which("chromium"),
        help="with --view: the browser to open the site in (default: chromium on PATH; "
        "'' for none)",
    )
    arguments = parser.parse_args()
    configurations: list[tuple[str, Path | None]] = [("this checkout", None)]
    if arguments.compare_with is not None:
        configurations.append((f"checkout {arguments.compare_with}", arguments.compare_with))
    print(f"before: {load()}")
    best: dict[str, tuple[float, float, float]] = {}
    viewed: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="report-benchmark-") as scratch:
        extra: list[str] = []
        raw = 0
        if arguments.runs:
            started = time.perf_counter()
            arguments.paths, newest, raw = generated_campaign(
                Path(scratch) / "campaign", arguments.nights, arguments.runs
            )
            extra = ["--current", newest]
            print(
                f"generated {arguments.nights} nights of {arguments.runs:,} runs in "
                f"{time.perf_counter() - started:.1f} s; reporting {newest} in detail"
            )
        sites: dict[str, Path] = {}
        for round_number in range(arguments.repeat):
            for label, source in configurations:
                out = Path(scratch) / f"{label.replace('/', '_')}-{round_number}"
                measured = one_round(arguments.paths, out, source, extra)
                if arguments.view:
                    times = view_round(arguments.paths, out, source, extra, arguments.chromium)
                    if label not in viewed or times["index.html"] < viewed[label]["index.html"]:
                        viewed[label] = times
                if label not in best or measured[0] < best[label][0]:
                    best[label] = measured
                    if label in sites:
                        shutil.rmtree(sites[label])
                    sites[label] = out
                else:
                    shutil.rmtree(out)
        for label, _ in configurations:
            wall, cpu, peak = best[label]
            print(
                f"{label}: fastest of {arguments.repeat}: {wall:.2f} s wall, {cpu:.2f} s CPU, "
                f"peak RSS (largest process) {peak:.0f} MiB"
            )
            print(f"  site: {site_figures(sites[label], raw)}")
            if label in viewed:
                times = dict(viewed[label])
                address, overview = times.pop("address"), times.pop("index.html")
                print(
                    f"  view (fastest of {arguments.repeat}): address {address:.2f} s, overview "
                    f"{'in Chromium, loaded, ' if arguments.chromium else ''}"
                    f"{overview:.2f} s after start ({overview / wall:.2f}x the report's whole "
                    "site); then, each first asked: "
                    + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in times.items())
                    + " (each file the report's, byte for byte)"
                )
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
