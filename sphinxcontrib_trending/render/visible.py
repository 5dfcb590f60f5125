"""Data text made visible: control characters are shown, never passed on raw.

Test names, versions and messages come from archives nobody here wrote.  An
ESC, NUL or BEL in them is invisible in HTML, corrupts an attribute (a NUL
inside ``aria-label``) and can drive a terminal.  Each one is replaced by
its Unicode control picture (ESC becomes U+241B), so a reader sees that the
data holds it.  Tab, newline and carriage return are ordinary whitespace and
stay.
"""

from __future__ import annotations

_WHITESPACE = {0x09, 0x0A, 0x0D}
_REPLACEMENTS = {
    **{code: chr(0x2400 + code) for code in range(0x20) if code not in _WHITESPACE},
    0x7F: "\u2421",
    **{code: "\ufffd" for code in range(0x80, 0xA0)},
}
"""C0 controls and DEL as control pictures; C1 controls, which have none, as U+FFFD."""


def visible(text: str) -> str:
    # printable ASCII has nothing to replace: a table's hundreds of thousands of
    # cells are checked in C, not translated character by character
    if type(text) is str and text.isascii() and text.isprintable():
        return text
    return text.translate(_REPLACEMENTS)
