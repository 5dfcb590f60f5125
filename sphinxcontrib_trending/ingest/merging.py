"""Joining builds that arrive one test at a time.

A format whose documents each hold one test (the CSIT JSON test model)
yields one partial build per document; the tests of one job build are
spread over many files, folders or archive members.  Here the partial
builds of one (job, build) become one build; the same test twice in one
build is the duplicate, reported and dropped.  Each file keeps within
``max_tests``, but their sum may not: a joined build that passes it is left
out, as a build of one file is.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime

from sphinxcontrib_trending.ingest.limits import too_many_tests
from sphinxcontrib_trending.ingest.model import Build, Problem, TestResult


@dataclass
class _Joined:
    first: Build
    time: datetime
    tests: list[TestResult] = field(default_factory=list)
    seen: dict[str, str] = field(default_factory=dict)
    dut_version: str | None = None
    testbed: str | None = None
    max_tests: int | None = None
    passed_at: str = ""
    """The file whose test took the build past ``max_tests`` ("" if none did)."""

    def add(self, build: Build, problems: list[Problem]) -> None:
        if self.passed_at:
            return
        self.time = min(self.time, build.time)
        self.dut_version = self.dut_version or build.dut_version
        self.testbed = self.testbed or build.testbed
        for test in build.tests:
            if (where := self.seen.setdefault(test.test_id, build.origin)) != build.origin:
                problems.append(
                    Problem(
                        build.origin,
                        f"test {test.test_id} of build {build.job} #{build.build} is also in "
                        f"{where}; kept that one",
                        "duplicate",
                    )
                )
                continue
            self.tests.append(test)
            if self.max_tests is not None and len(self.tests) > self.max_tests:
                self.passed_at = build.origin
                self.tests.clear()  # refused: its tests are never needed
                return

    def merged(self) -> Build:
        return replace(
            self.first,
            time=self.time,
            dut_version=self.dut_version,
            testbed=self.testbed,
            tests=tuple(self.tests),
        )


def merge_builds(
    builds: list[Build], problems: list[Problem], max_tests: int | None = None
) -> list[Build]:
    """One build per (job, build): the earliest time, the first version and testbed.

    A build whose key no other build shares comes back as it is: its tests
    are not even looked at (a store read makes them only when asked).  A
    joined build of more than ``max_tests`` tests is left out, with a
    problem naming the file whose test passed the cap.
    """
    shared = {key for key, count in Counter(build.key for build in builds).items() if count > 1}
    joined: dict[tuple[str, str], _Joined] = {}
    merged: list[Build | _Joined] = []
    for build in builds:
        if build.key not in shared:
            merged.append(build)
            continue
        entry = joined.get(build.key)
        if entry is None:
            entry = joined[build.key] = _Joined(build, build.time, max_tests=max_tests)
            merged.append(entry)
        entry.add(build, problems)
    kept = []
    for entry in merged:
        if isinstance(entry, Build):
            kept.append(entry)
        elif entry.passed_at:
            where = f"build {entry.first.job}/{entry.first.build}"
            refusal = too_many_tests(entry.max_tests or 0)
            problems.append(Problem(entry.passed_at, f"{where} {refusal}", "data"))
        else:
            kept.append(entry.merged())
    return kept
