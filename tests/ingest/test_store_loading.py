"""The results store as the loader's data path: hits, targeted re-parses, corrupt files."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sphinxcontrib_trending.ingest import SourceSpec, fingerprint, load, loader, resolve
from sphinxcontrib_trending.ingest.store.manifest import MANIFEST_NAME, read_manifest
from sphinxcontrib_trending.ingest.store.stored_tests import StoredTests
from tests.ingest.conftest import RF7_DAILY, RF7_WEEKLY
from tests.store_tree import store_tree


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records every input the loader really parses (store misses)."""
    seen: list[str] = []
    real = loader.parse_input

    def counting(local, origin, naming, options):
        seen.append(Path(origin).name)
        return real(local, origin, naming, options)

    monkeypatch.setattr(loader, "parse_input", counting)
    return seen


def test_second_load_is_served_from_the_store(daily_archive: Path, tmp_path: Path, parses) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    first = load(spec, cache_dir=tmp_path / "cache")
    assert len(parses) == 6
    second = load(spec, cache_dir=tmp_path / "cache")
    assert len(parses) == 6
    assert len(first.parsed) == 6 and second.parsed == []
    assert second.builds == first.builds
    assert second.files == first.files == resolve(spec)


def test_an_input_whose_path_is_not_utf8_is_read_but_not_stored(
    daily_archive: Path, tmp_path: Path, parses
) -> None:
    """A folder name the file system gives as a lone surrogate cannot be a Parquet
    text: the input's builds are read all the same, a warning names it, and the
    next load reads it again rather than serving a store entry it never got."""
    first_input, *others = sorted(daily_archive.iterdir())
    for source in others:
        source.unlink()
    folder = Path(os.fsdecode(bytes(tmp_path) + b"/results-\xff"))
    folder.mkdir()
    odd = folder / first_input.name
    first_input.rename(odd)
    spec = SourceSpec(paths=(str(folder),))
    plain = load(spec)
    first = load(spec, cache_dir=tmp_path / "cache")
    second = load(spec, cache_dir=tmp_path / "cache")
    assert len(parses) == 3
    assert first.builds == second.builds == plain.builds and len(plain.builds) == 1
    for dataset in (first, second):
        (problem,) = dataset.problems
        assert problem.subtype == "cache" and repr(str(odd)) in problem.message
    manifest, complaint = read_manifest(tmp_path / "cache" / "store")
    assert complaint is None and not manifest.entries


def test_a_load_for_a_site_leaves_passed_messages_out_of_what_the_store_serves(
    daily_archive: Path, tmp_path: Path
) -> None:
    """Parsed now or served, a site's load is the same: read from the store, without them."""
    spec = SourceSpec(paths=(str(daily_archive),))
    parsed = load(spec, cache_dir=tmp_path / "cache", passed_messages=False)
    served = load(spec, cache_dir=tmp_path / "cache", passed_messages=False)
    assert len(parsed.parsed) == 6 and served.parsed == []
    kept = load(spec, cache_dir=tmp_path / "cache")  # the store keeps every message
    everything = [test for build in kept.builds for test in build.tests]
    assert any(test.passed and test.message for test in everything)
    assert any(not test.passed and test.message for test in everything)
    expected = [replace(test, message="") if test.passed else test for test in everything]
    for dataset in (parsed, served):
        assert [test for build in dataset.builds for test in build.tests] == expected


def test_a_cold_load_holds_its_inputs_as_the_store_s_columns(
    daily_archive: Path, tmp_path: Path
) -> None:
    """Parsed inputs are written, dropped and read back: no parsed build waits in memory."""
    dataset = load(SourceSpec(paths=(str(daily_archive),)), cache_dir=tmp_path / "cache")
    assert len(dataset.parsed) == 6
    assert dataset.builds and all(type(build.tests) is StoredTests for build in dataset.builds)
    assert dataset.builds == load(SourceSpec(paths=(str(daily_archive),))).builds


def test_a_store_that_cannot_be_written_leaves_the_load_what_it_parsed(
    daily_archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self, key, builds):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(loader.LocalStore, "write", full)
    spec = SourceSpec(paths=(str(daily_archive),))
    dataset = load(spec, cache_dir=tmp_path / "cache")
    assert dataset.builds == load(spec).builds
    assert any("cannot write the results store" in problem.message for problem in dataset.problems)


def test_an_input_that_cannot_be_read_back_is_parsed_again(
    daily_archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parses
) -> None:
    def unreadable(self, entries, *, passed_messages=True):
        problem = loader.Problem("store/file.parquet", "corrupt, its input is parsed again")
        return [(None, problem) for _ in entries]

    monkeypatch.setattr(loader.LocalStore, "read_many", unreadable)
    spec = SourceSpec(paths=(str(daily_archive),))
    dataset = load(spec, cache_dir=tmp_path / "cache")
    assert len(parses) == 12  # each input once into the store, once more after the failed read
    assert dataset.builds == load(spec).builds
    assert sum("corrupt" in problem.message for problem in dataset.problems) == 6


def test_inputs_read_together_come_in_order_and_a_bad_one_alone_is_refused(
    daily_archive: Path, tmp_path: Path
) -> None:
    load(SourceSpec(paths=(str(daily_archive),)), cache_dir=tmp_path / "cache")
    store = loader.LocalStore(tmp_path / "cache" / "store")
    manifest, _ = read_manifest(store.root)
    entries = sorted(manifest.entries.values(), key=lambda entry: str(entry.identity))
    alone = [store.read(entry) for entry in entries]
    assert all(builds and problem is None for builds, problem in alone)
    victim = store.root / entries[2].files[0].path
    victim.write_bytes(victim.read_bytes()[::-1])
    together = store.read_many(entries)
    assert [found for index, found in enumerate(together) if index != 2] == [
        found for index, found in enumerate(alone) if index != 2
    ]
    builds, problem = together[2]
    assert builds is None and problem is not None and problem.origin == str(victim)


def test_adding_one_archive_parses_only_that_one(
    daily_archive: Path, tmp_path: Path, parses
) -> None:
    spec = SourceSpec(paths=(str(daily_archive / "*.xml.gz"),))
    load(spec, cache_dir=tmp_path / "cache")
    parses.clear()
    new = sorted(RF7_WEEKLY.glob("*.xml.gz"))[0]
    (daily_archive / new.name).write_bytes(new.read_bytes())
    dataset = load(spec, cache_dir=tmp_path / "cache")
    assert parses == [new.name]
    assert [Path(origin).name for origin in dataset.parsed] == [new.name]
    assert len(dataset.builds) == 7


def _data_files(store: Path) -> list[Path]:
    return sorted(store.rglob("*.parquet"))


def test_a_touched_file_is_not_reparsed(daily_archive: Path, tmp_path: Path, parses) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    cache = tmp_path / "cache"
    first = load(spec, cache_dir=cache)
    files = _data_files(cache / "store")
    target = sorted(daily_archive.iterdir())[2]
    os.utime(target, ns=(1, 1))
    parses.clear()
    again = load(spec, cache_dir=cache)
    assert parses == [] and again.builds == first.builds
    assert _data_files(cache / "store") == files
    manifest, _ = read_manifest(cache / "store")
    (entry,) = [e for e in manifest.entries.values() if e.identity["input"] == str(target)]
    assert entry.state["mtime_ns"] == 1  # the new state is recorded: no hashing next time


def test_a_changed_file_is_reparsed_and_replaces_its_rows(
    daily_archive: Path, tmp_path: Path, parses
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    cache = tmp_path / "cache"
    load(spec, cache_dir=cache)
    files = _data_files(cache / "store")
    target = sorted(daily_archive.iterdir())[2]
    replacement = sorted(RF7_WEEKLY.glob("*.xml.gz"))[0]
    target.write_bytes(replacement.read_bytes())
    parses.clear()
    dataset = load(spec, cache_dir=cache)
    assert parses == [target.name]
    after = _data_files(cache / "store")
    assert len(after) == len(files) and after != files  # new files, the old ones removed
    assert len(dataset.builds) == len({build.key for build in dataset.builds})
    assert load(spec, cache_dir=cache).builds == dataset.builds


def test_a_removed_input_leaves_the_store(daily_archive: Path, tmp_path: Path, parses) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    cache = tmp_path / "cache"
    first = load(spec, cache_dir=cache)
    target = sorted(daily_archive.iterdir())[0]
    target.unlink()
    again = load(spec, cache_dir=cache)
    assert len(again.builds) == len(first.builds) - 1
    manifest, _ = read_manifest(cache / "store")
    assert str(target) not in {entry.identity["input"] for entry in manifest.entries.values()}
    assert len(_data_files(cache / "store")) == len(manifest.referenced())


def test_reading_options_are_part_of_the_key(daily_archive: Path, tmp_path: Path, parses) -> None:
    load(SourceSpec(paths=(str(daily_archive),)), cache_dir=tmp_path)
    other = load(
        SourceSpec(paths=(str(daily_archive),), version_pattern=r"VPP version: (\d+)"),
        cache_dir=tmp_path,
    )
    assert len(parses) == 12
    assert {b.dut_version for b in other.builds} == {"24"}


def _foreign_parquet() -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"job": ["x"]}), sink)
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize(
    "content",
    [b"PAR1 truncated", b"\x80\x04pickle", b"", _foreign_parquet()],
    ids=["truncated", "binary", "empty", "foreign-parquet"],
)
def test_corrupt_or_foreign_data_files_are_reported_and_reparsed(
    daily_archive: Path, tmp_path: Path, parses, content: bytes
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    good = load(spec, cache_dir=tmp_path)
    victim = _data_files(tmp_path / "store")[0]
    victim.write_bytes(content)
    parses.clear()
    again = load(spec, cache_dir=tmp_path)
    assert len(parses) == 1
    assert again.builds == good.builds
    (problem,) = again.problems
    assert problem.subtype == "cache" and problem.origin == str(victim)
    assert "corrupt or foreign store file" in problem.message
    parses.clear()
    assert load(spec, cache_dir=tmp_path).problems == [] and parses == []


def test_a_file_swapped_for_a_valid_one_of_ours_is_not_read(
    daily_archive: Path, tmp_path: Path, parses
) -> None:
    """Our schema is not enough: the manifest's size and hash must match too."""
    spec = SourceSpec(paths=(str(daily_archive),))
    good = load(spec, cache_dir=tmp_path)
    first, second = _data_files(tmp_path / "store")[:2]
    first.write_bytes(second.read_bytes())
    parses.clear()
    again = load(spec, cache_dir=tmp_path)
    assert len(parses) == 1 and again.builds == good.builds
    assert [problem.origin for problem in again.problems] == [str(first)]


def test_a_foreign_file_in_the_store_is_reported_and_left_alone(
    daily_archive: Path, tmp_path: Path, parses
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    good = load(spec, cache_dir=tmp_path)
    planted = tmp_path / "store" / "test_type=mrr" / "notes.parquet"
    planted.write_bytes(_foreign_parquet())
    again = load(spec, cache_dir=tmp_path)
    assert again.builds == good.builds and parses[6:] == []
    (problem,) = again.problems
    assert problem.origin == str(planted) and "foreign file in the store" in problem.message
    assert planted.exists()


@pytest.mark.parametrize("content", [b"{", b"[]", b'{"format": "other"}'])
def test_a_corrupt_manifest_is_reported_and_everything_reparsed(
    daily_archive: Path, tmp_path: Path, parses, content: bytes
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    good = load(spec, cache_dir=tmp_path)
    (tmp_path / "store" / MANIFEST_NAME).write_bytes(content)
    parses.clear()
    again = load(spec, cache_dir=tmp_path)
    assert len(parses) == 6 and again.builds == good.builds
    (problem,) = again.problems
    assert problem.origin == str(tmp_path / "store" / MANIFEST_NAME)
    assert len(_data_files(tmp_path / "store")) == len(
        read_manifest(tmp_path / "store")[0].referenced()
    )


def test_problems_are_cached_with_the_parse(tmp_path: Path, parses) -> None:
    bad = tmp_path / "in" / "job__1__output.xml"
    bad.parent.mkdir()
    bad.write_text("<robot><suite name='x'>")
    spec = SourceSpec(paths=(str(bad),))
    first = load(spec, cache_dir=tmp_path / "cache")
    second = load(spec, cache_dir=tmp_path / "cache")
    assert len(parses) == 1
    assert first.problems == second.problems and first.problems[0].line == 1


def test_fingerprint_tracks_matches_sizes_and_times(daily_archive: Path) -> None:
    spec = SourceSpec(paths=(str(daily_archive / "*.xml.gz"),))
    before = fingerprint(spec)
    assert fingerprint(spec) == before
    new = daily_archive / "other__1__output.xml.gz"
    new.write_bytes(b"")
    with_new = fingerprint(spec)
    assert with_new != before
    os.utime(new, ns=(5, 5))
    assert fingerprint(spec) != with_new
    new.unlink()
    assert fingerprint(spec) == before
    assert fingerprint(SourceSpec(paths=spec.paths, version_pattern="x")) != before


def test_without_cache_dir_nothing_is_written(daily_archive: Path, tmp_path: Path, parses) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    load(spec)
    load(spec)
    assert len(parses) == 12
    assert sorted(p.name for p in daily_archive.iterdir()) == sorted(
        p.name for p in RF7_DAILY.glob("*.gz")
    )


@pytest.mark.parametrize("cached", [True, False])
def test_forked_parsing_loads_what_a_serial_load_does(
    daily_archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cached: bool
) -> None:
    """A site's cold start parses on forked processes: same builds, problems and store."""
    bad = tmp_path / "in" / "job__9__output.xml"
    bad.parent.mkdir()
    bad.write_text("<robot><suite name='x'>")
    spec = SourceSpec(paths=(str(daily_archive), str(bad)))
    pids = tmp_path / "pids"
    real = loader.parse_input

    def recording(local, origin, naming, options):
        with pids.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return real(local, origin, naming, options)

    monkeypatch.setattr(loader, "parse_input", recording)
    forked = load(spec, tmp_path / "forked" if cached else None, forked=2)
    parsers = set(pids.read_text().split())
    pids.unlink()
    serial = load(spec, tmp_path / "serial" if cached else None)
    assert str(os.getpid()) not in parsers and len(parsers) == 2
    assert pids.read_text().split() == [str(os.getpid())] * 7
    assert forked.builds == serial.builds and len(forked.builds) == 6
    assert forked.problems == serial.problems
    assert [problem.origin for problem in forked.problems] == [str(bad)]
    assert forked.parsed == serial.parsed and forked.files == serial.files
    if cached:  # what the forked processes wrote is the store a serial load writes
        assert store_tree(tmp_path / "forked" / "store") == store_tree(
            tmp_path / "serial" / "store"
        )
        pids.unlink()
        again = load(spec, tmp_path / "forked")
        assert again.parsed == [] and not pids.exists()
        assert again.builds == serial.builds and again.problems == serial.problems
