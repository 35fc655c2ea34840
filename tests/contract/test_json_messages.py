"""Syntax errors people make most often are named as people name them."""

from __future__ import annotations

import pytest

from scorecard.contract import InputError
from scorecard.contract._json import parse_json_document


def _message(text: str) -> str:
    with pytest.raises(InputError) as caught:
        parse_json_document(text, source="runs.jsonl", line=3)
    assert caught.value.rule == "malformed_json"
    assert caught.value.line == 3
    return caught.value.message


@pytest.mark.parametrize(
    ("text", "closer"),
    [('{"a":1,}', "}"), ("[1,2,]", "]"), ('{"a": [1, 2 , ] }', "]"), ('{"a":1,\n}', "}")],
)
def test_a_trailing_comma_is_called_a_trailing_comma(text: str, closer: str) -> None:
    """The message names the trailing comma and the bracket after it."""
    assert f"trailing comma before '{closer}'" in _message(text)


@pytest.mark.parametrize("line", ["{", "}", "  ],", '  "caseId": "final-response",', '"a": {'])
def test_a_line_of_a_pretty_printed_document_says_so(line: str) -> None:
    """A line that is one piece of an indented document points at the JSON Lines rule."""
    assert "pretty-printed" in _message(line)


@pytest.mark.parametrize("text", ["nonsense", '{"a":1', '{"a" 1}'])
def test_other_mistakes_keep_the_parsers_words(text: str) -> None:
    """Anything else is neither called a trailing comma nor a pretty-printed piece."""
    message = _message(text)
    assert "trailing comma" not in message
    assert "pretty-printed" not in message
