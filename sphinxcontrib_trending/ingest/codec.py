"""Model objects to and from plain JSON values, for the on-disk cache.

JSON rather than pickle: a cache folder can be committed, shared or planted,
and loading it must never run code.  Floats survive exactly (``repr``
round-trips), times are ISO 8601 strings.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult


def _time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def result_fields(test: TestResult) -> dict[str, Any]:
    """The descriptive fields of a test result, as ``export`` also writes them."""
    return {
        "test_id": test.test_id,
        "name": test.name,
        "suite": test.suite,
        "tags": list(test.tags),
        "status": test.status,
        "message": test.message,
        "start": None if test.start is None else test.start.isoformat(),
    }


def result_to_json(test: TestResult) -> dict[str, Any]:
    return {
        **result_fields(test),
        "thread_core": test.thread_core,
        "attributes": [list(pair) for pair in test.attributes],
        "measurements": [[m.metric, m.unit, list(m.values)] for m in test.measurements],
    }


def result_from_json(data: dict[str, Any]) -> TestResult:
    return TestResult(
        test_id=str(data["test_id"]),
        name=str(data["name"]),
        suite=str(data["suite"]),
        tags=tuple(str(tag) for tag in data["tags"]),
        status=str(data["status"]),
        start=_time(data["start"]),
        message=str(data["message"]),
        measurements=tuple(
            Measurement(str(metric), str(unit), tuple(float(v) for v in values))
            for metric, unit, values in data["measurements"]
        ),
        thread_core=data["thread_core"],
        attributes=tuple((str(name), str(text)) for name, text in data["attributes"]),
    )


def build_to_json(build: Build) -> dict[str, Any]:
    return {
        "job": build.job,
        "build": build.build,
        "time": build.time.isoformat(),
        "dut_version": build.dut_version,
        "testbed": build.testbed,
        "origin": build.origin,
        "tests": [result_to_json(test) for test in build.tests],
    }


def build_from_json(data: dict[str, Any]) -> Build:
    time = _time(data["time"])
    if time is None:
        raise ValueError("build without time")
    return Build(
        job=str(data["job"]),
        build=str(data["build"]),
        time=time,
        dut_version=data["dut_version"],
        testbed=data["testbed"],
        origin=str(data["origin"]),
        tests=tuple(result_from_json(test) for test in data["tests"]),
    )


def problem_to_json(problem: Problem) -> dict[str, Any]:
    return {
        "origin": problem.origin,
        "message": problem.message,
        "subtype": problem.subtype,
        "line": problem.line,
    }


def problem_from_json(data: dict[str, Any]) -> Problem:
    line = data["line"]
    return Problem(
        origin=str(data["origin"]),
        message=str(data["message"]),
        subtype=str(data["subtype"]),
        line=None if line is None else int(line),
    )
