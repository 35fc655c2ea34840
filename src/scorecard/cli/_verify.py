"""``scorecard verify OUTPUT``: an output's receipt checked against its inputs as they are now.

Prints ``identical`` (exit 0) or ``differs: CAUSE: ...`` naming the first difference (exit 1):
an input whose bytes changed, another catalog, policy, seed, version or payload
(``docs/receipts.md``). An output without a receipt, or inputs that no longer read, exit 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ._common import EXIT_FAILED, EXIT_OK, WorkersOption, library_errors

OutputArgument = Annotated[
    Path,
    typer.Argument(
        help="A gate's JSON (`scorecard gate --json FILE`), a `scorecard compare --format json` "
        "output, or a report site's folder (its receipt.json), carrying its receipt.",
    ),
]
VerifyStoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help="Read the bundles from this store instead of the one the receipt names (an "
        "output made from a store).",
        show_default=False,
    ),
]


def verify(
    output: OutputArgument, store: VerifyStoreOption = None, workers: WorkersOption = None
) -> None:
    """Re-read the inputs OUTPUT's receipt names, compute it again, and say whether it is
    identical or name the first difference. Run it from the folder the output was made in
    (the receipt keeps paths as they were given)."""
    from scorecard.api import verify as verify_output

    with library_errors():
        found = verify_output(output, store=store, workers=workers)
    for note in found.notes:
        sys.stderr.write(f"note: {note}\n")
    sys.stdout.write(found.line + "\n")
    raise typer.Exit(EXIT_OK if found.identical else EXIT_FAILED)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""
    app.command("verify")(verify)
