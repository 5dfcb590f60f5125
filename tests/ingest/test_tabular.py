"""CSV and JSON Lines: the documented formats, their errors, and export round trips."""

from __future__ import annotations

import gzip
import json
import zipfile
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sphinxcontrib_trending.cli.export import records
from sphinxcontrib_trending.ingest.model import Measurement
from tests.ingest.conftest import RF6, RF7_DAILY, load_paths

UTC = timezone.utc

CSV_TEXT = """test,build,time,values,job,status,version,testbed,metric,unit,tags
suite.tc01-parse-small,1,2024-01-01T00:00:00Z,1.5;1.7;1.6,bench,PASS,v1.0,ci-box,seconds,s,fast;1T1C
suite.tc01-parse-small,1,2024-01-01T00:00:00Z,120,bench,PASS,v1.0,ci-box,memory,MB,fast;1T1C
suite.parse-large,1,2024-01-01T00:00:00Z,10.25,bench,PASS,v1.0,ci-box,seconds,s,
suite.parse-large,2,2024-01-02T00:00:00+02:00,,bench,FAIL,v1.1,ci-box,seconds,s,
suite.tc01-parse-small,2,1704153600,"[1.4, 1.5]",bench,,v1.1,ci-box,seconds,s,fast
"""


def test_csv_rows_become_builds_tests_and_measurements(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    path.write_text(CSV_TEXT)
    dataset = load_paths(path, format="csv")
    assert dataset.problems == []
    first, second = dataset.builds
    assert (first.job, first.build, first.dut_version, first.testbed) == (
        "bench",
        "1",
        "v1.0",
        "ci-box",
    )
    assert first.time == datetime(2024, 1, 1, tzinfo=UTC)
    small, large = first.tests
    assert small.test_id == "suite.parse-small" and small.name == "parse-small"
    assert small.suite == "suite" and small.tags == ("fast", "1T1C") and small.thread_core == "1T1C"
    assert small.measurements == (
        Measurement("seconds", "s", (1.5, 1.7, 1.6)),
        Measurement("memory", "MB", (120.0,)),
    )
    assert large.measurements == (Measurement("seconds", "s", (10.25,)),)
    # +02:00 midnight is 22:00 UTC the day before; epoch 1704153600 is 2024-01-02 00:00 UTC.
    assert second.time == datetime(2024, 1, 2, tzinfo=UTC)
    failed = next(t for t in second.tests if t.test_id == "suite.parse-large")
    assert failed.status == "FAIL" and failed.measurements == ()
    assert failed.start == datetime(2024, 1, 1, 22, tzinfo=UTC)


def test_csv_defaults_metric_unit_and_job(tmp_path: Path) -> None:
    path = tmp_path / "nightly.csv.gz"
    path.write_bytes(gzip.compress(b"test,build,time,value\nt,7,2024-03-01T10:00:00,42\n"))
    dataset = load_paths(path, format="csv", metric="throughput", unit="ops")
    (build,) = dataset.builds
    assert (build.job, build.build) == ("nightly", "7")
    assert build.tests[0].measurements == (Measurement("throughput", "ops", (42.0,)),)


def test_csv_row_errors_name_the_line_and_keep_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        "test,build,time,values\n"
        "a,1,2024-01-01T00:00:00,1;2\n"
        "b,1,yesterday,3\n"
        "c,,2024-01-01T00:00:00,3\n"
        "d,1,2024-01-01T00:00:00,4;five\n"
        "a,1,2024-01-01T00:00:00,9\n"
    )
    dataset = load_paths(path, format="csv")
    found = [(p.line, p.subtype) for p in dataset.problems]
    assert found == [(3, "parse"), (4, "parse"), (5, "data"), (6, "duplicate")]
    assert "neither ISO 8601 nor Unix epoch" in dataset.problems[0].message
    assert "missing build" in dataset.problems[1].message
    (build,) = dataset.builds
    assert [(t.test_id, len(t.measurements)) for t in build.tests] == [("a", 1), ("d", 0)]
    assert build.tests[0].measurements[0].values == (1.0, 2.0)


def test_jsonl_rows_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "bench.jsonl"
    lines = [
        {
            "test": "x",
            "build": 3,
            "time": "2024-01-01T00:00:00Z",
            "values": [1, 2.5],
            "tags": ["a", "b"],
        },
        "not json",
        [1, 2],
        {"test": "y", "build": 3, "time": "2024-01-01T00:00:00Z", "value": 7, "status": "pass"},
        {"test": "z", "build": 3, "time": "2024-01-01T00:00:00Z", "values": [1, "x"]},
        {"test": "w", "build": 3, "time": "2024-01-01T00:00:00Z", "values": [1], "version": "a"},
        {"test": "v", "build": 3, "time": "2024-01-01T00:00:00Z", "values": [1], "version": "b"},
    ]
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n\n")
    dataset = load_paths(path, format="jsonl")
    assert [(p.line, p.subtype) for p in dataset.problems] == [
        (2, "parse"),
        (3, "parse"),
        (5, "data"),
        (7, "data"),
    ]
    assert dataset.problems[0].message.startswith("row skipped: not JSON")
    (build,) = dataset.builds
    assert build.build == "3" and build.dut_version == "a"
    x, y, z, _w, _v = build.tests
    assert x.tags == ("a", "b") and x.measurements[0].values == (1.0, 2.5)
    assert y.status == "PASS" and y.measurements[0].values == (7.0,)
    assert z.measurements == ()


def test_empty_table_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("test,build,time,value\n")
    (problem,) = load_paths(path, format="csv").problems
    assert problem.message == "no result rows in this file"


def test_csv_members_of_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "bundle.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.csv", "test,build,time,value,job\nt,1,2024-01-01T00:00:00,1,j\n")
        archive.writestr("b.csv", "test,build,time,value,job\nt,2,2024-01-02T00:00:00,2,j\n")
        archive.writestr("readme.txt", "ignored")
    assert [b.build for b in load_paths(path, format="csv").builds] == ["1", "2"]


def _export_to_jsonl(builds: list, path: Path) -> None:
    with path.open("w") as out:
        for build in builds:
            for record in records(build):
                out.write(json.dumps(record) + "\n")


def test_export_reads_back_as_jsonl_unchanged(tmp_path: Path) -> None:
    """The same builds, tests and values, named by their display names; a fixed point."""
    original = load_paths(RF7_DAILY, RF6, testbed_map={"10.30.51.49": "3n-hsw"})
    path = tmp_path / "export.jsonl"
    _export_to_jsonl(original.builds, path)
    again = load_paths(path, format="jsonl")
    assert again.problems == []
    second = tmp_path / "again.jsonl"
    _export_to_jsonl(again.builds, second)
    assert second.read_text() == path.read_text()
    renamed = next(t for b in again.builds for t in b.tests if "10ge2p1x520" in t.test_id)
    assert renamed.name == "3n-hsw 10ge2p1x520 dpdk 64b 1c ethip4-ip4base-mrr"
    assert renamed.attribute("hosts") == "10.30.51.49"
    named = {t.test_id: t.name for b in again.builds for t in b.tests}
    for before, after in zip(original.builds, again.builds, strict=True):
        assert (before.job, before.build, before.time, before.dut_version, before.testbed) == (
            after.job,
            after.build,
            after.time,
            after.dut_version,
            after.testbed,
        )
        assert tuple(replace(t, name=named[t.test_id]) for t in before.tests) == after.tests


def test_times_are_utc_aware_everywhere(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        json.dumps({"test": "t", "build": 1, "time": "2024-06-01T12:00:00-05:00", "value": 1})
        + "\n"
    )
    (build,) = load_paths(path, format="jsonl").builds
    assert build.time.utcoffset() == timedelta(0)
    assert build.time.hour == 17
