"""Untrusted XML, parsed without entities, DTDs or network.

Archives come from CI servers and URLs the site builder does not control.
Robot Framework never writes a document type declaration, so any DOCTYPE is
refused outright before libxml2 sees it: that stops billion-laughs and
external-entity files in microseconds instead of relying on expansion limits.
``huge_tree`` is switched on deliberately: real outputs hold single messages
above libxml2's 10 MB text limit, and with no DTD there is nothing left for
the limit to protect against.
"""

from __future__ import annotations

import re

from sphinxcontrib_trending.ingest.replay import Readable, Replay

PARSER_OPTIONS: dict[str, bool] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "huge_tree": True,
}

_CHUNK = 64 * 1024
_ROOT_START = re.compile(rb"<[A-Za-z_:]")
_DTD = re.compile(rb"<!DOCTYPE|<!ENTITY")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class UnsafeXmlError(ValueError):
    """The document declares a DTD: refused, never expanded."""


def guarded(raw: Readable) -> Replay:
    """The same stream, once its prolog has been checked for a DTD.

    The prolog (everything before the root element) is read ahead and
    replayed, so the parser still sees the whole document.
    """
    head = b""
    while True:
        chunk = raw.read(_CHUNK)
        head += chunk
        prolog = _as_markup_bytes(head)
        root = _ROOT_START.search(prolog)
        end = root.start() if root else len(prolog)
        if _DTD.search(prolog, 0, end):
            raise UnsafeXmlError(
                "document type declaration refused: entity expansion and external "
                "entities are never processed (Robot Framework never writes a DOCTYPE)"
            )
        if root or not chunk:
            return Replay(head, raw)


def _as_markup_bytes(head: bytes) -> bytes:
    """UTF-16 prologs are narrowed to bytes so one byte pattern covers both."""
    if head.startswith(_UTF16_BOMS):
        return head.decode("utf-16", errors="ignore").encode("ascii", errors="replace")
    return head
