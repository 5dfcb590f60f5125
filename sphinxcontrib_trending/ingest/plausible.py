"""Screening measurements for values no benchmark can produce.

Every metric is finite (a difference or a temperature may be negative, and
the grouping handles that); an infinite value is no measurement.  Such a
measurement is taken out at ingest, with a ``data`` problem naming the file,
build and test, so one bad row in a CSV never stops a documentation build and
is never silently ignored.
"""

from __future__ import annotations

import math
from dataclasses import replace

from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult


def _bad_value(measurement: Measurement) -> float | None:
    for value in measurement.values:
        if math.isinf(value):
            return value
    return None


def _screened_test(test: TestResult, build: Build, problems: list[Problem]) -> TestResult:
    kept = []
    for measurement in test.measurements:
        bad = _bad_value(measurement)
        if bad is None:
            kept.append(measurement)
            continue
        problems.append(
            Problem(
                build.origin,
                f"build {build.job}-{build.build}, test {test.test_id}: {measurement.metric} "
                f"value {bad!r} is infinite; the measurement is left out",
                "data",
            )
        )
    if len(kept) == len(test.measurements):
        return test
    return replace(test, measurements=tuple(kept))


def screen(builds: list[Build], problems: list[Problem]) -> list[Build]:
    """The builds with implausible measurements removed and reported."""
    screened = []
    for build in builds:
        tests = tuple(_screened_test(test, build, problems) for test in build.tests)
        changed = any(new is not old for new, old in zip(tests, build.tests, strict=True))
        screened.append(replace(build, tests=tests) if changed else build)
    return screened
