"""Ingest: bundles scored once, through the one engine, and added to a store each as one unit.

For each bundle under the paths given (:func:`scorecard.engine.bundle_files`): its input digest
is taken; the same bundle again (same id, same digest) is a no-op, a changed one under the same
id is refused unless ``replace``; otherwise it is scored (``ScoringRun.stored_blocks``, on the
workers asked for, only its own files read) into a staging folder, and committed under the
writer lock: its files moved under ``pending/`` (a replaced bundle's old ones aside there too),
the new index written (the bundle is in the store from that rename on), the old files removed,
the new ones moved into place (``_locks`` says what a writer killed at each step leaves). A
bundle with rejected records is refused (the other bundles still land) unless
``keep_rejected``, which keeps its scored runs and the rejects' errors. The files are checked
not to have changed while they were scored.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from scorecard.contract import (
    Catalog,
    InputError,
    Policy,
    StoreError,
    stops_deferred,
)
from scorecard.engine import (
    BundleFiles,
    RunSummary,
    bundle_files,
    file_state,
    input_digest,
    is_special_file,
    score_run,
)

from ._files import durable, replace_file, sync_folder
from ._index import BundleEntry, index_text, read_index
from ._layout import INDEX, PENDING, file_stem, relative_file
from ._locks import Staging, clean_store, remove_empty_folders, writer_lock
from ._meta import StoreMeta
from ._writer import BundleWriter

__all__ = ["BundleOutcome", "IngestReport", "ingest"]

Status = Literal["added", "replaced", "unchanged", "refused"]

_NIGHT = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


@dataclass(frozen=True)
class BundleOutcome:
    """What an ingest did with one bundle."""

    id: str
    """The bundle id."""
    status: Status
    """``added``, ``replaced`` (``replace`` and another digest), ``unchanged`` (the same
    bundle was there: nothing done) or ``refused`` (nothing done; :attr:`errors` say why)."""
    entry: BundleEntry | None = None
    """The bundle as the store now lists it (None when refused)."""
    errors: tuple[InputError | StoreError, ...] = ()
    """Why it was refused (its rejected records, located, among them), or the rejected records
    kept with it (``keep_rejected``)."""


@dataclass
class IngestReport:
    """What one ingest did: each bundle's outcome, in the order the paths give them."""

    bundles: list[BundleOutcome] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    """Problems that belong to no bundle: a path not found, a broken manifest (its files were
    not read)."""
    summary: RunSummary = field(default_factory=RunSummary)
    """The runs scored (of the bundles scored), and the records rejected."""

    @property
    def refused(self) -> list[BundleOutcome]:
        """The bundles refused."""
        return [outcome for outcome in self.bundles if outcome.status == "refused"]

    @property
    def ok(self) -> bool:
        """Whether every bundle landed (or was there already) and no path was in error."""
        return not self.errors and not self.refused


def check_night(night: str | None) -> None:
    """Refuse a given night that is not an ISO calendar date."""
    if night is None:
        return
    import datetime

    try:
        if not _NIGHT.match(night):
            raise ValueError(night)
        datetime.date.fromisoformat(night)
    except ValueError:
        raise InputError(
            "the night must be a calendar date written YYYY-MM-DD",
            rule="bad_night",
            source="night",
        ) from None


@dataclass(frozen=True)
class _Settings:
    """What every bundle of one ingest is scored with."""

    paths: tuple[str, ...]
    catalog: Catalog
    policy: Policy
    workers: int
    replace: bool
    bundle_id: str | None
    night: str | None
    keep_rejected: bool
    stdin: bytes | None
    on_file: Callable[[str], None] | None
    version: str


def ingest(
    root: Path,
    meta: StoreMeta,
    paths: Iterable[str | Path],
    *,
    catalog: Catalog | None,
    policy: Policy | None,
    workers: int | None,
    replace: bool,
    bundle_id: str | None,
    night: str | None,
    keep_rejected: bool,
    stdin: IO[bytes] | None,
    on_file: Callable[[str], None] | None,
) -> IngestReport:
    """Ingest the bundles under ``paths`` into the store at ``root`` (see the module)."""
    from scorecard import __version__

    check_night(night)
    if policy is not None:
        meta.check_policy(policy)
    if catalog is not None:
        meta.check_catalog(catalog)
    given = tuple(str(path) for path in paths)
    data = None
    if "-" in given:
        data = (stdin or sys.stdin.buffer).read()
    settings = _Settings(
        given,
        catalog if catalog is not None else meta.catalog,
        meta.policy,
        workers or 1,
        replace,
        bundle_id,
        night,
        keep_rejected,
        data,
        on_file,
        __version__,
    )
    with writer_lock(root):  # what a killed writer left, put right before anything is read
        clean_store(root, read_index(root))
    found, errors = bundle_files(given, bundle_id=bundle_id)
    report = IngestReport(errors=errors)
    report.summary.rejected += len(errors)
    for bundle in found:
        report.bundles.append(_ingest_bundle(root, meta, bundle, settings, report.summary))
    return report


def _refused(bundle: BundleFiles, *errors: InputError | StoreError) -> BundleOutcome:
    return BundleOutcome(bundle.id, "refused", None, tuple(errors))


def _problem(bundle: BundleFiles, settings: _Settings) -> StoreError | None:
    """Why the bundle cannot be ingested as given, before anything is read."""
    if len(bundle.folders) > 1:
        return StoreError(
            f"bundle {bundle.id} comes from more than one folder ({bundle.folders[0]} and "
            f"{bundle.folders[1]}): ingest one at a time, or give each its own bundle id",
            rule="bundle_in_two_folders",
            source=bundle.folders[1],
        )
    for path in bundle.files:
        if path != "-" and is_special_file(path):
            return StoreError(
                "a stream given as a path is read once, so it cannot be both digested and "
                "scored: give it as standard input (-)",
                rule="stream_input",
                source=path,
            )
    stated = bundle.info.campaign.night if bundle.info.campaign is not None else None
    if settings.night is not None and stated is not None and stated != settings.night:
        return StoreError(
            f"the manifest states night {stated}, not {settings.night}",
            rule="night_differs",
            pointer="/night",
            source=bundle.manifests[0] if bundle.manifests else None,
        )
    return None


def _manifest_kind(bundle: BundleFiles) -> str | None:
    if not bundle.manifests:
        return None
    return "campaign" if bundle.info.campaign is not None else "eval-bundle"


class _Digest:
    """A bundle's input digest taken in a thread while its runs are scored (hashlib lets go
    of the GIL): a bundle the store does not hold yet needs it only to commit."""

    def __init__(self, bundle: BundleFiles, stdin: bytes | None) -> None:
        self._value: str | OSError | None = None
        self._thread = threading.Thread(
            target=self._take, args=(bundle, stdin), name="store-digest", daemon=True
        )
        self._thread.start()

    def _take(self, bundle: BundleFiles, stdin: bytes | None) -> None:
        try:
            self._value = input_digest(bundle, stdin)
        except OSError as error:
            self._value = error

    def result(self) -> str:
        """The digest (an unreadable file raises its :class:`OSError`)."""
        self._thread.join()
        if isinstance(self._value, OSError):
            raise self._value
        return str(self._value)


def _unreadable(bundle: BundleFiles, error: OSError) -> BundleOutcome:
    return _refused(
        bundle,
        StoreError(
            f"cannot read: {error.strerror or type(error).__name__}",
            rule="unreadable",
            source=error.filename if isinstance(error.filename, str) else _source(bundle),
        ),
    )


def _ingest_bundle(
    root: Path, meta: StoreMeta, bundle: BundleFiles, settings: _Settings, total: RunSummary
) -> BundleOutcome:
    problem = _problem(bundle, settings)
    if problem is not None:
        return _refused(bundle, problem)
    try:
        states = [file_state(path) for path in [*bundle.manifests, *bundle.files]]
    except OSError as error:
        return _unreadable(bundle, error)
    known = read_index(root).get(bundle.id)
    if known is None:  # a new bundle: its digest is taken while it is scored
        pending = _Digest(bundle, settings.stdin)
    else:  # the same bundle again is known by its digest before any work
        try:
            digest = input_digest(bundle, settings.stdin)
        except OSError as error:
            return _unreadable(bundle, error)
        verdict = _against(known, bundle.id, _source(bundle), digest, settings)
        if verdict is not None:
            return verdict
    staging = Staging(root)
    try:
        manifest = None
        if bundle.manifests:
            manifest = Path(bundle.manifests[0]).read_text(encoding="utf-8-sig")
        writer = BundleWriter(staging.folder("bundle"), bundle.id, manifest)
        summary = RunSummary()
        own = {*bundle.files, "<stdin>"} if "-" in bundle.files else set(bundle.files)
        errors: list[InputError] = []
        run = score_run(
            settings.paths,
            catalog=settings.catalog,
            policy=settings.policy,
            workers=settings.workers,
            bundle_id=settings.bundle_id,
            stdin=io.BytesIO(settings.stdin) if settings.stdin is not None else None,
            on_file=settings.on_file,
            summary=summary,
        )
        blocks = run.stored_blocks(bundles={bundle.id})
        try:
            for block in blocks:
                for rejected in block.errors:
                    if rejected.source in own:  # others are discovery's, reported once already
                        errors.append(rejected)
                        if settings.keep_rejected:
                            writer.reject(rejected)
                writer.add(block)
        except BaseException:
            writer.abandon()
            raise
        finally:
            blocks.close()  # a stop or an error ends the workers now, not at exit
        summary.rejected = len(errors)
        total.merge(summary)
        if known is None:
            try:
                digest = pending.result()
            except OSError as error:
                writer.abandon()
                return _unreadable(bundle, error)
        outcome = _checked(bundle, states, errors, writer, settings)
        if outcome is not None:
            writer.abandon()
            return outcome
        files = writer.finish(digest)
        entry = BundleEntry(
            id=bundle.id,
            night=(bundle.info.campaign.night if bundle.info.campaign else None) or settings.night,
            folder=bundle.folder_name,
            digest=digest,
            runs=writer.runs,
            rejected=writer.rejected,
            files={
                kind: relative_file(kind, bundle.id, file_stem(digest, settings.version))
                for kind in files
            },
            sizes={kind: path.stat().st_size for kind, path in files.items()},
            scorecard_version=settings.version,
            catalog_digest=meta.catalog_digest,
            policy_digest=meta.policy_digest,
            inputs=(*(Path(path).name for path in bundle.manifests), *bundle.names),
            manifest=_manifest_kind(bundle),
        )
        outcome = _commit(root, staging, files, entry, _source(bundle), settings)
        if settings.keep_rejected and errors and outcome.status != "refused":
            outcome = BundleOutcome(outcome.id, outcome.status, outcome.entry, tuple(errors))
        return outcome
    finally:
        staging.close()


def _against(
    known: BundleEntry | None, bundle_id: str, source: str, digest: str, settings: _Settings
) -> BundleOutcome | None:
    """The outcome decided by the bundle the store holds under the same id, if any (``source``:
    where the bundle given was read)."""
    if known is None:
        return None
    same_code = known.scorecard_version == settings.version
    if known.digest == digest and (same_code or not settings.replace):
        return BundleOutcome(bundle_id, "unchanged", known)
    if known.digest != digest and not settings.replace:
        return BundleOutcome(
            bundle_id,
            "refused",
            None,
            (
                StoreError(
                    f"bundle {bundle_id} is in the store with other input bytes (digest "
                    f"{known.digest[:16]}..., these {digest[:16]}...): a bundle is kept as it "
                    "was first ingested; replace it explicitly (replace=True, --replace)",
                    rule="bundle_changed",
                    source=source,
                ),
            ),
        )
    return None


def _move(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` (its folder made if need be), durably."""
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)
    sync_folder(target.parent)


def _source(bundle: BundleFiles) -> str:
    """Where a bundle was read, as errors name it."""
    return "<stdin>" if bundle.folders[0] == "-" else bundle.folders[0]


def _checked(
    bundle: BundleFiles,
    states: list[tuple[int, int, int] | None],
    errors: list[InputError],
    writer: BundleWriter,
    settings: _Settings,
) -> BundleOutcome | None:
    """The refusal a scored bundle gets, if any: its files changed while read, it had rejected
    records (unless kept), or no run was scored."""
    for path, state in zip([*bundle.manifests, *bundle.files], states, strict=True):
        try:
            now = file_state(path)
        except OSError:
            now = None
        if now != state:
            return _refused(
                bundle,
                StoreError(
                    "the file changed while the bundle was ingested: ingest it again",
                    rule="changed_while_ingested",
                    source=path,
                ),
            )
    if errors and not settings.keep_rejected:
        return _refused(bundle, *errors)
    if writer.runs == 0:
        return _refused(
            bundle,
            StoreError(
                f"bundle {bundle.id} has no scored run", rule="no_records", source=_source(bundle)
            ),
        )
    return None


def _commit(
    root: Path,
    staging: Staging,
    files: dict[str, Path],
    entry: BundleEntry,
    source: str,
    settings: _Settings,
) -> BundleOutcome:
    """Put the bundle in the store, under the writer lock, a stop held until it is done."""
    with writer_lock(root), stops_deferred():
        index = read_index(root)
        clean_store(root, index)
        known = index.get(entry.id)
        verdict = _against(known, entry.id, source, entry.digest, settings)
        if verdict is not None:  # another ingest landed it meanwhile
            return verdict
        # 1. the new files under pending/: no reader looks there unless the index lists them
        for kind, path in files.items():
            _move(path, root / PENDING / entry.files[kind])
        # 2. a replaced bundle's files aside, under pending/ too: readers of the index that
        # lists them find them there, and runs/ never holds a file the index does not list
        old = (
            []
            if known is None
            else [r for r in known.files.values() if r not in entry.files.values()]
        )
        for relative in old:
            if (root / relative).exists():
                _move(root / relative, root / PENDING / relative)
        # 3. the new index: the bundle is in the store from this rename on
        new_index = index.with_entry(entry)
        written = staging.path / INDEX
        written.write_text(index_text(new_index), encoding="utf-8")
        durable(written)
        replace_file(written, root / INDEX)
        # 4. the replaced files gone, the new ones into place (a reader meanwhile finds them
        # under pending/)
        for relative in old:
            (root / PENDING / relative).unlink(missing_ok=True)
        for relative in entry.files.values():  # moved at once, made durable after
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            os.replace(root / PENDING / relative, root / relative)
        for relative in entry.files.values():
            sync_folder((root / relative).parent)
        remove_empty_folders(root / PENDING)
        with contextlib.suppress(OSError):
            (root / PENDING).rmdir()
    return BundleOutcome(entry.id, "added" if known is None else "replaced", entry)
