"""Text made safe for terminals and logs: every invisible or controlling character made visible.

Ids, reasons, file names and messages come from the observation's producer, the agent under
test and the file system. Written raw, an ESC or CSI sequence can retitle a window or hide
lines, a BEL rings, U+202E reverses what follows, a zero-width character makes two ids look
equal, and a newline forges a line of its own. :func:`printable` spells each such character as a
visible escape (``\\x1b``, ``\\u202e``, ``\\n``), leaving every other character, CJK and accents
included, as it is. Lone surrogates, which cannot be encoded, are spelt the same way.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

#: C0 and C1 controls (newline and tab included: the text is one field of one line), DEL, the
#: soft hyphen, bidirectional and zero-width format characters, line and paragraph separators,
#: the byte-order mark, interlinear annotation marks, and surrogates.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069"
    "\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


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
    return _UNSAFE.sub(_visible, text)
