"""The parse cache: hits, targeted re-parses, corrupt entries, concurrent readers."""

from __future__ import annotations

import multiprocessing
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest import SourceSpec, fingerprint, load, loader, resolve
from sphinxcontrib_trending.ingest.cache import CacheKey, ParseCache, Parsed
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from tests.ingest.conftest import RF7_DAILY, RF7_WEEKLY


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records every input the loader really parses (cache misses)."""
    seen: list[str] = []
    real = loader.parse_input

    def counting(local, origin, naming, options):
        seen.append(Path(origin).name)
        return real(local, origin, naming, options)

    monkeypatch.setattr(loader, "parse_input", counting)
    return seen


def test_second_load_is_served_from_the_cache(daily_archive: Path, tmp_path: Path, parses) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    first = load(spec, cache_dir=tmp_path / "cache")
    assert len(parses) == 6
    second = load(spec, cache_dir=tmp_path / "cache")
    assert len(parses) == 6
    assert len(first.parsed) == 6 and second.parsed == []
    assert second.builds == first.builds
    assert second.files == first.files == resolve(spec)


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


def test_a_changed_file_is_reparsed_and_replaces_its_entry(
    daily_archive: Path, tmp_path: Path, parses
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    cache = tmp_path / "cache"
    load(spec, cache_dir=cache)
    entries = sorted((cache / "parsed").iterdir())
    target = sorted(daily_archive.iterdir())[2]
    os.utime(target, ns=(1, 1))
    parses.clear()
    load(spec, cache_dir=cache)
    assert parses == [target.name]
    assert sorted((cache / "parsed").iterdir()) == entries  # replaced, not piled up


def test_reading_options_are_part_of_the_key(daily_archive: Path, tmp_path: Path, parses) -> None:
    load(SourceSpec(paths=(str(daily_archive),)), cache_dir=tmp_path)
    other = load(
        SourceSpec(paths=(str(daily_archive),), version_pattern=r"VPP version: (\d+)"),
        cache_dir=tmp_path,
    )
    assert len(parses) == 12
    assert {b.dut_version for b in other.builds} == {"24"}


@pytest.mark.parametrize(
    "content",
    [
        b'{"format": "sphinxcontrib-trending/parsed-input", "identity": ',
        b"\x80\x04pickle",
        b"[1, 2]",
        b'{"format": "something-else"}',
    ],
    ids=["truncated", "binary", "wrong-shape", "foreign"],
)
def test_corrupt_or_foreign_entries_are_reported_and_reparsed(
    daily_archive: Path, tmp_path: Path, parses, content: bytes
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    good = load(spec, cache_dir=tmp_path)
    victim = sorted((tmp_path / "parsed").iterdir())[0]
    victim.write_bytes(content)
    parses.clear()
    again = load(spec, cache_dir=tmp_path)
    assert len(parses) == 1
    assert again.builds == good.builds
    (problem,) = again.problems
    assert problem.subtype == "cache" and problem.origin == str(victim)
    parses.clear()
    assert load(spec, cache_dir=tmp_path).problems == [] and parses == []


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


def _big_parsed(marker: str, tests: int) -> Parsed:
    time = datetime(2024, 1, 1, tzinfo=timezone.utc)
    result = TestResult(
        marker,
        marker,
        "s",
        ("MRR",),
        "PASS",
        time,
        "m" * 200,
        (Measurement("mrr", "pps", (1.0,) * 10),),
    )
    return Parsed([Build("job", marker, time, None, None, "o", (result,) * tests)], [])


KEY = CacheKey(identity={"input": "x"}, state={"size": 1})


def _writer(folder: str, rounds: int) -> None:
    cache = ParseCache(Path(folder))
    for number in range(rounds):
        cache.put(KEY, _big_parsed("even" if number % 2 == 0 else "odd", 4000 + number))


def test_concurrent_readers_never_see_half_written_entries(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path)
    cache.put(KEY, _big_parsed("even", 10))
    writer = multiprocessing.get_context("spawn").Process(target=_writer, args=(str(tmp_path), 40))
    writer.start()
    reads = 0
    while writer.is_alive() or reads == 0:
        parsed, complaint = cache.get(KEY)
        assert complaint is None
        assert parsed is not None and parsed.builds[0].build in ("even", "odd")
        reads += 1
    writer.join()
    assert writer.exitcode == 0
    assert cache.get(KEY)[0].builds[0].build == "odd"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_without_cache_dir_nothing_is_written(daily_archive: Path, tmp_path: Path, parses) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    load(spec)
    load(spec)
    assert len(parses) == 12
    assert sorted(p.name for p in daily_archive.iterdir()) == sorted(
        p.name for p in RF7_DAILY.glob("*.gz")
    )
