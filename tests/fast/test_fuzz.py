"""The byte-level fuzzer (``tests/fast/fuzzing.py``) on the built extension: mutated lines are
declined by the C fast path or scored as the Python path scores them, alone and in blocks.
A bounded, derandomized run; ``dev/fuzz.py`` runs longer ones."""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scorecard.contract._catalog import Catalog
from tests.conftest import c_only
from tests.fast.fuzzing import check_array, check_block, check_line, mutated_lines, seed_lines

pytestmark = c_only("the fuzzer holds the C fast path to the Python path")

FUZZ = settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FUZZ
@given(raw=mutated_lines())
def test_a_mutated_line_is_declined_or_scored_as_python_scores_it(
    raw: bytes, catalog: Catalog
) -> None:
    """Any mutation of a valid line: the C path declines it or writes the Python path's line
    and counts (and never declines a plainly valid line in runner order)."""
    event("C answered" if check_line(raw, catalog) else "C declined")


@settings(FUZZ, max_examples=60)
@given(
    lines=st.lists(mutated_lines() | st.sampled_from(seed_lines()), min_size=1, max_size=4),
    first_line=st.sampled_from([1, 41]),
)
def test_a_block_of_mutated_lines_gives_the_general_paths_text_and_rows(
    lines: list[bytes], first_line: int, catalog: Catalog
) -> None:
    """Mutated lines among valid ones in one block (a mutation may split a line, or add a
    byte order mark or a carriage return): the text, rows, errors and line numbers of the
    general path."""
    check_block(lines, first_line, catalog)


@settings(FUZZ, max_examples=60)
@given(
    lines=st.lists(mutated_lines() | st.sampled_from(seed_lines()), min_size=1, max_size=4),
    pretty=st.booleans(),
)
def test_a_json_array_of_mutated_lines_gives_the_general_paths_text_and_rows(
    lines: list[bytes], pretty: bool, catalog: Catalog
) -> None:
    """Mutated lines as the elements of a ``.json`` array (a mutation may add a newline, a
    bracket or a quote that leaves the array unsplittable): the general path's text, rows and
    errors, whichever path scored it."""
    check_array(lines, pretty, catalog)
