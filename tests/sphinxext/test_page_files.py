"""A page's files are written over in place: a shorter text leaves no old tail."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from sphinxcontrib_trending.sphinxext.page_files import write_page_file


def _app(outdir: Path) -> Any:
    builder = SimpleNamespace(get_target_uri=lambda docname: f"{docname}.html")
    return SimpleNamespace(outdir=str(outdir), builder=builder)


def test_a_file_is_written_beside_its_page_in_a_new_folder(tmp_path: Path) -> None:
    name = write_page_file(_app(tmp_path), "trends/graphs", "g-1.js", "é <data>")
    assert name == "graphs.g-1.js"
    assert (tmp_path / "trends" / name).read_text(encoding="utf-8") == "é <data>"


def test_a_longer_and_then_a_shorter_text_replace_the_whole_file(tmp_path: Path) -> None:
    app = _app(tmp_path)
    path = tmp_path / "graphs.g-1.js"
    for text in ("a" * 100, "b" * 5000, "c" * 10):
        write_page_file(app, "graphs", "g-1.js", text)
        assert path.read_text() == text


def test_an_unchanged_file_keeps_its_time_stamp(tmp_path: Path) -> None:
    app = _app(tmp_path)
    write_page_file(app, "graphs", "g-1.js", "same")
    path = tmp_path / "graphs.g-1.js"
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    write_page_file(app, "graphs", "g-1.js", "same")
    assert path.stat().st_mtime_ns == 1_000_000_000
    write_page_file(app, "graphs", "g-1.js", "diff")
    assert path.stat().st_mtime_ns != 1_000_000_000
    assert path.read_text() == "diff"
