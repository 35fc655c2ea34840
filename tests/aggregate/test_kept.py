"""Kept results of the resampling statistics: the same answers as computed afresh, never shared."""

from __future__ import annotations

import numpy as np

from scorecard.aggregate._kept import kept_by_inputs
from scorecard.aggregate._stats import sign_flip_interval, stratified_permutation_test


def test_a_kept_interval_changed_by_its_caller_is_given_unchanged_next_time() -> None:
    """The caller's copy is its own: writing into it changes no later answer."""
    differences = np.linspace(-0.3, 0.5, 20)
    first_low, first_high = sign_flip_interval(differences, seed=1, key=("kept", "copy"))
    expected = (first_low.copy(), first_high.copy())
    first_low[:] = 5.0
    again = sign_flip_interval(differences, seed=1, key=("kept", "copy"))
    assert [end.tobytes() for end in expected] == [end.tobytes() for end in again]


def test_every_input_that_changes_the_result_is_part_of_the_key() -> None:
    """A function counting its calls is called again for each changed argument, not for a repeat."""
    calls: list[tuple[bytes, int]] = []

    def key(values: np.ndarray, *, seed: int) -> tuple[bytes, int]:
        return (values.tobytes(), seed)

    @kept_by_inputs(key)
    def total(values: np.ndarray, *, seed: int) -> float:
        calls.append((values.tobytes(), seed))
        return float(values.sum()) + seed

    values = np.array([1.0, 2.0])
    assert [total(values, seed=0), total(values, seed=0), total(values, seed=1)] == [3.0, 3.0, 4.0]
    assert total(np.array([1.0, 2.5]), seed=0) == 3.5
    assert len(calls) == 3


def test_a_permutation_p_value_depends_on_the_stream_key() -> None:
    """Two stream keys draw two Monte Carlo streams: the kept answer of one is not the other's."""
    strata = [(np.array([0.2, 0.4, 0.9]), np.array([0.5, 0.7])) for _ in range(6)]
    first = stratified_permutation_test(strata, seed=0, key=("kept", "a"), resamples=500)
    second = stratified_permutation_test(strata, seed=0, key=("kept", "b"), resamples=500)
    assert first != second
    assert stratified_permutation_test(strata, seed=0, key=("kept", "a"), resamples=500) == first


def test_an_array_key_is_small_and_tells_apart_arrays_one_bit_or_one_shape_apart() -> None:
    """The key of a night's runs stays a few dozen bytes (a kept key holds no copy of the
    values), and still names every bit: the next double up, -0.0 for 0.0, or the same values
    in another shape each give another key."""
    from scorecard.aggregate._kept import array_key

    values = np.linspace(0.0, 1.0, 50_000)
    shape, digest = array_key(values)
    assert shape == (50_000,)
    assert isinstance(digest, bytes)
    assert len(digest) <= 64
    assert array_key(values.copy()) == (shape, digest)
    bumped = values.copy()
    bumped[12_345] = np.nextafter(bumped[12_345], 2.0)
    signed = values.copy()
    signed[0] = -0.0
    keys = {array_key(values), array_key(bumped), array_key(signed)}
    keys.add(array_key(values.reshape(100, 500)))
    assert len(keys) == 4
