"""What people say about the store's runs: labels (a candidate on a case, or one run:
``quarantined``, ``known-issue`` or another word, with an owner, a reason and an expiry date)
and the approved baseline (the nights a gate may be judged against by ``--baseline approved``).

Both live in ``labels.json``, replaced atomically under the writer lock like the index. A label
applies to a night when the night is on or before its expiry (``expires``, an ISO date; none:
until removed), so whether it applies depends on the night judged, never on the clock: the same
store and night give the same verdict on any day. A night without a date is judged with every
unexpired-or-undated label applying.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from scorecard.contract import StoreError, find_secret

from ._files import durable, read_json_file, replace_file
from ._layout import TMP
from ._locks import writer_lock

__all__ = ["LABELS", "LABELS_SCHEMA", "Label", "Labels", "read_labels", "write_labels"]

LABELS = "labels.json"
LABELS_SCHEMA = "scorecard.labels.v1"
_WORD = re.compile(r"[a-z][a-z0-9-]{0,39}")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TEXT_LIMIT = 500


@dataclass(frozen=True)
class Label:
    """One label: a candidate on a case (``case`` None: every case), or one run of it
    (``bundle`` and ``repetition``)."""

    candidate: str
    label: str
    """A word: ``quarantined`` (shown, never fails a gate), ``known-issue`` (shown), others."""
    case: str | None = None
    bundle: str | None = None
    repetition: int | None = None
    owner: str = ""
    reason: str = ""
    expires: str | None = None
    """The last night (ISO date) it applies to; None: until removed."""

    def applies_on(self, night: str | None) -> bool:
        """Whether it applies to a night (``None``: a night of unknown date: it applies)."""
        return self.expires is None or night is None or night <= self.expires

    def covers(self, candidate: str, case: str) -> bool:
        """Whether it is about this candidate's runs on this case (a run label: some of them)."""
        return self.candidate == candidate and self.case in (None, case)

    def describe(self) -> str:
        """One line for people: what, on which runs, whose, why, until when."""
        subject = self.candidate + (f" on {self.case}" if self.case else " on every case")
        if self.bundle is not None:
            subject += f" (run {self.repetition} of {self.bundle})"
        parts = [f"{self.label}: {subject}"]
        if self.owner:
            parts.append(f"owner {self.owner}")
        if self.reason:
            parts.append(self.reason)
        parts.append(f"until {self.expires}" if self.expires else "no expiry")
        return "; ".join(parts)


@dataclass(frozen=True)
class Labels:
    """The store's labels and its approved baseline."""

    labels: tuple[Label, ...] = ()
    approved: tuple[str, ...] = ()
    """The approved baseline's bundle ids, in night order as approved."""
    notes: tuple[str, ...] = field(default=(), compare=False)

    def active(self, night: str | None) -> tuple[Label, ...]:
        """The labels that apply to ``night``."""
        return tuple(label for label in self.labels if label.applies_on(night))

    def expired(self, night: str | None) -> tuple[Label, ...]:
        """The labels whose expiry lies before ``night`` (shown, so that nobody wonders)."""
        return tuple(label for label in self.labels if not label.applies_on(night))


def _bad(source: str, pointer: str, message: str) -> StoreError:
    return StoreError(message, rule="bad_label", pointer=pointer, source=source)


def check_label(label: Label, *, source: str = "label", pointer: str = "") -> Label:
    """``label`` if every field holds what it may, else a located :class:`StoreError`."""
    if not label.candidate or len(label.candidate) > 1000:
        raise _bad(source, f"{pointer}/candidate", "must name a candidate")
    if not _WORD.fullmatch(label.label):
        raise _bad(source, f"{pointer}/label", "must be a lower-case word (letters, digits, -)")
    if label.case is not None and not label.case:
        raise _bad(source, f"{pointer}/case", "must name a case, or be left out")
    if (label.bundle is None) != (label.repetition is None):
        raise _bad(source, f"{pointer}/repetition", "a run is named by its bundle and repetition")
    if label.repetition is not None and (label.repetition < 1 or label.case is None):
        raise _bad(source, f"{pointer}/repetition", "a run needs its case and a repetition >= 1")
    for name in ("owner", "reason"):
        text = getattr(label, name)
        if len(text) > _TEXT_LIMIT or any(not character.isprintable() for character in text):
            raise _bad(source, f"{pointer}/{name}", f"at most {_TEXT_LIMIT} printable characters")
        if find_secret(text) is not None:
            raise _bad(source, f"{pointer}/{name}", "secret-shaped text (value withheld)")
    if label.expires is not None:
        try:
            if not _DATE.fullmatch(label.expires):
                raise ValueError
            datetime.date.fromisoformat(label.expires)
        except ValueError:
            raise _bad(source, f"{pointer}/expires", "must be a date, YYYY-MM-DD") from None
    return label


def _label_of(item: Any, source: str, pointer: str) -> Label:
    if not isinstance(item, Mapping):
        raise _bad(source, pointer, "must be an object")
    known = set(Label.__dataclass_fields__)
    unknown = sorted(str(key) for key in item if key not in known)
    if unknown:
        raise _bad(source, f"{pointer}/{unknown[0]}", "unknown field")
    try:
        made = Label(**{str(key): value for key, value in item.items()})
    except TypeError:
        raise _bad(source, pointer, "candidate and label are required") from None
    for name, kind in (("candidate", str), ("label", str), ("owner", str), ("reason", str)):
        if not isinstance(getattr(made, name), kind):
            raise _bad(source, f"{pointer}/{name}", "must be a string")
    for name in ("case", "bundle", "expires"):
        if getattr(made, name) is not None and not isinstance(getattr(made, name), str):
            raise _bad(source, f"{pointer}/{name}", "must be a string or null")
    if made.repetition is not None and (
        isinstance(made.repetition, bool) or not isinstance(made.repetition, int)
    ):
        raise _bad(source, f"{pointer}/repetition", "must be an integer or null")
    return check_label(made, source=source, pointer=pointer)


def read_labels(root: Path) -> Labels:
    """The store's labels (none yet: empty); a corrupt file is a located :class:`StoreError`."""
    path = root / LABELS
    if not path.exists():
        return Labels()
    source = str(path)
    document = read_json_file(path)
    if not isinstance(document, Mapping) or document.get("schema") != LABELS_SCHEMA:
        raise StoreError(
            f"not a {LABELS_SCHEMA} document", rule="corrupt_file", pointer="/schema", source=source
        )
    labels, approved = document.get("labels", []), document.get("approved", [])
    if not isinstance(labels, list):
        raise _bad(source, "/labels", "must be a list")
    if not isinstance(approved, list) or not all(
        isinstance(item, str) and item for item in approved
    ):
        raise _bad(source, "/approved", "must be a list of bundle ids")
    return Labels(
        tuple(_label_of(item, source, f"/labels/{index}") for index, item in enumerate(labels)),
        tuple(approved),
    )


def labels_text(labels: Labels) -> str:
    """The file's canonical text: labels sorted by what they are about, then by word."""

    def key(label: Label) -> tuple[Any, ...]:
        return (
            label.candidate,
            label.case or "",
            label.bundle or "",
            label.repetition or 0,
            label.label,
        )

    document = {
        "schema": LABELS_SCHEMA,
        "approved": list(labels.approved),
        "labels": [asdict(label) for label in sorted(labels.labels, key=key)],
    }
    return json.dumps(document, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def write_labels(root: Path, change: Any) -> Labels:
    """Apply ``change`` (a function of the current :class:`Labels` giving the new ones) under
    the writer lock and replace the file atomically; returns what was written."""
    with writer_lock(root):
        changed: Labels = change(read_labels(root))
        (root / TMP).mkdir(exist_ok=True)
        written = root / TMP / f".{LABELS}.{os.getpid()}"
        written.write_text(labels_text(changed), encoding="utf-8")
        durable(written)
        replace_file(written, root / LABELS)
    return changed


def with_label(labels: Labels, label: Label) -> Labels:
    """``labels`` with ``label`` (replacing one with the same subject and word)."""
    same = (label.candidate, label.case, label.bundle, label.repetition, label.label)
    kept = [
        item
        for item in labels.labels
        if (item.candidate, item.case, item.bundle, item.repetition, item.label) != same
    ]
    return replace(labels, labels=(*kept, label))


def without_labels(
    labels: Labels, *, candidate: str, case: str | None, label: str | None
) -> tuple[Labels, int]:
    """``labels`` without those of ``candidate`` on ``case`` (the word ``label`` only, when
    given); and how many went."""
    kept = tuple(
        item
        for item in labels.labels
        if not (item.candidate == candidate and item.case == case and label in (None, item.label))
    )
    return replace(labels, labels=kept), len(labels.labels) - len(kept)


def approved_as(labels: Labels, bundles: Sequence[str]) -> Labels:
    """``labels`` with ``bundles`` as the approved baseline."""
    return replace(labels, approved=tuple(bundles))
