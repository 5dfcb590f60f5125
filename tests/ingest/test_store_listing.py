"""A local store is listed without fsspec, and its fingerprint's input is what fsspec's was."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

import fsspec

from sphinxcontrib_trending.ingest.store.dataset import _data_files
from sphinxcontrib_trending.ingest.store.listing import file_state, local_entries, location_state


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


def test_linked_files_list_as_fsspec_lists_them_and_linked_folders_are_not_entered(
    tmp_path: Path,
) -> None:
    store, elsewhere = tmp_path / "store", tmp_path / "elsewhere"
    (elsewhere / "day=2024-01-02").mkdir(parents=True)
    (elsewhere / "day=2024-01-02" / "part-1.parquet").write_bytes(b"abc")
    store.mkdir()
    (store / "linked.parquet").symlink_to(elsewhere / "day=2024-01-02" / "part-1.parquet")
    assert location_state(str(store)) == fsspec_state(str(store))
    (store / "test_type=mrr").symlink_to(elsewhere)  # fsspec lists it, as a file
    (store / "back").symlink_to(store)
    (store / "gone.parquet").symlink_to(tmp_path / "missing")
    assert [name for name, *_ in location_state(str(store))] == ["linked.parquet"]
    fs, root = fsspec.core.url_to_fs(str(store))
    assert _data_files(fs, root) == {"linked.parquet": location_state(str(store))[0][1:]}


def test_a_local_store_reads_its_data_files_as_fsspec_lists_them(tmp_path: Path) -> None:
    """What identifies a store's decoded copies (:mod:`.decoded`) is the same listed either way."""
    day = tmp_path / "test_type=mrr" / "day=2024-01-02"
    day.mkdir(parents=True)
    (day / "a1b2c3d4e5f60718-0.parquet").write_bytes(b"x" * 10)
    (tmp_path / "_manifest.json").write_text("{}")
    fs, root = fsspec.core.url_to_fs(str(tmp_path))
    listed = {
        posixpath.relpath(path, root): file_state(info)
        for path, info in fs.find(root, detail=True).items()
    }
    found = _data_files(fs, root)
    assert found == {name: state for name, state in listed.items() if name.endswith(".parquet")}
    assert list(found) == ["test_type=mrr/day=2024-01-02/a1b2c3d4e5f60718-0.parquet"]


def _walked(root: Path, hidden: tuple[str, ...]) -> list[str]:
    """What :func:`os.walk` finds under ``root``, pruned of ``hidden`` names and folders."""
    found = []
    for folder, folders, files in os.walk(root):
        folders[:] = [name for name in folders if not name.startswith(hidden)]
        base = Path(folder).relative_to(root).as_posix()
        prefix = "" if base == "." else f"{base}/"
        found += [prefix + name for name in files if not name.startswith(hidden)]
    return sorted(found)


def test_entries_leave_out_hidden_names_and_folders_as_a_pruned_walk_does(tmp_path: Path) -> None:
    store = tmp_path / "store"
    (store / "test_type=mrr" / "day=1").mkdir(parents=True)
    (store / "_downloads" / "nested").mkdir(parents=True)
    (store / ".hidden").mkdir()
    (store / "_manifest.json").write_text("{}")
    (store / "_downloads" / "nested" / "copy.xml").write_text("x")
    (store / ".hidden" / "part.parquet").write_text("x")
    (store / "test_type=mrr" / "day=1" / "part.parquet").write_text("x")
    (store / "test_type=mrr" / ".part.parquet.tmp").write_text("x")
    (store / "test_type=mrr" / "_lock").write_text("")
    (store / "linked").symlink_to(store / "test_type=mrr", target_is_directory=True)
    (store / "dangling.parquet").symlink_to(tmp_path / "nowhere")
    (store / "extra.txt").write_text("x")

    names = sorted(name for name, _ in local_entries(str(store), hidden=("_", ".")))

    assert names == _walked(store, ("_", "."))
    assert names == ["dangling.parquet", "extra.txt", "test_type=mrr/day=1/part.parquet"]
    everything = sorted(name for name, _ in local_entries(str(store)))
    assert "_downloads/nested/copy.xml" in everything and everything == _walked(store, ())
