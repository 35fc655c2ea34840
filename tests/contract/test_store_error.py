"""``StoreError``: located like an input error, secret-free, and picklable (workers)."""

from __future__ import annotations

import pickle

from scorecard.contract import InputError, ScorecardError, StoreError


def test_a_store_error_is_located_and_never_echoes_a_secret() -> None:
    """File, pointer and rule in one line; a secret-shaped part redacted."""
    error = StoreError(
        "bundle sk-abcdefghijklmnopqrstu is unknown",
        rule="unknown_bundle",
        source="store/index.json",
        pointer="/bundles/3",
    )
    assert (
        str(error) == "store/index.json /bundles/3: bundle [redacted] is unknown [unknown_bundle]"
    )
    assert error.to_record()["message"] == "bundle [redacted] is unknown"
    assert isinstance(error, ScorecardError)
    assert not isinstance(error, InputError)


def test_a_store_error_survives_pickling() -> None:
    """Every location keyword comes back."""
    error = StoreError("truncated", rule="corrupt_file", source="s/x.parquet", line=3, index=2)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.message, copy.rule, copy.source, copy.line, copy.index) == (
        "truncated",
        "corrupt_file",
        "s/x.parquet",
        3,
        2,
    )
