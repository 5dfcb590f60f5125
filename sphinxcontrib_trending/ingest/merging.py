"""Joining builds that arrive one test at a time.

A format whose documents each hold one test (the CSIT JSON test model)
yields one partial build per document; the tests of one job build are
spread over many files, folders or archive members.  Here the partial
builds of one (job, build) become one build; the same test twice in one
build is the duplicate, reported and dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from sphinxcontrib_trending.ingest.model import Build, Problem, TestResult


@dataclass
class _Joined:
    first: Build
    time: datetime
    tests: list[TestResult] = field(default_factory=list)
    seen: dict[str, str] = field(default_factory=dict)
    dut_version: str | None = None
    testbed: str | None = None


def merge_builds(builds: list[Build], problems: list[Problem]) -> list[Build]:
    """One build per (job, build): the earliest time, the first version and testbed."""
    joined: dict[tuple[str, str], _Joined] = {}
    for build in builds:
        entry = joined.setdefault(build.key, _Joined(build, build.time))
        entry.time = min(entry.time, build.time)
        entry.dut_version = entry.dut_version or build.dut_version
        entry.testbed = entry.testbed or build.testbed
        for test in build.tests:
            if (where := entry.seen.setdefault(test.test_id, build.origin)) != build.origin:
                problems.append(
                    Problem(
                        build.origin,
                        f"test {test.test_id} of build {build.job} #{build.build} is also in "
                        f"{where}; kept that one",
                        "duplicate",
                    )
                )
                continue
            entry.tests.append(test)
    return [
        replace(
            entry.first,
            time=entry.time,
            dut_version=entry.dut_version,
            testbed=entry.testbed,
            tests=tuple(entry.tests),
        )
        for entry in joined.values()
    ]
