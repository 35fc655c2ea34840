"""Every problem of a policy file at once: :class:`PolicyErrors`, raised by
:func:`raise_policy_problems` after a whole file has been checked.

A person fixing a policy file should see every problem in one run, not one per run. Each
problem stays a located :class:`~scorecard.contract.PolicyError`; several are raised together
as :class:`PolicyErrors`, a ``PolicyError`` (the family callers of the policy reader catch)
holding each in ``errors``, which the command line prints one per line (as it does an
``InputErrors``'s).
"""

from __future__ import annotations

from collections.abc import Sequence

from ._errors import PolicyError

__all__ = ["PolicyErrors", "raise_policy_problems"]


class PolicyErrors(PolicyError):
    """Several problems of one policy, each a located :class:`PolicyError` in ``errors``."""

    def __init__(self, errors: Sequence[PolicyError]) -> None:
        count = len(errors)
        super().__init__(
            f"{count} policy error{'s' if count != 1 else ''}",
            rule="policy_errors",
            source=errors[0].source if errors else None,
        )
        self.errors = tuple(errors)

    def __reduce__(self) -> tuple[object, ...]:
        return (PolicyErrors, (self.errors,))


def raise_policy_problems(problems: Sequence[PolicyError]) -> None:
    """Raise the one problem as it is, several as :class:`PolicyErrors` in file order; nothing
    when there is none."""
    if len(problems) == 1:
        raise problems[0]
    if problems:  # in file order: by line, those without one (a JSON policy's) as found
        raise PolicyErrors(
            sorted(problems, key=lambda problem: (problem.line is None, problem.line or 0))
        )
