"""The ``scorecard`` command line: a thin veneer over the library.

Each command parses its arguments, calls one library function, prints, and maps library errors
to exit codes (0 ok, 1 a gate failed, 2 bad input or usage). Heavy imports (pandas, matplotlib)
happen inside the commands that need them so ``scorecard --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scorecard.contract import ScorecardError

__all__ = ["app", "app_for", "main"]


def _new_app() -> typer.Typer:
    return typer.Typer(
        name="scorecard",
        help="Turn paperclip agent-runner evaluation runs into scorecards people can trust.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )


def _print_version(value: bool) -> None:
    if value:
        from scorecard import __version__

        sys.stdout.write(f"scorecard {__version__}\n")
        raise typer.Exit()


def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Turn paperclip agent-runner evaluation runs into scorecards people can trust."""


#: Command name -> its module ``scorecard.cli._<module>``, which defines ``register(app)``.
COMMANDS = {
    "score": "score",
    "bundle-id": "bundle_id",
    "explain": "explain",
    "compare": "compare",
    "plot": "plot",
    "gate": "gate",
    "history": "history",
    "score-dask": "distributed",
    "report": "report",
    "view": "view",
}
#: Command modules, in the order the full app registers (and its help lists) them.
COMMAND_MODULES = tuple(COMMANDS.values())

_full_app: typer.Typer | None = None
if TYPE_CHECKING:
    app: typer.Typer
    """Every command registered (built on first use, see :func:`full_app`)."""


def full_app() -> typer.Typer:
    """The app with every command registered (built on first use, then the same object)."""
    global _full_app
    if _full_app is None:
        built = _new_app()
        built.callback()(_options)
        for name in COMMAND_MODULES:
            _command_module(name).register(built)
        _full_app = built
    return _full_app


def __getattr__(name: str) -> typer.Typer:
    # ``app`` is built on first use (PEP 562): a run that names its command imports only that
    # command's module.
    if name == "app":
        return full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _command_module(name: str) -> Any:
    return importlib.import_module(f"scorecard.cli._{name}")


def app_for(args: Sequence[str]) -> typer.Typer:
    """The app that runs ``args``: one with only the command they name, if they name one, else
    the full app. Typer builds the click command of every registered command on each run (tens
    of milliseconds for seven), and a run needs one; what it parses and prints is the same.
    Only the named command's module is imported."""
    if args and args[0] in COMMANDS:
        single = _new_app()
        single.callback()(_options)
        _command_module(COMMANDS[args[0]]).register(single)
        return single
    return full_app()


def main() -> None:
    """Console-script entry point."""
    from scorecard.contract import install_stop_handlers

    # Pydantic looks for plugins (the entry points of every installed distribution) when it
    # builds its first validator: milliseconds of every start for plugins that would observe
    # only this program's own validation. Not when the user chose (an empty value loads them
    # all); docs/performance.md, start-up.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # Chunks of a few MiB are read, scored and written: reuse their freed memory instead of
    # faulting in fresh pages for each (scorecard.fast._memory; forked workers inherit it).
    from scorecard.fast import reuse_freed_memory

    install_stop_handlers()
    code: str | int | None
    try:
        reuse_freed_memory()  # the first to read SCORECARD_ENGINE, which may name no engine
        app_for(sys.argv[1:])()
        code = 0
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (contract.Stopped): _end says which
        code = 128 + signal.SIGINT
    except BrokenPipeError:
        # The reader (e.g. `head`) went away: stop quietly, without a traceback at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    except ScorecardError as error:  # an output that cannot be written, found while writing
        sys.stderr.write(f"error: {error}\n")
        code = 2
    except OSError as error:  # standard output full or gone (`> /dev/full`)
        sys.stderr.write(f"error: {_unwritable_stdout(error)}\n")
        code = 2
    except SystemExit as finished:
        code = finished.code
    _end(code)


def _end(code: str | int | None) -> None:
    """Leave with ``code`` without tearing the interpreter down.

    Every command has finished by now: its files are closed (written atomically, in ``with``
    blocks). Worker pools a command left behind (its view cut short by an error or a gone
    reader) are ended first. Freeing the interpreter's objects one by one (pydantic and typer
    hold many) is slow work the operating system does at once, so flush the standard streams
    and go. A stop request (SIGINT, SIGTERM) always exits ``128 + signal``, even when something
    swallowed its first raise.
    """
    from scorecard.contract import stop_requested

    lifetime = sys.modules.get("scorecard.engine._lifetime")  # loaded by any run with workers
    if lifetime is not None:
        lifetime.end_workers()
    stopped = stop_requested()
    if stopped is not None:
        code = 128 + stopped
    if code == 128 + signal.SIGINT or stopped is not None:
        sys.stderr.write("terminated\n" if stopped == signal.SIGTERM else "interrupted\n")
    if isinstance(code, str):
        sys.stderr.write(code + "\n")
        code = 1
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = code or 1
    except OSError as error:
        with contextlib.suppress(OSError):
            sys.stderr.write(f"error: {_unwritable_stdout(error)}\n")
        code = code or 2
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    os._exit(code or 0)


def _unwritable_stdout(error: OSError) -> ScorecardError:
    from scorecard.contract import OutputError

    return OutputError(
        f"cannot write: {error.strerror or type(error).__name__}",
        rule="unwritable",
        source=str(error.filename) if error.filename else "<stdout>",
    )
