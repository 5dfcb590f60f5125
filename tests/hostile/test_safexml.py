"""The DOCTYPE guard: every encoding the parser could use, linear, bounded."""

from __future__ import annotations

import gzip
import io
import re

import pytest

from sphinxcontrib_trending.ingest.robot import read_robot
from sphinxcontrib_trending.ingest.safexml import MAX_PROLOG_BYTES
from tests.hostile.documents import rf7, rf7_test

DECLARATION = '<?xml version="1.0" encoding="{}"?>\n'
DOCTYPE = '<!DOCTYPE robot [<!ENTITY sec "SECRET">]>\n'
MESSAGE = rf7_test("t1", "X&amp;Y and the rest", status="FAIL")


def _read(data: bytes) -> tuple[list[str], str]:
    run = read_robot(io.BytesIO(data), "doc.xml", version_pattern=re.compile("VPP"))
    return [test.message for test in run.tests], " | ".join(p.message for p in run.problems)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-16"])
@pytest.mark.parametrize("declared", ["UTF-16", None])
def test_a_utf16_doctype_is_refused_with_or_without_bom(codec: str, declared: str | None) -> None:
    prolog = (DECLARATION.format(declared) if declared else "") + DOCTYPE
    tests, said = _read(rf7(rf7_test("t1", "X&sec;Y", status="FAIL"), prolog=prolog).encode(codec))
    assert tests == [] and "document type declaration refused" in said


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("declared", [True, False])
def test_utf16_without_bom_is_read_whole(codec: str, declared: bool) -> None:
    prolog = DECLARATION.format("UTF-16") if declared else ""
    tests, said = _read(rf7(MESSAGE, prolog=prolog).encode(codec))
    assert tests == ["X&Y and the rest"] and said == ""


@pytest.mark.parametrize(
    ("codec", "said"),
    [("utf-32-le", "UTF-32"), ("utf-32-be", "UTF-32"), ("utf-32", "UTF-32"), ("cp037", "EBCDIC")],
)
def test_encodings_the_parser_cannot_read_are_refused_by_name(codec: str, said: str) -> None:
    document = rf7(MESSAGE, prolog=DECLARATION.format(codec)).encode(codec)
    assert f"{said} documents cannot be read" in _read(document)[1]


@pytest.mark.parametrize("declared", ["UTF-16", "UTF-32", "UTF-7", "no-such-codec"])
def test_a_declaration_contradicting_the_bytes_is_refused(declared: str) -> None:
    tests, said = _read(rf7(MESSAGE, prolog=DECLARATION.format(declared)).encode())
    assert tests == [] and "does not match the document's bytes" in said


def test_markup_split_across_chunks_is_judged_right() -> None:
    comment = "<!-- " + "<!DOCTYPE x> " * 6000 + " -->\n"  # a DOCTYPE inside a comment
    assert _read(rf7(MESSAGE, prolog=comment).encode())[0] == ["X&Y and the rest"]
    padded = comment + " " * (64 * 1024 - len(comment) - 1) + DOCTYPE  # "<" ends a chunk
    assert "document type declaration refused" in _read(rf7(MESSAGE, prolog=padded).encode())[1]


def test_a_long_prolog_within_the_limit_is_read() -> None:
    prolog = '<?xml version="1.0"?>\n' + "<!-- c -->\n\t" * ((MAX_PROLOG_BYTES - 100) // 12)
    assert _read(rf7(MESSAGE, prolog=prolog).encode())[0] == ["X&Y and the rest"]


def test_a_whitespace_bomb_prolog_is_refused_at_the_limit() -> None:
    bomb = gzip.compress(b'<?xml version="1.0"?>' + b" " * (16 * 1024 * 1024) + b"<robot/>")
    assert len(bomb) < 20_000
    tests, said = _read(gzip.decompress(bomb))
    assert tests == [] and f"longer than {MAX_PROLOG_BYTES:,} bytes: refused" in said
