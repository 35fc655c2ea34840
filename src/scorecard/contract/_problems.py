"""Every problem of a policy file at once: :class:`PolicyErrors`, raised by
:func:`raise_policy_problems` after a whole file has been checked.

A person fixing a policy file should see every problem in one run, not one per run. Each
problem stays a located :class:`~scorecard.contract.PolicyError`; several are raised together
as :class:`PolicyErrors`, which is both a ``PolicyError`` (what callers of the policy reader
catch) and an ``InputErrors`` (what the command line prints one per line).
"""

from __future__ import annotations

from collections.abc import Sequence

from ._errors import InputErrors, PolicyError

__all__ = ["PolicyErrors", "raise_policy_problems"]


class PolicyErrors(InputErrors, PolicyError):
    """Several problems of one policy, each a located :class:`PolicyError` in ``errors``."""

    def __init__(self, errors: Sequence[PolicyError]) -> None:
        InputErrors.__init__(self, errors)
        self.message = f"{len(errors)} policy errors"
        self.rule = "policy_errors"
        self.source = errors[0].source if errors else None
        self.args = (self.message,)

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
