"""Is the CI itself healthy: per job, how each build went.

A trend page says how fast the code is; this says whether the numbers
behind it can be had at all: how many builds each job ran, how many tests
passed, failed or were skipped in each, and how long each build took.  A job
whose failures climb or whose duration creeps up is a CI problem before it
is a performance problem.

Archives carry no build duration, only per-test start times (and, for the
``elapsed`` metric, per-test run times), so a build's duration is measured
from its first test's start to its last test's end, the last test's start
when its run time is unknown.  A build without start times has no duration,
and neither has one whose times span nothing (a single test, or tests all
stamped at one instant, without run times): that is a duration not measured,
which a table must not show as ``0:00``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sphinxcontrib_trending.analysis.build_selection import build_name
from sphinxcontrib_trending.analysis.compliance import in_window
from sphinxcontrib_trending.ingest.model import Build, TestResult

SKIPPED_STATUSES = frozenset({"SKIP", "NOT RUN"})
"""Robot Framework's statuses of a test that did not run; every other non-PASS failed."""

ELAPSED_METRIC = "elapsed"


@dataclass(frozen=True)
class BuildStats:
    """One build of one job: its test outcomes and how long it took."""

    job: str
    build: str
    time: datetime
    dut_version: str | None
    testbed: str | None
    passed: int
    failed: int
    skipped: int
    duration: timedelta | None

    @property
    def job_build(self) -> str:
        return build_name(self.job, self.build)

    @property
    def tests(self) -> int:
        return self.passed + self.failed + self.skipped


@dataclass(frozen=True)
class JobStats:
    """Every build of one job in the window, oldest first."""

    job: str
    builds: tuple[BuildStats, ...]

    @property
    def failed_builds(self) -> int:
        """Builds with at least one failed test."""
        return sum(1 for build in self.builds if build.failed)


def _end(test: TestResult) -> datetime | None:
    if test.start is None:
        return None
    elapsed = test.measurement(ELAPSED_METRIC)
    if elapsed is None or not elapsed.values:
        return test.start
    return test.start + timedelta(seconds=max(elapsed.values))


def build_duration(tests: Sequence[TestResult]) -> timedelta | None:
    """First test's start to last test's end; None when the times span nothing."""
    starts = [test.start for test in tests if test.start is not None]
    ends = [end for end in (_end(test) for test in tests) if end is not None]
    if not starts:
        return None
    span = max(ends) - min(starts)
    return span if span > timedelta(0) else None


def build_stats(build: Build, accept: Callable[[TestResult], bool] | None = None) -> BuildStats:
    """The outcomes of one build's tests (those ``accept`` keeps)."""
    tests = [test for test in build.tests if accept is None or accept(test)]
    skipped = sum(1 for test in tests if test.status in SKIPPED_STATUSES)
    passed = sum(1 for test in tests if test.passed)
    return BuildStats(
        job=build.job,
        build=build.build,
        time=build.time,
        dut_version=build.dut_version,
        testbed=build.testbed,
        passed=passed,
        failed=len(tests) - passed - skipped,
        skipped=skipped,
        duration=build_duration(tests),
    )


def job_stats(
    builds: Iterable[Build],
    since: datetime | None = None,
    accept: Callable[[TestResult], bool] | None = None,
) -> list[JobStats]:
    """Per job (in name order), its builds from ``since`` on, oldest first.

    With a filter, a build none of whose tests it keeps is left out: it says
    nothing about the tests the page is about.
    """
    per_job: dict[str, list[BuildStats]] = {}
    for build in sorted(builds, key=lambda build: build.time):
        if since is not None and not in_window(build.time, since):
            continue
        stats = build_stats(build, accept)
        if accept is not None and not stats.tests:
            continue
        per_job.setdefault(build.job, []).append(stats)
    return [JobStats(job, tuple(per_job[job])) for job in sorted(per_job)]
