"""Text of CSV and JSON Lines inputs: the encoding detected, nothing dropped.

A byte-order mark decides (UTF-8, UTF-16, UTF-32); UTF-16 without one is
told by the zero byte of its first character.  Otherwise the source's
``encoding`` option is used, and without one UTF-8 with a fallback: from the
first line that is not valid UTF-8 on, the text is read as Latin-1 (which
decodes every byte), and the reader reports that line.  So a spreadsheet's
Latin-1 export loses no row, and says how it was read.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator

from sphinxcontrib_trending.ingest.replay import Readable, Replay

_CHUNK = 64 * 1024
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_BOM_READERS = {
    "utf-8": "utf-8-sig",
    "utf-16-le": "utf-16",
    "utf-16-be": "utf-16",
    "utf-32-le": "utf-32",
    "utf-32-be": "utf-32",
}
"""Codecs that consume the byte-order mark, so it never reaches a header name."""
_ENDING = re.compile(r"\r\n|\r|\n")
_FALLBACK = "latin-1"
_ESCAPED = re.compile("[\udc80-\udcff]")
"""Bytes that were not UTF-8, as ``surrogateescape`` decoding marks them."""


def unicode_signature(head: bytes) -> tuple[str, bool] | None:
    """(codec, has a byte-order mark) when a BOM or the zero byte of a UTF-16
    first character tells the encoding; the codec names the byte order."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name, True
    if len(head) >= 2 and head[0] == 0 and head[1] != 0:
        return "utf-16-be", False
    if len(head) >= 2 and head[0] != 0 and head[1] == 0:
        return "utf-16-le", False
    return None


def detect(head: bytes, configured: str | None) -> str:
    signature = unicode_signature(head)
    if signature is not None and signature[1]:
        return _BOM_READERS[signature[0]]
    if configured is not None:
        return configured
    return "utf-8" if signature is None else signature[0]


class DecodedLines:
    """The lines of a byte stream (endings kept, as ``newline=""`` gives them).

    ``fallback_line`` is the first line read as Latin-1 because it was not
    valid UTF-8 (None when none was); ``encoding`` is what was detected.
    """

    def __init__(self, raw: Readable, configured: str | None) -> None:
        self._stream = Replay.peek(raw, 4)
        self.encoding = detect(self._stream.head, configured)
        self._guessing = self.encoding == "utf-8" and configured is None
        self.fallback_line: int | None = None

    def __iter__(self) -> Iterator[str]:
        errors = "surrogateescape" if self._guessing else "strict"
        decoder = codecs.getincrementaldecoder(self.encoding)(errors)
        unfinished: list[str] = []  # pieces of the line still waiting for its ending
        carried = ""
        number = 0
        while True:
            chunk = self._stream.read(_CHUNK)
            text = carried + decoder.decode(chunk, final=not chunk)
            carried = ""
            if chunk and text.endswith("\r"):
                text, carried = text[:-1], "\r"  # its "\n" may come with the next chunk
            check = self.fallback_line is not None or (
                self._guessing and not text.isascii() and _ESCAPED.search(text) is not None
            )
            *lines, rest = _split(text)
            if unfinished and lines:
                lines[0] = "".join(unfinished) + lines[0]
                unfinished.clear()
            for line in lines:
                number += 1
                yield self._checked(line, number) if check else line
            unfinished.append(rest)
            if not chunk:
                break
        if rest := "".join(unfinished):
            yield self._checked(rest, number + 1)

    def _checked(self, line: str, number: int) -> str:
        if self.fallback_line is None:
            if not self._guessing or _ESCAPED.search(line) is None:
                return line
            self.fallback_line = number
        return line.encode("utf-8", "surrogateescape").decode(_FALLBACK)


def _split(text: str) -> list[str]:
    """Lines with their endings, then the unfinished rest (maybe empty)."""
    if "\r" not in text:
        *lines, rest = text.split("\n")
        return [line + "\n" for line in lines] + [rest]
    pieces = []
    start = 0
    for ending in _ENDING.finditer(text):
        pieces.append(text[start : ending.end()])
        start = ending.end()
    return [*pieces, text[start:]]
