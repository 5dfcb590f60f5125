"""Store files' decoded rows kept between reads: used while a file is unchanged, never after."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.ingest.store import dataset, local
from sphinxcontrib_trending.ingest.store.dataset import Query, read_store
from sphinxcontrib_trending.ingest.store.decoded import DecodedCopies
from sphinxcontrib_trending.ingest.store.layout import INPUT_PREFIX
from sphinxcontrib_trending.ingest.store.manifest import DataFile, read_manifest
from tests.ingest.test_store_source import OPTIONS, _planted


def test_a_kept_table_reads_back_only_for_the_file_state_it_was_kept_for(tmp_path: Path) -> None:
    kept = DecodedCopies(tmp_path / "decoded")
    table = pa.table({"job": ["a", "b"], "values": [[1.0, 2.0], None]}).replace_schema_metadata(
        {b"marker": b"1"}
    )
    kept.write("test_type=mrr/x.parquet", [10, "12.5"], table)
    back = kept.read("test_type=mrr/x.parquet", [10, "12.5"])
    assert back is not None and back.equals(table, check_metadata=True)
    assert kept.read("test_type=mrr/x.parquet", [11, "12.5"]) is None  # resized
    assert kept.read("test_type=mrr/x.parquet", [10, "13.0"]) is None  # rewritten
    assert kept.read("test_type=mrr/y.parquet", [10, "12.5"]) is None  # never kept
    (path,) = (tmp_path / "decoded").iterdir()
    path.write_bytes(path.read_bytes()[:40])
    assert kept.read("test_type=mrr/x.parquet", [10, "12.5"]) is None  # damaged
    kept.write("test_type=mrr/x.parquet", [10, "12.5"], table)
    kept.write("test_type=mrr/y.parquet", [3, "1"], table)
    kept.keep_only(["test_type=mrr/y.parquet"])
    assert kept.read("test_type=mrr/x.parquet", [10, "12.5"]) is None
    assert kept.read("test_type=mrr/y.parquet", [3, "1"]) is not None
    assert len(list((tmp_path / "decoded").iterdir())) == 1


def _input_files(store: Path, member: Path) -> list[str]:
    """Every file of the input ``member`` belongs to (its name starts with the input's hash)."""
    prefix = member.name[:INPUT_PREFIX]
    return sorted(str(path) for path in store.rglob(f"{prefix}*.parquet"))


def _inputs(store: Path) -> int:
    return len(read_manifest(store)[0].entries)


@pytest.fixture
def file_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The store files a store source really opens and decodes."""
    seen: list[str] = []
    real = dataset._read_file

    def counted(fs: object, path: str, query: Query, vouched: DataFile | None) -> pa.Table:
        seen.append(path)
        return real(fs, path, query, vouched)

    monkeypatch.setattr(dataset, "_read_file", counted)
    return seen


@pytest.mark.parametrize("passed_messages", [True, False])
def test_a_store_source_read_again_decodes_no_file(
    ours: Path,
    tmp_path: Path,
    file_reads: list[str],
    passed_messages: bool,
) -> None:
    query = Query(passed_messages=passed_messages)
    plain = read_store(str(ours), OPTIONS, query)
    decoded = tmp_path / "decoded"
    first = read_store(str(ours), OPTIONS, query, decoded)
    opened = len(file_reads)
    assert opened == 2 * len(plain.files_read) > 0
    again = read_store(str(ours), OPTIONS, query, decoded)
    assert len(file_reads) == opened
    for found in (first, again):
        assert found.builds == plain.builds and found.problems == plain.problems == []
        assert found.files_read == plain.files_read
    # read another way, the kept rows of the first are not what it wants
    other_way = Query(passed_messages=not passed_messages)
    other = read_store(str(ours), OPTIONS, other_way, decoded)
    assert len(file_reads) == opened + len(plain.files_read)
    assert other.builds == read_store(str(ours), OPTIONS, other_way).builds


def test_a_store_named_two_ways_shares_its_copies(
    ours: Path,
    tmp_path: Path,
    file_reads: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A build run from another folder names the store otherwise, and decodes nothing again."""
    decoded = tmp_path / "decoded"
    monkeypatch.chdir(ours.parent)
    first = read_store("store", OPTIONS, Query(), decoded)
    opened = len(file_reads)
    monkeypatch.chdir(ours)
    again = read_store(f"../{ours.name}/", OPTIONS, Query(), decoded)
    absolute = read_store(str(ours), OPTIONS, Query(), decoded)
    assert opened > 0 and len(file_reads) == opened
    assert first.builds == again.builds == absolute.builds
    assert len(list(decoded.iterdir())) == 1


def test_a_store_file_changed_after_it_was_decoded_is_read_and_checked_again(
    ours: Path,
    tmp_path: Path,
    file_reads: list[str],
) -> None:
    decoded = tmp_path / "decoded"
    source = SourceSpec(paths=(str(ours),), format="parquet")
    assert load(source, cache_dir=tmp_path).problems == []
    touched = sorted(ours.rglob("*.parquet"))[0]
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    file_reads.clear()
    assert load(source, cache_dir=tmp_path).problems == []
    assert sorted(file_reads) == _input_files(ours, touched)  # its input's files, no other
    assert len(file_reads) == 3
    victim = _planted(
        ours,
        "values",
        lambda cells: [[float("inf"), *cell[1:]] if cell else cell for cell in cells],
    )
    file_reads.clear()
    damaged = load(source, cache_dir=tmp_path)
    assert sorted(file_reads) == _input_files(ours, victim)
    (problem,) = damaged.problems
    assert problem.origin == str(victim) and "a value is infinite" in problem.message
    assert len(list(decoded.rglob("*.arrow"))) == _inputs(ours)


def test_a_damaged_kept_copy_is_decoded_anew(
    ours: Path,
    tmp_path: Path,
    file_reads: list[str],
) -> None:
    source = SourceSpec(paths=(str(ours),), format="parquet")
    first = load(source, cache_dir=tmp_path)
    for kept in (tmp_path / "decoded").rglob("*.arrow"):
        kept.write_bytes(kept.read_bytes()[: len(kept.read_bytes()) // 2])
    file_reads.clear()
    again = load(source, cache_dir=tmp_path)
    assert again.builds == first.builds and again.problems == []
    assert len(file_reads) == len(list(ours.rglob("*.parquet")))


def test_an_input_gone_from_the_store_takes_its_kept_copy_with_it(
    ours: Path,
    tmp_path: Path,
) -> None:
    source = SourceSpec(paths=(str(ours),), format="parquet")
    load(source, cache_dir=tmp_path)
    kept = tmp_path / "decoded"
    assert len(list(kept.rglob("*.arrow"))) == _inputs(ours) == 6
    for path in _input_files(ours, sorted(ours.rglob("*.parquet"))[0]):
        Path(path).unlink()
    load(source, cache_dir=tmp_path)
    assert len(list(kept.rglob("*.arrow"))) == 5


@pytest.fixture
def verified(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files of a build's own store that are really read, hashed and checked."""
    seen: list[str] = []
    real = local._verified_table

    def counted(path: Path, data: object, passed_messages: bool) -> pa.Table:
        seen.append(path.name)
        return real(path, data, passed_messages)

    monkeypatch.setattr(local, "_verified_table", counted)
    return seen


def test_a_build_s_own_store_is_verified_once_then_served_decoded(
    daily_archive: Path, tmp_path: Path, verified: list[str]
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    plain = load(spec)
    cold = load(spec, cache_dir=tmp_path, passed_messages=False)
    stored = sorted(path.name for path in (tmp_path / "store").rglob("*.parquet"))
    assert sorted(verified) == stored  # read back once, after the parse wrote them
    warm = load(spec, cache_dir=tmp_path, passed_messages=False)
    assert sorted(verified) == stored
    assert warm.builds == cold.builds
    everything = load(spec, cache_dir=tmp_path)  # another way to read: verified again
    assert sorted(verified) == sorted(stored * 2)
    assert everything.builds == plain.builds


def test_a_build_s_own_store_file_damaged_after_it_was_decoded_is_found(
    daily_archive: Path, tmp_path: Path
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    good = load(spec, cache_dir=tmp_path)
    victim = sorted((tmp_path / "store").rglob("*.parquet"))[0]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, other content
    victim.write_bytes(bytes(data))
    again = load(spec, cache_dir=tmp_path)
    assert again.builds == good.builds
    (problem,) = again.problems
    assert problem.origin == str(victim) and "changed since it was written" in problem.message
    assert len(list((tmp_path / "decoded").rglob("*.arrow"))) == _inputs(tmp_path / "store")


def _read_again(ours: Path, tmp_path: Path) -> tuple[dataset.Found, dataset.Found, Path]:
    """The store read without a cache folder, and read twice with one: the second read,
    and the folder of decoded copies."""
    decoded = tmp_path / "decoded"
    read_store(str(ours), OPTIONS, Query(), decoded)
    again = read_store(str(ours), OPTIONS, Query(), decoded)
    return read_store(str(ours), OPTIONS, Query()), again, decoded


@pytest.fixture
def copy_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The decoded copies a store source really reads."""
    seen: list[str] = []
    real = DecodedCopies.read

    def counted(self: DecodedCopies, name: str, identity: object) -> pa.Table | None:
        seen.append(name)
        return real(self, name, identity)

    monkeypatch.setattr(DecodedCopies, "read", counted)
    return seen


def test_a_store_read_again_makes_its_builds_and_reads_rows_only_where_asked(
    ours: Path, tmp_path: Path, file_reads: list[str], copy_reads: list[str]
) -> None:
    """A site whose histories are kept needs only the new builds' rows: the others'
    builds come from what the last read found, their rows read on first use."""
    plain = read_store(str(ours), OPTIONS, Query())
    decoded = tmp_path / "decoded"
    read_store(str(ours), OPTIONS, Query(), decoded)
    file_reads.clear()
    copy_reads.clear()

    again = read_store(str(ours), OPTIONS, Query(), decoded)

    assert file_reads == copy_reads == [], "no input read"
    assert again.files_read == plain.files_read and again.problems == []
    assert [build.key for build in again.builds] == [build.key for build in plain.builds]
    assert [len(build.tests) for build in again.builds] == [len(b.tests) for b in plain.builds]
    assert again.builds[0].tests.provenance == plain.builds[0].tests.provenance != ()
    assert again.builds[0].tests[0] == plain.builds[0].tests[0]
    assert len(copy_reads) == 1 and file_reads == [], "one input's copy, on use"
    assert again.builds == plain.builds


def test_an_input_whose_copy_went_before_its_rows_were_needed_is_read_from_its_files(
    ours: Path, tmp_path: Path, file_reads: list[str]
) -> None:
    plain, again, decoded = _read_again(ours, tmp_path)
    for copy in decoded.rglob("*.arrow"):
        copy.unlink()
    file_reads.clear()

    assert again.builds == plain.builds
    assert len(file_reads) == len(list(ours.rglob("*.parquet")))


def _noted(ours: Path, tmp_path: Path) -> tuple[dataset.Found, Path, Path]:
    """The store read without a cache folder, and read once with one: its folder of
    decoded copies and the record of their builds that read wrote."""
    decoded = tmp_path / "decoded"
    read_store(str(ours), OPTIONS, Query(), decoded)
    (record,) = decoded.rglob("_builds.json")
    return read_store(str(ours), OPTIONS, Query()), decoded, record


def test_an_unreadable_record_of_the_builds_means_every_input_is_read(
    ours: Path, tmp_path: Path, copy_reads: list[str]
) -> None:
    plain, decoded, record = _noted(ours, tmp_path)
    record.write_text("[not json")
    copy_reads.clear()

    again = read_store(str(ours), OPTIONS, Query(), decoded)

    assert len(copy_reads) == _inputs(ours) and again.builds == plain.builds
    json.loads(record.read_text())  # written again whole


def test_a_record_of_the_builds_damaged_entry_by_entry_means_those_inputs_are_read(
    ours: Path, tmp_path: Path, copy_reads: list[str]
) -> None:
    plain, decoded, record = _noted(ours, tmp_path)
    entries = json.loads(record.read_text())
    damages = [
        lambda entry: "not an entry",
        lambda entry: [entry[0]],
        lambda entry: [entry[0], [["too", "few"]]],
        lambda entry: [entry[0], [[*head[:2], "no time", *head[3:]] for head in entry[1]]],
        lambda entry: [entry[0], [[*head[:6], 5, 2] for head in entry[1]]],
        lambda entry: [entry[0], [[None, *head[1:]] for head in entry[1]]],
    ]
    assert len(entries) == _inputs(ours)
    damaged = {
        name: damage(entry) for (name, entry), damage in zip(entries.items(), damages, strict=True)
    }
    record.write_text(json.dumps(damaged))
    copy_reads.clear()

    again = read_store(str(ours), OPTIONS, Query(), decoded)

    assert len(copy_reads) == _inputs(ours) and again.builds == plain.builds


def test_histories_of_builds_whose_rows_were_not_read_read_each_input_once(
    ours: Path, tmp_path: Path, copy_reads: list[str]
) -> None:
    plain, again, _ = _read_again(ours, tmp_path)
    copy_reads.clear()

    found = histories(again.builds, "mrr")

    assert sorted(copy_reads) == sorted(set(copy_reads)) and len(copy_reads) == _inputs(ours)
    assert [(h.key, tuple(h.runs)) for h in found] == [
        (h.key, tuple(h.runs)) for h in histories(plain.builds, "mrr")
    ]


def test_a_build_s_own_store_read_again_makes_its_builds_and_reads_rows_only_where_asked(
    daily_archive: Path, tmp_path: Path, verified: list[str], copy_reads: list[str]
) -> None:
    """A site reading its archives keeps its histories too: an unchanged input's
    builds come from what the last read noted, its rows read on first use."""
    spec = SourceSpec(paths=(str(daily_archive),))
    plain = load(spec, cache_dir=tmp_path, passed_messages=False)  # each input read whole
    verified.clear()
    copy_reads.clear()

    warm = load(spec, cache_dir=tmp_path, passed_messages=False)

    assert verified == copy_reads == [], "no input read"
    assert warm.problems == plain.problems and warm.files == plain.files
    assert [build.key for build in warm.builds] == [build.key for build in plain.builds]
    assert [len(build.tests) for build in warm.builds] == [len(b.tests) for b in plain.builds]
    assert warm.builds[0].tests.provenance != ()
    assert warm.builds[0].tests[0] == plain.builds[0].tests[0]
    assert len(copy_reads) == 1 and verified == [], "one input's copy, on use"
    assert warm.builds == plain.builds
    assert sorted(copy_reads) == sorted(set(copy_reads)), "each input read once"


def test_a_new_archive_beside_a_build_s_own_store_is_the_only_input_read(
    daily_archive: Path, tmp_path: Path, verified: list[str], copy_reads: list[str]
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    first = sorted(daily_archive.iterdir())[0]
    held_back = tmp_path / first.name
    first.rename(held_back)
    load(spec, cache_dir=tmp_path)
    held_back.rename(first)
    verified.clear()
    copy_reads.clear()

    warm = load(spec, cache_dir=tmp_path)

    new_files = _input_files_of_archive(tmp_path, first)
    assert copy_reads == ["\n".join(new_files)], "only the new input's copy looked for"
    assert sorted(verified) == sorted(Path(path).name for path in new_files)
    assert warm.parsed == [str(first)] and warm.builds == load(spec).builds


def _input_files_of_archive(cache: Path, archive: Path) -> list[str]:
    """The store files of the input ``archive`` (as ``load`` with ``cache`` wrote them)."""
    manifest, _ = read_manifest(cache / "store")
    (entry,) = [e for e in manifest.entries.values() if e.identity["input"] == str(archive)]
    return [data.path for data in entry.files]


def test_an_input_whose_copy_went_before_its_builds_were_read_again_is_verified_from_its_files(
    daily_archive: Path, tmp_path: Path, verified: list[str]
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    load(spec, cache_dir=tmp_path)
    warm = load(spec, cache_dir=tmp_path)
    copies = list((tmp_path / "decoded").rglob("*.arrow"))
    for copy in copies:
        copy.unlink()
    verified.clear()

    assert warm.builds == load(spec).builds
    assert sorted(verified) == sorted(p.name for p in (tmp_path / "store").rglob("*.parquet"))
    again = load(spec, cache_dir=tmp_path)  # a copy gone: read and kept again, not deferred
    assert again.builds == warm.builds and again.problems == []
    assert len(list((tmp_path / "decoded").rglob("*.arrow"))) == len(copies)


def _damaged_under_a_build(store: Path, decoded: Path) -> None:
    """Every decoded copy and every store file damaged, the files' sizes and times kept:
    what the builds were made of no longer holds, and nothing tells it but the bytes."""
    for copy in decoded.rglob("*.arrow"):
        copy.write_bytes(b"not arrow")
    for path in store.rglob("*.parquet"):
        info = path.stat()
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def test_a_build_s_own_store_damaged_under_its_noted_builds_fails_once_then_is_parsed_again(
    daily_archive: Path, tmp_path: Path
) -> None:
    spec = SourceSpec(paths=(str(daily_archive),))
    load(spec, cache_dir=tmp_path)
    warm = load(spec, cache_dir=tmp_path)
    _damaged_under_a_build(tmp_path / "store", tmp_path / "decoded")

    with pytest.raises(ValueError, match="next build reads every input again") as raised:
        len(warm.builds[0].tests[0].name)
    assert str(tmp_path / "store") in str(raised.value)
    again = load(spec, cache_dir=tmp_path)

    assert again.builds == load(spec).builds
    assert again.problems and all("changed since" in p.message for p in again.problems)


def test_a_store_source_damaged_under_its_noted_builds_fails_once_then_reports_it(
    ours: Path, tmp_path: Path
) -> None:
    decoded = tmp_path / "decoded"
    read_store(str(ours), OPTIONS, Query(), decoded)
    warm = read_store(str(ours), OPTIONS, Query(), decoded)
    _damaged_under_a_build(ours, decoded)

    with pytest.raises(ValueError, match="next build reads every input again"):
        len(warm.builds[0].tests[0].name)
    again = read_store(str(ours), OPTIONS, Query(), decoded)

    assert again.builds == []
    assert len(again.problems) == len(list(ours.rglob("*.parquet")))
    assert all("changed since it was written" in p.message for p in again.problems)
