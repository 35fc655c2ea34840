"""``js_json`` writes with ``json.dumps`` what Python and JavaScript spell alike and the rest
level by level: whatever the mix, its text is the slow writer's (the definition)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scorecard.contract._jsformat import _js_json_slow, js_json

#: Numbers both ways: tiny and huge floats and integers past 2**53 need the slow writer.
NUMBERS = st.one_of(
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e-5, -3.5e-7, 2.0**60, 0.1, 1e21, 5e-324, 0.0, -0.0]),
)
#: Strings with escapes, non-ASCII, line breaks and lone surrogates (which the slow writer
#: escapes as JavaScript does).
TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list('ab"\\\n\t\u2028é\x00')), st.sampled_from(["\ud800", "\udfff"])
    ),
    max_size=6,
)
KEYS = st.one_of(TEXT, st.sampled_from([True, None, 1, 2.5]))
VALUES: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, TEXT),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(KEYS, children, max_size=4),
    ),
    max_leaves=30,
)


@settings(max_examples=600, deadline=None)
@given(VALUES, st.sampled_from([None, 0, 2, 4]))
def test_js_json_is_the_slow_writers_text(value: Any, indent: int | None) -> None:
    assert js_json(value, indent) == _js_json_slow(value, indent)


def test_a_small_number_deep_inside_leaves_the_rest_to_json_dumps() -> None:
    """A p-value below 1e-4 in one part of a report: that part spelt as JavaScript does, the
    rest (and the nesting) as before."""
    document = {"failures": [{"case": "a", "n": 1}] * 2, "tests": [{"p": 1e-5, "q": [0.5]}]}
    expected = (
        '{\n  "failures": [\n    {\n      "case": "a",\n      "n": 1\n    },\n    {\n'
        '      "case": "a",\n      "n": 1\n    }\n  ],\n  "tests": [\n    {\n'
        '      "p": 0.00001,\n      "q": [\n        0.5\n      ]\n    }\n  ]\n}'
    )
    assert js_json(document, 2) == expected
    assert js_json(document) == (
        '{"failures":[{"case":"a","n":1},{"case":"a","n":1}],"tests":[{"p":0.00001,"q":[0.5]}]}'
    )
