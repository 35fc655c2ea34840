"""Files: discovering observation inputs and bundles, reading records (outputs: ``_output``).

Input order is deterministic: paths in the order given, files of a folder in sorted path order,
records in file order. Every problem is yielded as an :class:`InputError` located by file, line
(JSON Lines) or index (JSON array), so one bad record never stops the good ones.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from scorecard.contract import (
    MANIFEST_NAME,
    NOT_PLAIN,
    BundleInfo,
    InputError,
    ManifestError,
    Policy,
    PolicyError,
    PolicyFile,
    Takes,
    arguments,
    find_secret,
    folder_bundle_id,
    parse_json_document,
    parse_manifest,
    parse_plain_json,
    parse_policy_file,
    scoring_policy,
)
from scorecard.core import Notice
from scorecard.fast import count_newlines

from ._output import is_special_file

__all__ = [
    "BLOCK_SIZE",
    "STDIN",
    "Discovery",
    "InputFile",
    "RawRecord",
    "check_bundle_id",
    "count_newlines",
    "discover_inputs",
    "empty_input_notices",
    "in_array",
    "line_blocks",
    "line_ranges",
    "line_spans",
    "load_policy",
    "numbered_lines",
    "observation_files",
    "parse_json_file",
    "parse_line",
    "raw_lines",
    "read_json_lines",
    "read_policy_file",
    "read_records",
    "reads_as_lines",
    "scoring_policy",
    "unreadable",
]

STDIN = "-"
OBSERVATION_SUFFIXES = (".json", ".jsonl")


@dataclass(frozen=True)
class InputFile:
    """One observation file (or stdin) and the bundle it belongs to."""

    path: str
    bundle: BundleInfo


@dataclass(frozen=True)
class RawRecord:
    """One parsed JSON record and where it came from."""

    document: Any
    """What a JSON parser returns: dicts, lists, str, int, float, bool and None only."""
    source: str
    line: int | None
    index: int | None
    bundle: BundleInfo


class _Bundles:
    """Reads each folder's manifest once and remembers broken ones."""

    def __init__(self) -> None:
        self._cache: dict[Path, BundleInfo | ManifestError | None] = {}

    def manifest(self, folder: Path) -> BundleInfo | ManifestError | None:
        if folder not in self._cache:
            path = folder / MANIFEST_NAME
            if not path.is_file():
                self._cache[folder] = None
            else:
                try:
                    text = path.read_text(encoding="utf-8-sig")
                    self._cache[folder] = parse_manifest(text, source=str(path))
                except ManifestError as error:
                    self._cache[folder] = error
                except (OSError, UnicodeDecodeError) as error:
                    self._cache[folder] = ManifestError(
                        f"cannot read manifest: {type(error).__name__}",
                        rule="unreadable",
                        source=str(path),
                    )
        return self._cache[folder]

    def for_file(self, file: Path, root: Path) -> BundleInfo | ManifestError:
        """The bundle of ``file``: the nearest manifest between its folder and ``root``."""
        folder = file.parent
        while True:
            found = self.manifest(folder)
            if found is not None:
                return found
            if folder == root or folder == folder.parent:
                break
            folder = folder.parent
        return BundleInfo(
            id=folder_bundle_id(file.parent.resolve().name),
            kind="folder",
            source=str(file.parent),
        )


def check_bundle_id(bundle_id: str | None, *, option: str = "--bundle-id") -> None:
    """Refuse a given bundle id that is secret-shaped: it would be written in every output (as
    an id from a record is refused by validation). ``option`` is where it was given."""
    if bundle_id is None:
        return
    pattern = find_secret(bundle_id)
    if pattern is not None:
        raise InputError(
            f"the bundle id is secret-shaped ({pattern}; value withheld)",
            rule="secret_in_identifier",
            source=option,
        )


class Discovery:
    """Finds the observation files of given paths one path at a time, reading each manifest once
    and reporting a broken one once, however many of the paths lead to it."""

    def __init__(self, *, bundle_id: str | None = None) -> None:
        check_bundle_id(bundle_id)
        self._bundles = _Bundles()
        self._reported: set[str] = set()
        self._override = BundleInfo(id=bundle_id, kind="override") if bundle_id else None

    def inputs(self, given: str) -> Iterator[InputFile | InputError]:
        """The files under one given path (see :func:`discover_inputs`), in sorted order."""
        override = self._override
        if given == STDIN:
            yield InputFile(STDIN, override or BundleInfo(id="local-stdin", kind="stdin"))
            return
        root = Path(given)
        files: list[Path | InputError]
        if root.is_dir():
            files = observation_files(root)
        elif root.exists():  # a file, or a named pipe, /dev/stdin, <(cat f)...
            files = [root]
            root = root.parent
        else:
            yield InputError("no such file or folder", rule="not_found", source=given)
            return
        for file in files:
            if isinstance(file, InputError):
                yield file
                continue
            bundle = self._bundles.for_file(file, root)
            if isinstance(bundle, ManifestError):
                if bundle.source not in self._reported:
                    self._reported.add(str(bundle.source))
                    yield bundle
                continue
            if override is not None:
                bundle = BundleInfo(
                    id=override.id,
                    kind="override",
                    source=bundle.source,
                    campaign=bundle.campaign,
                    candidates=bundle.candidates,
                )
            yield InputFile(str(file), bundle)


def _suffix(name: str) -> str:
    """The suffix :attr:`pathlib.PurePath.suffix` gives (``.jsonl``; none for ``.jsonl``)."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def _cannot_read(source: str, what: str, error: OSError) -> InputError:
    return InputError(
        f"cannot read {what}: {error.strerror or type(error).__name__}",
        rule="unreadable",
        source=source,
    )


def observation_files(root: Path) -> list[Path | InputError]:
    """The observation files under the folder ``root`` (``*.json`` and ``*.jsonl``, manifests
    excluded, links to files followed), in sorted path order (by path components, as
    :class:`~pathlib.Path` sorts), and in their places the located errors of what is there
    but cannot be read: a folder that cannot be listed, a link to nothing, a link loop.

    The walk is iterative (an explicit stack: a tree a thousand folders deep is no deeper for
    it) and does not enter linked folders, so a link loop cannot make it go round.
    """
    found: list[tuple[tuple[str, ...], Path | InputError]] = []
    stack: list[tuple[str, ...]] = [()]
    base = os.fspath(root)
    while stack:
        parts = stack.pop()
        folder = os.path.join(base, *parts)
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError as error:
            found.append((parts, _cannot_read(folder, "folder", error)))
            continue
        for entry in listed:
            name = entry.name
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_folder = False
            if is_folder:
                stack.append((*parts, name))
                continue
            if _suffix(name) not in OBSERVATION_SUFFIXES or name == MANIFEST_NAME:
                continue
            path = Path(entry.path)
            try:
                mode = os.stat(entry.path).st_mode
            except OSError as error:  # a link to nothing, a link loop, a name too long
                found.append(((*parts, name), _cannot_read(entry.path, "file", error)))
                continue
            if stat.S_ISREG(mode):
                found.append(((*parts, name), path))
    found.sort(key=lambda item: item[0])
    return [item for _, item in found]


def empty_input_notices(paths: Iterable[str]) -> list[Notice]:
    """For a run that read no record from ``paths``: one warning per given path saying why
    (an empty folder, a folder without observation files, a file without a record)."""
    notices = []
    for given in paths:
        if given == STDIN:
            where, message = "<stdin>", "no observation on standard input"
        elif os.path.isdir(given):
            where = given
            files = sum(isinstance(item, Path) for item in observation_files(Path(given)))
            if files:
                message = f"the {files} observation file(s) in this folder hold no observation"
            else:
                message = "no observation file (*.json, *.jsonl) in this folder"
        else:
            where, message = given, "this file holds no observation"
        notices.append(
            Notice("", message + ": nothing was scored", rule="empty_input", source=where)
        )
    return notices


def discover_inputs(
    paths: Iterable[str], *, bundle_id: str | None = None
) -> Iterator[InputFile | InputError]:
    """Observation files under ``paths`` with their bundles, in deterministic order.

    A folder is searched recursively for ``*.json`` and ``*.jsonl`` files (manifests excluded);
    ``-`` is JSON Lines on stdin. ``bundle_id`` overrides every discovered id.
    """
    discovery = Discovery(bundle_id=bundle_id)
    for given in paths:
        yield from discovery.inputs(given)


def reads_as_lines(path: str) -> bool:
    """Whether the input file ``path`` is read as JSON Lines: a ``.jsonl`` file, or a stream
    (a named pipe, ``<(cat f)``: read once, in order, like stdin) not named ``.json``."""
    if path.endswith(".jsonl"):
        return True
    return not path.endswith(".json") and is_special_file(path)


def _decode(raw: bytes, *, source: str, line: int | None) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            f"invalid UTF-8 at byte {error.start}", rule="invalid_utf8", source=source, line=line
        ) from None


_BOM = b"\xef\xbb\xbf"
BLOCK_SIZE = 1 << 20
"""Bytes asked of a stream per read when splitting it into lines."""


def numbered_lines(data: bytes, first_line: int = 1) -> Iterator[tuple[int, bytes]]:
    """Non-blank lines of a block of JSON Lines text, numbered from ``first_line``.

    Carriage returns before a line end are removed; a byte order mark only at the start of a
    file's first line (``first_line == 1``). Splitting a whole block at once keeps the work per
    line in compiled code.
    """
    lines = data.split(b"\n")
    if first_line == 1 and lines[0].startswith(_BOM):
        lines[0] = lines[0][3:]
    for number, raw in enumerate(lines, start=first_line):
        raw = raw.rstrip(b"\r")
        if raw and not raw.isspace():
            yield number, raw


def line_ranges(stream: IO[bytes], size: int = BLOCK_SIZE) -> Iterator[tuple[int, int, int]]:
    """(number of its first line, offset, length) of ranges of whole lines of a file, about
    ``size`` bytes each (more when one line is longer), without the newline that ends a range.

    Like :func:`line_blocks`, but the text is not kept: whoever scores a range reads it again
    (from the page cache), so only numbers travel to worker processes.
    """
    read = getattr(stream, "read1", stream.read)
    start = 0  # offset of the range being gathered
    position = 0  # offset of the next byte to read
    first_line = 1
    while True:
        block = read(size)
        if not block:
            break
        cut = block.rfind(b"\n")
        if cut >= 0:
            # Bytes gathered before this block hold no newline: they follow the last one.
            end = position + cut
            yield first_line, start, end - start
            first_line += count_newlines(block, cut) + 1
            start = end + 1
        position += len(block)
    if position > start:
        yield first_line, start, position - start


SPAN_PROBE = 1 << 16
"""Bytes read at a time where :func:`line_spans` looks for a line end."""


def line_spans(
    stream: IO[bytes], size: int = BLOCK_SIZE, probe: int = SPAN_PROBE
) -> Iterator[tuple[int, int]]:
    """(offset, length) of ranges of whole lines of a regular file, about ``size`` bytes each
    (more when one line is longer), without the newline that ends a range.

    Like :func:`line_ranges` without the line numbers, and without reading the file: only the
    bytes after each cut (``probe`` at a time) are read, to find the line end there.
    Whoever scores a range numbers its lines; the file is as long as it was when asked.
    """
    length = os.fstat(stream.fileno()).st_size
    start = 0
    while start < length:
        search = start + max(size, 1)
        cut = -1
        while cut < 0 and search < length:
            stream.seek(search)
            read = stream.read(probe)
            if not read:
                break
            found = read.find(b"\n")
            if found >= 0:
                cut = search + found
            search += len(read)
        if cut < 0:
            yield start, length - start
            return
        yield start, cut - start
        start = cut + 1


def line_blocks(stream: IO[bytes], size: int = BLOCK_SIZE) -> Iterator[tuple[int, bytes]]:
    """(number of its first line, text) of blocks of whole lines of ``stream``, up to about
    ``size`` bytes each (more when one line is longer), without the newline that ends a block.

    Reads return what is available (``read1``), so a pipe's lines are passed on as they come.
    Each byte is copied once after the read: a block is joined from the unfinished line before
    it and a view of the read up to its last newline (a fresh multi-megabyte object per copy
    costs its page faults as well as the copy).
    """
    read = getattr(stream, "read1", stream.read)
    first_line = 1
    pieces: list[bytes | memoryview] = []
    while True:
        block = read(size)
        if not block:
            break
        cut = block.rfind(b"\n")
        if cut < 0:
            pieces.append(block)  # inside a long line: joined once its end arrives
            continue
        pieces.append(memoryview(block)[:cut])
        complete = b"".join(pieces)
        pieces = [block[cut + 1 :]]
        yield first_line, complete
        first_line += count_newlines(complete, len(complete)) + 1
    rest = b"".join(pieces)
    if rest:
        yield first_line, rest


def raw_lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """Non-blank lines of a JSON Lines stream with their 1-based numbers (BOM and CR removed)."""
    for first_line, block in line_blocks(stream):
        yield from numbered_lines(block, first_line)


def parse_line(
    raw: bytes, *, number: int, source: str, bundle: BundleInfo
) -> RawRecord | InputError:
    """One JSON Lines record parsed, or the located reason it cannot be."""
    document = parse_plain_json(raw)
    if document is NOT_PLAIN:
        try:
            text = _decode(raw, source=source, line=number)
            document = parse_json_document(text, source=source, line=number)
        except InputError as error:
            return error
    return RawRecord(document, source, number, None, bundle)


def parse_json_file(
    raw: bytes, *, source: str, bundle: BundleInfo
) -> Iterator[RawRecord | InputError]:
    """The records of a ``.json`` file: one object, or each element of an array."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    document = parse_plain_json(raw)
    if document is NOT_PLAIN:
        try:
            text = _decode(raw, source=source, line=None)
            document = parse_json_document(text, source=source)
        except InputError as error:
            elements = _array_elements(text) if error.rule != "invalid_utf8" else None
            if elements is None:
                yield error
                return
            # One bad element of an array loses only itself: parse each on its own.
            for index, element in enumerate(elements):
                try:
                    item = parse_json_document(element, source=source)
                except InputError as bad:
                    yield in_array(bad, index)
                    continue
                yield RawRecord(item, source, None, index, bundle)
            return
    if isinstance(document, list):
        for index, item in enumerate(document):
            yield RawRecord(item, source, None, index, bundle)
    else:
        yield RawRecord(document, source, None, None, bundle)


_JSON_SPACE = " \t\n\r"
#: Reads past one JSON value whatever its keys and constants: only to find where it ends.
_SKIMMER = json.JSONDecoder(object_pairs_hook=lambda _: None, parse_constant=lambda _: None)


def _array_elements(text: str) -> list[str] | None:
    """The text of each element of a top-level JSON array, or None when ``text`` is not an
    array whose elements can be told apart (a syntax error leaves nothing to trust)."""
    position = len(text) - len(text.lstrip(_JSON_SPACE))
    if not text.startswith("[", position):
        return None
    position += 1
    elements: list[str] = []
    try:
        while True:
            while position < len(text) and text[position] in _JSON_SPACE:
                position += 1
            if text.startswith("]", position) and not elements:
                break
            _, end = _SKIMMER.raw_decode(text, position)
            elements.append(text[position:end])
            position = end
            while position < len(text) and text[position] in _JSON_SPACE:
                position += 1
            if text.startswith("]", position):
                break
            if not text.startswith(",", position):
                return None
            position += 1
    except (ValueError, RecursionError):
        return None
    if text[position + 1 :].strip(_JSON_SPACE):
        return None
    return elements


def in_array(error: InputError, index: int) -> InputError:
    """``error`` of element ``index`` of a ``.json`` array: its index set and its pointer made
    a pointer into the file (``/3/provider``)."""
    located = error.located(index=index)
    located.pointer = f"/{index}{error.pointer}"
    return located


def read_json_lines(path: str) -> Iterator[tuple[int, Any] | InputError]:
    """(line number, parsed document) of every non-blank line of a JSON Lines file, or the
    located error of a line (or of the file) that cannot be read."""
    try:
        with open(path, "rb") as stream:
            for number, raw in raw_lines(stream):
                document = parse_plain_json(raw)
                if document is not NOT_PLAIN:
                    yield number, document
                    continue
                try:
                    text = _decode(raw, source=path, line=number)
                    yield number, parse_json_document(text, source=path, line=number)
                except InputError as error:
                    yield error
    except OSError as error:
        yield unreadable(path, error)


def unreadable(source: str, error: OSError) -> InputError:
    """The located error of a file that could not be read."""
    return InputError(
        f"cannot read file: {error.strerror or type(error).__name__}",
        rule="unreadable",
        source=source,
    )


def _json_lines(
    stream: IO[bytes], source: str, bundle: BundleInfo
) -> Iterator[RawRecord | InputError]:
    for number, raw in raw_lines(stream):
        yield parse_line(raw, number=number, source=source, bundle=bundle)


@arguments(paths=Takes.paths, bundle_id=Takes.optional_text)
def read_records(
    paths: Iterable[str], *, bundle_id: str | None = None, stdin: IO[bytes] | None = None
) -> Iterator[RawRecord | InputError]:
    """Every record under ``paths`` (see :func:`discover_inputs`), parsed, in input order."""
    for item in discover_inputs(paths, bundle_id=bundle_id):
        if isinstance(item, InputError):
            yield item
            continue
        if item.path == STDIN:
            yield from _json_lines(stdin or sys.stdin.buffer, "<stdin>", item.bundle)
            continue
        try:
            with open(item.path, "rb") as stream:
                if reads_as_lines(item.path):
                    yield from _json_lines(stream, item.path, item.bundle)
                else:
                    yield from parse_json_file(stream.read(), source=item.path, bundle=item.bundle)
        except OSError as error:
            yield unreadable(item.path, error)


@arguments(path=Takes.path)
def read_policy_file(path: str | Path) -> PolicyFile:
    """Every section of a YAML or JSON policy file (a BOM allowed), each checked: the scoring
    keys (``weights``, ``thresholds``, ``auditGate``) and the ``gate`` section. The one reader
    of policy files: every command and :func:`load_policy` refuse the same files, each with a
    located :class:`PolicyError`."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise PolicyError(
            f"cannot read policy file: {type(error).__name__}", rule="unreadable", source=source
        ) from None
    return parse_policy_file(text, source=source)


@arguments(path=Takes.path)
def load_policy(path: str | Path) -> Policy:
    """The scoring policy of a YAML or JSON policy file (``{weights: {...}, thresholds: {...},
    auditGate: bool}``, the reference defaults where it says nothing). The whole file is checked,
    its ``gate`` section too (:func:`read_policy_file`)."""
    policy = read_policy_file(path).policy
    return Policy() if policy is None else policy
