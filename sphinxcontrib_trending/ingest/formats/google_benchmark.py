"""Google Benchmark JSON (``--benchmark_format=json``, ``--benchmark_out``): one file, one build.

The C++ library and its ``google_benchmark`` Python bindings write the
same document.  Each benchmark instance (its ``run_name``,
``BM_Sort/1024/threads:2``) is a test: its repetitions are the trials of
``real_time`` and ``cpu_time`` (in the file's ``time_unit``) and of each
counter (``bytes_per_second``, ``items_per_second``, user counters); the
aggregates the library adds (``_mean``, ``_median``, ``_stddev``, ``_cv``)
become ``real_time_mean``, ``cpu_time_median`` and so on.  A benchmark
that reported an error is a failed test, a skipped one a skipped test.
The host is the testbed; the version is a ``commit`` (or ``version``)
given with ``--benchmark_context=commit=...``, as the file has none of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from sphinxcontrib_trending.ingest.formats import InputFormat, Reading
from sphinxcontrib_trending.ingest.json_document import load_object, number, text
from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.naming import identify
from sphinxcontrib_trending.ingest.timestamps import parse_iso_or_epoch

TOOL = "Google Benchmark"
SCHEMA_VERSION = 1
"""The newest ``context.json_schema_version`` this reader knows."""

_NOT_COUNTERS = frozenset(
    {
        "name",
        "family_index",
        "per_family_instance_index",
        "run_name",
        "run_type",
        "repetitions",
        "repetition_index",
        "threads",
        "iterations",
        "time_unit",
        "aggregate_name",
        "aggregate_unit",
        "error_occurred",
        "error_message",
        "skipped",
        "skip_message",
        "label",
        "big_o",
        "rms",
    }
)
_RATE_UNITS = {"bytes_per_second": "bytes/s", "items_per_second": "items/s"}


@dataclass
class _Instance:
    """One benchmark instance: its repetitions' values and its aggregates, by metric."""

    name: str
    status: str = "PASS"
    message: str = ""
    trials: dict[str, list[float]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)

    def add(self, metric: str, unit: str, value: float) -> None:
        self.trials.setdefault(metric, []).append(value)
        self.units.setdefault(metric, unit)


def read(reading: Reading) -> tuple[list[Build], list[Problem]]:
    data = load_object(reading, TOOL, ("context", "benchmarks"))
    if isinstance(data, Problem):
        return [], [data]
    context = data["context"] if isinstance(data["context"], dict) else {}
    schema = context.get("json_schema_version", 1)
    if isinstance(schema, int) and schema > SCHEMA_VERSION:
        message = (
            f"{TOOL} JSON schema version {schema} is newer than this reader knows "
            f"(up to {SCHEMA_VERSION}); left out"
        )
        return [], [Problem(reading.where, message, "parse")]
    try:
        time = parse_iso_or_epoch(str(context.get("date") or ""))
    except ValueError as error:
        return [], [Problem(reading.where, f"no run time in context.date: {error}", "parse")]
    problems: list[Problem] = []
    instances: dict[str, _Instance] = {}
    runs = data["benchmarks"] if isinstance(data["benchmarks"], list) else []
    for index, run in enumerate(runs):
        complaint = _add(run, instances)
        if complaint is not None:
            problems.append(Problem(reading.where, f"benchmark {index}: {complaint}", "data"))
    if not instances and not problems:
        problems.append(Problem(reading.where, "no benchmarks in this file", "parse"))
    executable = text(context.get("executable"))
    run_name = PurePosixPath(executable.replace("\\", "/")).name if executable else TOOL
    job, build, complaint = identify(
        reading.options.build_pattern, list(reading.names), time, run_name
    )
    if complaint is not None:
        problems.append(Problem(reading.where, complaint, "data"))
    version = text(context.get("commit")) or text(context.get("version"))
    tests = tuple(_test(instance, time) for instance in instances.values())
    testbed = text(context.get("host_name"))
    return [Build(job, build, time, version, testbed, reading.where, tests)], problems


def _add(run: Any, instances: dict[str, _Instance]) -> str | None:
    """Adds one entry of ``benchmarks`` to its instance; why not, if it cannot."""
    if not isinstance(run, dict):
        return "not an object; left out"
    name = text(run.get("run_name")) or text(run.get("name"))
    if name is None:
        return "no name; left out"
    instance = instances.setdefault(name, _Instance(name))
    if run.get("error_occurred"):
        instance.status, instance.message = "FAIL", str(run.get("error_message") or "error")
        return None
    if run.get("skipped"):
        instance.status = "SKIP"
        instance.message = str(run.get("skip_message") or "skipped")
        return None
    aggregate = text(run.get("aggregate_name"))
    if run.get("run_type") == "aggregate" and aggregate is None:
        return f"{name}: an aggregate without aggregate_name; left out"
    suffix = f"_{aggregate}" if run.get("run_type") == "aggregate" else ""
    time_unit = text(run.get("time_unit")) or "ns"
    nulls = []
    for key, value in run.items():
        if key in _NOT_COUNTERS:
            continue
        measured = number(value)
        if measured is None:
            if value is None:  # a time or counter the run could not compute
                nulls.append(key)
            continue
        if key in ("real_time", "cpu_time"):
            unit = "ratio" if run.get("aggregate_unit") == "percentage" else time_unit
        else:
            unit = _RATE_UNITS.get(key, "")
        instance.add(f"{key}{suffix}", unit, measured)
    if nulls:
        return f"{name}: null {', '.join(nulls)}; those measurements are left out"
    return None


def _test(instance: _Instance, time: datetime) -> TestResult:
    passed = instance.status == "PASS"
    measurements = tuple(
        Measurement(metric, instance.units[metric], tuple(values))
        for metric, values in instance.trials.items()
    )
    return TestResult(
        test_id=instance.name,
        name=instance.name,
        suite=instance.name.partition("/")[0],
        tags=(),
        status=instance.status,
        start=time,
        message=instance.message,
        measurements=measurements if passed else (),
    )


FORMAT = InputFormat(
    name="google-benchmark",
    documents=re.compile(r"\.json$", re.IGNORECASE),
    read=read,
    sniff=lambda head: b'"context"' in head,
)
