"""pytest-benchmark JSON (``--benchmark-json``, ``--benchmark-autosave``): one file, one build.

Each benchmark is a test (its pytest node id, ``tests/test_x.py::test_y[p]``);
its raw rounds, where the file keeps them, are the trials of ``time``
(else the mean alone), and each statistic pytest-benchmark computed is a
metric of its own (``time_min``, ``time_median``, ``ops``, ...).  The
machine (``machine_info.node``) is the testbed and the commit
(``commit_info.id``) the version.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sphinxcontrib_trending.ingest.formats import InputFormat, Reading
from sphinxcontrib_trending.ingest.json_document import load_object, number, text
from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.naming import identify
from sphinxcontrib_trending.ingest.timestamps import parse_iso_or_epoch

TOOL = "pytest-benchmark"
STATISTICS = {
    "min": ("time_min", "s"),
    "max": ("time_max", "s"),
    "mean": ("time_mean", "s"),
    "median": ("time_median", "s"),
    "stddev": ("time_stddev", "s"),
    "iqr": ("time_iqr", "s"),
    "ops": ("ops", "ops/s"),
}
"""pytest-benchmark's statistic -> our metric and its unit."""

NEWEST_MAJOR = 5
"""The newest pytest-benchmark major version whose files this reader was checked on.

The files carry the writing tool's version, not a format version, and their
layout has not changed since 3.0; a newer one is read as 5's with a note, so
an upgrade of the tool does not blank the site."""


def read(reading: Reading) -> tuple[list[Build], list[Problem]]:
    data = load_object(reading, TOOL, ("machine_info", "benchmarks"))
    if isinstance(data, Problem):
        return [], [data]
    commit = data.get("commit_info") if isinstance(data.get("commit_info"), dict) else {}
    machine = data["machine_info"] if isinstance(data["machine_info"], dict) else {}
    try:
        time = parse_iso_or_epoch(str(data.get("datetime") or commit.get("time") or ""))
    except ValueError as error:
        return [], [Problem(reading.where, f"no run time: {error}", "parse")]
    problems: list[Problem] = []
    newer = _newer(data.get("version"))
    if newer is not None:
        problems.append(Problem(reading.where, newer, "data"))
    tests = []
    benchmarks = data["benchmarks"] if isinstance(data["benchmarks"], list) else []
    for index, benchmark in enumerate(benchmarks):
        test = _test(benchmark, time)
        if isinstance(test, str):
            problems.append(Problem(reading.where, f"benchmark {index}: {test}; left out", "data"))
            continue
        tests.append(test)
        nulls = _nulls(benchmark["stats"])
        if nulls:
            complaint = f"{test.test_id}: null {', '.join(nulls)}; those measurements are left out"
            problems.append(Problem(reading.where, complaint, "data"))
    if not tests and not problems:
        problems.append(Problem(reading.where, "no benchmarks in this file", "parse"))
    job, build, complaint = identify(
        reading.options.build_pattern,
        list(reading.names),
        time,
        text(commit.get("project")) or TOOL,
    )
    if complaint is not None:
        problems.append(Problem(reading.where, complaint, "data"))
    testbed = text(machine.get("node")) or text(machine.get("machine"))
    version = text(commit.get("id"))
    return [Build(job, build, time, version, testbed, reading.where, tuple(tests))], problems


def _newer(version: Any) -> str | None:
    """The note for a file written by a pytest-benchmark newer than :data:`NEWEST_MAJOR`."""
    major = re.match(r"(\d+)\.", version) if isinstance(version, str) else None
    if major is None or int(major.group(1)) <= NEWEST_MAJOR:
        return None
    return (
        f"written by {TOOL} {version}, newer than this reader knows (up to "
        f"{NEWEST_MAJOR}.x); read as {NEWEST_MAJOR}.x's layout"
    )


def _nulls(stats: dict[str, Any]) -> list[str]:
    """What the file has as null (a failed computation), to be named: statistics, and
    the raw rounds when some are null (the mean then stands for them)."""
    found = [f"stats.{name}" for name in STATISTICS if name in stats and stats[name] is None]
    rounds = stats.get("data")
    if isinstance(rounds, list) and any(value is None for value in rounds):
        found.append("rounds in stats.data")
    return found


def _test(benchmark: Any, time: datetime) -> TestResult | str:
    """The benchmark as a test, or why it cannot be one."""
    if not isinstance(benchmark, dict):
        return "not an object"
    fullname = text(benchmark.get("fullname")) or text(benchmark.get("name"))
    stats = benchmark.get("stats")
    if fullname is None or not isinstance(stats, dict):
        return "no name or no stats"
    measurements = list(_measurements(stats))
    if not measurements:
        return f"{fullname}: no statistic is a number"
    group = text(benchmark.get("group"))
    extra = benchmark.get("extra_info")
    attributes = [
        (f"extra_{key}", str(value))
        for key, value in (extra.items() if isinstance(extra, dict) else ())
    ]
    return TestResult(
        test_id=fullname,
        name=text(benchmark.get("name")) or fullname,
        suite=fullname.rpartition("::")[0],
        tags=(group,) if group else (),
        status="PASS",
        start=time,
        message="",
        measurements=tuple(measurements),
        attributes=tuple(sorted(attributes)),
    )


def _measurements(stats: dict[str, Any]) -> list[Measurement]:
    found = []
    rounds = stats.get("data")
    trials = [number(value) for value in rounds] if isinstance(rounds, list) else []
    if trials and all(value is not None for value in trials):
        found.append(Measurement("time", "s", tuple(v for v in trials if v is not None)))
    elif (mean := number(stats.get("mean"))) is not None:
        found.append(Measurement("time", "s", (mean,)))
    for statistic, (metric, unit) in STATISTICS.items():
        value = number(stats.get(statistic))
        if value is not None:
            found.append(Measurement(metric, unit, (value,)))
    return found


FORMAT = InputFormat(
    name="pytest-benchmark",
    documents=re.compile(r"\.json$", re.IGNORECASE),
    read=read,
    sniff=lambda head: b'"machine_info"' in head,
)
