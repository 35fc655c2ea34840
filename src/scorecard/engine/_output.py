"""Where a command may write: one guard for every output path, checked before any work.

An output must never be one of the inputs (``score in.jsonl --out in.jsonl`` would replace the
observations with scorecards), never a folder, and never twice the same file. A special file
(a terminal, ``/dev/null``, a FIFO, a link to ``/dev/stdout``) is written to, not replaced: the
atomic writers of :mod:`scorecard.engine._io` ask :func:`is_special_file` and open it directly.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from scorecard.contract import InputError

__all__ = ["is_special_file", "output_problems"]

#: Suffixes discovery reads as observation or records inputs inside a folder.
_INPUT_SUFFIXES = frozenset({".json", ".jsonl"})


def is_special_file(path: str | Path) -> bool:
    """Whether ``path`` (links followed) exists and is neither a regular file nor a folder."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


def _bad(option: str, message: str) -> InputError:
    return InputError(message, rule="bad_output", source=option)


def _read_as_input(output: Path, inputs: Sequence[str]) -> bool:
    """Whether the existing file ``output`` is one of ``inputs`` or found inside one of them."""
    identity = _identity(output)
    if identity is None or not output.is_file():
        return False
    resolved = output.resolve()
    for given in inputs:
        if given == "-":
            continue
        source = Path(given)
        if _identity(source) == identity:
            return True
        if source.is_dir() and output.suffix in _INPUT_SUFFIXES:
            folder = source.resolve()
            if folder in resolved.parents:
                return True
    return False


def output_problems(
    outputs: Mapping[str, Path | None],
    inputs: Sequence[str] = (),
    *,
    folders: Sequence[str] = (),
) -> list[InputError]:
    """What is wrong with the output paths (option name -> path, None when not given).

    ``folders`` names the options whose path is a folder to write into (``plot all --out``, a
    partitioned dataset); every other output must be a file.
    """
    problems: list[InputError] = []
    seen: dict[tuple[int, int] | str, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        if str(path) in ("", "."):
            problems.append(_bad(option, "the output path is empty"))
            continue
        if is_special_file(path):
            continue  # written to in place, whatever else reads it
        if path.is_dir() and option not in folders:
            problems.append(_bad(option, "the output path is a folder; give a file name"))
            continue
        parent = path.parent
        if parent.exists() and not parent.is_dir():
            problems.append(_bad(option, "the output's folder is a file"))
            continue
        if _read_as_input(path, inputs):
            problems.append(
                _bad(option, "the output is one of the inputs; writing it would replace them")
            )
            continue
        key: tuple[int, int] | str = _identity(path) or str(path.resolve())
        if key in seen:
            problems.append(_bad(option, f"the output is also the {seen[key]} output"))
            continue
        seen[key] = option
    return problems
