"""Type stubs of the C extension ``_fastscore.c`` (used through :mod:`scorecard.fastpath`)."""

from collections.abc import Callable
from typing import Any

def configure(
    unset: Any,
    reason_json: Callable[[str], str],
    string_json: Callable[[str], str],
    number_text: Callable[[float], str],
    /,
) -> None: ...
def score_line(
    observation: Any, case_plan: tuple[Any, ...], policy_plan: tuple[Any, ...], head: str, /
) -> tuple[str, bool, bool, int] | None: ...
