"""What a public function's parameter takes: the checks :func:`~scorecard.contract.arguments`
is given, by name (``@arguments(paths=Takes.paths, policy=Takes.policy)``), those of the
contract's own types (a policy, a catalog) beside the plain ones of :mod:`._arguments`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ._arguments import (
    check_optional_path,
    check_optional_text,
    check_path,
    check_paths,
    check_seed,
    check_text,
    check_texts,
    check_workers,
    kind_of,
)

__all__ = ["Takes"]


def _policy(value: Any, where: str) -> Any:
    """A :class:`~scorecard.contract.Policy`, or None (the reference defaults)."""
    from ._policy import Policy

    if value is None or isinstance(value, Policy):
        return value
    hint = (
        "; Policy.from_overrides(weights, thresholds) makes one from mappings, "
        "load_policy(path) from a file"
        if isinstance(value, Mapping | str | os.PathLike)
        else ""
    )
    raise TypeError(f"{where} must be a scorecard.Policy or None, not {kind_of(value)}{hint}")


def _policy_source(value: Any, where: str) -> Any:
    """A policy file's path, a :class:`~scorecard.contract.PolicyFile` read already, or None."""
    from ._policy import PolicyFile

    if value is None or isinstance(value, PolicyFile):
        return value
    if isinstance(value, str | os.PathLike):
        return check_path(value, where)
    raise TypeError(
        f"{where} must be a path (a policy file's), a PolicyFile or None, not {kind_of(value)}"
    )


def _catalog(value: Any, where: str) -> Any:
    """A :class:`~scorecard.contract.Catalog` (``load_catalog()``)."""
    from ._catalog import Catalog

    if not isinstance(value, Catalog):
        hint = "; load_catalog(folder) reads one" if isinstance(value, str | os.PathLike) else ""
        raise TypeError(f"{where} must be a scorecard.Catalog, not {kind_of(value)}{hint}")
    return value


def _optional_catalog(value: Any, where: str) -> Any:
    """A catalog, or None (the bundled cases)."""
    return None if value is None else _catalog(value, where)


class Takes:
    """What a parameter takes: the checks :func:`arguments` is given, by name."""

    path = staticmethod(check_path)
    optional_path = staticmethod(check_optional_path)
    paths = staticmethod(check_paths)
    text = staticmethod(check_text)
    optional_text = staticmethod(check_optional_text)
    texts = staticmethod(check_texts)
    workers = staticmethod(check_workers)
    seed = staticmethod(check_seed)
    policy = staticmethod(_policy)
    policy_source = staticmethod(_policy_source)
    catalog = staticmethod(_catalog)
    optional_catalog = staticmethod(_optional_catalog)
