"""Comparing a target build with per-test baselines from its own job."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from sphinxcontrib_trending.analysis.build_selection import UnknownBuild
from sphinxcontrib_trending.analysis.degradation import (
    DEGRADATION,
    NO_CHANGE,
    OPTIMIZATION,
    UNKNOWN,
)
from sphinxcontrib_trending.analysis.degradation.builds import (
    BaselineChoice,
    compare_builds,
    single_method,
)
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult

START = datetime(2026, 3, 1, tzinfo=timezone.utc)


def _test(test_id: str, level: float | None, tags: tuple[str, ...] = ("MRR",)) -> TestResult:
    if level is None:
        return TestResult(test_id, test_id, "s", tags, "FAIL", None, "failed")
    trials = tuple(level * (1 + 0.01 * ((k % 3) - 1)) for k in range(10))
    return TestResult(
        test_id, test_id, "s", tags, "PASS", None, "", (Measurement("mrr", "pps", trials),)
    )


def _build(job: str, number: int, *tests: TestResult) -> Build:
    time = START + timedelta(days=number)
    return Build(job, str(number), time, f"v{number}", job[-3:], f"{job}-{number}.xml", tests)


BUILDS = [
    _build("job-skx", 1, _test("t1", 10e6), _test("t2", 5e6), _test("t4", 3e6)),
    _build("job-icx", 1, _test("t1", 99e6)),
    _build("job-skx", 2, _test("t1", 10e6), _test("t2", 5e6)),
    _build("job-skx", 3, _test("t1", 5e6), _test("t2", 5e6), _test("t3", 1e6), _test("t4", None)),
]
TARGET = BUILDS[-1]


def _results(comparison) -> dict[str, tuple[str, str]]:
    return {report.location: (report.result, report.subtype) for report in comparison.reports}


def test_nearest_earlier_baseline_from_the_same_job() -> None:
    comparison = compare_builds(BUILDS, TARGET, metric="mrr", source="s", direction="higher")
    results = _results(comparison)
    assert results["t1"][0] == DEGRADATION
    assert results["t2"][0] == NO_CHANGE
    assert results["t3"] == (UNKNOWN, "missing baseline")
    assert results["t4"] == (UNKNOWN, "missing target")
    assert comparison.baselines["t1"].key == ("job-skx", "2")
    assert comparison.baselines["t4"].key == ("job-skx", "1")
    assert [report.location for report in comparison.reports] == ["t1", "t2", "t3", "t4"]
    t1 = next(report for report in comparison.reports if report.location == "t1")
    assert t1.from_value == pytest.approx(10e6, rel=0.01)
    assert t1.to_value == pytest.approx(5e6, rel=0.01)


def test_direction_lower_turns_the_drop_into_an_optimization() -> None:
    comparison = compare_builds(BUILDS, TARGET, metric="mrr", source="s", direction="lower")
    assert _results(comparison)["t1"][0] == OPTIMIZATION


def test_pinned_baseline_and_a_bad_pin() -> None:
    comparison = compare_builds(
        BUILDS,
        TARGET,
        metric="mrr",
        source="s",
        direction="higher",
        choice=BaselineChoice(build="job-skx/1"),
        strategies=single_method("aat"),
    )
    assert {key: b.key for key, b in comparison.baselines.items()} == {
        test: ("job-skx", "1") for test in ("t1", "t2", "t3", "t4")
    }
    assert _results(comparison)["t1"] == (DEGRADATION, "ratio")
    with pytest.raises(UnknownBuild):
        compare_builds(
            BUILDS,
            TARGET,
            metric="mrr",
            source="s",
            direction="higher",
            choice=BaselineChoice(build="job-skx/9"),
        )


def test_accept_filters_tests() -> None:
    comparison = compare_builds(
        BUILDS,
        TARGET,
        metric="mrr",
        source="s",
        direction="higher",
        accept=lambda test: test.test_id == "t2",
    )
    assert list(_results(comparison)) == ["t2"]
