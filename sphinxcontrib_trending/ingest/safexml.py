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

The guard must read the prolog in the encoding the parser will use, or a
UTF-16 DOCTYPE without a byte-order mark slips past it.  The encoding is
detected the way the XML specification (appendix F) does it: byte-order
mark, then the first four bytes, then the encoding declaration.  A
declaration that contradicts the bytes (or names UTF-7, which could spell
``<`` as ``+ADw-``) is refused, and a UTF-16 document without a byte-order
mark is handed to the parser with one, so guard and parser always agree.
UTF-32 and EBCDIC, which libxml2's incremental parser cannot read, are
refused with a clear reason.  The scan is linear (each byte is decoded
and looked at once) and bounded by :data:`MAX_PROLOG_BYTES`.
"""

from __future__ import annotations

import codecs
import re

from sphinxcontrib_trending.ingest.replay import Readable, Replay
from sphinxcontrib_trending.ingest.textcodec import unicode_signature

PARSER_OPTIONS: dict[str, bool] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "huge_tree": True,
}

MAX_PROLOG_BYTES = 1024 * 1024
"""A prolog (before the root element) longer than this is refused; RF writes ~50 bytes."""

_CHUNK = 64 * 1024
_UTF16_BOMS = {"utf-16-be": codecs.BOM_UTF16_BE, "utf-16-le": codecs.BOM_UTF16_LE}
_DECLARED = re.compile(rb"""^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")
_ASCII = bytes(range(128))
_SPACE = re.compile("[ \t\r\n\ufeff]*")


class UnsafeXmlError(ValueError):
    """The document declares a DTD, or hides its prolog: refused, never expanded."""


def _wide_encoding(head: bytes) -> str | None:
    """UTF-16/32 told by a byte-order mark or by where the zero bytes of ``<`` lie."""
    if head.startswith(b"\x00\x00\x00<"):
        return "utf-32-be"
    if head.startswith(b"<\x00\x00\x00"):
        return "utf-32-le"
    signature = unicode_signature(head)
    return None if signature is None or signature[0] == "utf-8" else signature[0]


def _ascii_compatible(name: str) -> bool:
    """Does the codec read every ASCII byte as itself (not UTF-7, not UTF-16)?"""
    try:
        return _ASCII.decode(name) == _ASCII.decode("ascii")
    except (LookupError, UnicodeError):
        return False


def detect_encoding(head: bytes) -> str:
    """The codec the prolog is read with; ``UnsafeXmlError`` when the bytes and the
    declaration disagree (libxml2 would then read something the guard did not)."""
    wide = _wide_encoding(head)
    if wide is not None and wide.startswith("utf-32"):
        raise UnsafeXmlError("UTF-32 documents cannot be read: re-encode as UTF-8 or UTF-16")
    if wide is not None:
        return wide
    if head.startswith(b"\x4c\x6f\xa7\x94"):
        raise UnsafeXmlError("EBCDIC documents cannot be read: re-encode as UTF-8")
    declared = _DECLARED.match(head)
    if declared is None:
        return "utf-8"
    name = declared.group(1).decode("ascii")
    if not _ascii_compatible(name):
        raise UnsafeXmlError(
            f"encoding declaration {name!r} does not match the document's bytes "
            "(or is unknown): refused"
        )
    return "latin-1"  # only ASCII markup is looked at; any ASCII superset reads it alike


class _PrologScanner:
    """Character-level state machine over the prolog, fed chunk by chunk."""

    def __init__(self, encoding: str) -> None:
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._pending = ""
        self._closing: str | None = None  # "?>" or "-->" while inside a PI or comment

    def feed(self, data: bytes, final: bool) -> bool | None:
        """True: a ``<!`` declaration precedes the root; False: the root (or
        something the parser will reject) comes first; None: need more."""
        text = self._pending + self._decoder.decode(data, final)
        self._pending = ""
        at, end = 0, len(text)
        while at < end:
            if self._closing is not None:
                close = text.find(self._closing, at)
                if close < 0:
                    self._pending = text[max(at, end - len(self._closing) + 1) :]
                    return None
                at, self._closing = close + len(self._closing), None
                continue
            at = _SPACE.match(text, at).end()
            if at == end:
                break
            if text[at] != "<":
                return False
            if end - at < 4 and not final:
                self._pending = text[at:]
                return None
            if text.startswith("<?", at):
                at, self._closing = at + 2, "?>"
            elif text.startswith("<!--", at):
                at, self._closing = at + 4, "-->"
            else:
                return text.startswith("<!", at)
        return None


def guarded(raw: Readable) -> Replay:
    """The same stream, once its prolog has been checked for a DTD.

    The prolog is read ahead and replayed, so the parser still sees the whole
    document (with a byte-order mark put in front when its encoding was told
    by the zero bytes alone).
    """
    head = b""
    scanner: _PrologScanner | None = None
    encoding = "utf-8"
    while True:
        chunk = raw.read(_CHUNK)
        head += chunk
        if scanner is None:
            if len(head) < 4 and chunk:
                continue
            encoding = detect_encoding(head)
            scanner = _PrologScanner(encoding)
            verdict = scanner.feed(head, final=not chunk)
        else:
            verdict = scanner.feed(chunk, final=not chunk)
        if verdict:
            raise UnsafeXmlError(
                "document type declaration refused: entity expansion and external "
                "entities are never processed (Robot Framework never writes a DOCTYPE)"
            )
        if verdict is False or not chunk:
            break
        if len(head) > MAX_PROLOG_BYTES:
            raise UnsafeXmlError(
                f"the prolog before the root element is longer than {MAX_PROLOG_BYTES:,} "
                "bytes: refused"
            )
    bom = _UTF16_BOMS.get(encoding, b"")
    return Replay(head if head.startswith(bom) else bom + head, raw)
