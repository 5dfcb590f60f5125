"""Figures and tables as JSON safe to place in a page's scripts.

Apart from the figure code (:mod:`.figure`), which loads the analysis: the
writer of a rebuild that reads no page, and the builders that draw images,
encode without it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson


def _finite(value: Any) -> Any:
    """``value`` with every number that is not finite made None, as orjson writes it."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def script_json(figure: Any) -> str:
    """JSON safe to place inside a ``<script>`` element (see :func:`script_bytes`)."""
    return script_bytes(figure).decode()


def script_bytes(figure: Any) -> bytes:
    """JSON safe to place inside a ``<script>`` element, in UTF-8.

    ``<``, ``>`` and ``&`` become ``\\u`` escapes, so no data string can close
    the element or open a new one, whatever it contains; so do the line and
    paragraph separators, which JavaScript before 2019 refused in strings.
    orjson writes it: a site has one figure per test, and the standard
    library's encoder took a third of their time.  A number that is not
    finite (none should reach a figure) becomes ``null``, which Plotly
    leaves out, where the standard encoder would stop the build.  A graph's figure
    is kept as these bytes (see :func:`~.figure_files.stash_figure`): made a text,
    then encoded again, it cost a graph page a tenth of a second.
    """
    try:
        data = orjson.dumps(figure)
    except orjson.JSONEncodeError:  # a lone surrogate, which the standard encoder escapes
        data = json.dumps(_finite(figure), separators=(",", ":"), allow_nan=False).encode()
    return _script_safe(data)


def _escapes(characters: str) -> tuple[tuple[bytes, bytes], ...]:
    return tuple(
        (character.encode(), f"\\u{ord(character):04x}".encode()) for character in characters
    )


_MARKUP_ESCAPES = _escapes("<>&")
_SEPARATOR_ESCAPES = _escapes("\u2028\u2029")
"""The line and paragraph separators, which end a line in older JavaScript."""
_SEPARATORS_LEAD = "\u2028".encode()[:1]
"""The first byte of both separators' UTF-8 (and of few other characters)."""


def _script_safe(data: bytes) -> bytes:
    """``data`` (JSON in UTF-8) with markup and separators as ``\\u`` escapes.

    Replaced in the bytes, not the text: Python replaces a character of a
    text by a longer string many times slower than a byte of bytes, and a
    figure is tens of kilobytes.  UTF-8 is safe to replace in: no
    character's bytes occur inside another's.  The separators are looked
    for only where their first byte is: a search for their three bytes
    cost as much as every other replacement together.
    """
    for character, escape in _MARKUP_ESCAPES:
        data = data.replace(character, escape)
    if _SEPARATORS_LEAD in data:
        for character, escape in _SEPARATOR_ESCAPES:
            data = data.replace(character, escape)
    return data
