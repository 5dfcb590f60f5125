"""A forward-only stream whose first bytes were already read for sniffing.

Format detection (compression magic, tar header, XML prolog) must look at a
stream's head without seeking: tar members and decompressors cannot seek
cheaply.  The head is kept and served again before the rest.  It is a real
``io.RawIOBase`` so text wrappers (CSV, JSON Lines) can sit on top.
"""

from __future__ import annotations

import io
from typing import Protocol


class Readable(Protocol):
    """All the stream the parsers need: ``read``."""

    def read(self, size: int = -1, /) -> bytes: ...


class Replay(io.RawIOBase):
    def __init__(self, head: bytes, rest: Readable) -> None:
        super().__init__()
        self._head = head
        self._rest = rest

    @classmethod
    def peek(cls, raw: Readable, size: int) -> Replay:
        """Read up to ``size`` bytes ahead (fewer only at end of stream)."""
        head = b""
        while len(head) < size and (chunk := raw.read(size - len(head))):
            head += chunk
        return cls(head, raw)

    @property
    def head(self) -> bytes:
        """What is still buffered: right after :meth:`peek`, the sniffed bytes."""
        return self._head

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1, /) -> bytes:
        if size is None:
            size = -1
        if not self._head:
            return self._rest.read(size)
        if 0 <= size < len(self._head):
            data, self._head = self._head[:size], self._head[size:]
            return data
        data, self._head = self._head, b""
        rest = self._rest.read(-1 if size < 0 else size - len(data))
        return data + rest

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer: bytearray | memoryview) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)
