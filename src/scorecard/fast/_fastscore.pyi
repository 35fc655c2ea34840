"""Type stubs of the C extension (sources in ``src/fastscore/``) (used through :mod:`scorecard.fast._fastpath`)."""

from collections.abc import Callable
from typing import Any, overload

FIELD_NAMES: tuple[str, ...]
"""The observation fields the C code reads (``NAMES`` in ``fastscore.h``)."""

def configure(
    unset: Any,
    reason_json: Callable[[str], str],
    string_json: Callable[[str], str],
    number_text: Callable[[float], str],
    decoder: Any,
    declinable: tuple[type[BaseException], ...],
    identifier_secret: Callable[[str], str | None],
    matches_reference_secret: Callable[[str], bool],
    /,
) -> None: ...
@overload
def score_block(
    block: bytes,
    first_line: int,
    case_plans: dict[str, tuple[Any, ...]],
    policy_plan: tuple[Any, ...],
    heads: dict[str, str],
    /,
) -> tuple[list[str | tuple[int, bytes]], tuple[int, int, int, int]]: ...
@overload
def score_block(
    block: bytes,
    first_line: int,
    case_plans: dict[str, tuple[Any, ...]],
    policy_plan: tuple[Any, ...],
    heads: dict[str, str],
    records: tuple[
        dict[str, tuple[tuple[Any, ...], ...]], dict[str, str], dict[str, str], str, bool, bool, str
    ],
    /,
) -> tuple[
    list[str | list[tuple[str, str, str]] | tuple[int, bytes]], tuple[int, int, int, int]
]: ...
@overload
def score_block(
    block: bytes,
    first_line: int,
    case_plans: dict[str, tuple[Any, ...]],
    policy_plan: tuple[Any, ...],
    heads: dict[str, str],
    rows: tuple[
        tuple[tuple[int, Any], ...], str, dict[str, tuple[str | None, str | None]], float, int, bool
    ],
    detail: int,
    /,
) -> tuple[
    list[tuple[tuple[Any, ...], int, tuple[int, str, bytes] | None] | tuple[int, bytes]],
    tuple[int, int, int, int],
]: ...
def number_records(
    text: str, keys: list[tuple[str, str, str]], repetitions: dict[tuple[str, str, str], int], /
) -> str: ...
def is_unambiguous(line: bytes, /) -> bool: ...
def array_lines(data: bytes | bytearray | memoryview, /) -> bytes | None: ...
def count_newlines(data: bytes | bytearray | memoryview, end: int, /) -> int: ...
def reuse_freed_memory(mmap_threshold: int, trim_threshold: int, /) -> bool: ...
