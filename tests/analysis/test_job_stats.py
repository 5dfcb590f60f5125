"""Job statistics: builds per job, test outcomes and durations."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sphinxcontrib_trending.analysis.job_stats import build_duration, build_stats, job_stats
from sphinxcontrib_trending.ingest.model import Measurement
from tests.hand_built import build_time, builds, result

LEVELS = {"a": lambda n: 5e6, "b": lambda n: None if n == 3 else 6e6}


def test_outcomes_per_build_and_jobs_in_name_order() -> None:
    data = builds(LEVELS, range(1, 5), job="z-job") + builds(LEVELS, range(1, 3), job="a-job")
    stats = job_stats(data, since=build_time(1))
    assert [job.job for job in stats] == ["a-job", "z-job"]
    a_job, z_job = stats
    assert [build.build for build in a_job.builds] == ["2"]  # build 1 is the window's start
    assert [(b.build, b.passed, b.failed, b.skipped) for b in z_job.builds] == [
        ("2", 2, 0, 0),
        ("3", 1, 1, 0),
        ("4", 2, 0, 0),
    ]
    assert z_job.failed_builds == 1
    assert z_job.builds[1].job_build == "z-job/3"


def test_skipped_and_filtered_tests() -> None:
    (build,) = builds(LEVELS, [1])
    skipped = replace(result("c", None), status="SKIP")
    not_run = replace(result("d", None), status="NOT RUN")
    build = replace(build, tests=(*build.tests, skipped, not_run))
    stats = build_stats(build)
    assert (stats.passed, stats.failed, stats.skipped, stats.tests) == (2, 0, 2, 4)
    only_b = build_stats(build, accept=lambda test: test.name == "b")
    assert (only_b.passed, only_b.failed, only_b.skipped) == (1, 0, 0)
    assert job_stats([build], accept=lambda test: test.name == "nothing") == []


def test_duration_from_first_start_to_last_end() -> None:
    start = build_time(1)
    first = replace(result("a", 5e6), start=start)
    last = replace(result("b", 5e6), start=start + timedelta(minutes=50))
    assert build_duration([first, last]) == timedelta(minutes=50)
    timed = replace(last, measurements=(Measurement("elapsed", "s", (600.0,)),))
    assert build_duration([first, timed]) == timedelta(hours=1)
    assert build_duration([result("a", 5e6)]) is None  # no start times


def test_times_that_span_nothing_are_no_duration() -> None:
    """One test, or tests stamped at one instant, without run times: not measured, not 0:00."""
    alone = replace(result("a", 5e6), start=build_time(1))
    assert build_duration([alone]) is None
    assert build_duration([alone, replace(alone, name="b")]) is None
    assert build_stats(replace(builds(LEVELS, [1])[0], tests=(alone,))).duration is None
