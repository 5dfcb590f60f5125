"""Printable ASCII is shown as it is, without a translation; every other text as translated."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sphinxcontrib_trending.render.visible import _REPLACEMENTS, visible


def test_every_character_is_shown_as_its_translation() -> None:
    for code in range(0x3000):
        character = chr(code)
        for text in (character, f"a{character}b", f"{character}\u00e9"):
            assert visible(text) == text.translate(_REPLACEMENTS)


@given(st.text())
def test_any_text_is_shown_as_its_translation(text: str) -> None:
    assert visible(text) == text.translate(_REPLACEMENTS)


def test_printable_ascii_is_the_text_itself_and_a_str_subclass_a_plain_str() -> None:
    name = "64B-2t1c-ethip4-ip4base-ndrpdr ~{}!"
    assert visible(name) is name

    class Text(str):
        pass

    shown = visible(Text("tab\there"))
    assert shown == "tab\there" and type(shown) is str
    assert type(visible(Text("plain"))) is str
