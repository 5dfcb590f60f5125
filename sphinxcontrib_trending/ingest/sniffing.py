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
_DELIMITERS = (b",", b";", b"\t")


def sniffed_table(head: bytes) -> str | None:
    """``jsonl`` or ``csv`` when ``head`` (a document's first bytes) is one; else None.

    JSON Lines starts with ``{``; CSV is a first line of text with a
    delimiter.  XML, compressed data, binary data and empty documents are
    None: their own readers name what is wrong with them.
    """
    text = head.lstrip(_LEADING)
    if not text or text.startswith(b"<") or text.startswith(_COMPRESSED):
        return None
    if text.startswith(b"{"):
        return "jsonl"
    first_line = text.split(b"\n", 1)[0]
    try:
        decoded = first_line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = decoded.rstrip("\r").replace("\t", " ").isprintable()
    return "csv" if printable and any(d in first_line for d in _DELIMITERS) else None


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
