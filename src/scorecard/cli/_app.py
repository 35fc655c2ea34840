"""The ``scorecard`` command line: a thin veneer over the library.

Each command parses its arguments, calls one library function and prints; library errors
become exit codes in one place (``_exit_codes``: 2 for bad input, usage, a bad catalog or
policy, an output that cannot be written), verdicts are the commands' own (the gate's 0, 1, 3).
Heavy imports (pandas, matplotlib) happen inside the commands that need them so ``scorecard
--help`` stays fast.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from scorecard.contract import OutputError, ScorecardError

from ._exit_codes import exit_code, reporting

Command = TypeVar("Command", bound=Callable[..., Any])

__all__ = ["app", "app_for", "main", "new_app"]


class _App(typer.Typer):
    """A typer app whose every command ends its library errors through ``_exit_codes``."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[Command], Command]:
        register = super().command(*args, **kwargs)

        def registered(function: Command) -> Command:
            register(reporting(function))
            return function

        return registered


def new_app() -> typer.Typer:
    """An app without commands, its library errors mapped to exit codes as every command's."""
    return _App(
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
    "ingest": "ingest",
    "query": "query",
    "label": "label",
    "baseline": "baseline",
    "score-dask": "distributed",
    "report": "report",
    "view": "view",
    "verify": "verify",
}
#: Command modules, in the order the full app registers (and its help lists) them.
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))

_full_app: typer.Typer | None = None
if TYPE_CHECKING:
    app: typer.Typer
    """Every command registered (built on first use, see :func:`full_app`)."""


def full_app() -> typer.Typer:
    """The app with every command registered (built on first use, then the same object)."""
    global _full_app
    if _full_app is None:
        built = new_app()
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
        single = new_app()
        single.callback()(_options)
        _command_module(COMMANDS[args[0]]).register(single)
        return single
    return full_app()


REUSE_FREED_MEMORY = "SCORECARD_REUSE_FREED_MEMORY"
"""The environment variable that, set to ``1``, asks the command line to keep freed memory for
reuse (glibc's allocator: :func:`scorecard.fast.reuse_freed_memory`). A large run then faults in
far fewer fresh pages (``docs/performance.md``, "The chunks' memory"); it changes the whole
process, so it is never done unasked."""


def main() -> None:
    """Console-script entry point: run the command ``sys.argv`` names and leave through
    :func:`sys.exit` with its exit code, so the interpreter ends as it always does (``atexit``
    handlers, Dask's shutdown and coverage run). Nothing about the process is changed that
    the user did not ask for: its environment is left as it is, and the allocator is tuned
    only when ``SCORECARD_REUSE_FREED_MEMORY=1`` asks for it (:data:`REUSE_FREED_MEMORY`)."""
    from scorecard.contract import install_stop_handlers

    if os.environ.get(REUSE_FREED_MEMORY) == "1":
        from scorecard.fast import reuse_freed_memory

        reuse_freed_memory()  # before any worker is forked: they inherit it
    install_stop_handlers()
    code: str | int | None
    stdout_failed = False
    try:
        app_for(sys.argv[1:])()
        code = 0
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (contract.Stopped): _ended says which
        code = 128 + signal.SIGINT
    except BrokenPipeError:  # the reader (e.g. `head`) went away: stop quietly
        code, stdout_failed = 1, True
    except ScorecardError as error:  # raised outside a command (typer's own output)
        sys.stderr.write(f"error: {error}\n")
        code = exit_code(error)
    except (OSError, UnicodeEncodeError) as error:  # stdout full, gone, or not Unicode
        unwritable = _unwritable_stdout(error)
        sys.stderr.write(f"error: {unwritable}\n")
        code, stdout_failed = exit_code(unwritable), True
    except SystemExit as finished:
        code = finished.code
    sys.exit(_ended(code, stdout_failed=stdout_failed))


def _ended(code: str | int | None, *, stdout_failed: bool = False) -> int:
    """The exit status of a run that ended with ``code`` (a ``SystemExit`` code), once what it
    leaves behind is settled.

    Worker pools a command left behind (its view cut short by an error or a gone reader) are
    ended first. A stop request (SIGINT, SIGTERM) always gives ``128 + signal``, even when
    something swallowed its first raise. ``None`` is 0, and a message is printed and gives 1,
    as Python does. Standard output is flushed here, so that a failure to write it is reported
    once (not again if ``stdout_failed`` already did) and a reader that went away is quiet;
    what it still holds then goes to ``/dev/null``, so the interpreter's own flush as it exits
    neither prints an error nor changes the status.
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
        code, stdout_failed = code or 1, True
    except OSError as error:
        unwritable = _unwritable_stdout(error)
        if not stdout_failed:
            with contextlib.suppress(OSError):
                sys.stderr.write(f"error: {unwritable}\n")
        code, stdout_failed = code or exit_code(unwritable), True
    if stdout_failed:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    return code or 0


def _unwritable_stdout(error: OSError | UnicodeEncodeError) -> OutputError:
    """Standard output that failed as it was written: full (``> /dev/full``), gone, or in an
    encoding that cannot hold the text (``PYTHONIOENCODING=ascii``)."""
    if isinstance(error, UnicodeEncodeError):
        return OutputError(
            f"cannot write: the text cannot be encoded as {error.encoding} (set "
            "PYTHONIOENCODING=utf-8)",
            rule="unwritable",
            source="<stdout>",
        )
    return OutputError(
        f"cannot write: {error.strerror or type(error).__name__}",
        rule="unwritable",
        source=str(error.filename) if error.filename else "<stdout>",
    )
