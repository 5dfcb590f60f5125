"""Small data sets written out by hand, for tests that assert exact table cells.

Every passing run holds ten trials alternating exactly 50 kpps either side of
its level, so each group average is the level itself and the tables show
round numbers a reader can check by eye.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta, timezone

from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult

JOB = "csit-vpp-perf-mrr-daily-master-2n-skx"
START = datetime(2026, 1, 1, 6, 0, tzinfo=timezone.utc)
FAILURE = "Traffic generator reported no received packets"

Level = Callable[[int], float | None]
"""The level a test runs at in build ``n``; None means it failed there."""


def build_time(number: int) -> datetime:
    """Build ``n`` ran ``n - 1`` days after START."""
    return START + timedelta(days=number - 1)


def result(
    name: str,
    level: float | None,
    *,
    thread_core: str | None = "2T1C",
    unit: str = "pps",
) -> TestResult:
    """One test of one build: passed at ``level`` or, for None, failed."""
    measurements = ()
    if level is not None:
        trials = tuple(level + (-50e3, 50e3)[k % 2] for k in range(10))
        measurements = (Measurement("mrr", unit, trials),)
    return TestResult(
        test_id=f"tests.perf.{name}",
        name=name,
        suite="tests.perf",
        tags=("MRR", thread_core or "NOCORES"),
        status="PASS" if level is not None else "FAIL",
        start=None,
        message="" if level is not None else FAILURE,
        measurements=measurements,
        thread_core=thread_core,
    )


def builds(
    levels: dict[str, Level],
    numbers: Sequence[int],
    *,
    testbed: str | None = "2n-skx",
    job: str = JOB,
    thread_core: str | None = "2T1C",
) -> list[Build]:
    """One build per number, each running every test of ``levels``."""
    return [
        Build(
            job=job,
            build=str(number),
            time=build_time(number),
            dut_version=f"26.02-rc0~{number}",
            testbed=testbed,
            origin=f"{job}-{number}.jsonl",
            tests=tuple(
                result(name, level(number), thread_core=thread_core)
                for name, level in levels.items()
            ),
        )
        for number in numbers
    ]


def failing_last(
    names: Sequence[str], messages: dict[str, str], *, testbed: str = "2n-skx", last: int = 5
) -> list[Build]:
    """Builds 1..last of ``names``: every test passes, then fails in build ``last``
    with its message from ``messages``."""
    data = builds(
        {name: lambda n: 5e6 if n < last else None for name in names},
        range(1, last + 1),
        testbed=testbed,
    )
    newest = data[-1]
    tests = tuple(replace(test, message=messages[test.name]) for test in newest.tests)
    return [*data[:-1], replace(newest, tests=tests)]
