"""One build syntax, JOB/BUILD, for every option that names a build."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from sphinxcontrib_trending.analysis.build_selection import (
    UnknownBuild,
    against_job,
    branch_build,
    build_name,
    builds_of_job,
    find_build,
    newest_builds,
    newest_per_job,
)
from sphinxcontrib_trending.ingest.model import Build

START = datetime(2024, 3, 1)
JOB = "csit-vpp-perf-mrr-daily-master-2n-skx"


def _build(job: str, number: str, day: int) -> Build:
    return Build(job, number, START + timedelta(days=day), None, None, "x", ())


BUILDS = [
    _build(JOB, "1", 1),
    _build("weekly-3n-icx", "1", 2),
    _build(JOB, "2", 3),
    _build(JOB, "2024-05-07", 4),
]


def test_job_slash_build_is_split_at_the_last_slash() -> None:
    assert find_build(BUILDS, f"{JOB}/2") is BUILDS[2]
    assert find_build(BUILDS, f"{JOB}/2024-05-07") is BUILDS[3]
    assert find_build([_build("folder/job", "7", 1)], "folder/job/7").job == "folder/job"
    assert find_build(BUILDS, (JOB, "1")) is BUILDS[0]
    assert build_name(JOB, "2024-05-07") == f"{JOB}/2024-05-07"


def test_a_bare_build_id_must_be_unique() -> None:
    assert find_build(BUILDS, "2") is BUILDS[2]
    with pytest.raises(UnknownBuild, match=r"ambiguous: jobs csit-vpp.*, weekly-3n-icx"):
        find_build(BUILDS, "1")


def test_job_dash_build_still_works_and_says_it_is_deprecated() -> None:
    said: list[str] = []
    assert find_build(BUILDS, f"{JOB}-2", said.append) is BUILDS[2]
    assert said == [
        f"build '{JOB}-2': the JOB-BUILD syntax is deprecated, write '{JOB}/2'",
    ]


def test_unknown_build_lists_the_newest_names() -> None:
    with pytest.raises(UnknownBuild, match=rf"no build 'x/1' among 4 builds; newest: {JOB}/2024"):
        find_build(BUILDS, "x/1")


def test_newest_build_per_job() -> None:
    assert newest_per_job(BUILDS) == {JOB: BUILDS[3], "weekly-3n-icx": BUILDS[1]}
    assert newest_builds(BUILDS) == [BUILDS[3], BUILDS[1]]
    assert builds_of_job(BUILDS, JOB) == [BUILDS[0], BUILDS[2], BUILDS[3]]


MAIN = "perf-main-2n-skx"
BRANCH_BUILDS = [
    _build(MAIN, "1", 1),
    _build("perf-pr-2n-skx", "7", 2),
    _build(MAIN, "2", 3),
    _build("perf-pr-2n-skx", "8", 4),
    _build(MAIN, "3", 5),
    _build("perf-pr-other-2n-skx", "1", 6),
]


def test_the_branch_build_is_the_newest_of_any_other_job_or_the_named_one() -> None:
    assert branch_build(BRANCH_BUILDS, MAIN).key == ("perf-pr-other-2n-skx", "1")
    assert branch_build(BRANCH_BUILDS, MAIN, "perf-pr-2n-skx/7").key == ("perf-pr-2n-skx", "7")
    with pytest.raises(UnknownBuild, match="of the baseline job 'perf-main-2n-skx' itself"):
        branch_build(BRANCH_BUILDS, MAIN, f"{MAIN}/2")
    with pytest.raises(UnknownBuild, match="no build of the baseline job 'nightly'"):
        branch_build(BRANCH_BUILDS, "nightly")
    with pytest.raises(UnknownBuild, match="no build of a job other than"):
        branch_build(builds_of_job(BRANCH_BUILDS, MAIN), MAIN)


def test_the_branch_build_follows_the_baseline_jobs_builds_up_to_its_time() -> None:
    target = BRANCH_BUILDS[3]
    assert [build.key for build in against_job(BRANCH_BUILDS, MAIN, target)] == [
        (MAIN, "1"),
        (MAIN, "2"),
        ("perf-pr-2n-skx", "8"),
    ]
