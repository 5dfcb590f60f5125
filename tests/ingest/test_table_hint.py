"""A CSV or JSON Lines file read as Robot Framework XML says which format to set.

The command line and a source of conf.py say it the same way, and archives
are never taken for tables.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest.sniffing import not_robot_hint, set_format_hint, sniffed_table
from tests.ingest.conftest import RF7_DAILY, load_paths

CSV_TEXT = "job,build,time,test,value\nj,1,2026-01-01T00:00:00Z,t,1\n"
JSONL_TEXT = '{"job": "j", "build": 1, "test": "t", "values": [1]}\n'


def _tar(member: bytes) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("output.xml")
        info.size = len(member)
        tar.addfile(info, io.BytesIO(member))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("head", "table"),
    [
        (CSV_TEXT.encode(), "csv"),
        (b"\xef\xbb\xbftest;value\r\nt;1\r\n", "csv"),
        (b"test\tvalue\n", "csv"),
        (JSONL_TEXT.encode(), "jsonl"),
        (b"  \n" + JSONL_TEXT.encode(), "jsonl"),
        (b'<?xml version="1.0"?><robot/>', None),
        (b"\xef\xbb\xbf\n<robot/>", None),
        (gzip.compress(CSV_TEXT.encode(), mtime=0), None),
        (b"PK\x03\x04\x14\x00", None),
        (b"\xfd7zXZ\x00\x00", None),
        (b"BZh91AY&SY", None),
        (_tar(b"<robot/>")[:512], None),
        (b"\x00\x01\x02,\x03", None),
        (b"just some words\n", None),
        (b"this is a log file, not XML\n", None),
        (b'"test","build","time"\n', "csv"),
        (b"", None),
    ],
)
def test_only_text_tables_are_taken_for_tables(head: bytes, table: str | None) -> None:
    assert sniffed_table(head) == table


@pytest.mark.parametrize(
    ("name", "data", "table"),
    [
        ("output.xml", CSV_TEXT.encode(), "csv"),
        ("results.csv", CSV_TEXT.encode(), "csv"),
        ("output.xml.gz", gzip.compress(JSONL_TEXT.encode(), mtime=0), "jsonl"),
    ],
)
def test_a_robot_source_over_a_table_says_which_format_to_set(
    tmp_path: Path, name: str, data: bytes, table: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    dataset = load_paths(path)
    assert dataset.builds == []
    assert [(p.origin, p.message, p.subtype) for p in dataset.problems] == [
        (str(path), not_robot_hint(table), "parse")
    ]
    assert f'"format": "{table}"' in not_robot_hint(table)


def test_a_table_inside_an_archive_is_named_with_its_member(tmp_path: Path) -> None:
    archive = tmp_path / "results.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr("run/output.xml", CSV_TEXT)
    (problem,) = load_paths(archive).problems
    assert problem.origin == f"{archive}!run/output.xml"
    assert problem.message == not_robot_hint("csv")


@pytest.mark.parametrize("packing", ["zip", "tar"])
def test_an_archive_without_format_is_read_not_taken_for_a_table(
    tmp_path: Path, capsys, packing: str
) -> None:
    """The command line used to call every file not starting with ``<`` or gzip CSV."""
    source = next(RF7_DAILY.glob("*.xml.gz"))
    member = gzip.decompress(source.read_bytes())
    archive = tmp_path / "results.bin"
    if packing == "zip":
        with zipfile.ZipFile(archive, "w") as packed:
            packed.writestr(source.name.removesuffix(".gz"), member)
    else:
        archive.write_bytes(_tar(member))
    assert main(["export", "--quiet", str(archive)]) == 0
    captured = capsys.readouterr()
    assert "set format" not in captured.err
    assert '"metric": "mrr"' in captured.out


def test_a_folder_of_tables_read_as_robot_says_which_format_to_set(tmp_path: Path) -> None:
    (tmp_path / "runs" / "2026").mkdir(parents=True)
    (tmp_path / "runs" / "2026" / "results.csv").write_text(CSV_TEXT)
    for entry in (tmp_path / "runs", tmp_path / "run*"):
        (problem,) = load_paths(entry).problems
        assert problem.origin == str(entry) and problem.subtype == "source"
        assert problem.message == (
            "matches no robot input files, but holds csv files: " + set_format_hint("csv")
        )


def test_a_folder_with_nothing_readable_says_only_that(tmp_path: Path) -> None:
    (tmp_path / "log.html").write_text("<html/>")
    (problem,) = load_paths(tmp_path, format="csv").problems
    assert problem.message == "matches no csv input files"
