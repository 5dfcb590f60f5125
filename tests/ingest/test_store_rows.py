"""Our model through the store's rows and back: nothing is lost, the reference's columns filled."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from sphinxcontrib_trending.ingest.store.columns import STORE_SCHEMA
from sphinxcontrib_trending.ingest.store.layout import partition_folder
from sphinxcontrib_trending.ingest.store.rows import (
    SharedValues,
    tables_by_partition,
)
from sphinxcontrib_trending.ingest.store.stored_tests import builds_from_rows

T0 = datetime(2024, 3, 7, 5, 30, tzinfo=timezone.utc)


def _ndrpdr(test_id: str) -> TestResult:
    return TestResult(
        test_id=test_id,
        name=test_id.rpartition(".")[2],
        suite="tests.vpp.perf.ip4",
        tags=("NDRPDR", "2T1C", "64B"),
        status="PASS",
        start=T0,
        message="NDR: 1 pps ünïcode",
        measurements=(
            Measurement("ndr", "pps", (12.5e6,)),
            Measurement("latency_pdr50_forward_avg", "us", (7.0,)),
            Measurement("my_own_metric", "widgets", (1.0, 2.0)),
        ),
        thread_core="2T1C",
        attributes=(("dut_type", "VPP"), ("hosts", "10.0.0.1 10.0.0.2"), ("test_type", "ndrpdr")),
    )


BUILDS = [
    Build(
        "csit-vpp-perf-ndrpdr-weekly",
        "12",
        T0,
        "24.02-rc0",
        "2n-icx",
        "/archives/a.xml.gz",
        (
            _ndrpdr("tests.vpp.perf.ip4.64b-2t1c-ethip4-ip4base-ndrpdr"),
            TestResult(
                "tests.vpp.perf.ip4.failed-mrr",
                "failed-mrr",
                "tests.vpp.perf.ip4",
                ("MRR",),
                "FAIL",
                None,
                "Traffic generator reported no received packets\nsecond line",
            ),
            TestResult(
                "tests.vpp.perf.ip4.64b-1t1c-mrr",
                "64b-1t1c-mrr",
                "tests.vpp.perf.ip4",
                (),
                "PASS",
                T0,
                "",
                (Measurement("mrr", "pps", (1.0, 2.0, 3.0)),),
            ),
        ),
    ),
    Build("empty-job", "3", T0.replace(day=8), None, None, "/archives/a.xml.gz"),
]


def test_builds_come_back_equal_after_their_rows() -> None:
    tables = tables_by_partition(BUILDS)
    assert [partition_folder(p) for p in tables] == [
        "test_type=mrr/year=2024/month=3/day=7",
        "test_type=ndrpdr/year=2024/month=3/day=7",
        "test_type=unknown/year=2024/month=3/day=7",
        "test_type=unknown/year=2024/month=3/day=8",
    ]
    assert builds_from_rows(list(tables.values())) == BUILDS


def test_the_reference_columns_are_filled_on_their_metric_s_row() -> None:
    rows = pa.concat_tables(tables_by_partition(BUILDS).values()).to_pylist()
    ndr = next(row for row in rows if row["metric"] == "ndr")
    assert ndr["result_ndr_lower_rate_value"] == 12.5e6
    assert ndr["result_ndr_lower_rate_unit"] == "pps"
    assert (ndr["job"], ndr["build"], ndr["dut_type"], ndr["passed"]) == (
        "csit-vpp-perf-ndrpdr-weekly",
        "12",
        "VPP",
        True,
    )
    assert ndr["hosts"] == ["10.0.0.1", "10.0.0.2"]
    latency = next(row for row in rows if row["metric"] == "latency_pdr50_forward_avg")
    assert latency["result_latency_forward_pdr_50_avg"] == 7.0
    mrr = next(row for row in rows if row["metric"] == "mrr")
    assert mrr["result_receive_rate_rate_values"] == [1.0, 2.0, 3.0]
    assert mrr["result_receive_rate_rate_avg"] == 2.0
    assert mrr["result_receive_rate_rate_stdev"] == pytest.approx((2 / 3) ** 0.5)
    failed = next(row for row in rows if row["test_id"] == "tests.vpp.perf.ip4.failed-mrr")
    assert failed["passed"] is False and failed["metric"] is None
    assert failed["message"].endswith("second line")
    own = next(row for row in rows if row["metric"] == "my_own_metric")
    assert own["values"] == [1.0, 2.0] and own["result_ndr_lower_rate_value"] is None


def test_the_schema_carries_the_reference_s_columns() -> None:
    names = set(STORE_SCHEMA.names)
    assert {
        "job",
        "build",
        "dut_type",
        "dut_version",
        "hosts",
        "tg_type",
        "start_time",
        "passed",
        "test_id",
        "message",
        "version",
        "result_receive_rate_rate_values",
        "result_ndr_lower_rate_value",
        "result_pdr_lower_bandwidth_value",
        "result_latency_reverse_pdr_90_max",
        "result_critical_rate_lower_rate_value",
        "result_bandwidth_value",
    } <= names


texts = st.text(max_size=20)
measurements = st.builds(
    Measurement,
    st.sampled_from(["mrr", "ndr", "pdr_upper", "soak_lower", "hoststack_rate", "custom"]),
    texts,
    st.lists(st.floats(-1e9, 1e9), min_size=1, max_size=4).map(tuple),
)
results = st.builds(
    TestResult,
    test_id=texts,
    name=texts,
    suite=texts,
    tags=st.lists(texts, max_size=3).map(tuple),
    status=st.sampled_from(["PASS", "FAIL", "SKIP"]),
    start=st.none() | st.just(T0),
    message=texts,
    measurements=st.lists(measurements, max_size=3).map(tuple),
    thread_core=st.none() | texts,
    attributes=st.lists(st.tuples(texts, texts), max_size=3).map(tuple),
)
builds = st.builds(
    Build,
    job=texts,
    build=texts,
    time=st.datetimes(datetime(1990, 1, 1), datetime(2100, 1, 1)).map(
        lambda moment: moment.replace(tzinfo=timezone.utc)
    ),
    dut_version=st.none() | texts,
    testbed=st.none() | texts,
    origin=texts,
    tests=st.lists(results, max_size=3).map(tuple),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(builds, max_size=3))
def test_any_builds_survive_the_round_trip(generated: list[Build]) -> None:
    assert builds_from_rows(list(tables_by_partition(generated).values())) == generated


def test_values_repeated_across_inputs_come_back_as_one_object() -> None:
    """Read with one SharedValues, the same test in two inputs' rows shares its id, name,
    suite, tags and attributes (at CSIT's size the copies would be gigabytes)."""
    later = replace(BUILDS[0], build="13", origin="/archives/b.xml.gz")
    shared = SharedValues()
    first = builds_from_rows(list(tables_by_partition([BUILDS[0]]).values()), shared)
    second = builds_from_rows(list(tables_by_partition([later]).values()), shared)
    assert first == [BUILDS[0]] and second == [later]
    one, other = first[0].tests[0], second[0].tests[0]
    assert one is not other
    for field in ("test_id", "name", "suite", "tags", "attributes", "status"):
        assert getattr(one, field) is getattr(other, field), field
    assert first[0].job is second[0].job


def test_a_trials_metric_without_trials_is_written_without_an_average() -> None:
    """Hypothesis found this one: the writer divided by the number of trials."""
    empty = replace(
        BUILDS[0],
        tests=(replace(BUILDS[0].tests[2], measurements=(Measurement("mrr", "pps", ()),)),),
    )
    (table,) = tables_by_partition([empty]).values()
    assert table.column("result_receive_rate_rate_avg").to_pylist() == [None]
    assert builds_from_rows([table]) == [empty]


def test_inputs_read_with_one_shared_values_keep_their_repeated_texts_once() -> None:
    """A store's test ids, names and suites repeat in every build: kept as indices into
    one dictionary per column, not as texts per input (a third of a loaded store), and
    a build's tags equal to the previous one's as those."""
    later = replace(BUILDS[0], build="13", origin="/archives/b.xml.gz")
    renamed = replace(
        BUILDS[0],
        build="14",
        origin="/archives/c.xml.gz",
        tests=tuple(replace(test, test_id=f"new-{test.test_id}") for test in BUILDS[0].tests),
    )
    shared = SharedValues()
    read = [
        builds_from_rows(list(tables_by_partition([build]).values()), shared)
        for build in (BUILDS[0], later, renamed)
    ]
    assert read == [[BUILDS[0]], [later], [renamed]]

    def dictionary(builds: list[Build], name: str) -> int:
        column = builds[0].tests._input.table.column(name)  # type: ignore[attr-defined]
        assert pa.types.is_dictionary(column.type)
        return column.chunk(0).dictionary.buffers()[2].address

    for name in ("test_id", "test_name", "suite", "status", "metric", "unit"):
        assert dictionary(read[0], name) == dictionary(read[1], name), name
    assert dictionary(read[2], "test_id") != dictionary(read[0], "test_id")
    assert dictionary(read[2], "suite") == dictionary(read[0], "suite")

    def tags(builds: list[Build]) -> pa.Array:
        return builds[0].tests._input.table.column("tags").chunk(0)  # type: ignore[attr-defined]

    assert tags(read[1]).buffers()[-1].address == tags(read[0]).buffers()[-1].address


def test_columns_without_a_value_are_one_column_of_nulls_shared_by_every_input() -> None:
    """The statistics of a metric the store does not hold are null on every row: one
    shared column of nulls, not eight bytes a run per input."""
    later = replace(BUILDS[0], build="13", origin="/archives/b.xml.gz")
    shared = SharedValues()
    read = [
        builds_from_rows(list(tables_by_partition([build]).values()), shared)
        for build in (BUILDS[0], later)
    ]
    assert read == [[BUILDS[0]], [later]]
    (first, second) = (builds[0].tests._input.table for builds in read)  # type: ignore[attr-defined]
    empty = [name for name in first.column_names if first.column(name).null_count == len(first)]
    assert empty
    for name in empty:
        one, other = first.column(name).chunk(0), second.column(name).chunk(0)
        assert one.type == other.type and one.buffers()[-1].address == other.buffers()[-1].address
