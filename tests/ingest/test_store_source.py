"""A ``parquet`` source: our store or the reference's own dataset, pruned and projected.

The reference fixture is written with the column names and types of FD.io
CSIT's trending Parquet (``csit.infra.dash/app/cdash/data/_metadata/
trending_mrr`` and ``trending_ndrpdr``), partitioned as its ETL does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime, timezone
from pathlib import Path

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sphinxcontrib_trending.analysis.test_run import trial_statistics
from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.engine import read_ahead as ahead
from sphinxcontrib_trending.ingest import SourceSpec, SpecError, fingerprint, load
from sphinxcontrib_trending.ingest.dimensions import Dimensions, rules_for
from sphinxcontrib_trending.ingest.options import compile_options
from sphinxcontrib_trending.ingest.store import dataset
from sphinxcontrib_trending.ingest.store.dataset import Query, read_store
from sphinxcontrib_trending.ingest.store.manifest import DataFile
from sphinxcontrib_trending.ingest.store.rows import SharedValues
from sphinxcontrib_trending.ingest.trials import Trials
from tests.ingest.conftest import RF7_DAILY, RF7_WEEKLY
from tests.latency_data import hdrh_of
from tests.store_tree import vouch_for

TEXTS = pa.list_(pa.string())
COMMON = [
    ("job", pa.string()),
    ("build", pa.string()),
    ("dut_type", pa.string()),
    ("dut_version", pa.string()),
    ("hosts", TEXTS),
    ("tg_type", pa.string()),
    ("start_time", pa.timestamp("us")),
    ("passed", pa.bool_()),
    ("test_id", pa.string()),
    ("message", pa.string()),
    ("version", pa.string()),
]
MRR_SCHEMA = pa.schema(
    [
        *COMMON,
        ("result_receive_rate_rate_avg", pa.float64()),
        ("result_receive_rate_rate_stdev", pa.float64()),
        ("result_receive_rate_rate_unit", pa.string()),
        ("result_receive_rate_rate_values", pa.list_(pa.float64())),
        ("result_receive_rate_bandwidth_avg", pa.float64()),
        ("result_receive_rate_bandwidth_stdev", pa.float64()),
        ("result_receive_rate_bandwidth_unit", pa.string()),
        ("result_receive_rate_bandwidth_values", pa.list_(pa.float64())),
        ("telemetry", TEXTS),
        ("test_type", pa.string()),
        ("year", pa.string()),
        ("month", pa.string()),
        ("day", pa.string()),
    ]
)
NDRPDR_SCHEMA = pa.schema(
    [
        *COMMON,
        ("result_pdr_lower_rate_unit", pa.string()),
        ("result_pdr_lower_rate_value", pa.float64()),
        ("result_ndr_lower_rate_unit", pa.string()),
        ("result_ndr_lower_rate_value", pa.float64()),
        ("result_pdr_lower_bandwidth_unit", pa.string()),
        ("result_pdr_lower_bandwidth_value", pa.float64()),
        ("result_ndr_lower_bandwidth_unit", pa.string()),
        ("result_ndr_lower_bandwidth_value", pa.float64()),
        ("result_latency_reverse_pdr_90_hdrh", pa.string()),
        ("result_latency_forward_pdr_50_avg", pa.float64()),
        ("result_latency_forward_pdr_50_hdrh", pa.string()),
        ("result_latency_forward_pdr_50_unit", pa.string()),
        ("telemetry", TEXTS),
        ("test_type", pa.string()),
        ("year", pa.string()),
        ("month", pa.string()),
        ("day", pa.string()),
    ]
)
JOB = "csit-vpp-perf-mrr-daily-master-2n-icx"
MRR_TEST = "tests.vpp.perf.ip4.2n1l-25ge2p1xxv710-ethip4-ip4base-mrr.64b-2t1c-ethip4-ip4base-mrr"
NDR_TEST = (
    "tests.vpp.perf.ip4.2n1l-25ge2p1xxv710-ethip4-ip4base-ndrpdr.64b-2t1c-ethip4-ip4base-ndrpdr"
)


def _common(build: str, day: int, passed: bool, test_id: str, job: str = JOB) -> dict:
    return {
        "job": job,
        "build": build,
        "dut_type": "VPP",
        "dut_version": f"24.10-rc0~{build}",
        "hosts": ["10.30.51.49", "10.30.51.50"],
        "tg_type": "TREX",
        "start_time": datetime(2024, 6, day, 3, 0),
        "passed": passed,
        "test_id": test_id,
        "message": f"trial results of {build}" if passed else "Traffic generator failed",
        "version": "1.1.0",
        "telemetry": ["calls_total{name='ip4-input',thread_id='1'} 5.0 1717383600000"],
        "year": "2024",
        "month": "6",
        "day": str(day + 1),
    }


def _mrr_row(build: str, day: int, values: list[float] | None) -> dict:
    row = _common(build, day, values is not None, MRR_TEST)
    if values:
        row |= {
            "result_receive_rate_rate_values": values,
            "result_receive_rate_rate_avg": sum(values) / len(values),
            "result_receive_rate_rate_unit": "pps",
        }
    return {**row, "test_type": "mrr"}


def _ndr_row(build: str, day: int) -> dict:
    return {
        **_common(build, day, True, NDR_TEST, job=JOB.replace("mrr", "ndrpdr")),
        "result_ndr_lower_rate_value": 11e6,
        "result_ndr_lower_rate_unit": "pps",
        "result_pdr_lower_rate_value": 12e6,
        "result_pdr_lower_rate_unit": "pps",
        "result_latency_forward_pdr_50_avg": 9.0,
        "result_latency_forward_pdr_50_unit": "us",
        "result_latency_forward_pdr_50_hdrh": hdrh_of(8, 9, 10),
        "test_type": "ndrpdr",
    }


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    """The reference's trending dataset: Hive partitions test_type/year/month/day."""
    root = tmp_path / "trending"
    mrr = [_mrr_row("101", 1, [1.0e7, 1.1e7]), _mrr_row("102", 2, None)]
    mrr += [_mrr_row("103", 3, [1.2e7, 1.3e7])]
    for rows, schema in ((mrr, MRR_SCHEMA), ([_ndr_row("7", 2)], NDRPDR_SCHEMA)):
        pq.write_to_dataset(
            pa.Table.from_pylist(rows, schema=schema),
            root,
            partition_cols=["test_type", "year", "month", "day"],
            compression="snappy",
        )
    return root


OPTIONS = compile_options(SourceSpec(paths=(), format="parquet"))


def test_the_reference_dataset_is_read_as_it_is(reference: Path) -> None:
    dataset = load(SourceSpec(paths=(str(reference),), format="parquet"))
    assert dataset.problems == []
    assert [(b.job, b.build) for b in dataset.builds] == [
        (JOB, "101"),
        (JOB, "102"),
        (JOB.replace("mrr", "ndrpdr"), "7"),
        (JOB, "103"),
    ]
    first, failed, ndrpdr, _ = dataset.builds
    (test,) = first.tests
    assert test.test_id == MRR_TEST and test.name == "64b-2t1c-ethip4-ip4base-mrr"
    assert test.measurement("mrr").values == (1.0e7, 1.1e7)
    assert test.thread_core == "2T1C" and test.attribute("dut_type") == "VPP"
    assert test.attribute("hosts") == "10.30.51.49 10.30.51.50"
    assert first.dut_version == "24.10-rc0~101"
    assert first.time == datetime(2024, 6, 1, 3, 0, tzinfo=timezone.utc)  # naive means UTC
    (ndr,) = ndrpdr.tests
    assert {m.metric: m.values for m in ndr.measurements} == {
        "ndr": (11e6,),
        "pdr": (12e6,),
        "latency_pdr50_forward_avg": (9.0,),
        "latency_pdr50_forward_p50": (9.0,),
        "latency_pdr50_forward_p90": (10.0,),
        "latency_pdr50_forward_p99": (10.0,),
        "latency_pdr50_forward_p999": (10.0,),
        'telemetry:calls_total{name="ip4-input",thread_id="1"}': (5.0,),
    }
    assert ndr.attribute("latency_pdr50_forward_hdrh") == hdrh_of(8, 9, 10)
    (failure,) = failed.tests
    assert failure.status == "FAIL" and failure.measurements == ()


def test_reads_are_pruned_by_day_and_projected_by_metric(
    reference: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[list[str]] = []
    real = pq.ParquetFile.read

    def recording(self, columns=None, **kwargs):
        asked.append(list(columns))
        return real(self, columns=columns, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read", recording)
    found = read_store(
        str(reference), OPTIONS, Query(days=(date(2024, 6, 3), date(2024, 6, 4)), metrics=("mrr",))
    )
    assert sorted((b.build, b.tests[0].status) for b in found.builds) == [
        ("102", "FAIL"),
        ("103", "PASS"),
    ]
    assert [Path(path).parent.name for path in found.files_read] == ["day=3", "day=4", "day=3"]
    for columns in asked:
        assert "telemetry" not in columns
        assert not any(name.endswith("_hdrh") for name in columns)
        assert not any("bandwidth" in name for name in columns)


def test_our_store_reads_back_what_the_archives_hold(ours: Path) -> None:
    direct = load(SourceSpec(paths=(str(RF7_DAILY),)))
    stored = load(SourceSpec(paths=(str(ours),), format="parquet"))
    assert stored.problems == [] and stored.builds == direct.builds
    measured = [m for build in stored.builds for test in build.tests for m in test.measurements]
    assert measured and all(type(m.values) is Trials for m in measured)
    # a trials metric's values come with the statistics the store wrote beside them:
    # exactly those trial_statistics computes from the values
    with_statistics = [m.values for m in measured if m.values.statistics is not None]
    assert {m.metric for m in measured if m.values.statistics is not None} == {"mrr"}
    assert all(values.statistics == trial_statistics(tuple(values)) for values in with_statistics)
    assert stored.files and all(Path(path).is_relative_to(ours) for path in stored.files)


@pytest.mark.parametrize("which", ["ours", "reference"])
def test_a_read_for_a_site_leaves_out_the_messages_of_passed_tests(
    which: str, request: pytest.FixtureRequest
) -> None:
    spec = SourceSpec(paths=(str(request.getfixturevalue(which)),), format="parquet")
    everything = [test for build in load(spec).builds for test in build.tests]
    shown = [test for build in load(spec, passed_messages=False).builds for test in build.tests]
    assert any(test.passed and test.message for test in everything)  # something to leave out
    assert any(not test.passed and test.message for test in everything)
    assert shown == [replace(test, message="") if test.passed else test for test in everything]


def test_our_store_is_read_through_an_fsspec_url(ours: Path) -> None:
    memory = fsspec.filesystem("memory")
    memory.put(str(ours), "/copied", recursive=True)
    try:
        stored = load(SourceSpec(paths=("memory://copied",), format="parquet"))
    finally:
        memory.rm("/copied", recursive=True)
    assert stored.problems == []
    assert stored.builds == load(SourceSpec(paths=(str(RF7_DAILY),))).builds


def test_a_metric_query_on_our_store_reads_that_metric_and_the_failures(ours: Path) -> None:
    found = read_store(str(ours), OPTIONS, Query(metrics=("mrr",)))
    tests = [test for build in found.builds for test in build.tests]
    assert {m.metric for test in tests for m in test.measurements} == {"mrr"}
    assert all(test.measurements or not test.passed for test in tests)
    everything = [t for b in load(SourceSpec(paths=(str(RF7_DAILY),))).builds for t in b.tests]
    assert len(tests) == sum(1 for t in everything if t.measurement("mrr") or not t.measurements)


def test_a_foreign_or_corrupt_file_in_a_store_source_is_reported_and_skipped(ours: Path) -> None:
    planted = ours / "test_type=mrr" / "year=2024" / "notes.parquet"
    planted.write_bytes(b"not parquet")
    victim = sorted(ours.rglob("*-*.parquet"))[0]
    victim.write_bytes(b"PAR1 broken")
    dataset = load(SourceSpec(paths=(str(ours),), format="parquet"))
    problems = {problem.origin: problem.message for problem in dataset.problems}
    assert problems[str(planted)] == "foreign file in the store, skipped"
    assert problems[str(victim)].startswith("corrupt or foreign file, skipped")
    assert dataset.builds  # the rest is read


def test_a_missing_store_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    dataset = load(SourceSpec(paths=(str(tmp_path / "absent"),), format="parquet"))
    assert dataset.builds == []
    (problem,) = dataset.problems
    assert problem.origin == str(tmp_path / "absent") and problem.subtype == "source"


def test_the_fingerprint_of_a_store_source_follows_its_content(ours: Path) -> None:
    spec = SourceSpec(paths=(str(ours),), format="parquet")
    before = fingerprint(spec)
    assert fingerprint(spec) == before
    assert main(["ingest", str(RF7_DAILY), str(RF7_WEEKLY), "--store", str(ours), "--quiet"]) == 0
    assert fingerprint(spec) != before


def test_the_fingerprint_of_a_remote_store_follows_its_listing(ours: Path) -> None:
    memory = fsspec.filesystem("memory")
    memory.put(str(ours), "/fingerprinted", recursive=True)
    spec = SourceSpec(paths=("memory://fingerprinted",), format="parquet")
    try:
        before = fingerprint(spec)
        assert fingerprint(spec) == before
        memory.pipe("/fingerprinted/test_type=mrr/extra.parquet", b"x")
        assert fingerprint(spec) != before
    finally:
        memory.rm("/fingerprinted", recursive=True)


def test_a_source_s_days_and_metrics_prune_the_read(reference: Path) -> None:
    """Partitions run from day 2 to day 4 of June: two days back from the newest is 3 and 4."""
    spec = SourceSpec(paths=(str(reference),), format="parquet", days=2, metrics=("ndr",))
    dataset = load(spec)
    assert dataset.problems == []
    assert sorted(
        (b.build, [m.metric for t in b.tests for m in t.measurements]) for b in dataset.builds
    ) == [
        ("102", []),  # failed: always kept
        ("7", ["ndr"]),
    ]
    assert sorted(Path(path).parent.name for path in dataset.files) == ["day=3", "day=3", "day=4"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"days": 0}, "days 0 is not a whole number"),
        ({"format": "robot", "days": 3}, "days does not apply to format 'robot'"),
        ({"format": "csv", "metrics": ("mrr",)}, "metrics does not apply to format 'csv'"),
    ],
)
def test_days_and_metrics_are_checked(options: dict, message: str) -> None:
    spec = SourceSpec(**{"paths": ("x",), "format": "parquet", **options})
    with pytest.raises(SpecError, match=message):
        load(spec)


def test_a_file_with_our_marker_and_wrong_columns_is_skipped(ours: Path) -> None:
    victim = sorted(ours.rglob("*-*.parquet"))[0]
    table = pq.read_table(victim)
    at = table.schema.get_field_index("build_index")
    planted = table.set_column(at, "build_index", pa.array(["x"] * len(table)))
    pq.write_table(planted.replace_schema_metadata(table.schema.metadata), victim)
    vouch_for(ours, victim)
    dataset = load(SourceSpec(paths=(str(ours),), format="parquet"))
    (problem,) = dataset.problems
    assert problem.origin == str(victim)
    assert "column build_index is string, not int32" in problem.message


def _planted(store: Path, column: str, plant: Callable[[list], list]) -> Path:
    """Rewrite ``column`` of the first data file that has a value in it, and the manifest
    to match (:func:`vouch_for`); return that file."""
    victim = next(
        path
        for path in sorted(store.rglob("*-*.parquet"))
        if pq.read_table(path).column(column).null_count < pq.read_table(path).num_rows
    )
    table = pq.read_table(victim)
    at = table.schema.get_field_index(column)
    cells = pa.array(plant(table.column(at).to_pylist()), table.schema.field(at).type)
    planted = table.set_column(at, table.schema.field(at), cells)
    pq.write_table(planted.replace_schema_metadata(table.schema.metadata), victim)
    vouch_for(store, victim)
    return victim


@pytest.mark.parametrize(
    ("plant", "message"),
    [
        (lambda values: [None if cell else cell for cell in values], "a row with a metric has no"),
        (lambda values: [[None, *cell] if cell else cell for cell in values], "empty trials"),
    ],
)
def test_a_file_whose_measured_rows_lack_values_is_skipped(
    ours: Path, plant: Callable[[list], list], message: str
) -> None:
    victim = _planted(ours, "values", plant)
    dataset = load(SourceSpec(paths=(str(ours),), format="parquet"))
    (problem,) = dataset.problems
    assert problem.origin == str(victim) and message in problem.message
    assert dataset.builds


def test_an_implausible_value_planted_in_our_store_skips_its_file(ours: Path) -> None:
    victim = _planted(
        ours,
        "values",
        lambda cells: [[float("inf"), *cell[1:]] if cell else cell for cell in cells],
    )
    dataset = load(SourceSpec(paths=(str(ours),), format="parquet"))
    (problem,) = dataset.problems
    assert problem.origin == str(victim) and "a value is infinite" in problem.message
    assert all(
        math.isfinite(value)
        for build in dataset.builds
        for test in build.tests
        for measurement in test.measurements
        for value in measurement.values
    )


def test_an_implausible_value_in_the_reference_s_dataset_is_screened_out(tmp_path: Path) -> None:
    root = tmp_path / "trending"
    rows = [_mrr_row("101", 1, [1.0e7, float("nan")]), _mrr_row("102", 2, [1.0e7, 1.1e7])]
    pq.write_to_dataset(
        pa.Table.from_pylist(rows, schema=MRR_SCHEMA),
        root,
        partition_cols=["test_type", "year", "month", "day"],
    )
    dataset = load(SourceSpec(paths=(str(root),), format="parquet"))
    (problem,) = dataset.problems
    assert problem.subtype == "data" and "value nan is infinite, not a number" in problem.message
    assert [
        (b.build, [t.measurement("mrr") is not None for t in b.tests]) for b in dataset.builds
    ] == [
        ("101", [False]),
        ("102", [True]),
    ]


@pytest.mark.parametrize("statistic", ["avg", "stdev"])
def test_a_stored_statistic_that_is_not_its_values_skips_its_file(
    ours: Path, statistic: str
) -> None:
    victim = _planted(
        ours,
        f"result_receive_rate_rate_{statistic}",
        lambda cells: [None if cell is None else cell * 1.001 + 1.0 for cell in cells],
    )
    dataset = load(SourceSpec(paths=(str(ours),), format="parquet"))
    (problem,) = dataset.problems
    assert problem.origin == str(victim)
    assert "a stored average or spread is not that of its values" in problem.message


def test_a_store_read_makes_each_input_s_builds_before_reading_the_rest(
    ours: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two inputs per core are read ahead, no more: the whole store is never held as tables."""
    monkeypatch.setattr(ahead.os, "cpu_count", lambda: 1)
    reads: list[str] = []
    reads_before_builds: list[int] = []
    read_file, builds_from_input = dataset._read_file, dataset.builds_from_input

    def counted_read(fs: object, path: str, query: Query, vouched: DataFile | None) -> pa.Table:
        reads.append(path)
        return read_file(fs, path, query, vouched)

    def counted_builds(rows: pa.Table, shared: SharedValues, provenance: tuple[str, ...]) -> list:
        reads_before_builds.append(len(reads))
        return builds_from_input(rows, shared, provenance)

    monkeypatch.setattr(dataset, "_read_file", counted_read)
    monkeypatch.setattr(dataset, "builds_from_input", counted_builds)
    found = read_store(str(ours), OPTIONS)
    assert found.problems == [] and len(reads) >= 4
    # six inputs of three files each (one per result type): an input's builds are made
    # once its three files are in, with at most two more inputs read ahead
    assert len(reads) == 18 and len(reads_before_builds) == 6
    assert all(count <= 3 * (done + 2) for done, count in enumerate(reads_before_builds))
    assert (
        sorted(found.builds, key=lambda build: build.time)
        == load(SourceSpec(paths=(str(RF7_DAILY),))).builds
    )


def test_the_reference_dataset_gets_csit_dashs_testbed_and_dimensions(tmp_path: Path) -> None:
    # no tags in the reference's Parquet: the job, the test id and test_type say it all
    octeon = "tests.vpp.perf.ip4.100ge2p1a063-ethip4-ip4base-mrr.64b-1c-ethip4-ip4base-mrr"
    row = {
        **_common("5", 1, True, octeon, job="csit-vpp-perf-mrr-daily-master-3n-oct"),
        "result_receive_rate_rate_values": [1.0e7],
        "result_receive_rate_rate_avg": 1.0e7,
        "result_receive_rate_rate_unit": "pps",
        "test_type": "mrr",
    }
    root = tmp_path / "trending"
    pq.write_to_dataset(
        pa.Table.from_pylist([row], schema=MRR_SCHEMA),
        root,
        partition_cols=["test_type", "year", "month", "day"],
    )
    dataset = load(SourceSpec(paths=(str(root),), format="parquet"))
    assert dataset.problems == []
    (build,) = dataset.builds
    assert build.testbed == "3n-oct"
    (test,) = build.tests
    assert rules_for().derive(test, build.testbed) == Dimensions(
        "3n-oct", "100ge2p1a063", "octeon", "64b", "1C", "mrr"
    )
