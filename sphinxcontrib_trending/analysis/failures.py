"""The failures of one build, grouped by their masked message.

Twenty tests that failed because one traffic generator was down are one
problem, not twenty: with addresses, ids and timestamps masked
(:mod:`.masking`) their messages are equal, and a reader sees the problem
once with its count.  What Robot Framework appends when a teardown failed
too ("Also teardown failed: ...") is left out of the comparison, as the
reference did: the teardown's own trouble differs from run to run and would
split one root cause into many.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from sphinxcontrib_trending.analysis.job_stats import SKIPPED_STATUSES
from sphinxcontrib_trending.analysis.masking import mask
from sphinxcontrib_trending.ingest.model import Build, TestResult

_TEARDOWN_TOO = re.compile(r"\s*Also (?:parent )?(?:suite )?teardown failed", re.IGNORECASE)


def failure_key(message: str) -> str:
    """What equal failures share: the masked message without the teardown's addition."""
    return mask(_TEARDOWN_TOO.split(message, maxsplit=1)[0].strip())


@dataclass(frozen=True)
class FailureGroup:
    """Failed tests of one build whose messages have the same :func:`failure_key`."""

    message: str
    """The shared key: the masked message, without a teardown's addition."""
    tests: tuple[TestResult, ...]


def is_failure(test: TestResult) -> bool:
    """Failed, as the job statistics count it: neither passed nor skipped."""
    return not test.passed and test.status not in SKIPPED_STATUSES


def failure_groups(
    build: Build, accept: Callable[[TestResult], bool] | None = None
) -> list[FailureGroup]:
    """The build's failures by masked message: the largest group first, then by message.

    Tests keep their order of the build within a group.
    """
    groups: dict[str, list[TestResult]] = {}
    for test in build.tests:
        if not is_failure(test) or (accept is not None and not accept(test)):
            continue
        groups.setdefault(failure_key(test.message), []).append(test)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return [FailureGroup(message, tuple(tests)) for message, tests in ordered]
