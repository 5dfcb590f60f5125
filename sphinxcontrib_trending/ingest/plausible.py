"""Screening measurements and times for values no benchmark can produce.

Rates, latencies and durations are finite, never negative and far below
:data:`MAX_VALUE`; the grouping rightly refuses anything else, and values
near the float limit overflow its sums.  Such a measurement is taken out at
ingest, with a ``data`` problem naming the file, build and test, so one bad
row in a CSV never stops a documentation build and is never silently
ignored.  A build whose time lies outside :data:`EARLIEST` ..
:data:`LATEST` is left out the same way: the analysis and the graphs do
arithmetic on times, which must not overflow the calendar.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult

MAX_VALUE = 1e100
"""Largest plausible measurement: far above any rate, far below float overflow."""

EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)
"""Build times outside this span are refused (year 9999 cannot take a day's window)."""


def implausible_value(value: float) -> bool:
    """Negative, infinite, NaN or above :data:`MAX_VALUE`."""
    return not 0 <= value <= MAX_VALUE


def plausible_time(moment: datetime) -> bool:
    return moment.tzinfo is not None and EARLIEST <= moment <= LATEST


def time_problem(origin: str, what: str, moment: object) -> Problem:
    return Problem(
        origin,
        f"{what} {moment} is outside {EARLIEST.year}..{LATEST.year}; left out",
        "data",
    )


def _bad_value(measurement: Measurement) -> float | None:
    for value in measurement.values:
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
                f"build {build.job}-{build.build}, test {test.test_id}: {measurement.metric} "
                f"value {bad!r} is negative, infinite or above {MAX_VALUE:g}; "
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
                time_problem(build.origin, f"build {build.job}-{build.build}: time", build.time)
            )
            continue
        tests = tuple(_screened_test(test, build, problems) for test in build.tests)
        changed = any(new is not old for new, old in zip(tests, build.tests, strict=True))
        screened.append(replace(build, tests=tests) if changed else build)
    return screened
