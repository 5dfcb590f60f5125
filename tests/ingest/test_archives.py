"""Compressed and packed inputs read transparently, never extracted to disk."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.ingest.conftest import RF6, RF7_DAILY, load_paths

RF6_FILE = RF6 / "csit-vpp-perf-mrr-daily-master__1120__output_info.xml"
XML = RF6_FILE.read_bytes()


def _reference_tests() -> list:
    return list(load_paths(RF6_FILE).builds[0].tests)


@pytest.mark.parametrize(
    ("suffix", "pack"),
    [
        (".xml.gz", gzip.compress),
        (".xml.xz", lzma.compress),
        (".xml.bz2", bz2.compress),
        (".xml", lambda data: data),
    ],
)
def test_single_compressed_files(tmp_path: Path, suffix: str, pack) -> None:
    path = tmp_path / f"job__9__output{suffix}"
    path.write_bytes(pack(XML))
    dataset = load_paths(path)
    assert dataset.problems == []
    (build,) = dataset.builds
    assert (build.job, build.build) == ("job", "9")
    assert list(build.tests) == _reference_tests()


def test_compression_is_recognised_by_content_not_suffix(tmp_path: Path) -> None:
    path = tmp_path / "job__9__output.xml"
    path.write_bytes(lzma.compress(XML))
    assert list(load_paths(path).builds[0].tests) == _reference_tests()


def _tar(path: Path, mode: str, members: dict[str, bytes]) -> None:
    with tarfile.open(path, mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


MEMBERS = {
    "csit-vpp-perf-mrr-daily-master__1120__output_info.xml": XML,
    "nested/job__77__output.xml.gz": gzip.compress(XML.replace(b"2n-icx", b"2n-zn2")),
    "archive/output_info.xml": XML.replace(b"2n-icx", b"2n-tx2"),
    "log.html": b"<html>not a result</html>",
}


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("bundle.tar", "w"),
        ("bundle.tar.gz", "w:gz"),
        ("bundle.tgz", "w:gz"),
        ("bundle.tar.xz", "w:xz"),
        ("bundle.tar.bz2", "w:bz2"),
        ("bundle.zip", None),
    ],
)
def test_archives_read_every_output_member(tmp_path: Path, name: str, mode: str | None) -> None:
    path = tmp_path / f"fallback__5__{name}"
    if mode is None:
        _zip(path, MEMBERS)
    else:
        _tar(path, mode, MEMBERS)
    dataset = load_paths(path)
    assert dataset.problems == []
    identity = {(b.job, b.build, b.testbed) for b in dataset.builds}
    # Member names give the identity; a member without one falls back to the archive's name.
    assert identity == {
        ("csit-vpp-perf-mrr-daily-master", "1120", "2n-icx"),
        ("job", "77", "2n-zn2"),
        ("fallback", "5", "2n-tx2"),
    }
    assert all(b.origin.startswith(str(path) + "!") for b in dataset.builds)
    assert all(list(b.tests) == _reference_tests() for b in dataset.builds)


def test_member_paths_escaping_the_folder_are_read_in_place(tmp_path: Path) -> None:
    evil = {
        "../../escaped__1__output.xml": XML,
        "/tmp/absolute__2__output.xml": XML,
    }
    work = tmp_path / "work"
    work.mkdir()
    tar_path, zip_path = work / "evil.tar", work / "evil.zip"
    _tar(tar_path, "w", evil)
    _zip(zip_path, evil)
    cache = tmp_path / "cache"
    before = set(tmp_path.rglob("*"))
    dataset = load_paths(tar_path, zip_path, cache_dir=cache)
    assert {(b.job, b.build) for b in dataset.builds} == {("escaped", "1"), ("absolute", "2")}
    assert len(dataset.problems) == 2 and {p.subtype for p in dataset.problems} == {"duplicate"}
    created = set(tmp_path.rglob("*")) - before
    # Nothing but cache entries appeared, and nothing outside the cache.
    assert created and all(cache in p.parents or p == cache for p in created)
    assert not any(p.name.startswith(("escaped", "absolute")) for p in created)
    assert not Path("/tmp/absolute__2__output.xml").exists()


def test_archive_without_results_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "logs.tar.gz"
    _tar(path, "w:gz", {"log.html": b"<html/>", "report.html": b"<html/>"})
    dataset = load_paths(path)
    assert dataset.builds == []
    (problem,) = dataset.problems
    assert problem.origin == str(path) and "no robot results" in problem.message


def test_non_xml_member_is_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    path = tmp_path / "mixed.zip"
    _zip(path, {"a__1__output.xml": b"\x00\x01 binary junk", "b__2__output.xml": XML})
    dataset = load_paths(path)
    assert [(b.job, b.build) for b in dataset.builds] == [("b", "2")]
    (problem,) = dataset.problems
    assert problem.origin == f"{path}!a__1__output.xml"
    assert problem.subtype == "parse" and problem.line == 1


def test_corrupt_compression_is_reported_against_the_file(tmp_path: Path) -> None:
    data = gzip.compress(XML)
    path = tmp_path / "job__1__output.xml.gz"
    path.write_bytes(data[: len(data) // 2])
    broken = tmp_path / "job__2__output.xml.gz"
    broken.write_bytes(data[:20] + b"\xff" * 200 + data[220:])
    good = tmp_path / "job__3__output.xml.gz"
    good.write_bytes(data)
    dataset = load_paths(tmp_path)
    assert [b.build for b in dataset.builds] == ["3"]
    origins = sorted(p.origin for p in dataset.problems if p.subtype == "parse")
    assert origins == [str(path), str(broken)]


def test_bad_zip_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "bad.zip"
    path.write_bytes(b"PK\x03\x04" + os.urandom(64))
    dataset = load_paths(path)
    assert dataset.builds == []
    assert dataset.problems[0].origin == str(path)
    assert "cannot read" in dataset.problems[0].message


def test_many_members_of_one_job(tmp_path: Path) -> None:
    path = tmp_path / "all.tar.xz"
    _tar(
        path,
        "w:xz",
        {
            p.name.removesuffix(".gz"): gzip.decompress(p.read_bytes())
            for p in sorted(RF7_DAILY.glob("*.xml.gz"))
        },
    )
    assert [b.build for b in load_paths(path).builds] == ["101", "102", "103", "104", "105", "106"]


def _daily_zip(path: Path) -> list[zipfile.ZipInfo]:
    members = {
        p.name.removesuffix(".gz"): gzip.decompress(p.read_bytes())
        for p in sorted(RF7_DAILY.glob("*.xml.gz"))[:3]
    }
    _zip(path, members)
    with zipfile.ZipFile(path) as archive:
        return archive.infolist()


@pytest.mark.parametrize("damage", ["header", "data"])
def test_a_zip_whose_first_member_is_corrupt_keeps_the_others(tmp_path: Path, damage: str) -> None:
    """A zip is read from its directory at the end: damage at its start spares the rest."""
    path = tmp_path / "daily.zip"
    first, *_ = _daily_zip(path)
    data = bytearray(path.read_bytes())
    if damage == "header":
        data[0:4] = b"\x00\x00\x00\x00"  # the first member's signature: no zip magic left
    else:
        start = first.header_offset + 30 + len(first.filename)
        data[start + 100 : start + 400] = b"\xff" * 300
    path.write_bytes(bytes(data))
    dataset = load_paths(path)
    assert [b.build for b in dataset.builds] == ["102", "103"]
    (problem,) = dataset.problems
    assert problem.origin == f"{path}!{first.filename}"
    assert problem.subtype == "parse"


def test_only_a_zip_s_name_makes_its_end_worth_a_look(tmp_path: Path) -> None:
    path = tmp_path / "daily.bin"
    _daily_zip(path)
    data = bytearray(path.read_bytes())
    data[0:4] = b"\x00\x00\x00\x00"
    path.write_bytes(bytes(data))
    dataset = load_paths(path)
    assert dataset.builds == []
    assert [p.origin for p in dataset.problems] == [str(path)]
