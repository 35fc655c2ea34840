"""``report`` and ``view``: the campaign's static report site, built as files and written to a
folder (``docs/report.md``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from scorecard.contract import InputError, InputErrors, OutputError, Takes, arguments

from ._inputs import PathLike, PolicySource, gate_rules_of, policy_file
from ._receipts import new_receipt, path_inputs, store_inputs

if TYPE_CHECKING:
    from scorecard.contract import Catalog, Receipt
    from scorecard.core import ScoredRecord
    from scorecard.gate import GateRules
    from scorecard.report import PackedRecord, SitePages
    from scorecard.store import Store

__all__ = [
    "SITE_RECEIPT",
    "ReportSite",
    "WrittenReport",
    "build_report",
    "check_site_folder",
    "report_site",
    "serve_folder",
    "view_site",
    "write_report",
]

SITE_RECEIPT = "receipt.json"
"""The site's receipt: what it was computed from (``docs/receipts.md``)."""


@dataclass(frozen=True)
class ReportSite:
    """A report site (:func:`build_report`): its files and the input records it was built
    without."""

    files: dict[str, bytes]
    """Every file of the site, by ``/``-separated relative name: its bytes."""
    rejected: tuple[InputError, ...] = ()
    """Each input record (or input) validation rejected, located, in input order; the site's
    overview warns of them and its ``rejected.html`` lists them."""


@dataclass(frozen=True)
class WrittenReport:
    """What :func:`report_site` wrote."""

    pages: int
    """The site's pages (``.html`` files)."""
    files: int
    """The site's files."""
    written: int
    """Files written; the others were kept unchanged from the earlier site."""
    rejected: tuple[InputError, ...] = ()
    """Each input record validation rejected (:attr:`ReportSite.rejected`)."""


@arguments(
    paths=Takes.paths,
    policy=Takes.policy_source,
    seed=Takes.seed,
    bundle_id=Takes.optional_text,
    cases=Takes.optional_path,
    workers=Takes.workers,
)
def build_report(
    paths: Sequence[PathLike] = (),
    *,
    store: PathLike | Store | None = None,
    current: str | None = None,
    baseline: str | Sequence[str] = "previous",
    policy: PolicySource = None,
    seed: int = 0,
    bundle_id: str | None = None,
    cases: PathLike | None = None,
    workers: int | None = None,
) -> ReportSite:
    """The report site of the observations under ``paths``, as its files (relative name ->
    bytes): overview with the gate's verdict (newest bundle against the previous one), plots,
    pages per candidate, case, bundle pair and run.

    A record validation rejects leaves the site to the good records, as ``score`` does: the
    site is built from those, every rejected record is located in :attr:`ReportSite.rejected`,
    the overview warns of them and ``rejected.html`` lists them. A scored input (records,
    Parquet) is rejected the same way, whole: the site shows each run's observation. When no
    record is left, :class:`InputErrors` holds every rejection (nothing to show). With
    ``store``, the site shows the night ``current`` (default: the
    newest) and the nights ``baseline`` names (a reference, as for :func:`judge`), from the
    runs the store keeps; only ``current``'s runs are listed and shown (the other nights are
    context: the numbers, the gate, the change pages). Over ``paths``, ``current`` (default:
    every bundle) names the one bundle detailed so."""
    from scorecard.engine import collection_paused
    from scorecard.report import build_site

    # Every run is kept as its parsed record while the site is built: millions of objects
    # without reference cycles, which each full collection would walk again for nothing
    # (without the pause the site of four nights of 5,000 runs took 1.5x as long).
    with collection_paused():
        inputs = _site_inputs(
            paths, store=store, current=current, baseline=baseline, policy=policy, seed=seed,
            bundle_id=bundle_id, cases=cases, workers=workers,
        )  # fmt: skip
        files = build_site(
            inputs.handed_over(), inputs.catalog, rules=inputs.rules, seed=seed,
            detail=inputs.detail, rejected=inputs.rejected,
        )  # fmt: skip
    return ReportSite(with_site_receipt(files, inputs.receipt), inputs.rejected)


@dataclass(frozen=True)
class _SiteInputs:
    """What a site is built from (:func:`_site_inputs`)."""

    records: list[ScoredRecord | PackedRecord]
    """The records, each packed as it was read when the site details one night
    (:func:`~scorecard.report.keep_for_site`)."""
    catalog: Catalog
    rules: GateRules
    detail: list[str] | None
    rejected: tuple[InputError, ...]
    receipt: Receipt

    def handed_over(self) -> Iterator[ScoredRecord | PackedRecord]:
        """The records, each let go by this list as it is read (the site keeps what it needs
        of a run: a packed run's row and wrapper would otherwise stay until the site is
        built)."""
        records = self.records
        records.reverse()
        while records:
            yield records.pop()


def _site_inputs(
    paths: Sequence[PathLike],
    *,
    store: PathLike | Store | None,
    current: str | None,
    baseline: str | Sequence[str],
    policy: PolicySource,
    seed: int,
    bundle_id: str | None,
    cases: PathLike | None,
    workers: int | None,
) -> _SiteInputs:
    """The records, catalog, rules, detailed bundles, rejections and receipt of the site of
    :func:`build_report` (its arguments, checked)."""
    from scorecard.contract import load_catalog
    from scorecard.engine import default_workers, input_bundles, is_records_file, score_run
    from scorecard.report import PackedRecord, site_keeper

    if store is not None:
        from ._store import baseline_bundles, current_bundle, open_campaign_store

        settings = policy_file(policy)
        opened = open_campaign_store(store, policy=settings)
        judged = current_bundle(opened, current)
        first = opened.bundles()[0].id == judged
        context = (
            [] if first and baseline == "previous" else baseline_bundles(opened, judged, baseline)
        )
        shown = [*context, judged]
        # The runs scored again and kept by workers, a row group each, as over paths.
        kept = list(
            opened.scored_records(
                shown, keep=site_keeper([judged]), workers=workers or default_workers()
            )
        )
        rules = gate_rules_of(settings)
        receipt = new_receipt(
            "report",
            {
                "store": os.fspath(store)
                if isinstance(store, str | os.PathLike)
                else str(opened.path),
                "bundles": shown,
                "policy": _policy_path(policy),
            },
            store_inputs(opened, [("input", bundle) for bundle in shown]),
            catalog=opened.bundle(judged).catalog_digest,
            policy=opened.policy,
            rules=rules,
            seed=seed,
        )
        return _SiteInputs(kept, opened.catalog, rules, [judged], (), receipt)
    given = [os.fspath(path) for path in paths]
    errors: list[InputError] = []
    observed: list[str] = []
    for path in given:
        if path != "-" and (is_records_file(path) or path.endswith(".parquet")):
            errors.append(
                InputError(
                    "is already scored; the report shows each run's observation, so give the "
                    "observation files or folders",
                    rule="scored_input",
                    source=path,
                )
            )
        else:
            observed.append(path)
    settings = policy_file(policy)
    catalog = load_catalog(None if cases is None else Path(cases))
    if current is not None and observed and not errors:  # before the scoring, not after
        known = input_bundles(observed, bundle_id)
        if known is not None and current not in known:
            raise _unknown_current(current, known)
    records: list[ScoredRecord | PackedRecord] = []
    detail = None if current is None else [current]
    if observed:
        run = score_run(
            observed,
            catalog=catalog,
            policy=settings.policy,
            workers=workers or default_workers(),
            bundle_id=bundle_id,
        )
        # A site of one night: its runs kept by the workers that score them.
        for item in run.records(None if detail is None else site_keeper(detail)):
            if isinstance(item, InputError):
                errors.append(item)
            else:
                records.append(item)
    if errors and not records:
        raise InputErrors(errors)
    rules = gate_rules_of(settings)
    if current is not None:
        bundles = {
            record.facts.bundle
            if isinstance(record, PackedRecord)
            else str(record.card["bundleId"])
            for record in records
        }
        if current not in bundles:
            raise _unknown_current(current, bundles)
    receipt = new_receipt(
        "report",
        {
            "paths": given,
            "bundleId": bundle_id,
            "policy": _policy_path(policy),
            "cases": None if cases is None else os.fspath(cases),
        },
        [item for path in given for item in path_inputs("input", path, bundle_id)],
        catalog=catalog,
        policy=settings.policy,
        rules=rules,
        seed=seed,
    )
    return _SiteInputs(records, catalog, rules, detail, tuple(errors), receipt)


def _unknown_current(current: str, bundles: Iterable[str]) -> InputError:
    return InputError(
        f"no bundle {current!r} among the inputs (they hold {', '.join(sorted(bundles))})",
        rule="unknown_bundle",
        source="--current",
    )


def _policy_path(policy: PolicySource) -> str | None:
    return os.fspath(policy) if isinstance(policy, str | os.PathLike) else None


def with_site_receipt(files: dict[str, bytes], receipt: Receipt) -> dict[str, bytes]:
    """``files`` and their receipt, ``receipt.json``: its payload the framed digest of every
    other file of the site, by name (``docs/receipts.md``)."""
    import dataclasses

    from scorecard.contract import js_json, site_payload_digest
    from scorecard.report import site_listing

    files = site_listing(files, SITE_RECEIPT)  # the marker lists it: report --out replaces it
    receipted = dataclasses.replace(receipt, payload=site_payload_digest(files))
    document = {"receipt": receipted.to_json()}
    return dict(sorted({**files, SITE_RECEIPT: (js_json(document, 2) + "\n").encode()}.items()))


@arguments(out=Takes.path, paths=Takes.paths)
def check_site_folder(out: PathLike, paths: Sequence[PathLike]) -> None:
    """Refuse a site folder that is, or holds, one of the inputs: writing it would replace
    them."""
    target = Path(out).resolve()
    for given in paths:
        if os.fspath(given) == "-":
            continue
        source = Path(given).resolve()
        if source == target or target in source.parents:
            raise InputError(
                "the site folder is or holds one of the inputs; writing it would replace them",
                rule="bad_output",
                source="--out",
            )


@arguments(out=Takes.path)
def write_report(files: dict[str, bytes], out: PathLike) -> tuple[int, int]:
    """Write the site's ``files`` to the folder ``out`` atomically (built beside it, then
    renamed); returns the number of pages and of files written (the earlier site's files that
    did not change are kept, not written)."""
    from scorecard.report import write_site

    try:
        written = write_site(files, Path(out))
    except OSError as error:
        raise OutputError(
            f"cannot write the site: {error.strerror or type(error).__name__}",
            rule="unwritable",
            source=os.fspath(out),
        ) from None
    return sum(1 for name in files if name.endswith(".html")), written


@arguments(folder=Takes.path)
def serve_folder(folder: PathLike, *, port: int = 0, on_ready: Callable[[str], None]) -> None:
    """Serve the files of ``folder`` on 127.0.0.1:``port`` (0: any free port) until Ctrl-C or
    SIGTERM, calling ``on_ready`` with the address first. While serving, Ctrl-C and SIGTERM are
    the normal way to stop; before, they interrupt as anywhere else. A port that cannot be
    bound raises :class:`InputError`.

    Only regular files inside ``folder`` are served, reached without a symbolic link; no
    folder is listed (a folder's address serves its ``index.html``), no name starting with a
    dot (the site's marker) is served; a bad request gets a 4xx answer, and neither it nor a
    client that goes away prints anything."""
    _serve(_site_server(Path(folder), port), on_ready)


def _serve(server: Any, on_ready: Callable[[str], None]) -> None:
    """Serve with ``server`` (bound) until Ctrl-C or SIGTERM, calling ``on_ready`` with its
    address first; close it then."""
    import signal

    previous = {signum: signal.signal(signum, _stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        on_ready(f"http://127.0.0.1:{server.server_port}/")
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        for signum, before in previous.items():
            signal.signal(signum, before)


@arguments(
    paths=Takes.paths,
    out=Takes.path,
    policy=Takes.policy_source,
    seed=Takes.seed,
    bundle_id=Takes.optional_text,
    cases=Takes.optional_path,
    workers=Takes.workers,
)
def report_site(
    paths: Sequence[PathLike] = (),
    *,
    out: PathLike,
    store: PathLike | Store | None = None,
    current: str | None = None,
    baseline: str | Sequence[str] = "previous",
    policy: PolicySource = None,
    seed: int = 0,
    bundle_id: str | None = None,
    cases: PathLike | None = None,
    workers: int | None = None,
) -> WrittenReport:
    """``scorecard report``: the report site of :func:`build_report` written to the folder
    ``out`` (:func:`write_report`); returns the number of pages, of files in the site and of
    files written (the others were kept unchanged from the earlier site), and the rejected
    records the site lists. A folder that is or holds one of the inputs is refused before
    anything is read (:func:`check_site_folder`)."""
    store_folder = [store] if isinstance(store, str | os.PathLike) else []
    check_site_folder(out, [*paths, *store_folder])
    site = build_report(
        paths, store=store, current=current, baseline=baseline, policy=policy, seed=seed,
        bundle_id=bundle_id, cases=cases, workers=workers,
    )  # fmt: skip
    pages, written = write_report(site.files, out)
    return WrittenReport(pages, len(site.files), written, site.rejected)


@arguments(
    paths=Takes.paths,
    policy=Takes.policy_source,
    seed=Takes.seed,
    bundle_id=Takes.optional_text,
    cases=Takes.optional_path,
    workers=Takes.workers,
)
def view_site(
    paths: Sequence[PathLike] = (),
    *,
    on_ready: Callable[[str], None],
    on_rejected: Callable[[tuple[InputError, ...]], None] | None = None,
    port: int = 0,
    store: PathLike | Store | None = None,
    current: str | None = None,
    baseline: str | Sequence[str] = "previous",
    policy: PolicySource = None,
    seed: int = 0,
    bundle_id: str | None = None,
    cases: PathLike | None = None,
    workers: int | None = None,
) -> tuple[InputError, ...]:
    """``scorecard view``: the report site of :func:`build_report` served on 127.0.0.1:``port``
    (:func:`serve_folder`'s rules) until Ctrl-C or SIGTERM, each file made when it is first
    asked for (:func:`scorecard.report.site_pages`): the runs are scored (or read from the
    store) and the site's numbers worked out once, then the server starts, and the overview is
    made while the browser comes; a page nobody opens is never made. Every file is the one
    :func:`build_report` writes, byte for byte. Records validation rejected are given to
    ``on_rejected`` before serving (when there are any) and returned when serving ends; the
    site lists them."""
    import gc
    import threading

    from scorecard.engine import collection_paused
    from scorecard.report import site_pages

    with collection_paused():  # as build_report's
        inputs = _site_inputs(
            paths, store=store, current=current, baseline=baseline, policy=policy, seed=seed,
            bundle_id=bundle_id, cases=cases, workers=workers,
        )  # fmt: skip
        if inputs.rejected and on_rejected is not None:
            on_rejected(inputs.rejected)
        pages = site_pages(
            inputs.handed_over(), inputs.catalog, rules=inputs.rules, seed=seed,
            detail=inputs.detail, rejected=inputs.rejected,
        )  # fmt: skip
        # What the server keeps until it stops: out of the collector's sight (the pages it
        # makes on request are collected as usual).
        gc.freeze()
    served = ServedSite(pages, inputs.receipt)
    pages.draw_in_background()  # forked before the server has threads
    server = _site_server(served, port)

    def overview() -> None:
        # Made while the browser opens the address; a failure is the request's to report.
        with contextlib.suppress(Exception):
            pages.file("index.html")

    threading.Thread(target=overview, name="scorecard-view-overview", daemon=True).start()
    _serve(server, on_ready)
    return inputs.rejected


class ServedSite:
    """What ``view`` serves: the files of a :class:`~scorecard.report.SitePages`, each made on
    request, and the site's receipt (made from every file, so only when asked for)."""

    def __init__(self, pages: SitePages, receipt: Receipt) -> None:
        import threading

        self._pages = pages
        self._receipt = receipt
        self._receipt_file: bytes | None = None
        self._lock = threading.Lock()
        names = [*pages.names(), SITE_RECEIPT]
        #: Every folder a file is in (a folder's address without its "/" is redirected).
        self.folders = {
            "/".join(parts[:depth])
            for parts in (name.split("/") for name in names)
            for depth in range(1, len(parts))
        }

    def file(self, name: str) -> bytes | None:
        """The file ``name`` of the site, or None when it has none."""
        if name != SITE_RECEIPT:
            return self._pages.file(name)
        with self._lock:
            if self._receipt_file is None:
                whole = with_site_receipt(self._pages.files(), self._receipt)
                self._receipt_file = whole[SITE_RECEIPT]
            return self._receipt_file


def _site_server(source: Path | ServedSite, port: int) -> Any:
    """The HTTP server of :func:`serve_folder` (``source`` a folder) or of :func:`view_site`
    (a :class:`ServedSite`), bound, not yet serving."""
    import http.server
    import io
    import stat
    import sys
    import urllib.parse

    root = source.resolve() if isinstance(source, Path) else None

    class SiteHandler(http.server.SimpleHTTPRequestHandler):
        """The site's regular files only; no request log on the terminal."""

        def log_message(self, format: str, *args: Any) -> None:
            return

        def list_directory(self, path: Any) -> None:  # never called; never lists, in any case
            self.send_error(404)

        def send_head(self) -> Any:
            raw = urllib.parse.urlsplit(self.path).path
            try:
                text = urllib.parse.unquote(raw, errors="strict")
            except UnicodeDecodeError:
                self.send_error(400, "Bad request path")
                return None
            if not raw.startswith("/") or "\x00" in text or "\\" in text:
                self.send_error(400, "Bad request path")
                return None
            parts = [part for part in text.split("/") if part]
            if any(part.startswith(".") for part in parts):  # .., the marker, hidden files
                self.send_error(404)
                return None
            if root is None:
                assert isinstance(source, ServedSite)
                return self._made(source, parts, text)
            path = root.joinpath(*parts)
            try:
                for depth in range(1, len(parts) + 1):  # no symbolic link on the way
                    if stat.S_ISLNK(os.lstat(root.joinpath(*parts[:depth])).st_mode):
                        raise FileNotFoundError
                if stat.S_ISDIR(os.lstat(path).st_mode):
                    if not text.endswith("/"):
                        return self._moved(text)
                    path = path / "index.html"
                handle = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except (OSError, ValueError):
                self.send_error(404)
                return None
            file = os.fdopen(handle, "rb")
            size = os.fstat(handle)
            if not stat.S_ISREG(size.st_mode):
                file.close()
                self.send_error(404)
                return None
            return self._found(os.fspath(path), file, size.st_size)

        def _made(self, site: ServedSite, parts: list[str], text: str) -> Any:
            """A file of a site made on request (a folder's address: its ``index.html``)."""
            name = "/".join(parts)
            if not parts or text.endswith("/"):
                name = "/".join([*parts, "index.html"])
            elif name in site.folders:
                return self._moved(text)
            try:
                data = site.file(name)
            except Exception as error:  # a page that cannot be made: one line, no traceback
                sys.stderr.write(f"the page {name} could not be made: {type(error).__name__}\n")
                self.send_error(500)
                return None
            if data is None:
                self.send_error(404)
                return None
            return self._found(name, io.BytesIO(data), len(data))

        def _moved(self, text: str) -> None:
            self.send_response(301)
            self.send_header("Location", urllib.parse.quote(text) + "/")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _found(self, name: str, file: Any, size: int) -> Any:
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(name))
            self.send_header("Content-Length", str(size))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            return file

    class SiteServer(http.server.ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            """A client that resets or goes away (any socket error, also one met while the
            server stops) is no error of the server's: nothing printed; anything else one line,
            never a traceback (the default prints one)."""
            error = sys.exc_info()[1]
            if not isinstance(error, OSError):
                sys.stderr.write(f"a request failed: {type(error).__name__}\n")

    try:
        return SiteServer(("127.0.0.1", port), SiteHandler)
    except OSError as error:
        raise InputError(
            f"cannot serve on 127.0.0.1:{port}: {error.strerror or error}", rule="unservable"
        ) from None


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
