"""``scorecard label add|remove|list --store STORE``: what people say about a candidate's runs
on a case (``quarantined`` runs never fail a gate; every label is shown), and
``scorecard baseline approve|show``: the approved baseline (``gate --baseline approved``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ._common import library_errors

StoreArgument = Annotated[
    Path, typer.Option("--store", help="The campaign store.", show_default=False)
]
CandidateOption = Annotated[
    str, typer.Option("--candidate", help="The candidate the label is about.", show_default=False)
]
CaseOption = Annotated[
    str | None,
    typer.Option("--case-id", help="The case (default: every case).", show_default=False),
]
WordOption = Annotated[
    str,
    typer.Option("--label", help="quarantined (never fails a gate), known-issue, or another word."),
]
RunOption = Annotated[
    str | None,
    typer.Option(
        "--bundle", help="One run only: its bundle (with --repetition).", show_default=False
    ),
]
RepetitionOption = Annotated[
    int | None,
    typer.Option("--repetition", min=1, help="One run only: its repetition.", show_default=False),
]
OwnerOption = Annotated[str, typer.Option("--owner", help="Who looks after it.")]
ReasonOption = Annotated[str, typer.Option("--reason", help="Why, in a sentence.")]
ExpiresOption = Annotated[
    str | None,
    typer.Option(
        "--expires",
        help="The last night (YYYY-MM-DD) it applies to; later nights are judged without it.",
        show_default=False,
    ),
]
BundlesArgument = Annotated[
    list[str], typer.Argument(help="The bundle ids of the approved baseline.", show_default=False)
]


def add(
    store: StoreArgument,
    candidate: CandidateOption,
    label: WordOption = "quarantined",
    case: CaseOption = None,
    bundle: RunOption = None,
    repetition: RepetitionOption = None,
    owner: OwnerOption = "",
    reason: ReasonOption = "",
    expires: ExpiresOption = None,
) -> None:
    """Label a candidate on a case (or one run): quarantined, known-issue, ..."""
    from scorecard.api import add_label
    from scorecard.store import Label

    made = Label(candidate, label, case, bundle, repetition, owner, reason, expires)
    with library_errors():
        labels = add_label(store, made)
    sys.stdout.write(f"labelled: {made.describe()} ({len(labels.labels)} labels)\n")


def remove(
    store: StoreArgument,
    candidate: CandidateOption,
    case: CaseOption = None,
    label: Annotated[str | None, typer.Option("--label", help="Only this word.")] = None,
) -> None:
    """Remove a candidate's labels on a case (or its every-case labels)."""
    from scorecard.api import remove_labels

    with library_errors():
        count = remove_labels(store, candidate, case, label)
    sys.stdout.write(f"removed {count} label{'s' if count != 1 else ''}\n")


def show(store: StoreArgument) -> None:
    """List the labels, each marked as applying to the newest night or expired before it."""
    from scorecard.api import store_labels
    from scorecard.contract import printable

    with library_errors():
        labels, night = store_labels(store)
    for item in labels.labels:
        state = "applies" if item.applies_on(night) else "expired"
        sys.stdout.write(printable(f"{state}: {item.describe()}") + "\n")
    approved = ", ".join(labels.approved) or "none"
    sys.stdout.write(printable(f"approved baseline: {approved}") + "\n")


def approve(store: StoreArgument, bundles: BundlesArgument) -> None:
    """Make these bundles the approved baseline (`gate --store S --baseline approved`)."""
    from scorecard.api import approve_baseline
    from scorecard.contract import printable

    with library_errors():
        labels = approve_baseline(store, bundles)
    sys.stdout.write(printable("approved baseline: " + ", ".join(labels.approved)) + "\n")


def _group(help_text: str) -> typer.Typer:
    return typer.Typer(
        help=help_text,
        no_args_is_help=True,
        context_settings={"help_option_names": ["-h", "--help"]},
    )


def register(app: typer.Typer) -> None:
    """Add ``label`` (add, remove, list) to ``app``."""
    labels = _group("Label a candidate's runs on a case in a campaign store.")
    labels.command("add")(add)
    labels.command("remove")(remove)
    labels.command("list")(show)
    app.add_typer(labels, name="label")


def register_baseline(app: typer.Typer) -> None:
    """Add ``baseline`` (approve, show) to ``app``."""
    baseline = _group("The approved baseline of a campaign store.")
    baseline.command("approve")(approve)
    baseline.command("show")(show)
    app.add_typer(baseline, name="baseline")
