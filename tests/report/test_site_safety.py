"""Safe names and serving (issue 31): page names of different ids never meet, ``report --out``
deletes only what the earlier site wrote, ``view`` serves only the site's regular files.

Expected digests are computed here with :mod:`hashlib`, never by the code under test.
"""

from __future__ import annotations

import hashlib
import http.client
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from scorecard.api._report import ServedSite, _site_server
from scorecard.contract import InputError, Receipt, load_catalog
from scorecard.core import ScoredRecord
from scorecard.engine import score_run
from scorecard.report import SitePages, _site_paths, build_site, site_pages, write_site
from scorecard.report._site_paths import slug
from tests.conftest import ROOT

NEWEST = ROOT / "observations" / "2026-11-22-nightly"
#: Two ids with one lowered form whose SHA-256 share their first 8 hex digits (found by trying
#: the case variants of one word): with 8 digits they had one page name.
COLLIDING = ("nIGhtLyBUndLEaBcde", "nIGHtlybunDlEabcDe")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_the_pair_collided_with_8_digits_and_has_two_names_now() -> None:
    first, second = COLLIDING
    assert first != second
    assert first.lower() == second.lower()
    assert sha(first)[:8] == sha(second)[:8]
    assert slug(first) != slug(second)
    assert slug(first).endswith(sha(first)[:32])
    assert slug(second).endswith(sha(second)[:32])


def test_a_plain_id_that_spells_a_hashed_slug_gets_a_name_of_its_own() -> None:
    """A plain id made to look like another id's hashed name is hashed itself."""
    for spelled in (f"foo-{sha('Foo')[:32]}", sha("")[:32]):
        assert slug(spelled) != spelled
        assert slug(spelled) not in {slug("Foo"), slug("")}
    assert slug(f"foo-{sha('Foo')[:31]}") == f"foo-{sha('Foo')[:31]}"  # one digit short: plain


def records_of(bundle: str, numbers: tuple[int, ...], tmp_path: Path) -> list[ScoredRecord]:
    lines = (NEWEST / "observations.jsonl").read_text().splitlines()
    path = tmp_path / f"{sha(bundle)[:12]}.jsonl"
    path.write_text("\n".join(lines[number] for number in numbers) + "\n", encoding="utf-8")
    run = score_run([str(path)], catalog=load_catalog(), bundle_id=bundle)
    return [item for item in run.records() if isinstance(item, ScoredRecord)]


def test_two_bundles_whose_8_digit_names_met_make_a_site(tmp_path: Path) -> None:
    """The same runs in two bundles whose ids collided: the site is built (no "repeats"
    refusal) and each run is in a shard of its own bundle, naming it."""
    records = [
        *records_of(COLLIDING[0], (0, 41), tmp_path),
        *records_of(COLLIDING[1], (0, 41), tmp_path),
    ]
    assert len(records) == 4
    files = build_site(records, load_catalog())
    shards = sorted(name for name in files if name.startswith("data/runs/"))
    assert len(shards) == 4  # two candidate x case cells in each bundle
    for bundle in COLLIDING:
        mine = [name for name in shards if name.startswith(f"data/runs/{slug(bundle)}/")]
        assert len(mine) == 2
        for name in mine:
            assert f'"bundle":"{bundle}"' in files[name].decode("utf-8")


@pytest.mark.parametrize("make", [build_site, site_pages], ids=["build_site", "site_pages"])
def test_names_that_meet_are_refused_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Any
) -> None:
    """With a digest made to collide (every hashed id the same name), building refuses to put
    two pages in one file instead of keeping the last; so does site_pages (view's site), up
    front, before any page is made."""
    records = [*records_of("Bundle.A", (0,), tmp_path), *records_of("bundle_a", (0,), tmp_path)]
    slug.cache_clear()
    monkeypatch.setattr(_site_paths, "_digest", lambda text: "0" * 32)
    try:
        with pytest.raises(InputError) as raised:
            make(records, load_catalog())
    finally:
        monkeypatch.undo()
        slug.cache_clear()
    assert raised.value.rule == "page_name_collision"
    assert "Bundle.A" in str(raised.value)
    assert "bundle_a" in str(raised.value)


# ---------------------------------------------------------------------------------------------
# report --out over an earlier site


SITE = {"index.html": b"<p>one</p>", "runs/a/b.html": b"b", "plots/p.svg": b"<svg/>"}


def with_marker(files: dict[str, bytes]) -> dict[str, bytes]:
    """A site's files with the marker build_site writes (its header, then every other file)."""
    header = (
        b"A site written by `scorecard report`; `scorecard report --out` may replace it.\n"
        b"It wrote the files below and no other; it replaces the site only while the folder "
        b"holds nothing else.\n"
    )
    listed = "".join(f"{name}\n" for name in sorted(files)).encode()
    return {**files, ".scorecard-site": header + listed}


def test_build_site_lists_every_file_it_writes_in_the_marker(tmp_path: Path) -> None:
    files = build_site(records_of("night", (0, 41), tmp_path), load_catalog())
    lines = files[".scorecard-site"].decode("utf-8").splitlines()
    assert lines[2:] == sorted(name for name in files if name != ".scorecard-site")


def test_a_site_is_replaced_when_it_holds_only_what_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "site"
    write_site(with_marker(SITE), out)
    write_site(with_marker({"index.html": b"<p>two</p>"}), out)
    assert (out / "index.html").read_bytes() == b"<p>two</p>"
    assert not (out / "runs").exists()


@pytest.mark.parametrize(
    ("added", "named"),
    [
        ("notes.txt", "notes.txt"),
        ("runs/a/mine.html", "runs/a/mine.html"),
        ("runs/new/x.txt", "runs/new/"),  # a folder the site did not write is named whole
        ("plots/.hidden", "plots/.hidden"),
        ("empty/", "empty/"),
    ],
)
def test_a_file_the_user_added_is_never_deleted(tmp_path: Path, added: str, named: str) -> None:
    out = tmp_path / "site"
    write_site(with_marker(SITE), out)
    target = out / added
    if added.endswith("/"):
        target.mkdir()
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("mine")
    with pytest.raises(InputError) as raised:
        write_site(with_marker({"index.html": b"<p>two</p>"}), out)
    assert raised.value.rule == "bad_output"
    assert f"({named})" in str(raised.value)
    assert target.exists()
    assert (out / "index.html").read_bytes() == b"<p>one</p>"  # the earlier site, untouched


def test_a_marker_without_a_list_protects_every_file(tmp_path: Path) -> None:
    """A site from before the list was kept: nothing is known to be its own, so it is not
    replaced while it holds anything but the marker."""
    out = tmp_path / "site"
    out.mkdir()
    (out / ".scorecard-site").write_bytes(
        b"A site written by `scorecard report`; `scorecard report --out` may replace it.\n"
    )
    (out / "index.html").write_text("old")
    with pytest.raises(InputError):
        write_site(with_marker(SITE), out)
    assert (out / "index.html").read_text() == "old"


def test_a_link_the_user_added_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "site"
    write_site(with_marker(SITE), out)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "runs" / "link").symlink_to(elsewhere)
    with pytest.raises(InputError) as raised:
        write_site(with_marker(SITE), out)
    assert "runs/link" in str(raised.value)
    assert (out / "runs" / "link").is_symlink()


# ---------------------------------------------------------------------------------------------
# view: the server


class MadePages:
    """A site made on request, as :class:`scorecard.report.SitePages` gives it to the server:
    the served folder's files, and a page that cannot be made."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self._files = files
        self.asked: list[str] = []

    def names(self) -> list[str]:
        return [*self._files, "broken.html"]

    def file(self, name: str) -> bytes | None:
        self.asked.append(name)
        if name == "broken.html":
            raise RuntimeError("a bug while making the page")
        return self._files.get(name)

    def files(self) -> dict[str, bytes]:
        return dict(self._files)


@pytest.fixture(params=["folder", "made on request"])
def served(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[int, Path]]:
    """The server of a folder (``serve_folder``) or of pages made on request (``view``), over
    the same site: a home page, a sub-folder's, a big file, the marker, links out of it."""
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    (site / "bare").mkdir()
    (site / "index.html").write_text("<p>home</p>")
    (site / "sub" / "index.html").write_text("<p>sub</p>")
    (site / "big.html").write_bytes(b"x" * 4_000_000)
    (site / ".scorecard-site").write_text("marker\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    (site / "out.html").symlink_to(secret)
    (site / "outdir").symlink_to(tmp_path)
    if request.param == "folder":
        server = _site_server(site, 0)
    else:
        made = MadePages(
            {
                "index.html": b"<p>home</p>",
                "sub/index.html": b"<p>sub</p>",
                "big.html": b"x" * 4_000_000,
                "bare/style.css": b"p {}",
            }
        )
        server = _site_server(ServedSite(cast(SitePages, made), cast(Receipt, None)), 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port, site
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def get(port: int, path: str) -> tuple[int, bytes, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read(), dict(response.getheaders())
    finally:
        connection.close()


def test_view_serves_the_site_files(served: tuple[int, Path]) -> None:
    port, _ = served
    assert get(port, "/")[:2] == (200, b"<p>home</p>")
    assert get(port, "/index.html")[:2] == (200, b"<p>home</p>")
    assert get(port, "/sub/")[:2] == (200, b"<p>sub</p>")
    status, _, headers = get(port, "/sub")
    assert (status, headers["Location"]) == (301, "/sub/")


@pytest.mark.parametrize(
    "path",
    [
        "/.scorecard-site",
        "/out.html",  # a link to a file outside
        "/outdir/secret.txt",  # through a link to a folder outside
        "/outdir/",
        "/bare/",  # a folder without index.html: no listing
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/sub/%2e%2e/%2e%2e/secret.txt",
        "/missing.html",
    ],
)
def test_view_serves_nothing_else(served: tuple[int, Path], path: str) -> None:
    port, _ = served
    status, body, _ = get(port, path)
    assert status == 404, (path, status)
    for shown in (b"secret", b"marker", b"index.html"):
        assert shown not in body


@pytest.mark.parametrize("path", ["/%00", "/a%00b.html", "/%ff", "/sub\\index.html"])
def test_view_answers_bad_paths_with_400(
    served: tuple[int, Path], path: str, capfd: pytest.CaptureFixture[str]
) -> None:
    port, _ = served
    assert get(port, path)[0] == 400
    assert get(port, "/")[0] == 200  # still serving
    assert capfd.readouterr().err == ""


def test_view_prints_nothing_when_clients_reset(
    served: tuple[int, Path], capfd: pytest.CaptureFixture[str]
) -> None:
    port, _ = served
    for request in (b"GET /big.html HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /ind"):
        client = socket.create_connection(("127.0.0.1", port), timeout=10)
        client.sendall(request)
        if request.endswith(b"\r\n\r\n"):
            client.recv(1024)  # the answer has started
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset, not a close
    assert get(port, "/")[:2] == (200, b"<p>home</p>")
    assert capfd.readouterr().err == ""


def test_view_answers_a_page_that_cannot_be_made_with_500(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A page whose making fails (a bug) is a 500 and one line naming it, never a traceback;
    the other pages are still served."""
    made = MadePages({"index.html": b"<p>home</p>"})
    server = _site_server(ServedSite(cast(SitePages, made), cast(Receipt, None)), 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert get(server.server_port, "/broken.html")[0] == 500
        assert get(server.server_port, "/")[:2] == (200, b"<p>home</p>")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert capfd.readouterr().err == "the page broken.html could not be made: RuntimeError\n"
    assert made.asked == ["broken.html", "index.html"]
