"""Baseline selection over builds sorted by time."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from sphinxcontrib_trending.analysis.build_selection import UnknownBuild, find_build
from sphinxcontrib_trending.analysis.degradation.baseline import build_samples, select_baseline
from sphinxcontrib_trending.ingest import model
from sphinxcontrib_trending.ingest.model import Build, Measurement

START = datetime(2024, 3, 1, 6, 0)


def result(test_id: str, status: str = "PASS", values: tuple = (1.0, 2.0)) -> model.TestResult:
    measurements = (Measurement("mrr", "pps", values),) if status == "PASS" else ()
    return model.TestResult(test_id, test_id, "suite", (), status, None, "", measurements)


def build(number: int, version: str, *tests: model.TestResult, job: str = "daily") -> Build:
    return Build(job, str(number), START + timedelta(days=number), version, "tb", "x", tests)


BUILDS = [
    build(1, "v1", result("a"), result("b")),
    build(2, "v1", result("a")),
    build(3, "v2", result("a", "FAIL"), result("b")),
    build(4, "v2", result("a"), result("b", "FAIL")),
    build(5, "v3", result("a"), result("b")),
]


def number(found: Build | None) -> str | None:
    return None if found is None else found.build


def test_nearest_earlier_build_with_the_test() -> None:
    assert number(select_baseline(BUILDS, BUILDS[4], "a")) == "4"
    assert number(select_baseline(BUILDS, BUILDS[4], "b")) == "3"  # 4 failed b
    assert number(select_baseline(BUILDS, BUILDS[3], "a")) == "2"  # 3 failed a
    assert select_baseline(BUILDS, BUILDS[0], "a") is None
    assert select_baseline(BUILDS, BUILDS[4], "missing") is None


def test_metric_must_be_present() -> None:
    assert select_baseline(BUILDS, BUILDS[4], "a", metric="ndr") is None


def test_target_not_in_the_list_uses_time() -> None:
    outsider = build(3, "v9", result("a"), job="other")
    assert number(select_baseline(BUILDS, outsider, "a")) == "2"


def test_by_dut_version() -> None:
    assert number(select_baseline(BUILDS, BUILDS[4], "a", dut_version="v1")) == "2"
    assert number(select_baseline(BUILDS, BUILDS[4], "b", dut_version="v2")) == "3"
    assert number(select_baseline(BUILDS, BUILDS[4], "b", dut_version="v1")) == "1"
    assert select_baseline(BUILDS, BUILDS[2], "a", dut_version="v3") is None


def test_by_explicit_build() -> None:
    assert number(select_baseline(BUILDS, BUILDS[4], "a", build="daily/1")) == "1"
    assert number(select_baseline(BUILDS, BUILDS[4], "a", build=("daily", "2"))) == "2"
    # a pinned build is used even when it lacks the test: the check says so
    assert number(select_baseline(BUILDS, BUILDS[4], "b", build="2")) == "2"


def test_explicit_build_errors() -> None:
    with pytest.raises(UnknownBuild, match="no build 'daily/9'"):
        find_build(BUILDS, "daily/9")
    twins = [*BUILDS, build(1, "v1", job="weekly")]
    with pytest.raises(UnknownBuild, match="ambiguous: jobs daily, weekly"):
        find_build(twins, "1")
    assert find_build(twins, "weekly/1").job == "weekly"
    with pytest.raises(ValueError, match="not both"):
        select_baseline(BUILDS, BUILDS[4], "a", build="1", dut_version="v1")


def test_build_samples_skips_failed_and_other_tests() -> None:
    assert build_samples(BUILDS[2], "mrr") == {"b": [1.0, 2.0]}
    assert build_samples(BUILDS[0], "mrr", ["a"]) == {"a": [1.0, 2.0]}
    assert build_samples(BUILDS[0], "ndr") == {}
