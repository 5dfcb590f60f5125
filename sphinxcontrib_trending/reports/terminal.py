"""Data text made safe for a terminal or a CI log.

A module of its own, with no imports, so that the commands that print data
(``ingest`` too, which needs nothing of the analysis) do not load the
verdict tables to escape a file name.
"""

from __future__ import annotations

_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))}


def visible(text: str) -> str:
    """Control characters from data (ESC, NUL, BEL, newlines) shown as ``\\xNN``:
    a terminal must not be steered, nor a table row split, by a test name."""
    return text.translate(_CONTROLS)
