"""Untrusted text made safe to render: markdown escaping and fencing, HTML and XML text.

Reasons, messages, candidate and case ids are written by the agent under test or by case
authors. Before any of it reaches a report it is redacted (:func:`scorecard.contract.redact`),
stripped of control and bidirectional-override characters, and then:

* markdown, short and single-line: every character that could start markup is
  backslash-escaped (emphasis, code, links, images, HTML, entities, autolinks, table pipes,
  math), so the text renders literally and cannot break a table cell;
* markdown, long or multi-line: shown in a fenced code block whose fence is longer than any
  backtick run inside the text, so the text cannot close it;
* markdown where even escaped text would be read (a pull-request comment, where GitHub links
  mentions, issue references and commit ids in plain text, escaped or not): short text in a
  code span, fenced the same way, long text in a fenced block;
* HTML and XML: escaped with :func:`html.escape` (quotes included).
"""

from __future__ import annotations

import functools
import html
import re

from scorecard.contract import redact, shortened

__all__ = [
    "BLOCK_LIMIT",
    "DISPLAY_LIMIT",
    "INLINE_LIMIT",
    "clean",
    "html_text",
    "markdown_code",
    "markdown_fence",
    "markdown_inline",
    "needs_block",
    "one_line",
    "shown",
    "xml_text",
]

#: Untrusted text longer than this (characters) is shortened inline and fenced in full.
INLINE_LIMIT = 120
#: Fenced text is cut after this many characters, with a note saying how much was left out.
BLOCK_LIMIT = 4000
#: HTML text given no limit (ids, labels) is shown shortened with a digest past this many.
DISPLAY_LIMIT = 1000

# C0 controls except tab and newline, DEL, C1 controls, bidirectional overrides and isolates
# (which can make text read differently from what it is), and XML's non-characters.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\ufeff\ufffe\uffff\ud800-\udfff]"
)
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>&!|~:@$#])")
_WWW = re.compile(r"(?i)\b(www)\.")
_BACKTICKS = re.compile("`+")


#: Short texts escaped before are remembered (the last 8,192 of at most 512 characters): a
#: report of many runs repeats the same ids and reasons (seven candidates and twelve cases in
#: every row of 50,000 gate failures), and each escape redacts. The functions are pure, so a
#: remembered text is the same text; of long texts, rarely repeated, only the last 64 are kept.
_REMEMBERED = 8192
_REMEMBERED_LENGTH = 512


def clean(text: str) -> str:
    """Redacted, with line ends normalised and unsafe characters replaced by U+FFFD."""
    text = str(text)
    return _clean_remembered(text) if len(text) <= _REMEMBERED_LENGTH else _clean_long(text)


def _clean(text: str) -> str:
    text = redact(text).replace("\r\n", "\n").replace("\r", "\n")
    return _UNSAFE.sub("\ufffd", text)


_clean_remembered = functools.lru_cache(maxsize=_REMEMBERED)(_clean)
# A long text that repeats is an id of any length: every page and row names it, and redacting
# a megabyte a thousand times was most of a report's time. The few last are kept (a string
# keeps its hash, so finding one again costs nothing).
_clean_long = functools.lru_cache(maxsize=64)(_clean)


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (+{len(text) - limit} chars)"


def one_line(text: str, limit: int = INLINE_LIMIT) -> str:
    """:func:`clean` text on one line (line breaks shown as U+23CE), shortened to ``limit``."""
    flat = " \u23ce ".join(part.strip() for part in clean(text).split("\n"))
    flat = re.sub(r"[ \t]+", " ", flat).strip()
    return _shorten(flat, limit)


def needs_block(text: str, limit: int = INLINE_LIMIT) -> bool:
    """Whether ``text`` is multi-line or too long to show inline."""
    return "\n" in text or "\r" in text or len(text) > limit


def markdown_inline(text: str, limit: int = INLINE_LIMIT) -> str:
    """Untrusted text as literal single-line markdown, shortened to ``limit`` characters.

    Every character that can open markup is backslash-escaped (``\\ ` * _ [ ] < > & ! | ~ : @
    $ #``, and the dot of ``www.``), so no link, image, HTML tag, comment or entity, code span,
    emphasis, math, mention or autolink (URL, e-mail, ``www.``) can form, and ``|`` cannot end
    a table cell. Line breaks become U+23CE, so the text cannot start a block either.
    """
    text = str(text)
    if len(text) <= _REMEMBERED_LENGTH:
        return _inline_remembered(text, limit)
    return _inline(text, limit)


def _inline(text: str, limit: int) -> str:
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", one_line(text, limit))
    return _WWW.sub(r"\1\\.", escaped)


_inline_remembered = functools.lru_cache(maxsize=_REMEMBERED)(_inline)


def markdown_fence(text: str, limit: int = BLOCK_LIMIT) -> str:
    """Untrusted text verbatim in a fenced code block no line of it can close (no final newline).

    The fence is one backtick longer than the longest backtick run in the text (at least
    three), so no line of the text can be a closing fence.
    """
    body = clean(text)
    if len(body) > limit:
        body = f"{body[:limit]}\n... ({len(body) - limit} more characters not shown)"
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}"


def markdown_code(text: str, limit: int = INLINE_LIMIT) -> str:
    """Untrusted text as one inline code span, on one line and shortened to ``limit``.

    Nothing in a code span is markup, and GitHub makes no mention (``@team``), issue or commit
    reference, autolink or emoji of it. The span's backtick fence is one longer than any
    backtick run in the text, and a text starting or ending with a backtick is padded with a
    space on each side (which CommonMark strips), so the text cannot close the span. Not for
    table cells: a pipe would still end the cell.
    """
    body = one_line(text, limit)
    if not body:
        return "` `"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(body)), default=0) + 1)
    if body.startswith("`") or body.endswith("`"):
        body = f" {body} "
    return f"{fence}{body}{fence}"


def shown(text: object) -> str:
    """:func:`clean` text as a page shows it when no limit is given: past
    :data:`DISPLAY_LIMIT` characters (an id of any length), its start and a digest of the whole
    (:func:`~scorecard.contract.shortened`), so two long ids stay apart and a page stays small."""
    return shortened(clean(str(text)), DISPLAY_LIMIT)


def html_text(text: object, limit: int | None = None) -> str:
    """Text (untrusted or not) escaped for HTML element content and quoted attributes: past
    ``limit`` characters cut with a note, or without ``limit`` :func:`shown`."""
    if limit is None:
        return html.escape(shown(text), quote=True)
    body = clean(str(text))
    if len(body) > limit:
        body = f"{body[:limit]}\n... ({len(body) - limit} more characters not shown)"
    return html.escape(body, quote=True)


def xml_text(text: object, limit: int | None = None, *, unique: bool = False) -> str:
    """:func:`clean` text that XML 1.0 can hold (the XML writer escapes markup itself). A
    ``unique`` text (one run's ``file:line``) is not remembered: it would only push out the texts
    that do repeat."""
    body = _clean(str(text)) if unique else clean(str(text))
    if limit is not None and len(body) > limit:
        body = f"{body[:limit]}\n... ({len(body) - limit} more characters not shown)"
    return body
