"""A version's medians per test, and a test's runs per version, from histories."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.release_views import (
    coverage,
    coverage_latencies,
    release_boxes,
    versions_of,
)
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult

START = datetime(2025, 6, 1, tzinfo=timezone.utc)


def _build(number: int, version: str, ndr: float | None, day: int) -> Build:
    test = TestResult(
        test_id="tests.l2.64b-1c-eth-l2bdbasemaclrn-ndrpdr",
        name="64b-1c-eth-l2bdbasemaclrn-ndrpdr",
        suite="tests.l2",
        tags=(),
        status="PASS" if ndr is not None else "FAIL",
        start=None,
        message="",
        measurements=() if ndr is None else (Measurement("ndr", "pps", (ndr,)),),
    )
    return Build("job", str(number), START + timedelta(days=day), version, None, "x", (test,))


BUILDS = [
    _build(1, "25.10-release", 3.0, 150),  # archived out of order: versions go by time
    _build(2, "25.06-release", 1.0, 0),
    _build(3, "25.06-release", 2.0, 1),
    _build(4, "25.06-release", 9.0, 2),
    _build(5, "25.06-release", None, 3),  # failed: no value, not a run of the median
    _build(6, "25.02-release", None, -100),  # only failed in this version: no box
]


def test_a_version_s_row_is_the_median_of_its_measured_runs() -> None:
    (row,) = coverage({"ndr": histories(BUILDS, "ndr")}, "25.06-release")
    assert (row.runs, row.values, row.units) == (3, {"ndr": 2.0}, {"ndr": "pps"})
    assert coverage({"ndr": histories(BUILDS, "ndr")}, "24.02-release") == []


def test_versions_come_in_the_order_they_were_first_tested() -> None:
    assert versions_of(histories(BUILDS, "ndr")) == [
        "25.02-release",
        "25.06-release",
        "25.10-release",
    ]


def test_a_box_per_version_with_measured_runs() -> None:
    found = histories(BUILDS, "ndr")
    boxes = release_boxes(found, versions_of(found))
    assert [(box.version, box.values) for box in boxes] == [
        ("25.06-release", [1.0, 2.0, 9.0]),
        ("25.10-release", [3.0]),
    ]


def test_coverage_latencies_go_by_load_then_direction_then_percentile() -> None:
    assert coverage_latencies(("50",), ("reverse",)) == [
        "latency_pdr50_reverse_p50",
        "latency_pdr50_reverse_p90",
        "latency_pdr50_reverse_p99",
    ]
