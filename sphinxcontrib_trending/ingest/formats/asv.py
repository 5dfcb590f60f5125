"""airspeed velocity (asv) results folders: each path is one folder, read whole.

A results file means nothing without the folder's ``benchmarks.json``
(units, parameters, which benchmark versions still count) and its
machine's ``machine.json``, so the folder is the unit of reading, as a
Parquet store is: the source's fingerprint is the folder's listing, and a
new results file or a changed ``benchmarks.json`` rebuilds the pages.

Each results file is one environment's run of one commit on one machine:
its tests join the other environments' in the build of that commit on that
machine (job = machine, build = the commit hash).  The environment is part
of each test's name and identity, so two environments of one machine are
two series, never one.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

from sphinxcontrib_trending.ingest.asv_files import (
    AsvFileError,
    Benchmark,
    ResultsFile,
    read_benchmarks,
    read_machine,
    read_results,
)
from sphinxcontrib_trending.ingest.asv_publish import PASS, SKIP, Selection, Shown, select
from sphinxcontrib_trending.ingest.downloaded import is_url
from sphinxcontrib_trending.ingest.formats import InputFormat
from sphinxcontrib_trending.ingest.limits import enforce
from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.plausible import screen
from sphinxcontrib_trending.ingest.read_options import ReadOptions

BENCHMARKS = "benchmarks.json"
MACHINE = "machine.json"
_NOT_RESULTS = {BENCHMARKS, MACHINE}
_LISTED = 3
"""How many names a problem lists before it says how many more there are."""


def read(
    location: str,
    options: ReadOptions,
    passed_messages: bool = True,
    decoded_dir: Path | None = None,
) -> tuple[list[Build], list[Problem], list[str]]:
    """Every run of one results folder; passed tests have no message, nothing is cached."""
    del passed_messages, decoded_dir
    root = Path(location)
    problems: list[Problem] = []
    if is_url(location) or not root.is_dir():
        message = "not a folder: an asv source's path is the results folder holding benchmarks.json"
        return [], [Problem(location, message, "source")], []
    limit = options.limits.max_expanded_bytes
    try:
        benchmarks = read_benchmarks(root / BENCHMARKS, limit)
    except (OSError, AsvFileError) as error:
        return [], [Problem(str(root / BENCHMARKS), _reason(error), "parse")], []
    files = [str(root / BENCHMARKS)]
    builds: list[Build] = []
    unknown = _Unknown()
    for folder, names in _result_folders(root):
        machine = _machine(folder, limit, problems)
        if machine is None:
            continue
        files.append(str(folder / MACHINE))
        for name in names:
            path = folder / name
            files.append(str(path))
            build = _build(path, machine, benchmarks, limit, unknown, problems)
            if build is not None:
                builds.append(build)
    problems.extend(unknown.problems(str(root / BENCHMARKS)))
    builds = screen(enforce(builds, options.limits, location, problems), problems)
    return builds, problems, files


class _Unknown:
    """Results of benchmarks ``benchmarks.json`` no longer lists, over the whole folder.

    Removed benchmarks are routine in an asv project's history, so they make
    one problem per folder, not one per file.
    """

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.files: list[str] = []

    def add(self, path: Path, names: list[str]) -> None:
        if names:
            self.names.update(names)
            self.files.append(str(path))

    def problems(self, origin: str) -> list[Problem]:
        if not self.files:
            return []
        message = (
            f"{len(self.files)} results file(s) (first {self.files[0]}) hold results of "
            f"benchmarks it does not list: {_listing(sorted(self.names))}; left out, as "
            "asv publish leaves them out"
        )
        return [Problem(origin, message, "data")]


def _reason(error: OSError | AsvFileError) -> str:
    return f"cannot read: {error.strerror or error}" if isinstance(error, OSError) else str(error)


def _result_folders(root: Path) -> list[tuple[Path, list[str]]]:
    """Each folder with results files, and their names, as asv walks a results folder."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        results = sorted(n for n in names if n.endswith(".json") and n not in _NOT_RESULTS)
        if results:
            found.append((Path(folder), results))
    return found


def _machine(folder: Path, limit: int, problems: list[Problem]) -> str | None:
    """The folder's machine; asv reads no results of a folder without a valid machine.json."""
    try:
        return read_machine(folder / MACHINE, limit)
    except (OSError, AsvFileError) as error:
        message = f"{_reason(error)}; the results beside it are skipped, as asv skips them"
        problems.append(Problem(str(folder / MACHINE), message, "parse"))
        return None


def _build(
    path: Path,
    machine: str,
    benchmarks: dict[str, Benchmark],
    limit: int,
    unknown: _Unknown,
    problems: list[Problem],
) -> Build | None:
    try:
        results = read_results(path, limit)
    except (OSError, AsvFileError) as error:
        problems.append(Problem(str(path), _reason(error), "parse"))
        return None
    if results.machine != machine:
        message = f"results of machine {results.machine!r} in the folder of {machine!r}; skipped"
        problems.append(Problem(str(path), message, "data"))
        return None
    selection = select(results.runs, benchmarks)
    unknown.add(path, selection.unknown)
    problems.extend(_selection_problems(str(path), selection))
    tests = tuple(_test(shown, results) for shown in selection.shown)
    return Build(
        job=machine,
        build=results.commit,
        time=_time(results.date),
        dut_version=results.commit,
        testbed=machine,
        origin=str(path),
        tests=tests,
    )


def _listing(names: list[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown if len(names) <= _LISTED else f"{shown} and {len(names) - _LISTED} more"


def _selection_problems(origin: str, selection: Selection) -> list[Problem]:
    found = []
    if selection.mismatched:
        found.append(
            "values that do not match their parameter lists, benchmark left out: "
            + _listing(selection.mismatched)
        )
    if selection.samples_dropped:
        found.append(
            "samples that do not match the values, read without samples: "
            + _listing(selection.samples_dropped)
        )
    if selection.infinite:
        found.append(f"infinite results, tests kept as failed: {_listing(selection.infinite)}")
    return [Problem(origin, message, "data") for message in found]


def _time(milliseconds: float) -> datetime:
    """asv's ``date``: the commit's time in JavaScript milliseconds."""
    return datetime.fromtimestamp(milliseconds / 1000, tz=UTC)


def _test(shown: Shown, results: ResultsFile) -> TestResult:
    benchmark = shown.benchmark
    identity = f"{shown.name} [{results.env}]"
    passed = shown.status == PASS
    started = results.runs[benchmark.name].started_at
    attributes = [("asv_env", results.env), ("asv_result", repr(shown.result))]
    if results.python:
        attributes.append(("asv_python", results.python))
    return TestResult(
        test_id=identity,
        name=identity,
        suite=benchmark.name.rpartition(".")[0],
        tags=(benchmark.metric,),
        status=shown.status,
        start=_time(started) if started is not None else None,
        message=_message(shown.status),
        measurements=(
            (Measurement(benchmark.metric, benchmark.unit, shown.trials),) if passed else ()
        ),
        attributes=tuple(sorted(attributes)),
    )


def _message(status: str) -> str:
    if status == PASS:
        return ""
    return "skipped (asv recorded no value: NaN)" if status == SKIP else "failed in asv"


FORMAT = InputFormat(
    name="asv",
    documents=re.compile(r"^benchmarks\.json$"),
    read=None,
    merges_builds=True,
    store=read,
)
