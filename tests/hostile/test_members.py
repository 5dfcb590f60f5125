"""One bad archive member is named and skipped; the good ones after it are read."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from pathlib import Path

from tests.hostile.documents import load_here, messages, rf7, write

GOOD = rf7().encode()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _encrypted_flag(data: bytes, member: str) -> bytes:
    """Mark one member encrypted in the central directory, as a real encrypted zip is."""
    entry = data.index(b"PK\x01\x02")
    while data[entry + 46 : entry + 46 + len(member)] != member.encode():
        entry = data.index(b"PK\x01\x02", entry + 4)
    flags = int.from_bytes(data[entry + 8 : entry + 10], "little") | 1
    return data[: entry + 8] + flags.to_bytes(2, "little") + data[entry + 10 :]


def _corrupt(data: bytes, member: bytes) -> bytes:
    """Overwrite the middle of a member's compressed data."""
    at = data.index(member) + len(member) + 30
    return data[:at] + b"\xff" * 40 + data[at + 40 :]


def _built(tmp_path: Path, name: str, data: bytes) -> tuple[set[str], str]:
    dataset = load_here(write(tmp_path, name, data), build_pattern=r"(?P<build>\d+)/output")
    return {build.build for build in dataset.builds}, messages(dataset)


def test_an_encrypted_zip_member_is_named_and_skipped(tmp_path: Path) -> None:
    members = {f"{n}/output.xml": GOOD for n in (1, 2, 3)}
    data = _encrypted_flag(_zip(members), "2/output.xml")
    builds, said = _built(tmp_path, "a.zip", data)
    assert builds == {"1", "3"}
    assert "a.zip!2/output.xml: cannot read, skipped:" in said and "encrypted" in said


def test_a_corrupt_zip_member_is_named_and_skipped(tmp_path: Path) -> None:
    big = rf7(prolog=f"<!-- {'padding ' * 4000} -->\n").encode()
    members = {f"{n}/output.xml": big if n == 2 else GOOD for n in (1, 2, 3)}
    builds, said = _built(tmp_path, "a.zip", _corrupt(_zip(members), b"2/output.xml"))
    assert {"1", "3"} <= builds
    assert "a.zip!2/output.xml" in said


def test_a_corrupt_gz_member_of_a_tar_is_named_and_skipped(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for number in (1, 2, 3):
            data = gzip.compress(GOOD)
            if number == 2:
                data = data[:10] + b"\xff" * 20 + data[30:]
            info = tarfile.TarInfo(f"{number}/output.xml.gz")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    builds, said = _built(tmp_path, "a.tar", buffer.getvalue())
    assert builds == {"1", "3"}
    assert "a.tar!2/output.xml.gz: " in said


def test_a_bad_gzip_crc_keeps_the_data_and_says_so(tmp_path: Path) -> None:
    data = bytearray(gzip.compress(GOOD))
    data[-8] ^= 0xFF  # the CRC-32 in the trailer
    builds, said = _built(tmp_path, "7/output.xml.gz", bytes(data))
    assert builds == {"7"}
    assert "gzip CRC check failed" in said and "the data read is kept but may be corrupt" in said
