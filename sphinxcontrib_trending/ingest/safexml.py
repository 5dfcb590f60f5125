"""Untrusted XML, parsed without entities, DTDs or network.

Archives come from CI servers and URLs the site builder does not control.
Robot Framework never writes a document type declaration, so any DOCTYPE is
refused outright before libxml2 sees a byte: the prolog (everything before
the root element: declaration, comments, processing instructions) is scanned
exactly, which stops billion-laughs and external-entity files in
microseconds instead of relying on expansion limits.  ``huge_tree`` is then
switched on deliberately: real outputs hold single messages above libxml2's
10 MB text limit, and with no DTD there is nothing left for the limit to
protect against.
"""

from __future__ import annotations

from sphinxcontrib_trending.ingest.replay import Readable, Replay

PARSER_OPTIONS: dict[str, bool] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "huge_tree": True,
}

_CHUNK = 64 * 1024
_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_SPACE = b" \t\r\n"


class UnsafeXmlError(ValueError):
    """The document declares a DTD: refused, never expanded."""


def _declares_dtd(head: bytes) -> bool | None:
    """True: a ``<!DOCTYPE`` (or other ``<!`` declaration) precedes the root;
    False: the root (or something the parser will reject) comes first;
    None: the prolog goes on past ``head``.
    """
    at, end = (len(_UTF8_BOM) if head.startswith(_UTF8_BOM) else 0), len(head)
    while True:
        while at < end and head[at] in _SPACE:
            at += 1
        if at >= end:
            return None
        if head.startswith(b"<?", at):
            close = head.find(b"?>", at + 2)
            if close < 0:
                return None
            at = close + 2
        elif head.startswith(b"<!--", at):
            close = head.find(b"-->", at + 4)
            if close < 0:
                return None
            at = close + 3
        else:
            return head.startswith(b"<!", at)


def guarded(raw: Readable) -> Replay:
    """The same stream, once its prolog has been checked for a DTD.

    The prolog is read ahead and replayed, so the parser still sees the whole
    document.
    """
    head = b""
    while True:
        chunk = raw.read(_CHUNK)
        head += chunk
        verdict = _declares_dtd(_as_markup_bytes(head))
        if verdict:
            raise UnsafeXmlError(
                "document type declaration refused: entity expansion and external "
                "entities are never processed (Robot Framework never writes a DOCTYPE)"
            )
        if verdict is False or not chunk:
            return Replay(head, raw)


def _as_markup_bytes(head: bytes) -> bytes:
    """UTF-16 prologs are narrowed to bytes so one scan covers both."""
    if head.startswith(_UTF16_BOMS):
        return head.decode("utf-16", errors="ignore").encode("ascii", errors="replace")
    return head
