"""Text made safe for terminals, logs, CSV and XML: every invisible or controlling character
made visible. One escaping layer: :func:`printable` for terminals and logs, :func:`csv_cell`
(the same, and formulas neutralised) for CSV, :func:`xml_characters` for XML (SVG) text.

Ids, reasons, file names and messages come from the observation's producer, the agent under
test and the file system. Written raw, an ESC or CSI sequence can retitle a window or hide
lines, a BEL rings, U+202E reverses what follows, a zero-width character makes two ids look
equal, and a newline forges a line of its own. :func:`printable` spells each such character as a
visible escape (``\\x1b``, ``\\u202e``, ``\\n``), leaving every other character, CJK and accents
included, as it is. Lone surrogates, which cannot be encoded, are spelt the same way.
"""

from __future__ import annotations

import functools
import re

from ._secrets import redact

__all__ = ["csv_cell", "printable", "shortened", "written_name", "xml_characters"]

#: C0 and C1 controls (newline and tab included: the text is one field of one line), DEL, the
#: soft hyphen, bidirectional and zero-width format characters, line and paragraph separators,
#: the byte-order mark, interlinear annotation marks, and surrogates.
_UNSAFE = (
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069"
    "\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


# Each expression is compiled when first needed, not at import: most text is plain ASCII and
# never needs one (docs/performance.md, start-up).
@functools.cache
def _compiled(expression: str) -> re.Pattern[str]:
    return re.compile(expression)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0A:
        return "\\n"
    if code == 0x09:
        return "\\t"
    if code == 0x0D:
        return "\\r"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control, format or surrogate character spelt as a visible escape."""
    if text.isascii() and text.isprintable():
        return text
    return _compiled(_UNSAFE).sub(_visible, text)


_SURROGATES = "[\ud800-\udfff]"


def shortened(text: str, limit: int) -> str:
    """``text`` as a display shows it in at most ``limit`` characters: as it is when it fits,
    else its start, an ellipsis and 8 hex digits of the SHA-256 of the whole text, so two long
    texts (ids) stay apart on screen while data keeps them whole. Time and size are bounded
    whatever the length (an id of a megabyte is hashed once, never laid out)."""
    if len(text) <= limit:
        return text
    import hashlib

    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{text[: max(limit - 9, 1)]}\u2026{digest}"


@functools.lru_cache(maxsize=1024)
def written_name(name: str) -> str:
    """A name from the file system or the command line (a file, a folder, a bundle id) as
    outputs may hold it: secret-shaped parts redacted, and the lone surrogates that stand for a
    file name's undecodable bytes (``surrogateescape``) spelt as escapes, so UTF-8 can hold it.
    Every other character is kept: a JSON or Parquet output is not a terminal."""
    if name.isascii():
        return redact(name)
    return redact(_compiled(_SURROGATES).sub(_visible, name))


#: What may start a spreadsheet formula (OWASP's list): a cell starting with one of these is
#: prefixed with an apostrophe, which spreadsheets show as text and never evaluate.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: str) -> str:
    """A text cell of a CSV output: secret-shaped parts redacted, controls (CR and LF included:
    a cell never splits a row, whatever reads it) spelt as escapes, and a cell that a
    spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``) prefixed with ``'``.
    Numbers are not text cells: a negative number keeps its sign."""
    shown = printable(redact(text))
    return "'" + shown if shown.startswith(_FORMULA_START) else shown


#: Characters XML 1.0 does not allow in a document (C0 controls but tab, LF and CR; surrogates;
#: U+FFFE and U+FFFF), and the C1 controls and DEL it discourages.
_NOT_XML = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]"


def xml_characters(text: str) -> str:
    """``text`` (markup already escaped, or a whole document) with every character XML does not
    allow spelt as a visible escape (``\\x1b``), so a parser accepts it."""
    return _compiled(_NOT_XML).sub(_visible, text)
