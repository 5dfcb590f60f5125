"""Figures as JSON inside a <script> element: nothing a data string holds can escape it."""

from __future__ import annotations

import json

import orjson
from hypothesis import given
from hypothesis import strategies as st

from sphinxcontrib_trending.render.script_data import script_json


def test_markup_and_line_separators_are_escaped_and_read_back() -> None:
    figure = {"data": [{"name": "</script><script>alert(1)</script>&\u2028\u2029é", "y": [1.5]}]}
    text = script_json(figure)
    for character in "<>&\u2028\u2029":
        assert character not in text
    assert "é" in text  # other text stays as it is, in UTF-8
    assert json.loads(text) == figure


def test_a_number_that_is_not_finite_becomes_null() -> None:
    assert json.loads(script_json({"y": [1.0, float("nan"), float("inf")]})) == {
        "y": [1.0, None, None]
    }


def test_a_lone_surrogate_is_escaped_by_the_standard_encoder() -> None:
    text = script_json({"name": "bad byte \udc80 <b>"})
    assert "\\udc80" in text and "<" not in text
    assert json.loads(text) == {"name": "bad byte \udc80 <b>"}


def test_a_lone_surrogate_beside_a_number_that_is_not_finite_still_gives_null() -> None:
    figure = {"name": "bad byte \udc80", "y": [1.0, float("nan")], "z": ({"w": float("-inf")},)}
    assert json.loads(script_json(figure)) == {
        "name": "bad byte \udc80",
        "y": [1.0, None],
        "z": [{"w": None}],
    }


@given(
    st.recursive(
        st.text() | st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(2**53), 2**53),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    )
)
def test_any_figure_reads_back_as_it_was(figure: object) -> None:
    text = script_json({"figure": figure})
    assert "<" not in text and json.loads(text) == {"figure": figure}


def _escaped_as_text(text: str) -> str:
    """What :func:`script_json` does, a character of the text at a time."""
    for character in "<>&\u2028\u2029":
        text = text.replace(character, f"\\u{ord(character):04x}")
    return text


@given(st.text(alphabet=st.sampled_from('a<>&é€\u2028\u2029\u2027\u202a\U0001f600"\\')))
def test_escaping_the_bytes_gives_what_escaping_the_text_gives(text: str) -> None:
    """Replaced in UTF-8, beside characters that share the separators' first bytes."""
    figure = {"name": text, "y": [1.5]}
    assert script_json(figure) == _escaped_as_text(orjson.dumps(figure).decode())
