"""Model objects to and from plain JSON values, for the on-disk cache.

JSON rather than pickle: a cache folder can be committed, shared or planted,
and loading it must never run code.  Floats survive exactly (``repr``
round-trips), times are ISO 8601 strings.  Reading is strict: a value of the
wrong type raises ``TypeError`` instead of being coerced, so an edited entry
is re-parsed rather than trusted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult


def _time(value: Any) -> datetime | None:
    if value is None:
        return None
    moment = datetime.fromisoformat(_string(value))
    if moment.tzinfo is None:
        raise ValueError(f"time {value!r} has no offset")
    return moment


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, found {type(value).__name__}")
    return value


def _optional_string(value: Any) -> str | None:
    return None if value is None else _string(value)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, found {type(value).__name__}")
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, found {type(value).__name__}")
    return float(value)


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
        test_id=_string(data["test_id"]),
        name=_string(data["name"]),
        suite=_string(data["suite"]),
        tags=tuple(_string(tag) for tag in _list(data["tags"])),
        status=_string(data["status"]),
        start=_time(data["start"]),
        message=_string(data["message"]),
        measurements=tuple(
            Measurement(_string(metric), _string(unit), tuple(map(_number, _list(values))))
            for metric, unit, values in map(_list, _list(data["measurements"]))
        ),
        thread_core=_optional_string(data["thread_core"]),
        attributes=tuple(
            (_string(name), _string(text)) for name, text in map(_list, _list(data["attributes"]))
        ),
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
        job=_string(data["job"]),
        build=_string(data["build"]),
        time=time,
        dut_version=_optional_string(data["dut_version"]),
        testbed=_optional_string(data["testbed"]),
        origin=_string(data["origin"]),
        tests=tuple(result_from_json(test) for test in _list(data["tests"])),
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
    if line is not None and (isinstance(line, bool) or not isinstance(line, int)):
        raise TypeError(f"expected a line number, found {type(line).__name__}")
    return Problem(
        origin=_string(data["origin"]),
        message=_string(data["message"]),
        subtype=_string(data["subtype"]),
        line=line,
    )
