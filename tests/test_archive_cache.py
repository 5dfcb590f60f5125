"""The session's archive cache generates each archive once and notices writes into it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.archives import ArchiveCache, cache_key, generator_salt
from tools import make_robot_archive
from tools.make_robot_archive import Change


class CountingGenerator:
    """Stands in for generate_archive: writes one file per build and counts its calls."""

    def __init__(self) -> None:
        self.calls: list[dict[str, object]] = []

    def __call__(self, folder: Path, **options: object) -> None:
        self.calls.append(options)
        folder.mkdir(parents=True)
        for build in range(int(options.get("builds", 1))):  # type: ignore[call-overload]
            (folder / f"job__{build + 1}__output_info.xml.gz").write_bytes(b"x" * (build + 1))


def test_same_options_share_one_folder_and_one_generation(tmp_path: Path) -> None:
    generator = CountingGenerator()
    cache = ArchiveCache(tmp_path, generate=generator)
    first = cache(builds=3, changes=[Change("a", 1, 0.5)], seed=2)
    # the same options written differently: keyword order, tuple instead of list
    again = cache(seed=2, changes=(Change("a", 1, 0.5),), builds=3)
    other = cache(builds=3, changes=[Change("a", 1, 0.5)], seed=3)
    assert first == again != other
    assert len(generator.calls) == cache.generated == 2
    assert sorted(p.name for p in first.iterdir()) == [
        f"job__{n}__output_info.xml.gz" for n in (1, 2, 3)
    ]


def test_key_tells_apart_what_generates_different_archives() -> None:
    assert cache_key({"failures": [("t", 1)]}) == cache_key({"failures": (("t", 1),)})
    assert cache_key({"failures": [("t", 1)]}) != cache_key({"failures": [("t", 2)]})
    assert cache_key({"failures": {("t", 1)}}) == cache_key({"failures": frozenset({("t", 1)})})
    assert cache_key({"builds": 2}) != cache_key({"builds": 2, "seed": 1})


def test_a_copy_may_change_and_the_shared_folder_may_not(tmp_path: Path) -> None:
    cache = ArchiveCache(tmp_path / "cache", generate=CountingGenerator())
    shared = cache(builds=2)
    private = cache.copy(tmp_path / "mine", builds=2)
    (private / "extra.xml").write_text("<robot/>")
    (private / "job__1__output_info.xml.gz").unlink()
    assert cache.altered() == []
    (shared / "job__2__output_info.xml.gz").write_bytes(b"changed")
    assert cache.altered() == [shared]


def test_a_later_session_reuses_the_kept_archive_unless_its_salt_changed(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first = CountingGenerator()
    options = {"builds": 2, "changes": [Change("a", 1, 0.5)], "seed": 4}
    kept = ArchiveCache(tmp_path / "s1", generate=first, store=store, salt="v1")(**options)
    later = CountingGenerator()
    again = ArchiveCache(tmp_path / "s2", generate=later, store=store, salt="v1")(**options)
    assert len(first.calls) == 1 and later.calls == []
    assert again != kept
    assert [(f.name, f.read_bytes()) for f in sorted(again.iterdir())] == [
        (f.name, f.read_bytes()) for f in sorted(kept.iterdir())
    ]
    assert [p.name for p in store.iterdir()] and not any(
        p.name.startswith(".staging-") for p in store.iterdir()
    )
    changed = CountingGenerator()
    ArchiveCache(tmp_path / "s3", generate=changed, store=store, salt="v2")(**options)
    assert len(changed.calls) == 1


def test_options_holding_a_callable_are_never_kept(tmp_path: Path) -> None:
    store = tmp_path / "store"
    for session in ("s1", "s2"):
        generator = CountingGenerator()
        cache = ArchiveCache(tmp_path / session, generate=generator, store=store)
        cache(builds=1, version_fn=lambda index: f"v{index}")
        assert len(generator.calls) == 1
    assert not store.exists() or list(store.iterdir()) == []


def test_the_salt_follows_the_generator_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    salt = generator_salt()
    assert generator_salt() == salt
    edited = tmp_path / "make_robot_archive.py"
    edited.write_bytes(Path(make_robot_archive.__file__).read_bytes() + b"# edited\n")
    monkeypatch.setattr(make_robot_archive, "__file__", str(edited))
    assert generator_salt() != salt
