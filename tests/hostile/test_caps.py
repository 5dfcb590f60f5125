"""Decompression amplification: byte, test and message caps, each with a clear problem."""

from __future__ import annotations

import gzip
import json
import lzma
import tarfile
import zipfile
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest import SourceSpec
from sphinxcontrib_trending.ingest.limits import ReadLimits
from sphinxcontrib_trending.ingest.loader import ingest
from tests.hostile.documents import load_here, messages, rf7, rf7_test, write
from tests.ingest.test_csit_json import JOB, document
from tests.ingest.test_reference_parquet import JOB as REFERENCE_JOB
from tests.ingest.test_reference_parquet import MRR_TEST, _mrr
from tests.reference_parquet import write_reference

MRR = "Maximum Receive Rate trial results in packets per second: [10.0, 11.0]"


def test_an_input_expanding_past_the_cap_is_refused_and_the_rest_builds(tmp_path: Path) -> None:
    bomb = rf7(rf7_test("t1", "x" * 3_000_000, status="FAIL")).encode()
    write(tmp_path, "job__1__output.xml.xz", lzma.compress(bomb))
    write(tmp_path, "job__2__output.xml", rf7())
    dataset = load_here(tmp_path, limits=ReadLimits(max_expanded_bytes=1_000_000))
    assert [build.build for build in dataset.builds] == ["2"]
    (problem,) = dataset.problems
    assert problem.origin.endswith("job__1__output.xml.xz")
    assert "expands beyond max_expanded_bytes (1,000,000 bytes): refused" in problem.message


def test_a_zip_bomb_spread_over_members_is_stopped_at_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("1/output.xml", rf7())
        for number in range(2, 40):
            archive.writestr(f"{number}/output.xml", rf7(rf7_test("t", "y" * 400_000)))
    dataset = load_here(path, build_pattern=r"(?P<build>\d+)/output",
                        limits=ReadLimits(max_expanded_bytes=2_000_000))  # fmt: skip
    assert "1" in {build.build for build in dataset.builds}
    assert "expands beyond max_expanded_bytes" in messages(dataset)
    assert messages(dataset).count("max_expanded_bytes") == 1  # the archive stops at the cap


def test_a_long_message_keeps_head_and_tail_and_says_how_much_was_cut(tmp_path: Path) -> None:
    message = "HEAD" + "m" * 200_000 + "TAIL"
    write(tmp_path, "job__1__output.xml.xz", lzma.compress(rf7(rf7_test("t1", message)).encode()))
    dataset = load_here(tmp_path, limits=ReadLimits(max_message_chars=1000))
    (test,) = dataset.builds[0].tests
    assert test.message.startswith("HEAD") and test.message.endswith("TAIL")
    assert "[... 199,008 characters cut (max_message_chars) ...]" in test.message
    assert len(test.message) < 1100
    assert "1 test message(s) longer than max_message_chars (1,000)" in messages(dataset)


def test_a_long_passing_message_still_yields_its_measurements(tmp_path: Path) -> None:
    message = MRR + " " + "z" * 5000
    write(tmp_path, "job__1__output.xml", rf7(rf7_test("t1", message)))
    dataset = load_here(tmp_path, limits=ReadLimits(max_message_chars=100))
    assert dataset.builds[0].tests[0].measurements[0].values == (10.0, 11.0)


def test_a_file_with_too_many_tests_is_refused_and_the_rest_builds(tmp_path: Path) -> None:
    many = "".join(rf7_test(f"t{n}") for n in range(60))
    write(tmp_path, "job__1__output.xml.gz", gzip.compress(rf7(many).encode()))
    write(tmp_path, "job__2__output.xml", rf7())
    dataset = load_here(tmp_path, limits=ReadLimits(max_tests=50))
    assert [build.build for build in dataset.builds] == ["2"]
    assert "holds more than max_tests (50) tests: refused" in messages(dataset)


def test_a_table_build_with_too_many_tests_is_refused(tmp_path: Path) -> None:
    rows = "".join(f"s.t{n},1,2024-05-01T00:00:00Z,1\n" for n in range(60))
    rows += "s.t0,2,2024-05-02T00:00:00Z,1\n"
    path = write(tmp_path, "r.csv", "test,build,time,value\n" + rows)
    dataset = load_here(path, format="csv", limits=ReadLimits(max_tests=50))
    assert [build.build for build in dataset.builds] == ["2"]
    assert "build r/1 holds more than max_tests (50) tests: refused" in messages(dataset)


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ({"max_tests": 0}, "must be a positive number"),
        ({"max_tests": "many"}, "must be a positive number"),
        ({"max_tests": 1.5}, "must be a positive number"),
        ({"max_bytes": 5}, "unknown limit 'max_bytes'"),
    ],
)
def test_bad_limits_are_refused_by_name(raw: dict[str, object], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        ReadLimits.from_mapping(raw)


def test_limits_read_from_a_mapping() -> None:
    limits = ReadLimits.from_mapping({"max_tests": "7", "download_seconds": 2.5})
    assert (limits.max_tests, limits.download_seconds) == (7, 2.5)


def test_documents_adding_up_past_the_test_cap_stop_the_input_at_once(tmp_path: Path) -> None:
    """CSIT JSON holds one test per document: they are counted as they are read, and the
    members after the one that passed the cap (here a broken one) are never read."""
    payload = tmp_path / "doc.json"
    archive = tmp_path / "logs.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for number in range(40):
            doc = document("mrr", name=f"64b-2t1c-ethip4-ip4base-case{number}-mrr")
            payload.write_text(json.dumps(doc))
            tar.add(payload, arcname=f"{JOB}/77/archives/tests/x/case{number}.info.json")
        payload.write_text("{not json")
        tar.add(payload, arcname=f"{JOB}/77/archives/tests/x/last.info.json")
    dataset = load_here(archive, format="csit-json", limits=ReadLimits(max_tests=10))
    assert dataset.builds == []
    (problem,) = dataset.problems
    assert f"build {JOB}/77 holds more than max_tests (10) tests: refused" in problem.message


def test_a_table_build_is_refused_as_its_count_passes_the_cap(tmp_path: Path) -> None:
    """Its later rows are skipped unread (a bad time among them is not even parsed)."""
    rows = "".join(f"s.t{n},1,2024-05-01T00:00:00Z,1\n" for n in range(60))
    rows += "s.t99,1,not a time,1\ns.t0,2,2024-05-02T00:00:00Z,1\n"
    path = write(tmp_path, "r.csv", "test,build,time,value\n" + rows)
    dataset = load_here(path, format="csv", limits=ReadLimits(max_tests=50))
    assert [build.build for build in dataset.builds] == ["2"]
    (problem,) = dataset.problems
    assert "build r/1 holds more than max_tests (50) tests: refused" in problem.message
    assert problem.line == 52


def _documents(folder: Path, build: int, count: int) -> None:
    """``count`` one-test CSIT JSON files of ``build``, each in its own file."""
    tests = folder / JOB / str(build) / "archives" / "tests" / "x"
    tests.mkdir(parents=True)
    for number in range(count):
        doc = document("mrr", name=f"64b-2t1c-ethip4-ip4base-case{number}-mrr")
        (tests / f"case{number:02d}.info.json").write_text(json.dumps(doc))


def test_a_folder_of_documents_stops_at_the_file_that_passes_the_test_cap(tmp_path: Path) -> None:
    """Files are counted as they are parsed, as an archive's members are: the build that
    passes the cap is refused naming that file, and the files after it (a broken one
    here, another build's) are never read, nor stored: a second load from the store
    counts the stored files first and stops at the first new one."""
    folder = tmp_path / "logs"
    _documents(folder, 76, 3)
    _documents(folder, 77, 40)
    _documents(folder, 78, 2)
    (folder / JOB / "78" / "archives" / "tests" / "x" / "zz.info.json").write_text("{not json")
    files = f"{folder}/{JOB}/77/archives/tests/x"
    refused = f"build {JOB}/77 holds more than max_tests (10) tests: refused"
    for cache, stopped, unread in [
        (None, "case10", 32),
        (tmp_path / "cache", "case10", 32),
        (tmp_path / "cache", "case11", 31),  # case00 to case10 stored
    ]:
        limits = ReadLimits(max_tests=10)
        dataset = load_here(folder, format="csit-json", limits=limits, cache_dir=cache)
        assert [(build.build, len(build.tests)) for build in dataset.builds] == [("76", 3)]
        left, cap = dataset.problems
        assert left.origin == f"{files}/{stopped}.info.json"
        assert left.message.startswith(f"{unread} input(s) after this one left unread")
        assert cap.origin == f"{files}/case10.info.json" and cap.message.startswith(refused)


@pytest.mark.parametrize("engine", [{"workers": 2}, {"forked": 2}], ids=["dask", "forked"])
def test_a_folder_passing_the_test_cap_is_not_parsed_whole_on_workers(
    tmp_path: Path, engine: dict[str, int]
) -> None:
    """On a local Dask cluster or forked workers, as in this process: the files after the
    one that passes the cap are never parsed (the workers stop there), and the problems
    are those of a serial load."""
    folder = tmp_path / "logs"
    files = folder / JOB / "77" / "archives" / "tests" / "x"
    files.mkdir(parents=True)
    count = 1500
    for number in range(count):
        doc = document("mrr", name=f"64b-2t1c-ethip4-ip4base-case{number}-mrr")
        (files / f"case{number:05d}.info.json").write_text(json.dumps(doc))
    said: list[str] = []
    spec = SourceSpec(paths=(str(folder),), format="csit-json", limits=ReadLimits(max_tests=10))
    dataset = ingest(spec, None, progress=said.append, **engine)  # type: ignore[arg-type]
    parsed = [int(message.split()[1].split("/")[0]) for message in said if "parsed " in message]
    assert parsed and max(parsed) < count
    left, cap = dataset.problems
    assert left.origin == f"{files}/case00010.info.json"
    assert left.message.startswith(f"{count - 11:,} input(s) after this one left unread")
    assert cap.message.startswith(f"build {JOB}/77 holds more than max_tests (10) tests: refused")
    assert dataset.builds == []


def test_a_build_in_our_store_past_the_test_cap_is_refused_as_it_is_read(tmp_path: Path) -> None:
    """A ``parquet`` source counts each build's tests as it reads it, as a table does."""
    rows = "".join(f"s.t{n},1,2024-05-01T00:00:00Z,1\n" for n in range(30))
    rows += "".join(f"s.t{n},2,2024-05-02T00:00:00Z,1\n" for n in range(3))
    table = write(tmp_path, "r.csv", "test,build,time,value\n" + rows)
    cache = tmp_path / "cache"
    assert len(load_here(table, format="csv", cache_dir=cache).builds) == 2
    store = cache / "store"
    dataset = load_here(store, format="parquet", limits=ReadLimits(max_tests=10))
    assert [build.build for build in dataset.builds] == ["2"]
    (problem,) = dataset.problems
    assert problem.message.startswith("build r/1 holds more than max_tests (10) tests: refused")
    assert problem.origin.startswith(str(store)) and problem.origin.endswith("-*.parquet")


def test_a_reference_build_spread_over_files_past_the_test_cap_is_refused(
    tmp_path: Path,
) -> None:
    """The reference's files each hold part of a build: the file whose tests take it past
    the cap is named, and the build's parts read before it are dropped too."""

    def rows(build: str, first: int, count: int) -> list[dict[str, object]]:
        return [
            {**_mrr(build, 2), "test_id": MRR_TEST.replace("ip4base-mrr.", f"ip4base{n}-mrr.")}
            for n in range(first, first + count)
        ]

    store = tmp_path / "trending"
    write_reference(store, "trending_mrr", "mrr", rows("78", 0, 2))
    first = write_reference(store, "trending_mrr", "mrr", rows("77", 0, 6))
    second = write_reference(store, "trending_mrr", "mrr", rows("77", 6, 6))
    dataset = load_here(store, format="parquet", limits=ReadLimits(max_tests=10))
    assert [(build.build, len(build.tests)) for build in dataset.builds] == [("78", 2)]
    refusals = [problem for problem in dataset.problems if "max_tests" in problem.message]
    assert len(refusals) == 1
    # the files are read in the order of their (random) names: either part may pass the cap
    assert refusals[0].origin in (str(first), str(second))
    assert refusals[0].message.startswith(
        f"build {REFERENCE_JOB}/77 holds more than max_tests (10) tests: refused"
    )
