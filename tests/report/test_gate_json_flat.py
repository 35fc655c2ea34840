"""The gate JSON writes rule outcomes and alerts as ``dataclasses.asdict`` would, without its
deep copy: that holds while their fields stay scalars and tuples of scalars."""

from __future__ import annotations

import dataclasses
import typing

from scorecard.aggregate import Alert
from scorecard.gate import RuleOutcome
from scorecard.report._gate_json import _flat

_SCALARS = {str, int, float, bool, type(None)}


def _flat_type(annotation: object) -> bool:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return True
    if origin is tuple:
        return all(arg is Ellipsis or _flat_type(arg) for arg in typing.get_args(annotation))
    if origin is not None:  # a union
        return all(_flat_type(arg) for arg in typing.get_args(annotation))
    return annotation in _SCALARS


def test_outcome_and_alert_fields_are_flat() -> None:
    for kind in (RuleOutcome, Alert):
        hints = typing.get_type_hints(kind)
        for field in dataclasses.fields(kind):
            assert _flat_type(hints[field.name]), (kind.__name__, field.name)


def test_flat_is_asdict() -> None:
    outcome = RuleOutcome(
        rule="safety",
        status="fail",
        candidate="c",
        subject="s",
        summary="x",
        detail="d",
        dimensions=("hard_invariants", "lifecycle_integrity"),
    )
    alert = Alert(
        kind="success_rate_regression", severity="critical", message="m", candidate="c", value=0.5
    )
    for item in (outcome, alert):
        assert _flat(item) == dataclasses.asdict(item)
        assert list(_flat(item)) == list(dataclasses.asdict(item))
