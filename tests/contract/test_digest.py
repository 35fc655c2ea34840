"""The one framing of file digests: each part's name and bytes framed by their lengths."""

from __future__ import annotations

import hashlib
import io
import os

import pytest

from scorecard.contract import FramedDigest, read_case_files
from tests.conftest import ROOT


def framed(parts: list[tuple[str, bytes]]) -> str:
    """The documented framing, written out: ``<len(name)>:<name><len(data)>:<data>``."""
    text = b"".join(
        b"%d:%s%d:%s" % (len(name.encode()), name.encode(), len(data), data) for name, data in parts
    )
    return hashlib.sha256(text).hexdigest()


def test_parts_are_framed_by_their_lengths() -> None:
    """The digest is SHA-256 of the framed parts, in the order added."""
    digest = FramedDigest()
    digest.add("a.jsonl", b"one\n")
    digest.add("sub/b.jsonl", b"")
    assert framed([("a.jsonl", b"one\n"), ("sub/b.jsonl", b"")]) == digest.hexdigest()


def test_moving_bytes_between_parts_changes_the_digest() -> None:
    """("ab", "c") and ("a", "bc") are different inputs, and hash differently."""
    first, second = FramedDigest(), FramedDigest()
    first.add("x", b"ab")
    first.add("y", b"c")
    second.add("x", b"a")
    second.add("y", b"bc")
    assert first.hexdigest() != second.hexdigest()


def test_a_streamed_part_is_the_part_in_memory() -> None:
    """``add_stream`` reads exactly ``length`` bytes and hashes what ``add`` would."""
    data = os.urandom(3 << 20)
    streamed, held = FramedDigest(), FramedDigest()
    streamed.add_stream("big", io.BytesIO(data), len(data))
    held.add("big", data)
    assert held.hexdigest() == streamed.hexdigest()


@pytest.mark.parametrize("length", [9, 11])
def test_a_stream_of_another_length_is_an_error(length: int) -> None:
    """A file that grew or shrank since its length was taken is not hashed as if it had not."""
    with pytest.raises(OSError, match="changed"):
        FramedDigest().add_stream("f", io.BytesIO(b"0123456789"), length)


def test_a_catalogs_digest_is_framed_so() -> None:
    """The catalog's digest (which keeps its compiled plans) is the same framing of its files'
    base names and bytes."""
    files = read_case_files(ROOT / "cases")
    expected = framed([(os.path.basename(path), data) for path, data in files.files])
    assert expected == files.digest
