"""``js_json`` and ``canonical_json`` write with ``json.dumps`` what Python and JavaScript spell
(and sort) alike and the rest level by level: whatever the mix, their text is the slow writers'
(the definitions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scorecard.contract._jsformat import _canonical_slow, _js_json_slow, canonical_json, js_json

#: Numbers both ways: tiny and huge floats and integers past 2**53 need the slow writer.
NUMBERS = st.one_of(
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e-5, -3.5e-7, 2.0**60, 0.1, 1e21, 5e-324, 0.0, -0.0]),
    # numpy's float64 is a float that json.dumps spells as Python does (1.0): the slow path's
    st.sampled_from([1.0, 0.5, 1e-5, 2.0**60]).map(np.float64),
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


#: Keys whose UTF-16 order is not their code points' (past U+FFFF against U+E000-U+FFFF).
SORTED_TEXT = st.text(
    alphabet=st.sampled_from(["a", "b", "\ue000", "\uffff", "\U0001f600", "\U00010000", "é"]),
    max_size=3,
)
CANONICAL: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, TEXT, SORTED_TEXT),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(SORTED_TEXT, children, min_size=2, max_size=5),
        st.dictionaries(KEYS, children, max_size=4),
    ),
    max_leaves=30,
)


def _written(writer: Callable[[Any], str], value: Any) -> str | type[Exception]:
    try:
        return writer(value)
    except (AttributeError, TypeError, ValueError) as error:  # a key or value JSON has not
        return type(error)


@settings(max_examples=800, deadline=None)
@given(CANONICAL)
def test_canonical_json_is_the_slow_writers_text(value: Any) -> None:
    assert _written(canonical_json, value) == _written(_canonical_slow, value)


def test_canonical_json_sorts_by_utf16_deep_inside() -> None:
    """Keys past U+FFFF sort before U+E000 in UTF-16: the object holding them is written level
    by level, its neighbours by ``json.dumps``; a small number as JavaScript spells it."""
    document = {"b": [{"\U0001f600": 1, "\ue000": 2}], "a": {"y": 1e-5, "x": [2.0, "s"]}}
    assert canonical_json(document) == (
        '{"a":{"x":[2,"s"],"y":0.00001},"b":[{"\U0001f600":1,"\ue000":2}]}'
    )
