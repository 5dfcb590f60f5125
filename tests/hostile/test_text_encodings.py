"""CSV and JSON Lines in UTF-16, Latin-1 or with a BOM: read whole, and said how."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest import SpecError
from sphinxcontrib_trending.ingest.textcodec import DecodedLines
from tests.hostile.documents import load_here, write

ROWS = [("s.caf\u00e9", 1, 10.0), ("s.t", 2, 11.0), ("s.na\u00efve", 3, 12.0)]
CSV = "test,build,time,value\r\n" + "".join(
    f"{test},{build},2024-05-0{build}T00:00:00Z,{value}\r\n" for test, build, value in ROWS
)


def _tests(path: Path, **options: object) -> tuple[list[str], list[str]]:
    dataset = load_here(path, **options)
    return [b.tests[0].test_id for b in dataset.builds], [str(p) for p in dataset.problems]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig", "utf-32"])
def test_unicode_encodings_are_detected(tmp_path: Path, codec: str) -> None:
    tests, problems = _tests(write(tmp_path, "r.csv", CSV.encode(codec)), format="csv")
    assert tests == ["s.caf\u00e9", "s.t", "s.na\u00efve"] and problems == []


def test_latin1_without_the_option_is_read_whole_and_reported(tmp_path: Path) -> None:
    ascii_rows = "".join(f"s.t,{n},2024-06-0{n}T00:00:00Z,1\n" for n in (4, 5, 6))
    text = "test,build,time,value\n" + ascii_rows + CSV.split("\n", 1)[1]
    tests, problems = _tests(write(tmp_path, "r.csv", text.encode("latin-1")), format="csv")
    assert tests == ["s.caf\u00e9", "s.t", "s.na\u00efve", "s.t", "s.t", "s.t"]
    (problem,) = problems
    assert ":5: not valid UTF-8 from here on: read as Latin-1" in problem


def test_the_encoding_option_is_used_without_a_bom(tmp_path: Path) -> None:
    path = write(tmp_path, "r.csv", CSV.encode("cp1252"))
    assert _tests(path, format="csv", encoding="cp1252") == (
        ["s.caf\u00e9", "s.t", "s.na\u00efve"],
        [],
    )
    with pytest.raises(SpecError, match="not a known text encoding"):
        load_here(path, format="csv", encoding="klingon")


def test_json_lines_in_utf16(tmp_path: Path) -> None:
    text = "".join(
        json.dumps({"test": test, "build": build, "time": "2024-05-01T00:00:00Z", "value": 1})
        + "\n"
        for test, build, _value in ROWS
    )
    tests, problems = _tests(write(tmp_path, "r.jsonl", text.encode("utf-16")), format="jsonl")
    assert tests == ["s.caf\u00e9", "s.t", "s.na\u00efve"] and problems == []


def test_lines_keep_their_endings_across_chunks() -> None:
    data = ("a" * 65_535 + "\r\n" + "b\rc\n" + "x" * 200_000 + "\nlast").encode()
    lines = list(DecodedLines(io.BytesIO(data), None))
    assert lines == ["a" * 65_535 + "\r\n", "b\r", "c\n", "x" * 200_000 + "\n", "last"]
