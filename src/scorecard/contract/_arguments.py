"""Arguments of the public functions checked where they enter: a clear ``TypeError`` or
``ValueError`` naming the function, the parameter and what it takes, instead of a failure seven
frames down.

A public function declares what each parameter takes::

    @arguments(paths=Takes.paths, catalog=Takes.catalog, policy=Takes.policy)
    def score_paths(paths, *, catalog, policy=None, workers=None): ...

Each check either passes the value on or gives it in the form the function reads (an iterable
of paths becomes a list, so a generator is read once), or raises. Paths are ``str`` or
:class:`os.PathLike` (a :class:`~pathlib.Path`) alike wherever one is taken; a single path
where a list of them is taken is refused (a string would be read as its letters).
:class:`~scorecard.contract.Takes` names the checks; this module holds those that read no
contract type, so the catalog's own module can use them without an import circle.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ParamSpec, TypeVar

__all__ = [
    "arguments",
    "check_optional_path",
    "check_optional_text",
    "check_path",
    "check_paths",
    "check_seed",
    "check_text",
    "check_texts",
    "check_workers",
    "kind_of",
]

P = ParamSpec("P")
R = TypeVar("R")

Check = Callable[[Any, str], Any]
"""A parameter's check: ``check(value, where)`` gives the value the function reads, or raises
(``where`` is ``function(): parameter``)."""


def kind_of(value: Any) -> str:
    """How a message names the type of a value (``None``, ``int``, ``PosixPath``)."""
    return "None" if value is None else type(value).__name__


def check_path(value: Any, where: str) -> Any:
    """A path: ``str`` or :class:`os.PathLike` of text, not empty."""
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{where} must be a path (str or pathlib.Path), not {kind_of(value)}")
    text = os.fspath(value)
    if not isinstance(text, str):
        raise TypeError(f"{where} must be a text path, not {type(text).__name__}")
    if not text:
        raise ValueError(f"{where} is an empty path")
    return value


def check_optional_path(value: Any, where: str) -> Any:
    """A path, or None."""
    return None if value is None else check_path(value, where)


def check_paths(value: Any, where: str) -> Any:
    """An iterable of paths (a list, a tuple): read once, given on as a list."""
    if value is None or isinstance(value, str | bytes | os.PathLike | Mapping):
        single = " (a single path: give [path])" if isinstance(value, str | os.PathLike) else ""
        raise TypeError(f"{where} must be a list of paths, not {kind_of(value)}{single}")
    if not isinstance(value, Iterable):
        raise TypeError(f"{where} must be a list of paths, not {kind_of(value)}")
    items = list(value)
    for index, item in enumerate(items):
        check_path(item, f"{where}[{index}]")
    return items


def check_text(value: Any, where: str) -> Any:
    """A string."""
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a str, not {kind_of(value)}")
    return value


def check_optional_text(value: Any, where: str) -> Any:
    """A string, or None."""
    return None if value is None else check_text(value, where)


def check_texts(value: Any, where: str) -> Any:
    """A list of strings (ids), not one string (it would be read as its letters)."""
    if value is None or isinstance(value, str | bytes | Mapping):
        single = " (a single id: give [id])" if isinstance(value, str) else ""
        raise TypeError(f"{where} must be a list of str, not {kind_of(value)}{single}")
    if not isinstance(value, Iterable):
        raise TypeError(f"{where} must be a list of str, not {kind_of(value)}")
    items = list(value)
    for index, item in enumerate(items):
        check_text(item, f"{where}[{index}]")
    return items


def _whole(value: Any, where: str, *, minimum: int) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where} must be an int, not {kind_of(value)}")
    if value < minimum:
        raise ValueError(f"{where} must be at least {minimum}")
    return value


def check_workers(value: Any, where: str) -> Any:
    """A count of processes (at least 1), or None (the default)."""
    return None if value is None else _whole(value, where, minimum=1)


def check_seed(value: Any, where: str) -> Any:
    """A seed: a non-negative int."""
    return _whole(value, where, minimum=0)


def arguments(**checks: Check) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Check the named parameters of the decorated function when it is called (before a
    generator function's first step), each with its check, and call it with what the checks
    give."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        code = function.__code__
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        unknown = set(checks) - set(names)
        if unknown:
            raise TypeError(f"{function.__name__} has no parameter {', '.join(sorted(unknown))}")
        name = function.__qualname__
        signatures: list[Any] = []  # made on the first call: inspect is slow to import

        @functools.wraps(function)
        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            if not signatures:
                import inspect

                signatures.append(inspect.signature(function))
            try:
                bound = signatures[0].bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(f"{name}(): {error}") from None
            for parameter, check in checks.items():
                if parameter in bound.arguments:
                    value = bound.arguments[parameter]
                    bound.arguments[parameter] = check(value, f"{name}(): {parameter}")
            return function(*bound.args, **bound.kwargs)

        return checked

    return decorate
