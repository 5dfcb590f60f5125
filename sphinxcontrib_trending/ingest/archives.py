"""Transparent reading of compressed and packed inputs, as streams.

A file is recognised by its magic bytes (the suffix only helps to spot a tar
without the POSIX header, and a ``.zip`` whose first bytes are damaged), so
``output.xml.gz`` renamed to ``.xml`` still reads.  Archive members are never
extracted to disk: each is parsed straight from its stream, which makes
``..`` and absolute member paths harmless by construction.  Members may
themselves be gzip, xz or bzip2 compressed; archives inside archives are not
opened.

Every decompressed byte is charged to the input's :class:`Budget`, so a
bomb is refused at the cap.  A member that cannot be opened (encrypted,
corrupt header or data) is still yielded, with a stream that raises its
error when read: the caller names it and goes on with the next member.
A gzip CRC or length failure comes after the last byte; it is recorded in
the budget instead of raised, so the data read is kept and reported.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from sphinxcontrib_trending.ingest.limits import Budget, Counted
from sphinxcontrib_trending.ingest.replay import Readable, Replay

_SNIFF = 512
_DECOMPRESSORS: tuple[tuple[bytes, Callable[[IO[bytes]], Readable]], ...] = (
    (b"\x1f\x8b", lambda raw: gzip.GzipFile(fileobj=raw, mode="rb")),
    (b"\xfd7zXZ\x00", lzma.LZMAFile),
    (b"BZh", bz2.BZ2File),
)
_TRAILER_FAILURES = ("CRC check failed", "Incorrect length of data produced")
MEMBER_ERRORS = (
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    tarfile.TarError,
    zipfile.BadZipFile,
    NotImplementedError,  # zipfile: unsupported compression method
    RuntimeError,  # zipfile: encrypted member
)
"""What reading one member or file can raise; one member's error spares the others."""
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz")
COMPRESSION_SUFFIX = re.compile(r"\.(gz|xz|bz2)$", re.IGNORECASE)
ARCHIVE_SUFFIX = re.compile(r"\.(zip|tar|tgz|txz|tbz2?|tar\.(gz|xz|bz2))$", re.IGNORECASE)


@dataclass(frozen=True)
class Document:
    """One readable document: the file itself (``member`` None) or a member."""

    member: str | None
    stream: Replay


class _Failing:
    """The stream of a member that could not be opened: reading it raises why."""

    def __init__(self, error: Exception) -> None:
        self._error = error

    def read(self, size: int = -1, /) -> bytes:
        raise self._error


class _TrailerChecked:
    """A gzip stream whose CRC/length failure at its very end is recorded, not raised.

    ``read1`` hands out what the gzip buffer holds before asking for more, so
    no decompressed byte is lost in the buffer when the trailer check fails.
    """

    def __init__(self, raw: gzip.GzipFile, budget: Budget, label: str) -> None:
        self._raw = raw
        self._budget = budget
        self._label = label
        self._ended = False

    def read(self, size: int = -1, /) -> bytes:
        if self._ended:
            return b""
        if size is None or size < 0:
            return b"".join(iter(lambda: self.read(_SNIFF * 128), b""))
        try:
            return self._raw.read1(size)
        except gzip.BadGzipFile as error:
            if not str(error).startswith(_TRAILER_FAILURES):
                raise
            self._budget.damaged.append(f"{self._label}: gzip {error}")
            self._ended = True
            return b""


def _decompressed(raw: Readable, budget: Budget, label: str) -> Replay:
    """Peel any gzip/xz/bzip2 layer; the result can be sniffed again."""
    sniffed = Replay.peek(raw, _SNIFF)
    for magic, opener in _DECOMPRESSORS:
        if sniffed.head.startswith(magic):
            # The decompressors only ever call read(): a Replay is enough.
            opened = opener(cast(IO[bytes], sniffed))
            if isinstance(opened, gzip.GzipFile):
                opened = _TrailerChecked(opened, budget, label)
            return Replay.peek(Counted(opened, budget), _SNIFF)
    return sniffed


def _is_zip(raw: IO[bytes], name: str) -> bool:
    """A zip by its first bytes, or a ``.zip`` whose directory at the end is intact.

    A zip is read from its central directory, so damage at the start (the
    first member's header) spares the other members; only the name makes
    the end worth a look, as any file might end in bytes that look like one.
    """
    magic = raw.read(4)
    raw.seek(0)
    if magic in _ZIP_MAGIC:
        return True
    found = name.lower().endswith(".zip") and zipfile.is_zipfile(raw)
    raw.seek(0)
    return found


def _is_tar(sniffed: Replay, name: str) -> bool:
    return sniffed.head[257:262] == b"ustar" or name.lower().endswith(_TAR_SUFFIXES)


def iter_documents(path: Path, wanted: Callable[[str], bool], budget: Budget) -> Iterator[Document]:
    """Yield the documents of a local file; each stream is valid until the next.

    ``wanted`` selects archive members by name (``output*.xml`` for Robot).
    Read errors propagate: the caller reports them against the file (or the
    member) and keeps whatever it read before.
    """
    with ExitStack() as stack:
        raw = stack.enter_context(path.open("rb"))
        if _is_zip(raw, path.name):
            archive = stack.enter_context(zipfile.ZipFile(raw))
            yield from _zip_documents(archive, wanted, budget)
            return
        sniffed = _decompressed(raw, budget, path.name)
        if _is_tar(sniffed, path.name):
            tar = stack.enter_context(tarfile.open(fileobj=cast(IO[bytes], sniffed), mode="r|"))
            yield from _tar_documents(tar, wanted, budget)
            # tarfile stops at the end-of-archive blocks; a .tar.gz's CRC comes after them
            while sniffed.read(_SNIFF * 128):
                pass
            return
        yield Document(None, sniffed)


def _member(
    name: str, open_member: Callable[[], Readable | None], budget: Budget, inflated: bool
) -> Document:
    """``inflated``: the member's own bytes are an expansion (zip), not bytes the tar
    stream was already charged for."""
    try:
        member = open_member()
        if member is None:
            raise tarfile.ExtractError("not a regular file")
        raw = Counted(member, budget) if inflated else member
        return Document(name, _decompressed(raw, budget, name))
    except MEMBER_ERRORS as error:
        return Document(name, Replay(b"", _Failing(error)))


def _zip_documents(
    archive: zipfile.ZipFile, wanted: Callable[[str], bool], budget: Budget
) -> Iterator[Document]:
    for info in archive.infolist():
        if info.is_dir() or not wanted(info.filename):
            continue
        yield _member(info.filename, lambda info=info: archive.open(info), budget, True)


def _tar_documents(
    archive: tarfile.TarFile, wanted: Callable[[str], bool], budget: Budget
) -> Iterator[Document]:
    for info in archive:
        if not info.isfile() or not wanted(info.name):
            continue
        yield _member(info.name, lambda info=info: archive.extractfile(info), budget, False)
