"""Release views: what each test measured in one DUT version, and across versions.

CSIT's release data (the reference's ``iterative_rls*`` and ``coverage_rls*``
datasets) runs each test a few times against one released version, not once
a day against master, so there is no trend to judge: a release report
shows what a version measured (the coverage table) and how a family of
tests moved from release to release (box plots of the runs).  Runs are told
apart by the DUT version their build tested, so one source can hold several
releases' datasets.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.ingest.metrics import LATENCY_DIRECTIONS, LATENCY_LOADS

COVERAGE_RATES = ("ndr", "ndr_bandwidth", "pdr", "pdr_bandwidth")
"""The throughput of a coverage row: NDR and PDR as packet rate and bandwidth."""
COVERAGE_PERCENTILES = ("p50", "p90", "p99")


def coverage_latencies(
    loads: Sequence[str] = LATENCY_LOADS, directions: Sequence[str] = LATENCY_DIRECTIONS
) -> list[str]:
    """The latency metrics of a coverage row: each load, direction and percentile."""
    return [
        f"latency_pdr{load}_{direction}_{percentile}"
        for load in loads
        for direction in directions
        for percentile in COVERAGE_PERCENTILES
    ]


@dataclass(frozen=True)
class CoverageRow:
    """One test in one version: each metric's median over the version's passed runs.

    ``history`` is the test's history of the first metric it measured, for
    its name and the link to its graph; ``runs`` how many runs the medians
    are of (the most any metric had).
    """

    history: TestHistory
    runs: int
    values: dict[str, float]
    units: dict[str, str]


def in_version(runs: Iterable[Run], version: str) -> list[Run]:
    """The runs of ``version`` that measured their metric (failed runs have no value)."""
    return [run for run in runs if run.dut_version == version and run.average is not None]


def averages(runs: Iterable[Run]) -> list[float]:
    """Each measured run's value: the average of its trials."""
    return [run.average for run in runs if run.average is not None]


def coverage(by_metric: Mapping[str, Sequence[TestHistory]], version: str) -> list[CoverageRow]:
    """A row per test (and testbed) that measured any of the metrics in ``version``,
    in the order of the tests' names."""
    rows: dict[str, CoverageRow] = {}
    for metric, histories in by_metric.items():
        for history in histories:
            runs = in_version(history.runs, version)
            if not runs:
                continue
            row = rows.setdefault(history.key, CoverageRow(history, 0, {}, {}))
            row.values[metric] = statistics.median(averages(runs))
            row.units[metric] = history.unit or ""
            if len(runs) > row.runs:
                rows[history.key] = replace(row, runs=len(runs))
    return sorted(rows.values(), key=lambda row: (row.history.display_name, row.history.key))


def versions_of(histories: Iterable[TestHistory]) -> list[str]:
    """Every DUT version the histories' runs tested, in the order they were first tested."""
    first: dict[str, datetime] = {}
    for history in histories:
        for run in history.runs:
            version = run.dut_version
            if version and (version not in first or run.time < first[version]):
                first[version] = run.time
    return sorted(first, key=lambda version: (first[version], version))


@dataclass(frozen=True)
class ReleaseBox:
    """The runs of one test in one version, for one box of the releases' plot."""

    history: TestHistory
    version: str
    runs: Sequence[Run]

    @property
    def values(self) -> list[float]:
        return averages(self.runs)


def release_boxes(histories: Sequence[TestHistory], versions: Sequence[str]) -> list[ReleaseBox]:
    """A box per test and version it has a measured run in, test by test, versions in order."""
    return [
        ReleaseBox(history, version, tuple(runs))
        for history in histories
        for version in versions
        if (runs := in_version(history.runs, version))
    ]
