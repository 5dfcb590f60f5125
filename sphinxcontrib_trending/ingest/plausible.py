"""Screening measurements and times for values no benchmark can produce.

Every metric is finite (a difference or a temperature may be negative, and
the grouping handles that) and its magnitude is far below :data:`MAX_VALUE`;
values near the float limit would overflow the grouping's sums.  An
infinite value, a NaN or one beyond that bound is no measurement: it is taken
out at ingest, with a ``data`` problem naming the file, build and test, so
one bad row in a CSV never stops a documentation build and is never silently
ignored.  A build whose time lies outside :data:`EARLIEST` .. :data:`LATEST`
is left out the same way: the analysis and the graphs do arithmetic on
times, which must not overflow the calendar.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from math import isfinite

from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult

MAX_VALUE = 1e100
"""Largest plausible magnitude: far above any rate, far below float overflow."""

EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)
"""Build times outside this span are refused (year 9999 cannot take a day's window)."""


def implausible_value(value: float) -> bool:
    """Infinite, NaN or beyond :data:`MAX_VALUE` either way; negative values are fine."""
    return not abs(value) <= MAX_VALUE


def plausible_time(moment: datetime) -> bool:
    return moment.tzinfo is not None and EARLIEST <= moment <= LATEST


def time_problem(origin: str, what: str, moment: object) -> Problem:
    return Problem(
        origin,
        f"{what} {moment} is outside {EARLIEST.year}..{LATEST.year}; left out",
        "data",
    )


def _bad_value(measurement: Measurement) -> float | None:
    values = measurement.values
    # three passes in C settle almost every measurement: a NaN or an infinity
    # makes the sum NaN or infinite, and without them min and max are exact
    if values and isfinite(sum(values)) and -MAX_VALUE <= min(values) <= max(values) <= MAX_VALUE:
        return None
    for value in values:
        if implausible_value(value):
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
                f"build {build.job}/{build.build}, test {test.test_id}: {measurement.metric} "
                f"value {bad!r} is infinite, not a number or above {MAX_VALUE:g} in magnitude; "
                "the measurement is left out",
                "data",
            )
        )
    start = test.start
    if start is not None and not plausible_time(start):
        start = None
        problems.append(time_problem(build.origin, f"test {test.test_id}: start time", test.start))
    if len(kept) == len(test.measurements) and start is test.start:
        return test
    return replace(test, measurements=tuple(kept), start=start)


def screen(builds: list[Build], problems: list[Problem]) -> list[Build]:
    """The builds with implausible measurements and times removed and reported."""
    screened = []
    for build in builds:
        if not plausible_time(build.time):
            problems.append(
                time_problem(build.origin, f"build {build.job}/{build.build}: time", build.time)
            )
            continue
        tests = tuple(_screened_test(test, build, problems) for test in build.tests)
        changed = any(new is not old for new, old in zip(tests, build.tests, strict=True))
        screened.append(replace(build, tests=tests) if changed else build)
    return screened
