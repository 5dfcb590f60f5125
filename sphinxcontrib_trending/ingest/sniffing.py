"""Is a document that should be Robot Framework XML really a table (CSV, JSON Lines)?

``robot`` is the default format, so a CSV or JSON Lines source whose format
was left out is read as XML, and "malformed XML" says nothing about the
cause.  The command line (before it reads anything) and the robot reader
(for a source of conf.py) both ask here, and say the same thing: which
format to set.
"""

from __future__ import annotations

SNIFF_BYTES = 512
"""How much of a document's start decides; the archive layer peeks this much anyway."""

_LEADING = b"\xef\xbb\xbf \t\r\n"
"""A UTF-8 byte-order mark and whitespace, which may precede either kind of text."""
_COMPRESSED = (b"\x1f\x8b", b"\xfd7zXZ\x00", b"BZh", b"PK\x03\x04")
_DELIMITERS = (",", ";", "\t")


def sniffed_table(head: bytes) -> str | None:
    """``jsonl`` or ``csv`` when ``head`` (a document's first bytes) is one; else None.

    JSON Lines starts with ``{``; CSV with a header row: printable text
    split by a delimiter into at least two column names, none with a space
    inside (so a log's sentence with a comma is not a table).  XML,
    compressed, binary and empty documents are None: their own readers name
    what is wrong with them.
    """
    text = head.lstrip(_LEADING)
    if not text or text.startswith(b"<") or text.startswith(_COMPRESSED):
        return None
    if text.startswith(b"{"):
        return "jsonl"
    try:
        first_line = text.split(b"\n", 1)[0].decode("utf-8").rstrip("\r")
    except UnicodeDecodeError:
        return None
    return "csv" if any(_is_header(first_line, d) for d in _DELIMITERS) else None


def _is_header(line: str, delimiter: str) -> bool:
    names = [name.strip().strip('"') for name in line.split(delimiter)]
    return len(names) > 1 and all(name.isprintable() and name.split() == [name] for name in names)


def set_format_hint(fmt: str) -> str:
    """How to choose format ``fmt``, wherever the source was given."""
    return (
        f'set format {fmt} ("format": "{fmt}" in the source in conf.py, '
        f"--format {fmt} on the command line)"
    )


def not_robot_hint(fmt: str) -> str:
    """What to say about a document of format ``fmt`` read as Robot Framework XML."""
    return (
        f"looks like {fmt.upper()}, not Robot Framework XML (the default format); "
        + set_format_hint(fmt)
    )
