"""Known data with injected changes, written as JSON Lines for the test sites.

Values alternate exactly around each level (level +- 50 kpps), so every group
average is the level itself and the expected dashboard numbers are exact.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path

START = datetime(2026, 1, 1, 6, 0, tzinfo=timezone.utc)
BUILDS = 30
JOB = "csit-vpp-perf-mrr-daily-master-2n-skx"
TESTBED = "2n-skx"
EVIL_NAME = "64b-2t1c-<script>alert(1)</script>-mrr"


def build_time(build: int) -> datetime:
    return START + timedelta(days=build - 1)


def level(test: str, build: int) -> float | None:
    """The level each test runs at in each build; None means the test failed."""
    if test == "regress":
        return 10e6 if build < 25 else 8e6
    if test == "progress":
        return 5e6 if build < 27 else 6e6
    if test == "flaky":
        return None if build in (28, 30) else 2e6
    if test == "stable" or test == EVIL_NAME:
        return 3e6
    raise ValueError(test)


TESTS = ("regress", "progress", "flaky", "stable", EVIL_NAME)


def rows(builds: range) -> list[dict]:
    result = []
    for build in builds:
        for test in TESTS:
            value = level(test, build)
            trials = [] if value is None else [value + (-50e3, 50e3)[k % 2] for k in range(10)]
            result.append(
                {
                    "job": JOB,
                    "build": str(build),
                    "time": build_time(build).isoformat(),
                    "test": f"tests.perf.{test}",
                    "name": test,
                    "tags": ["MRR", "2T1C"],
                    "status": "FAIL" if value is None else "PASS",
                    "message": "" if value is not None else "Traffic generator failed",
                    "metric": "mrr",
                    "unit": "pps",
                    "values": trials,
                    "version": f"26.02-rc0~{build}",
                    "testbed": TESTBED,
                }
            )
    return result


def write(folder: Path, builds: range, name: str = "results.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows(builds)), encoding="utf-8")
    return path


def write_timings(
    folder: Path, names: Iterable[str], value: Callable[[str, int], float], builds: int = 20
) -> Path:
    """``runs.jsonl``: one test a name (``suite.<name>``), seconds from ``value(name,
    build)``, a build a day in March 2026: small lower-is-better histories of a test's shape."""
    rows = [
        {
            "test": f"suite.{name}",
            "build": build,
            "time": f"2026-03-{build:02d}T00:00:00Z",
            "status": "PASS",
            "metric": "seconds",
            "unit": "s",
            "values": [value(name, build)],
        }
        for build in range(1, builds + 1)
        for name in names
    ]
    path = folder / "runs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path
