"""A gzip's CRC is checked wherever a gzip is read, even where the reader stops early."""

from __future__ import annotations

import gzip
import io
import struct
import tarfile
from collections.abc import Callable
from pathlib import Path

from tests.hostile.documents import load_here, messages, rf7
from tests.hostile.http_server import Answer, send


def _wrong_crc(data: bytes) -> bytes:
    """``data`` gzipped, its CRC-32 trailer replaced by another number."""
    packed = gzip.compress(data)
    return packed[:-8] + struct.pack("<I", 1) + packed[-4:]


def _tar(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_tar_gz_whose_crc_does_not_match_is_reported(tmp_path: Path) -> None:
    """tarfile stops at the end-of-archive blocks, before the gzip trailer."""
    archive = tmp_path / "archive.tar.gz"
    archive.write_bytes(_wrong_crc(_tar("job__1__output.xml", rf7().encode())))
    dataset = load_here(archive)
    assert [build.build for build in dataset.builds] == ["1"]
    (problem,) = dataset.problems
    assert problem.origin == str(archive)
    assert "archive.tar.gz: gzip CRC check failed" in problem.message
    assert "the data read is kept but may be corrupt" in problem.message


def test_a_gzip_content_encoding_cut_before_its_checksum_is_refused(
    serve: Callable[[Answer], str],
) -> None:
    whole = gzip.compress(rf7().encode())
    url = serve(lambda handler, _n: send(handler, whole[:-8], Content_Encoding="gzip"))
    dataset = load_here(url)
    assert dataset.builds == []
    assert f"{url}: download failed and no cached copy: gzip Content-Encoding cut short" in (
        messages(dataset)
    )
