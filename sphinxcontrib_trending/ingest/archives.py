"""Transparent reading of compressed and packed inputs, as streams.

A file is recognised by its magic bytes (the suffix only helps to spot a tar
without the POSIX header), so ``output.xml.gz`` renamed to ``.xml`` still
reads.  Archive members are never extracted to disk: each is parsed straight
from its stream, which makes ``..`` and absolute member paths harmless by
construction.  Members may themselves be gzip, xz or bzip2 compressed;
archives inside archives are not opened.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from sphinxcontrib_trending.ingest.replay import Readable, Replay

_SNIFF = 512
_DECOMPRESSORS: tuple[tuple[bytes, Callable[[IO[bytes]], Readable]], ...] = (
    (b"\x1f\x8b", lambda raw: gzip.GzipFile(fileobj=raw, mode="rb")),
    (b"\xfd7zXZ\x00", lzma.LZMAFile),
    (b"BZh", bz2.BZ2File),
)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz")
COMPRESSION_SUFFIX = re.compile(r"\.(gz|xz|bz2)$", re.IGNORECASE)
ARCHIVE_SUFFIX = re.compile(r"\.(zip|tar|tgz|txz|tbz2?|tar\.(gz|xz|bz2))$", re.IGNORECASE)


@dataclass(frozen=True)
class Document:
    """One readable document: the file itself (``member`` None) or a member."""

    member: str | None
    stream: Replay


def _decompressed(raw: Readable) -> Replay:
    """Peel any gzip/xz/bzip2 layer; the result can be sniffed again."""
    sniffed = Replay.peek(raw, _SNIFF)
    for magic, opener in _DECOMPRESSORS:
        if sniffed.head.startswith(magic):
            # The decompressors only ever call read(): a Replay is enough.
            return Replay.peek(opener(cast(IO[bytes], sniffed)), _SNIFF)
    return sniffed


def _is_tar(sniffed: Replay, name: str) -> bool:
    return sniffed.head[257:262] == b"ustar" or name.lower().endswith(_TAR_SUFFIXES)


def iter_documents(path: Path, wanted: Callable[[str], bool]) -> Iterator[Document]:
    """Yield the documents of a local file; each stream is valid until the next.

    ``wanted`` selects archive members by name (``output*.xml`` for Robot).
    Read errors propagate: the caller reports them against the file and
    keeps whatever it read before.
    """
    with ExitStack() as stack:
        raw = stack.enter_context(path.open("rb"))
        magic = raw.read(4)
        raw.seek(0)
        if magic in _ZIP_MAGIC:
            yield from _zip_documents(stack.enter_context(zipfile.ZipFile(raw)), wanted)
            return
        sniffed = _decompressed(raw)
        if _is_tar(sniffed, path.name):
            tar = stack.enter_context(tarfile.open(fileobj=cast(IO[bytes], sniffed), mode="r|"))
            yield from _tar_documents(tar, wanted)
            return
        yield Document(None, sniffed)


def _zip_documents(archive: zipfile.ZipFile, wanted: Callable[[str], bool]) -> Iterator[Document]:
    for info in archive.infolist():
        if info.is_dir() or not wanted(info.filename):
            continue
        with archive.open(info) as member:
            yield Document(info.filename, _decompressed(member))


def _tar_documents(archive: tarfile.TarFile, wanted: Callable[[str], bool]) -> Iterator[Document]:
    for info in archive:
        if not info.isfile() or not wanted(info.name):
            continue
        member = archive.extractfile(info)
        if member is not None:
            yield Document(info.name, _decompressed(member))
