"""Secret-shaped text: find it, name its pattern, redact it. Never echo it.

Observations, manifests and check reasons are written by the agent under test and by other
tools, so any free text may carry a credential. ``REFERENCE_SECRET`` is the reference scorer's
rule for ``failure.message`` (SCORING.md section 1.5); ``SECRET_PATTERNS`` is the broader set the
engine redacts from everything it writes.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

__all__ = [
    "REDACTED",
    "REFERENCE_SECRET",
    "SECRET_PATTERNS",
    "find_secret",
    "is_secret_key",
    "matches_reference_secret",
    "redact",
]

REDACTED = "[redacted]"

_REFERENCE_SOURCE = r"\b(?:sk-[A-Za-z0-9]{16,}|Bearer\s+\S{16,})\b"
#: The reference rule, compiled twice (``REFERENCE_SECRET``): JavaScript's ``\b`` is ASCII-only
#: while Python's is Unicode-aware, so a message is secret-shaped when either reading finds a
#: match.
_REFERENCE_FLAGS = (re.IGNORECASE, re.IGNORECASE | re.ASCII)

#: Where a secret may start: not inside an ASCII word. Python's ``\b`` would also refuse a start
#: right after an underscore (``GITHUB_TOKEN``, ``_ghp_...``) or a CJK character, which are
#: word characters to it; a token glued to such text is still a token.
_START = r"(?<![A-Za-z0-9])"
_END = r"(?![A-Za-z0-9])"

#: A credential-named key: any prefix (``GITHUB_``, ``client_``, ``access_``), the name, and the
#: few suffixes credential names carry (``AWS_SECRET_ACCESS_KEY``). Quotes around it allow the
#: key of JSON or YAML inside free text (``{"password": "..."}``).
_CREDENTIAL_KEY = (
    r"[A-Za-z0-9_.-]*?(?:api[_-]?key|secret|token|password|passwd|access[_-]?key|auth)"
    r"(?:[_-](?:access[_-])?key)?"
)

#: Named patterns of secret-shaped values (name, expression, flags), checked in this order;
#: compiled as ``SECRET_PATTERNS``.
_SECRET_SOURCES: tuple[tuple[str, str, int], ...] = (
    (
        "pem_private_key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        0,
    ),
    ("provider_api_key", _START + r"sk-(?:[A-Za-z0-9_-]*-)?[A-Za-z0-9_]{16,}", 0),
    ("bearer_token", _START + r"Bearer\s+[A-Za-z0-9._~+/=-]{16,}", re.IGNORECASE),
    ("github_token", _START + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})", 0),
    ("slack_token", _START + r"(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,})", 0),
    ("google_api_key", _START + r"(?:AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,})", 0),
    (
        "stripe_key",
        _START + r"(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{20,})",
        0,
    ),
    ("npm_token", _START + r"npm_[A-Za-z0-9]{36}", 0),
    ("pypi_token", _START + r"pypi-[A-Za-z0-9_-]{50,}", 0),
    ("aws_access_key", _START + r"(?:AKIA|ASIA)[0-9A-Z]{16}" + _END, 0),
    ("jwt", _START + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
    (
        "credential_assignment",
        r"(?i)" + _START + _CREDENTIAL_KEY + r"""["']?\s*[=:]\s*["']?[^\s"',;&]{8,}""",
        0,
    ),
)

_SECRET_KEY_SOURCE = (
    r"(?i)(?:api[_-]?key|secret|(?<![a-z])token|(?:access|auth|refresh|id|bot|oauth|github)"
    r"[_-]?token|password|passwd|credential|private[_-]?key|"
    r"authorization|bearer|session[_-]?token|access[_-]?key)"
)

if TYPE_CHECKING:
    REFERENCE_SECRET: tuple[re.Pattern[str], re.Pattern[str]]
    SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...]


# The expressions are compiled on first use, not at import: most runs never meet text holding
# an anchor (below), and compiling them all is milliseconds of every start (docs/performance.md,
# start-up).
@functools.cache
def _reference_secret() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(_REFERENCE_SOURCE, flags) for flags in _REFERENCE_FLAGS)


@functools.cache
def _secret_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(source, flags)) for name, source, flags in _SECRET_SOURCES)


@functools.cache
def _secret_key() -> re.Pattern[str]:
    return re.compile(_SECRET_KEY_SOURCE)


def __getattr__(name: str) -> object:
    # ``REFERENCE_SECRET`` and ``SECRET_PATTERNS``, compiled when first read (PEP 562).
    if name == "REFERENCE_SECRET":
        return _reference_secret()
    if name == "SECRET_PATTERNS":
        return _secret_patterns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Every pattern above needs one of these (lower-cased) fragments; text without any of them is
# clean, which spares the regular expressions on the vast majority of strings.
#: Per pattern, the text every match holds (case-folded): a pattern runs only on text holding
#: one of its anchors. Most text holds none (``totalTokens 182943 exceeds budget 64000`` holds
#: ``token`` but no ``=`` or ``:``), so most text costs one case-fold and a few ``in`` tests
#: instead of every pattern. ``tests/contract/test_secrets.py`` checks the anchors against the
#: patterns on generated text.
_PATTERN_ANCHORS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (one of these substrings, and one of these characters; () = no second condition)
    "pem_private_key": (("private key",), ()),
    "provider_api_key": (("sk-",), ()),
    "bearer_token": (("bearer",), ()),
    "github_token": (("gh", "github_pat_"), ()),
    "slack_token": (("xox", "xapp-"), ()),
    "google_api_key": (("aiza", "ya29."), ()),
    "stripe_key": (("sk_", "rk_", "pk_", "whsec_"), ()),
    "npm_token": (("npm_",), ()),
    "pypi_token": (("pypi-",), ()),
    "aws_access_key": (("akia", "asia"), ()),
    "jwt": (("eyj",), ()),
    "credential_assignment": (("api", "secret", "token", "passw", "access", "auth"), ("=", ":")),
}
_REFERENCE_ANCHORS = ("sk-", "bearer")


_REFERENCE = "reference"
_CHARACTERS = {name: characters for name, (_, characters) in _PATTERN_ANCHORS.items()}
_CHARACTERS[_REFERENCE] = ()
#: Each anchor word and the patterns it may start (the reference rule under ``_REFERENCE``).
_BY_WORD: dict[str, frozenset[str]] = {}
for _name, (_words, _) in (*_PATTERN_ANCHORS.items(), (_REFERENCE, (_REFERENCE_ANCHORS, ()))):
    for _word in _words:
        _BY_WORD[_word] = _BY_WORD.get(_word, frozenset()) | {_name}
_ORDER = (_REFERENCE, *(name for name, _, _ in _SECRET_SOURCES))


@functools.cache
def _patterns() -> dict[str, tuple[re.Pattern[str], ...]]:
    """Each rule's compiled expressions, by name (the reference rule under ``_REFERENCE``)."""
    return {
        _REFERENCE: _reference_secret(),
        **{name: (pattern,) for name, pattern in _secret_patterns()},
    }


def _candidates(text: str) -> list[tuple[str, re.Pattern[str]]]:
    """The patterns that may match ``text``, in order (reference rule first): those whose
    anchors it holds."""
    folded = text.casefold()
    names: set[str] = set()
    for word, started in _BY_WORD.items():
        if word in folded:
            names |= started
    if not names:
        return []
    chosen: list[tuple[str, re.Pattern[str]]] = []
    patterns = _patterns()
    for name in _ORDER:
        if name in names:
            characters = _CHARACTERS[name]
            if not characters or any(character in folded for character in characters):
                chosen.extend((name, pattern) for pattern in patterns[name])
    return chosen


def matches_reference_secret(text: str) -> bool:
    """Whether ``text`` is secret-shaped by the reference rule for ``failure.message``."""
    return any(pattern.search(text) for pattern in _reference_secret())


def find_secret(text: str) -> str | None:
    """Name of the first secret pattern ``text`` matches (reference rule included), else None."""
    for name, pattern in _candidates(text):
        if pattern.search(text):
            return "provider_api_key_or_bearer" if name == _REFERENCE else name
    return None


def redact(text: str) -> str:
    """``text`` with every secret-shaped substring replaced by ``[redacted]``."""
    # Runs repeat the same short texts (ids, observed values, hints); those are remembered, a
    # bounded number of them, so memory stays small whatever the input.
    return _redact_short(text) if len(text) <= _REMEMBERED_LENGTH else _redact(text)


_REMEMBERED_LENGTH = 512


@functools.lru_cache(maxsize=8192)
def _redact_short(text: str) -> str:
    return _redact(text)


def _redact(text: str) -> str:
    for _, pattern in _candidates(text):
        # Each pattern runs on the text the ones before left. A replacement can complete a later
        # pattern's match (``token=[redacted]``) but never brings an anchor the original lacked
        # (``[redacted]`` holds none, and it separates what it replaced), so the original's
        # anchors choose the patterns.
        text = pattern.sub(REDACTED, text)
    return text


def is_secret_key(key: str) -> bool:
    """Whether an object key names a credential (``apiKey``, ``password``, ``sessionToken``...)."""
    return _secret_key().search(key) is not None
