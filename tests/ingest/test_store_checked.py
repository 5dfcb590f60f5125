"""``ingest`` hashes a kept store file once, not on every run: one new build costs the same
however long the history the store already holds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest.store import local
from sphinxcontrib_trending.ingest.store.checked import CHECKED_NAME
from tests.hostile.documents import rf7, rf7_test, write

HOUR_NS = 3600 * 10**9


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The store files whose digest is checked, in order."""
    seen: list[str] = []
    check = local.check_listed

    def counted(raw: bytes, data: local.DataFile) -> bytes:
        seen.append(data.path)
        return check(raw, data)

    monkeypatch.setattr(local, "check_listed", counted)
    return seen


def _store(tmp_path: Path) -> tuple[list[str], Path]:
    data = tmp_path / "data"
    write(data, "job__1__output.xml", rf7(rf7_test("t1")))
    write(data, "job__2__output.xml", rf7(rf7_test("t2")))
    store = tmp_path / "store"
    command = ["ingest", str(data), "--store", str(store), "--quiet"]
    assert main(command) == 0
    return command, store


def _age(paths: list[Path]) -> None:
    """As if written an hour ago: long settled."""
    for path in paths:
        moment = path.stat().st_mtime_ns - HOUR_NS
        os.utime(path, ns=(moment, moment))


def test_a_settled_file_hashed_once_is_trusted_while_it_looks_the_same(
    tmp_path: Path, hashed: list[str]
) -> None:
    command, store = _store(tmp_path)
    files = sorted(store.rglob("*.parquet"))
    _age(files)
    assert main(command) == 0
    assert len(hashed) == len(files)
    hashed.clear()
    assert main(command) == 0
    assert hashed == []


def test_a_file_written_just_before_its_hash_is_hashed_again(
    tmp_path: Path, hashed: list[str]
) -> None:
    """Its modification time could hide a write within the same clock tick."""
    command, store = _store(tmp_path)
    files = sorted(store.rglob("*.parquet"))
    (store / CHECKED_NAME).unlink()  # what the first run wrote, forgotten: hashed now
    assert main(command) == 0
    assert len(hashed) == len(files)
    hashed.clear()
    assert main(command) == 0
    assert len(hashed) == len(files)


def test_a_trusted_file_written_in_place_is_hashed_and_repaired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hashed: list[str]
) -> None:
    command, store = _store(tmp_path)
    _age(sorted(store.rglob("*.parquet")))
    assert main(command) == 0
    victim = sorted(store.rglob("*.parquet"))[0]
    damaged = bytearray(victim.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    victim.write_bytes(bytes(damaged))
    hashed.clear()
    capsys.readouterr()
    assert main(["ingest", *command[1:-1]]) == 0
    err = capsys.readouterr().err
    assert f"{victim}: corrupt or foreign store file, its input is parsed again: " in err
    assert hashed == [str(victim.relative_to(store))]


def test_trusted_files_swapped_by_renames_are_found_whatever_their_times(
    tmp_path: Path, hashed: list[str]
) -> None:
    """A rename puts another inode at the name: times put back do not hide it."""
    command, store = _store(tmp_path)
    first, second = sorted(store.rglob("*.parquet"))
    _age([first, second])
    assert main(command) == 0
    times = {path: path.stat().st_mtime_ns for path in (first, second)}
    aside = first.with_name(".aside")
    os.rename(first, aside)
    os.rename(second, first)
    os.rename(aside, second)
    for path, moment in times.items():
        os.utime(path, ns=(moment, moment))
    hashed.clear()
    assert main(command) == 0
    assert sorted(hashed[:2]) == sorted(str(p.relative_to(store)) for p in (first, second))


def test_files_a_run_wrote_are_not_hashed_by_the_next(tmp_path: Path, hashed: list[str]) -> None:
    """A backfill's store is not hashed whole by the first ingest after it."""
    command, store = _store(tmp_path)
    assert hashed == []
    assert main(command) == 0
    assert hashed == []
    assert len(list(store.rglob("*.parquet"))) == 2


def test_a_written_file_changed_before_the_run_ends_is_hashed_and_repaired(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    hashed: list[str],
) -> None:
    """What the run wrote is noted as it looked right after the write: a later write shows."""
    victims: list[Path] = []
    keep = local.LocalStore.keep_checked

    def damage_then_keep(store: local.LocalStore) -> None:
        victim = sorted(store.root.rglob("*.parquet"))[0]
        damaged = bytearray(victim.read_bytes())
        damaged[len(damaged) // 2] ^= 0xFF
        victim.write_bytes(bytes(damaged))
        victims.append(victim)
        keep(store)

    monkeypatch.setattr(local.LocalStore, "keep_checked", damage_then_keep)
    command, store = _store(tmp_path)
    monkeypatch.setattr(local.LocalStore, "keep_checked", keep)
    capsys.readouterr()
    assert main(command) == 0
    err = capsys.readouterr().err
    assert f"{victims[0]}: corrupt or foreign store file, its input is parsed again: " in err
    assert hashed == [str(victims[0].relative_to(store))]


def test_files_a_run_wrote_join_what_it_checked(tmp_path: Path, hashed: list[str]) -> None:
    """The next run trusts both the kept files and the new ones."""
    command, store = _store(tmp_path)
    write(Path(command[1]), "job__3__output.xml", rf7(rf7_test("t3")))
    assert main(command) == 0
    assert hashed == []
    assert main(command) == 0
    assert hashed == []
    assert len(list(store.rglob("*.parquet"))) == 3
