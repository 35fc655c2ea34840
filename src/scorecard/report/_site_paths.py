"""File names of the report site: slugged, deterministic, collision-free, relative links.

Every page name is made from ids alone (never from what else the site holds), so a link made
elsewhere (the gate's markdown or JUnit) finds the page :func:`run_page_path` names:

* an id made only of lowercase letters, digits and single inner hyphens is its own slug;
* any other id (upper case, dots, markup, control characters, an empty or long id, a name
  Windows reserves, or a plain id that ends like a hashed slug: a hyphen, or nothing, then 32
  hex digits) is lowered to those characters (at most 24 of them) and followed by 32 hex digits
  (128 bits) of the SHA-256 of its UTF-8 text.

So a plain slug never ends in a group of 32 hex digits and a hashed one always does: two ids
share a slug only when the first 128 bits of their SHA-256 agree (8 hex digits were used
before; a colliding pair is found in a few ten thousand tries, and one page overwrote the
other). The file name shows nothing of the id that is not in the id already (ids are redacted
by the engine). :func:`~scorecard.report.build_site` still refuses to write two different
pages to one name rather than let one overwrite the other.
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re

__all__ = [
    "PAGE_INDEX",
    "PAGE_REJECTED",
    "PAGE_RUN",
    "PAGE_RUNS",
    "RUN_DATA",
    "RUN_INDEX",
    "anchor_id",
    "candidate_page_path",
    "case_page_path",
    "change_link",
    "change_page_path",
    "link",
    "pair_page_path",
    "run_page_path",
    "run_shard_path",
    "site_link",
    "slug",
]

PAGE_INDEX = "index.html"
PAGE_RUNS = "runs.html"
#: The records validation rejected (written only when there are any).
PAGE_REJECTED = "rejected.html"
#: The one page that shows any run (which one: its address's ``?run=``), from the run's shard.
PAGE_RUN = "run.html"
#: Every run of the site in a few numbers and strings: what the runs tables page, sort and filter.
RUN_INDEX = "data/runs.js"

_PLAIN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_OTHER = re.compile(r"[^a-z0-9]+")
_LONGEST = 48
_BASE = 24
_DIGITS = 32
_HASHED_END = re.compile(rf"(?:^|-)[0-9a-f]{{{_DIGITS}}}\Z")
#: Names Windows will not create as files, whatever the extension.
_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"]
    + [f"{name}{digit}" for name in ("com", "lpt") for digit in range(10)]
)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGITS]


@functools.lru_cache(maxsize=4096)
def slug(text: str) -> str:
    """``text`` as a file-name part (see the module docstring); the same text, the same slug."""
    text = str(text)
    if (
        _PLAIN.fullmatch(text)
        and len(text) <= _LONGEST
        and text not in _RESERVED
        and not _HASHED_END.search(text)
    ):
        return text
    base = _OTHER.sub("-", text.lower()).strip("-")[:_BASE].strip("-")
    return f"{base}-{_digest(text)}" if base else _digest(text)


def run_page_path(bundle: str, candidate: str, case: str, run: int) -> str:
    """The address of run ``run`` (the record's 1-based ``repetition``) of ``case`` by
    ``candidate`` in ``bundle``, relative to the site's root (``/``-separated, no leading
    ``/``): join it to where the site is published to link to the run. It is the one run
    page, :data:`PAGE_RUN`, asked for the run by its query (slugs only: nothing to escape);
    the page reads the run from the shard of its candidate x case x night
    (:func:`run_shard_path`)."""
    return f"{PAGE_RUN}?run={slug(bundle)}/{slug(candidate)}/{slug(case)}/{int(run)}"


RUN_DATA = "data/runs/"
"""The folder of the runs' data files (:func:`run_shard_path`)."""


def run_shard_path(bundle: str, candidate: str, case: str) -> str:
    """The data file holding every run of ``case`` by ``candidate`` in ``bundle`` (a script the
    run page loads: ``file://`` allows a script where it refuses ``fetch``)."""
    return f"{RUN_DATA}{slug(bundle)}/{slug(candidate)}/{slug(case)}.js"


def site_link(site_url: str, bundle: str, candidate: str, case: str, run: int) -> str:
    """The address of a run's page on the site published at ``site_url`` (an address or a
    relative path; checked by the command line: no spaces, brackets or control characters)."""
    return f"{site_url.rstrip('/')}/{run_page_path(bundle, candidate, case, run)}"


def change_link(site_url: str, bundle: str, candidate: str, case: str) -> str:
    """The address of the page of ``case`` by ``candidate`` on night ``bundle`` beside the
    nights before it, on the site published at ``site_url`` (as :func:`site_link`)."""
    return f"{site_url.rstrip('/')}/{change_page_path(bundle, candidate, case)}"


def candidate_page_path(candidate: str) -> str:
    """The page of one candidate across every bundle."""
    return f"candidates/{slug(candidate)}.html"


def case_page_path(case: str) -> str:
    """The page of one case: every candidate's runs of it."""
    return f"cases/{slug(case)}.html"


def change_page_path(bundle: str, candidate: str, case: str) -> str:
    """The page of ``case`` by ``candidate`` on night ``bundle`` beside the nights before it
    (what changed in the case)."""
    return f"changes/{slug(bundle)}/{slug(candidate)}/{slug(case)}.html"


def pair_page_path(baseline: str, current: str) -> str:
    """The page of bundle ``current`` judged against bundle ``baseline`` (slugs never hold
    ``--``, so the pair can be told apart)."""
    return f"pairs/{slug(baseline)}--{slug(current)}.html"


def anchor_id(pointer: str) -> str:
    """The element id of a JSON Pointer's field on a run page (``at-`` and its slug; the whole
    document's, ``""``, is ``at--root``, which no slug can spell)."""
    return f"at-{slug(pointer)}" if pointer else "at--root"


def link(page: str, target: str) -> str:
    """``target`` (a site path, maybe with ``?query`` and ``#fragment``) relative to the
    folder of ``page``."""
    address, hash_mark, fragment = target.partition("#")
    path, question_mark, query = address.partition("?")
    start = posixpath.dirname(page) or "."
    relative = posixpath.relpath(path, start) if path else ""
    return relative + question_mark + query + (hash_mark + fragment if hash_mark else "")
