"""A local store is listed without fsspec, and its fingerprint's input is what fsspec's was."""

from __future__ import annotations

import posixpath
from pathlib import Path

import fsspec

from sphinxcontrib_trending.ingest.store.listing import file_state, location_state


def fsspec_state(location: str) -> list[object]:
    fs, root = fsspec.core.url_to_fs(location)
    listing = fs.find(root, detail=True)
    return [
        [posixpath.relpath(path, root), *file_state(info)] for path, info in sorted(listing.items())
    ]


def test_a_local_folder_lists_as_fsspec_lists_it(tmp_path: Path) -> None:
    store = tmp_path / "store"
    (store / "test_type=mrr" / "day=2024-01-02").mkdir(parents=True)
    (store / "_manifest.json").write_text("{}")
    (store / "test_type=mrr" / "day=2024-01-02" / "part-0.parquet").write_bytes(b"x" * 10)
    (store / "test_type=mrr" / "a.parquet").write_bytes(b"")
    (store / "empty").mkdir()
    for location in (store, store / "_manifest.json", tmp_path / "missing"):
        assert location_state(str(location)) == fsspec_state(str(location))
    assert [name for name, *_ in location_state(str(store))] == [
        "_manifest.json",
        "test_type=mrr/a.parquet",
        "test_type=mrr/day=2024-01-02/part-0.parquet",
    ]


def test_a_changed_file_changes_the_state(tmp_path: Path) -> None:
    (tmp_path / "part.parquet").write_bytes(b"one")
    before = location_state(str(tmp_path))
    (tmp_path / "part.parquet").write_bytes(b"three")
    assert location_state(str(tmp_path)) != before


def test_a_url_is_listed_by_fsspec(tmp_path: Path) -> None:
    (tmp_path / "part.parquet").write_bytes(b"one")
    assert location_state(f"file://{tmp_path}") == fsspec_state(str(tmp_path))
