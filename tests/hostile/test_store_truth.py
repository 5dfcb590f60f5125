"""A store never passes off what it does not hold: swapped, damaged or half-written files."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.ingest.store.local import LocalStore
from sphinxcontrib_trending.ingest.store.manifest import MANIFEST_NAME
from tests.hostile.documents import load_here, rf7, rf7_test, write


def _two_inputs(folder: Path) -> tuple[Path, Path]:
    return (
        write(folder, "job__1__output.xml", rf7(rf7_test("t1"))),
        write(folder, "job__2__output.xml", rf7(rf7_test("t2"))),
    )


def _swap(first: Path, second: Path) -> None:
    """Exchange two files' contents by renaming, as a careless sync might."""
    aside = first.with_name(".aside")
    os.rename(first, aside)
    os.rename(second, first)
    os.rename(aside, second)


def _read_store(store: Path, cache: Path | None = None) -> object:
    return load(SourceSpec(paths=(str(store),), format="parquet"), cache_dir=cache)


@pytest.mark.parametrize("with_cache", [False, True], ids=["no-cache", "cache"])
def test_a_parquet_source_refuses_swapped_files(tmp_path: Path, with_cache: bool) -> None:
    _two_inputs(tmp_path / "data")
    store = tmp_path / "store"
    assert main(["ingest", str(tmp_path / "data"), "--store", str(store), "--quiet"]) == 0
    cache = tmp_path / "cache" if with_cache else None
    assert len(_read_store(store, cache).builds) == 2
    first, second = sorted(store.rglob("*.parquet"))
    _swap(first, second)
    dataset = _read_store(store, cache)
    assert dataset.builds == []
    assert sorted(problem.origin for problem in dataset.problems) == [str(first), str(second)]
    assert all(
        "its content changed since it was written" in problem.message
        for problem in dataset.problems
    )


def test_a_build_store_parses_the_inputs_of_swapped_files_again(tmp_path: Path) -> None:
    one, two = _two_inputs(tmp_path / "data")
    cache = tmp_path / "cache"
    before = load_here(one, two, cache_dir=cache)
    first, second = sorted((cache / "store").rglob("*.parquet"))
    _swap(first, second)
    again = load_here(one, two, cache_dir=cache)
    assert again.builds == before.builds
    assert sorted(again.parsed) == sorted([str(one), str(two)])
    assert {problem.subtype for problem in again.problems} == {"cache"}


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, other content
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    path.write_bytes(b"PAR1")


@pytest.mark.parametrize("damage", [_flip_a_byte, _truncate])
def test_ingest_repairs_a_damaged_data_file_from_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Callable[[Path], None]
) -> None:
    _two_inputs(tmp_path / "data")
    store = tmp_path / "store"
    command = ["ingest", str(tmp_path / "data"), "--store", str(store)]
    assert main(command) == 0
    victim = sorted(store.rglob("*.parquet"))[0]
    damage(victim)
    capsys.readouterr()
    assert main(command) == 0
    err = capsys.readouterr().err
    assert f"{victim}: corrupt or foreign store file, its input is parsed again: " in err
    assert "2 input(s), 1 parsed, 1 unchanged" in err
    healed = _read_store(store)
    assert healed.problems == [] and len(healed.builds) == 2
    capsys.readouterr()
    assert main(command) == 0
    assert "2 input(s), 0 parsed, 2 unchanged" in capsys.readouterr().err


def test_data_files_of_an_ingest_killed_before_its_first_commit_are_not_a_dataset(
    tmp_path: Path,
) -> None:
    """kill -9 before the first manifest: files of ours, no manifest; never partial rows."""
    _two_inputs(tmp_path / "data")
    store = tmp_path / "store"
    assert main(["ingest", str(tmp_path / "data"), "--store", str(store), "--quiet"]) == 0
    (store / MANIFEST_NAME).unlink()
    sorted(store.rglob("*.parquet"))[0].unlink()  # the run died between two files
    dataset = _read_store(store)
    assert dataset.builds == []
    (problem,) = dataset.problems
    assert problem.origin == str(store) and problem.subtype == "source"
    assert "1 data file(s) named as sphinx-trending ingest names them but no" in problem.message
    assert "an ingest that never finished" in problem.message


def test_the_problems_ingest_recorded_are_shown_by_readers_of_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad_trials = "Maximum Receive Rate trial results in packets per second: [1.0, x]"
    data = tmp_path / "data"
    odd = write(data, "job__1__output.xml", rf7(rf7_test("t1") + rf7_test("t2", bad_trials)))
    broken = write(data, "job__2__output.xml", "<robot><suite")
    store = tmp_path / "store"
    assert main(["ingest", str(data), "--store", str(store), "--quiet"]) == 1
    expected = [
        f"{odd}: test S.t2: malformed mrr trial list: 'x' is not a number",
        f"{broken}:1: malformed XML: ",
    ]
    dataset = _read_store(store)
    assert [build.build for build in dataset.builds] == ["1"]
    shown = [str(problem) for problem in dataset.problems]
    assert len(shown) == 2 and all(any(line.startswith(e) for line in shown) for e in expected)
    capsys.readouterr()
    assert main(["export", str(store), "--format", "parquet"]) == 1
    err = capsys.readouterr().err
    assert all(e in err for e in expected)


def _read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every way the loader writes a store fails as on a read-only mount."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system", "_lock")

    for method in ("locked", "write", "commit"):
        monkeypatch.setattr(LocalStore, method, refuse)


def test_a_read_only_store_is_read_and_ingest_says_what_it_could_not_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_inputs(tmp_path / "data")
    store = tmp_path / "store"
    command = ["ingest", str(tmp_path / "data"), "--store", str(store)]
    assert main(command) == 0
    _read_only(monkeypatch)
    capsys.readouterr()
    assert main(command) == 0  # nothing changed: nothing to write
    err = capsys.readouterr().err
    assert f"{store}: cannot write the results store ([Errno 30] Read-only file system" in err
    assert err.splitlines()[-1].endswith("2 input(s), 0 parsed, 2 unchanged")
    write(tmp_path / "data", "job__3__output.xml", rf7(rf7_test("t3")))
    assert main(command) == 1
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith("3 input(s), 1 parsed, 2 unchanged, 1 parsed but not stored")
    )


def test_a_build_with_a_read_only_store_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = _two_inputs(tmp_path / "data")
    cache = tmp_path / "cache"
    before = load_here(one, two, cache_dir=cache)
    three = write(tmp_path / "data", "job__3__output.xml", rf7(rf7_test("t3")))
    _read_only(monkeypatch)
    dataset = load_here(one, two, three, cache_dir=cache)
    assert dataset.builds[:2] == before.builds and len(dataset.builds) == 3
    assert dataset.parsed == [str(three)]
    (problem,) = dataset.problems
    assert problem.subtype == "cache" and "what is parsed now is not stored" in problem.message
