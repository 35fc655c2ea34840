"""Secret-shaped text: find it, name its pattern, redact it. Never echo it.

Observations, manifests and check reasons are written by the agent under test and by other
tools, so any free text may carry a credential. ``REFERENCE_SECRET`` is the reference scorer's
rule for ``failure.message`` (SCORING.md section 1.5); ``SECRET_PATTERNS`` is the broader set the
engine redacts from everything it writes.
"""

from __future__ import annotations

import re

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
#: The reference rule, compiled twice: JavaScript's ``\b`` is ASCII-only while Python's is
#: Unicode-aware, so a message is secret-shaped when either reading finds a match.
REFERENCE_SECRET = (
    re.compile(_REFERENCE_SOURCE, re.IGNORECASE),
    re.compile(_REFERENCE_SOURCE, re.IGNORECASE | re.ASCII),
)

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

#: Named patterns of secret-shaped values, checked in this order.
SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "pem_private_key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
            r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
    ),
    ("provider_api_key", re.compile(_START + r"sk-(?:[A-Za-z0-9_-]*-)?[A-Za-z0-9_]{16,}")),
    ("bearer_token", re.compile(_START + r"Bearer\s+[A-Za-z0-9._~+/=-]{16,}", re.IGNORECASE)),
    (
        "github_token",
        re.compile(_START + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    ),
    (
        "slack_token",
        re.compile(_START + r"(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,})"),
    ),
    ("google_api_key", re.compile(_START + r"(?:AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,})")),
    (
        "stripe_key",
        re.compile(
            _START + r"(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{20,})"
        ),
    ),
    ("npm_token", re.compile(_START + r"npm_[A-Za-z0-9]{36}")),
    ("pypi_token", re.compile(_START + r"pypi-[A-Za-z0-9_-]{50,}")),
    ("aws_access_key", re.compile(_START + r"(?:AKIA|ASIA)[0-9A-Z]{16}" + _END)),
    (
        "jwt",
        re.compile(_START + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
    (
        "credential_assignment",
        re.compile(r"(?i)" + _START + _CREDENTIAL_KEY + r"""["']?\s*[=:]\s*["']?[^\s"',;&]{8,}"""),
    ),
)

_SECRET_KEY = re.compile(
    r"(?i)(?:api[_-]?key|secret|(?<![a-z])token|(?:access|auth|refresh|id|bot|oauth|github)"
    r"[_-]?token|password|passwd|credential|private[_-]?key|"
    r"authorization|bearer|session[_-]?token|access[_-]?key)"
)


# Every pattern above needs one of these (lower-cased) fragments; text without any of them is
# clean, which spares the regular expressions on the vast majority of strings.
_ANCHORS = (
    "sk-",
    "sk_",
    "rk_",
    "pk_",
    "bearer",
    "gh",
    "xox",
    "aiza",
    "npm_",
    "pypi-",
    "akia",
    "asia",
    "eyj",
    "xapp",
    "ya29",
    "whsec",
    "private key",
    "key",
    "secret",
    "token",
    "passw",
    "auth",
)


def _may_hold_secret(text: str) -> bool:
    lowered = text.lower()
    for anchor in _ANCHORS:  # noqa: SIM110 - `any()` over a generator costs twice as much here
        if anchor in lowered:
            return True
    return False


def matches_reference_secret(text: str) -> bool:
    """Whether ``text`` is secret-shaped by the reference rule for ``failure.message``."""
    return any(pattern.search(text) for pattern in REFERENCE_SECRET)


def find_secret(text: str) -> str | None:
    """Name of the first secret pattern ``text`` matches (reference rule included), else None."""
    if not _may_hold_secret(text):
        return None
    if matches_reference_secret(text):
        return "provider_api_key_or_bearer"
    for name, pattern in SECRET_PATTERNS:
        if pattern.search(text):
            return name
    return None


def redact(text: str) -> str:
    """``text`` with every secret-shaped substring replaced by ``[redacted]``."""
    if not _may_hold_secret(text):
        return text
    for pattern in REFERENCE_SECRET:
        text = pattern.sub(REDACTED, text)
    for _, pattern in SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


def is_secret_key(key: str) -> bool:
    """Whether an object key names a credential (``apiKey``, ``password``, ``sessionToken``...)."""
    return _SECRET_KEY.search(key) is not None
