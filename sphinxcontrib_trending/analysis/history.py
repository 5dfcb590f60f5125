"""Per-test histories cut out of ingested builds.

Archives are organised by build; trending is organised by test.  A history
holds one run per build the test appeared in, failed runs included (with no
values), so that run indices line up with builds for graphs, the CI gate and
the failed-tests table alike.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from itertools import compress, repeat
from typing import NamedTuple

from sphinxcontrib_trending.analysis.build_selection import build_name
from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.ingest.dimensions import (
    NO_DIMENSIONS,
    DimensionRules,
    Dimensions,
    display_name,
    rules_for,
)
from sphinxcontrib_trending.ingest.metrics import LATENCY_PERCENTILES, latency_base
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from sphinxcontrib_trending.ingest.store.stored_tests import StoredTests
from sphinxcontrib_trending.ingest.trials import Trials


class Run(NamedTuple):
    """One test in one build: the unit the MDL grouping works on.

    ``average`` and ``stdev`` (population, over the finite trials) are
    computed once when the run is made: graphs, tables and the grouping all
    read them, thousands of times per page.  A named tuple, not a frozen
    dataclass: a site makes one per test run (millions at CSIT's size), and
    a frozen dataclass takes five times as long to make.
    """

    time: datetime
    job: str
    build: str
    dut_version: str | None
    testbed: str | None
    status: str
    message: str
    values: Sequence[float]
    average: float | None
    stdev: float | None
    hosts: str = ""
    """The physical testbed's host addresses, space-separated, where the data names them."""
    percentiles: tuple[tuple[str, float], ...] = ()
    """A latency's HDR percentiles in this run (``("p99.9", 41.0)``, ...), for the hover."""

    @property
    def measured(self) -> bool:
        return self.average is not None

    @property
    def job_build(self) -> str:
        return build_name(self.job, self.build)


def trial_statistics(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Average and population stdev of the finite trials; (None, None) if none."""
    if type(values) is Trials and values.statistics is not None:
        return values.statistics  # the store's, computed as below when it was written
    if not values:
        return None, None
    mean = math.fsum(values) / len(values)
    if mean != mean:  # a NaN trial: average the others
        values = tuple(value for value in values if not math.isnan(value))
        if not values:
            return None, None
        mean = math.fsum(values) / len(values)
    return mean, math.sqrt(math.fsum([(value - mean) ** 2 for value in values]) / len(values))


@dataclass(frozen=True)
class TestHistory:
    """Every run of one test on one testbed, oldest first."""

    key: str
    test_id: str
    name: str
    suite: str
    tags: tuple[str, ...]
    testbed: str | None
    thread_core: str | None
    metric: str
    unit: str | None
    """None for a test that never measured anything (see :func:`histories`)."""
    runs: tuple[Run, ...]
    dimensions: Dimensions = NO_DIMENSIONS

    @cached_property
    def display_name(self) -> str:
        """The name tables, graphs and exports show: with the NIC and its kin, if known."""
        return display_name(self.name, self.dimensions)

    @property
    def times(self) -> list[datetime]:
        return [run.time for run in self.runs]


def history_key(testbed: str | None, test_id: str) -> str:
    """Stable identity of a series: the same test on two testbeds is two series."""
    return f"{testbed}/{test_id}" if testbed else test_id


def anchor_for(source: str, key: str) -> str:
    """An HTML id that survives any test name: lower-case, safe characters only."""
    slug = re.sub(r"[^a-z0-9]+", "-", f"{source}-{key}".lower()).strip("-")
    return f"trending-{slug}"


def _run(
    build: Build,
    test: TestResult,
    measurement: Measurement | None,
    latency: str | None,
    hosts: str,
) -> Run:
    """``test``'s run in ``build``; ``latency`` is the metric's latency base, if it has one."""
    values = measurement.values if measurement else ()
    average, stdev = trial_statistics(values)
    return Run(
        build.time,
        build.job,
        build.build,
        build.dut_version,
        build.testbed,
        test.status,
        test.message,
        values,
        average,
        stdev,
        hosts,
        () if latency is None else _percentiles(test, latency),
    )


def _percentiles(test: TestResult, base: str) -> tuple[tuple[str, float], ...]:
    """The percentiles the test's histogram gave for the latency ``base``, 50th first."""
    found = []
    for name, level in LATENCY_PERCENTILES.items():
        measurement = test.measurement(f"{base}_{name}")
        if measurement is not None and measurement.values:
            found.append((f"p{level:g}", measurement.values[0]))
    return tuple(found)


def histories(
    builds: Iterable[Build],
    metric: str,
    accept: Callable[[TestResult], bool] | None = None,
    *,
    keep_failing: bool = False,
    rules: DimensionRules | None = None,
) -> list[TestHistory]:
    """Histories of every test that measured ``metric`` at least once.

    A test that never measured anything has no evidence of which metric it
    belongs to, so a trend leaves it to the failed-tests table.  The CI gate
    cannot: a failed newest run is Failed whether or not the test ever had a
    value, so with ``keep_failing`` a test that never measured any metric
    and failed at least once gets a history too (its ``unit`` is None).
    Builds are taken in the order given (the ingest layer sorts them by
    time).  ``rules`` (the source's, else the built-in ones) derive each
    history's dimensions from its newest run.
    """
    with collector_paused():
        return _histories(builds, metric, accept, keep_failing, rules or rules_for())


def _histories(
    builds: Iterable[Build],
    metric: str,
    accept: Callable[[TestResult], bool] | None,
    keep_failing: bool,
    rules: DimensionRules,
) -> list[TestHistory]:
    gathered = _Gathered(metric)
    for build in builds:
        tests = build.tests
        if accept is None and gathered.latency is None and type(tests) is StoredTests:
            gathered.add_stored(build, tests)
        else:
            gathered.add_made(build, accept)
    return gathered.histories(keep_failing, rules)


class _Gathered:
    """Runs of every test, gathered build by build.

    A build read from a store gives its runs from its columns
    (:meth:`add_stored`), so its tests are never made; only the newest test
    of each history is, for its name and dimensions.  Other builds, and
    latency metrics (whose percentiles are other measurements), go test by
    test (:meth:`add_made`).
    """

    def __init__(self, metric: str) -> None:
        self.metric = metric
        self.latency = latency_base(metric)
        self.runs: defaultdict[str, list[Run]] = defaultdict(list)
        self.latest: dict[str, TestResult | tuple[StoredTests, int]] = {}
        self.testbeds: dict[str, str | None] = {}
        self.units: dict[str, str | None] = {}
        self.measured_any: set[str] = set()
        self.failing: set[str] = set()
        # a test's key and hosts are the same from build to build: made once
        self._keys: dict[str | None, dict[str, str]] = {}
        self._hosts: dict[int, str] = {}  # by the id of a test's attributes, which runs share

    def _key(self, testbed: str | None, test_id: str) -> str:
        keys = self._keys.setdefault(testbed, {})
        key = keys.get(test_id)
        if key is None:
            key = keys[test_id] = history_key(testbed, test_id)
            self.testbeds[key] = testbed
        return key

    def add_stored(self, build: Build, tests: StoredTests) -> None:
        """The hot loop of a site (a run per test and build): per-run work is the run
        itself; the bookkeeping goes a build at a time."""
        testbed, runs = build.testbed, self.runs
        known = self._keys.get(testbed, {})
        rows = tests.metric_rows(self.metric)
        keys = [known.get(test_id) or self._key(testbed, test_id) for test_id in rows.test_ids]
        count = len(keys)
        values = rows.trials
        if None in rows.units:  # a test that did not measure it (its trials None too)
            values = [() if found is None else found for found in values]
        averages, stdevs = rows.averages, rows.stdevs
        if None in averages:  # a metric the store keeps no statistics for
            averages, stdevs = list(averages), list(stdevs)
            for at, average in enumerate(rows.averages):
                if average is None:
                    averages[at], stdevs[at] = trial_statistics(values[at])
        # tuple.__new__ makes each Run in C, where Run(...) is a Python call per run
        made = map(
            tuple.__new__,
            repeat(Run, count),
            zip(
                *(repeat(cell, count) for cell in (build.time, build.job, build.build)),
                repeat(build.dut_version, count),
                repeat(testbed, count),
                rows.statuses,
                rows.messages,
                values,
                averages,
                stdevs,
                rows.hosts,
                repeat((), count),
                strict=True,
            ),
        )
        for key, run in zip(keys, made, strict=True):
            runs[key].append(run)
        self.latest.update(zip(keys, zip(repeat(tests), range(len(keys))), strict=True))
        self.units.update(
            (key, unit) for key, unit in zip(keys, rows.units, strict=True) if unit is not None
        )
        self.measured_any.update(compress(keys, rows.measured))
        self.failing.update(
            key for key, status in zip(keys, rows.statuses, strict=True) if status != "PASS"
        )

    def add_made(self, build: Build, accept: Callable[[TestResult], bool] | None) -> None:
        for test in build.tests:
            if accept is not None and not accept(test):
                continue
            key = self._key(build.testbed, test.test_id)
            attributes = test.attributes
            host = self._hosts.get(id(attributes)) if attributes else ""
            if host is None:
                host = self._hosts[id(attributes)] = test.attribute("hosts") or ""
            measurement = test.measurement(self.metric)
            self.runs[key].append(_run(build, test, measurement, self.latency, host))
            self.latest[key] = test
            if measurement is not None:
                self.units[key] = measurement.unit
            if test.measurements:
                self.measured_any.add(key)
            if not test.passed:
                self.failing.add(key)

    def _newest(self, keys: list[str]) -> list[TestResult]:
        """Each key's newest test; a store's are made a build at a time."""
        found: dict[str, TestResult] = {}
        wanted: dict[int, tuple[StoredTests, list[str], list[int]]] = {}
        for key in keys:
            newest = self.latest[key]
            if isinstance(newest, tuple):
                tests, index = newest
                _, named, indices = wanted.setdefault(id(tests), (tests, [], []))
                named.append(key)
                indices.append(index)
            else:
                found[key] = newest
        for tests, named, indices in wanted.values():
            found.update(zip(named, tests.picked(indices), strict=True))
        return [found[key] for key in keys]

    def histories(self, keep_failing: bool, rules: DimensionRules) -> list[TestHistory]:
        units = self.units
        if keep_failing:
            for key in self.failing - self.measured_any:
                units[key] = None
        keys = sorted(units)
        newest = self._newest(keys)
        result = []
        for key, test in zip(keys, newest, strict=True):
            testbed = self.testbeds[key]
            result.append(
                TestHistory(
                    key=key,
                    test_id=test.test_id,
                    name=test.name,
                    suite=test.suite,
                    tags=test.tags,
                    testbed=testbed,
                    thread_core=test.thread_core,
                    metric=self.metric,
                    unit=units[key],
                    runs=tuple(self.runs[key]),
                    dimensions=rules.derive(test, testbed),
                )
            )
        return result
