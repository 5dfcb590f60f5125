"""Entries to inputs: files, directories, globs and URLs; progress messages."""

from __future__ import annotations

import os
from pathlib import Path

from sphinxcontrib_trending.ingest import SourceSpec, load, resolve
from tests.ingest.conftest import RF7_DAILY


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return path


def test_directories_pick_results_and_archives_only(tmp_path: Path) -> None:
    wanted = [
        _touch(tmp_path / "a" / "job__1__output_info.xml.gz"),
        _touch(tmp_path / "a" / "b" / "output.xml"),
        _touch(tmp_path / "bundle.tar.xz"),
        _touch(tmp_path / "c.zip"),
    ]
    for junk in ("a/log.html", "a/report.html", "notes.txt", "a/b/junit.xml"):
        _touch(tmp_path / junk)
    assert resolve(SourceSpec(paths=(str(tmp_path),))) == sorted(str(p) for p in wanted)


def test_formats_choose_their_files(tmp_path: Path) -> None:
    csv = _touch(tmp_path / "r.csv.gz")
    jsonl = _touch(tmp_path / "r.ndjson")
    _touch(tmp_path / "output.xml")
    assert resolve(SourceSpec(paths=(str(tmp_path),), format="csv")) == [str(csv)]
    assert resolve(SourceSpec(paths=(str(tmp_path),), format="jsonl")) == [str(jsonl)]


def test_globs_explicit_files_urls_sorted_unique_absolute(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    first = _touch(tmp_path / "x" / "job__2__output.xml")
    second = _touch(tmp_path / "x" / "deep" / "job__1__output.xml")
    log = _touch(tmp_path / "x" / "log.html")
    url = "https://ci.example.org/job/1/output.xml.gz"
    got = resolve(SourceSpec(paths=("x/**/*.xml", url, str(first), "x/log.html")))
    assert got == sorted([str(first), str(second), str(log), url])
    assert all(os.path.isabs(entry) for entry in got if not entry.startswith("https:"))


def test_glob_matching_a_directory_searches_it(tmp_path: Path) -> None:
    inner = _touch(tmp_path / "runs" / "7" / "output.xml")
    assert resolve(SourceSpec(paths=(str(tmp_path / "run*"),))) == [str(inner)]


def test_progress_reports_parsing_work(tmp_path: Path) -> None:
    messages: list[str] = []
    spec = SourceSpec(paths=(str(RF7_DAILY),))
    load(spec, cache_dir=tmp_path, progress=messages.append)
    assert messages == ["parsing 6 of 6 input(s)"] + [f"parsed {n}/6" for n in range(1, 7)]
    messages.clear()
    load(spec, cache_dir=tmp_path, progress=messages.append)
    assert messages == []  # everything came from the store: no long work


def test_dataset_files_list_every_local_input(tmp_path: Path) -> None:
    dataset = load(SourceSpec(paths=(str(RF7_DAILY), str(tmp_path / "absent.xml"))))
    assert dataset.files == [str(p) for p in sorted(RF7_DAILY.glob("*.xml.gz"))]
