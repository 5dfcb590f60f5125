"""Saved searches in batch files: read where they lie, files deleted or compacted when stale."""

from __future__ import annotations

import json
from pathlib import Path

from sphinxcontrib_trending.analysis.search_store import (
    SearchStore,
    StateReader,
    free_read_files,
    write_states,
)


def stored(tmp_path: Path, count: int) -> tuple[SearchStore, Path, list[tuple[str, str, bytes]]]:
    """A saved index of ``count`` states of different lengths, written in one batch file."""
    store = SearchStore(tmp_path, "scope")
    assert store.folder is not None
    store.folder.mkdir(parents=True)
    states = [(f"s{n}", f"c{n}", bytes([n]) * (100 + n)) for n in range(count)]
    for (identity, content, _), place in zip(
        states, write_states(store.folder, states), strict=True
    ):
        store.record(identity, content, 1, place)
    store.save()
    (batch,) = store.folder.iterdir()
    return store, batch, states


def replace_states(store: SearchStore, identities: list[str]) -> None:
    assert store.folder is not None
    for identity in identities:
        state = [(identity, "newer", b"new state")]
        store.record(identity, "newer", 2, write_states(store.folder, state)[0])
    store.save()


def read_back(tmp_path: Path, count: int) -> dict[str, bytes]:
    """Every state ``s0`` to ``s<count - 1>`` as a fresh store finds it through its index."""
    store = SearchStore(tmp_path, "scope")
    found = {}
    with StateReader() as reader:
        for identity in (f"s{n}" for n in range(count)):
            saved = store.saved(identity)
            assert saved is not None
            found[identity] = reader.read(store.ref(saved))
    return found


def test_a_batch_s_states_are_read_back_where_they_lie(tmp_path: Path) -> None:
    _, _, states = stored(tmp_path, 5)
    assert read_back(tmp_path, 5) == {identity: state for identity, _, state in states}


def test_a_mostly_stale_file_is_rewritten_with_the_states_it_still_holds(tmp_path: Path) -> None:
    store, batch, states = stored(tmp_path, 4)
    replace_states(store, ["s0", "s1", "s2"])
    assert not batch.exists()
    assert read_back(tmp_path, 4) == {
        "s0": b"new state",
        "s1": b"new state",
        "s2": b"new state",
        "s3": states[3][2],
    }
    assert store.folder is not None
    assert len(list(store.folder.iterdir())) == 4  # three new states, and s3 moved


def test_a_file_still_half_named_is_kept_as_it_is(tmp_path: Path) -> None:
    store, batch, states = stored(tmp_path, 4)
    before = store.saved("s3")
    replace_states(store, ["s0", "s1"])
    assert batch.exists() and store.saved("s3") == before
    assert read_back(tmp_path, 4)["s3"] == states[3][2]


def test_a_file_no_entry_names_is_deleted(tmp_path: Path) -> None:
    store, batch, _ = stored(tmp_path, 2)
    replace_states(store, ["s0", "s1"])
    assert not batch.exists()


def test_the_files_of_a_file_per_series_index_go_with_its_first_save(tmp_path: Path) -> None:
    """A cache left by the previous release does not keep its states on disk for ever."""
    folder = tmp_path / "scope.searches"
    folder.mkdir()
    old_files = [f"{n:032x}.state" for n in range(3)]
    for name in old_files:
        (folder / name).write_bytes(b"an old state")
    (folder / "notes.txt").write_text("not ours")
    document = {
        "format": "sphinxcontrib-trending/saved-searches/2",
        "scope": "scope",
        "searches": {
            **{f"s{n}": [f"c{n}", 1, name] for n, name in enumerate(old_files)},
            "planted": ["c", 1, "../../outside.state"],
        },
    }
    (tmp_path / "scope.searches.json").write_text(json.dumps(document))
    (tmp_path / "outside.state").write_bytes(b"not in the folder")

    store = SearchStore(tmp_path, "scope")
    assert store.saved("s0") is None  # never read as a state
    state = [("s0", "c9", b"new state")]
    store.record("s0", "c9", 2, write_states(folder, state)[0])
    store.save()
    saved = store.saved("s0")
    assert saved is not None
    assert sorted(path.name for path in folder.iterdir()) == [saved.location.file, "notes.txt"]
    assert (tmp_path / "outside.state").exists()


def test_a_reader_says_which_files_it_read_every_state_of(tmp_path: Path) -> None:
    store, batch, _ = stored(tmp_path, 3)
    with StateReader() as reader:
        for identity in ("s0", "s2"):
            reader.read(store.ref(store.saved(identity)))  # type: ignore[arg-type]
        assert reader.read_whole() == []
        reader.read(store.ref(store.saved("s1")))  # type: ignore[arg-type]
    assert reader.read_whole() == [batch]


def test_freeing_read_files_deletes_them_and_minds_no_missing_one(tmp_path: Path) -> None:
    _, batch, _ = stored(tmp_path, 2)
    free_read_files([batch, tmp_path / "gone.state"])
    assert not batch.exists()
