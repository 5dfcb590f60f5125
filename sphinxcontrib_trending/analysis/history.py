"""Per-test histories cut out of ingested builds.

Archives are organised by build; trending is organised by test.  A history
holds one run per build the test appeared in, failed runs included (with no
values), so that run indices line up with builds for graphs, the CI gate and
the failed-tests table alike.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from itertools import chain
from typing import Any, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.analysis.latency_curves import is_histogram
from sphinxcontrib_trending.analysis.test_run import (
    DETAIL_FIELDS,
    ColumnRuns,
    Run,
    RunBuild,
    RunColumns,
    RunTable,
    trial_statistics,
)
from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.engine.pages import small_pages
from sphinxcontrib_trending.ingest.dimensions import (
    NO_DIMENSIONS,
    DimensionMemo,
    DimensionRules,
    Dimensions,
    display_name,
    rules_for,
)
from sphinxcontrib_trending.ingest.environment import environment_text
from sphinxcontrib_trending.ingest.metrics import LATENCY_PERCENTILES, latency_base
from sphinxcontrib_trending.ingest.model import Build, TestHead, TestResult
from sphinxcontrib_trending.ingest.store.lazy_columns import CodedTexts, SameValue
from sphinxcontrib_trending.ingest.store.stored_tests import (
    MetricRows,
    StoredTests,
    metric_rows_of,
)


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
    runs: Sequence[Run]
    """A tuple, or :class:`.ColumnRuns` (a history read from a store): runs made when read."""
    dimensions: Dimensions = NO_DIMENSIONS

    @cached_property
    def columns(self) -> RunColumns:
        """The runs' columns: what a view that reads every run reads, without making runs."""
        runs = self.runs
        return runs.columns if type(runs) is ColumnRuns else RunColumns.of_runs(runs)

    @cached_property
    def display_name(self) -> str:
        """The name tables, graphs and exports show: with the NIC and its kin, if known."""
        return display_name(self.name, self.dimensions)

    @property
    def ref(self) -> SeriesRef:
        """Which series of its source this is: the metric, the testbed and the test."""
        return SeriesRef(self.metric, self.key)

    @property
    def times(self) -> list[datetime]:
        return list(self.columns.times)


def history_key(testbed: str | None, test_id: str) -> str:
    """Stable identity of a series: the same test on two testbeds is two series."""
    return f"{testbed}/{test_id}" if testbed else test_id


def _detail(
    test: TestResult, latency: str | None, hosts: str, environment: str
) -> tuple[str, str, str, tuple[tuple[str, float], ...], tuple[tuple[str, str], ...], str]:
    """``test``'s :class:`RunDetail` cells; ``latency`` is the metric's latency base, if any."""
    return (
        test.status,
        test.message,
        hosts,
        () if latency is None else _percentiles(test, latency),
        () if latency is None else _histograms(test),
        environment,
    )


def _percentiles(test: TestResult, base: str) -> tuple[tuple[str, float], ...]:
    """The percentiles the test's histogram gave for the latency ``base``, 50th first."""
    found = []
    for name, level in LATENCY_PERCENTILES.items():
        measurement = test.measurement(f"{base}_{name}")
        if measurement is not None and measurement.values:
            found.append((f"p{level:g}", measurement.values[0]))
    return tuple(found)


def _histograms(test: TestResult) -> tuple[tuple[str, str], ...]:
    """The test's encoded latency histograms (the strings it holds, not copies)."""
    return tuple(pair for pair in test.attributes if is_histogram(pair[0]))


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
    with collector_paused(), small_pages():  # see engine.pages
        gathered = Gathering(metric)
        gathered.add(builds, accept)
        return gathered.histories(keep_failing, rules or rules_for())


STORED_BATCH = 20_000
"""Test runs of stored builds whose columns are read in one pass: a pass has a fixed
cost of a few milliseconds, and what it reads lasts until the gathering ends."""


class RunBatch(NamedTuple):
    """One build's tests as a gathering keeps them until it ends: their runs as
    columns, which it then cuts into every history's, and the bookkeeping
    settled for every history at once.

    Kept for every build until then, so kept small: arrays and masks, not
    lists of indices or a run object per test, and one unit where the tests
    that measured the metric share it.
    """

    histories: npt.NDArray[np.int32]
    """The history each test's run went to."""
    tests: StoredTests | list[TestResult] | KeptHeads
    """Where each test is made from, should its run be its history's newest."""
    units: str | Sequence[str | None]
    """The unit of every test that measured the metric, or each test's (None: not measured)."""
    with_metric: npt.NDArray[np.bool_]
    """Whether each test measured the metric."""
    measured: npt.NDArray[np.bool_]
    """Whether each test measured any metric at all."""
    failed: npt.NDArray[np.bool_]
    build: int | npt.NDArray[np.int32]
    """The build's place in the gathering's :attr:`Gathering.times`; for runs of
    several builds (a kept history's, see :meth:`Gathering.resume`), each row's."""
    averages: npt.NDArray[np.float64]
    """Each test's run's average (NaN: none) and deviation: see :class:`.RunColumns`."""
    stdevs: npt.NDArray[np.float64]
    trials: Sequence[Sequence[float]]
    details: tuple[Sequence[Any], ...]
    """A column per :class:`.RunDetail` field."""

    @classmethod
    def of(
        cls,
        numbers: list[int] | npt.NDArray[np.intp],
        tests: StoredTests | list[TestResult],
        units: Sequence[str | None],
        masks: tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.bool_]],
        build: int,
        statistics: tuple[Sequence[float | None], Sequence[float | None]],
        trials: Sequence[Sequence[float]],
        details: tuple[Sequence[Any], ...],
    ) -> RunBatch:
        """``masks`` are :attr:`with_metric`, :attr:`measured` and :attr:`failed`;
        ``statistics`` each run's average and deviation (None: not measured)."""
        shared = units.distinct() if type(units) is CodedTexts else set(units)
        shared.discard(None)
        averages, stdevs = statistics
        return cls(
            np.array(numbers, dtype=np.int32),
            tests,
            shared.pop() if len(shared) == 1 else units,  # type: ignore[arg-type]
            *masks,
            build,
            np.asarray(averages, dtype=np.float64),  # None is NaN
            np.asarray(stdevs, dtype=np.float64),
            trials,
            details,
        )

    def rows(self) -> int:
        return len(self.histories)

    def row_builds(self) -> npt.NDArray[np.int32]:
        """Each row's build: int32, as a history's number, for half the bytes."""
        if isinstance(self.build, int):
            return np.full(self.rows(), self.build, dtype=np.int32)
        return self.build

    def units_of(self, tests: npt.NDArray[np.intp]) -> list[str | None]:
        """The units of the tests at ``tests`` (positions in the build)."""
        units = self.units
        if isinstance(units, str):
            return [units] * len(tests)
        if type(units) is CodedTexts:  # a store's
            return units.taken(tests)
        return list(map(units.__getitem__, tests.tolist()))


class Gathering:
    """Runs of every test, gathered build by build.

    A build read from a store gives its runs from its columns
    (:meth:`add_stored`), so its tests are never made; only the newest test
    of each history is, for its name and dimensions.  Other builds, and
    latency metrics (whose percentiles are other measurements), go test by
    test (:meth:`add_made`).  No run is made: each build's runs are kept as
    columns, cut into each history's :class:`.RunColumns` when the gathering
    ends (:meth:`_columns`), and made into runs where a view reads one
    (:class:`.ColumnRuns`).  Which build is a history's newest, its unit
    and whether it ever measured or failed are settled then too, over every
    build's :class:`RunBatch`: build by build they cost a dictionary update
    per test run, millions at CSIT's size.
    """

    def __init__(self, metric: str) -> None:
        self.metric = metric
        self.latency = latency_base(metric)
        self.keys: list[str] = []
        self.testbeds: list[str | None] = []
        self.batches: list[RunBatch] = []
        self.times: list[datetime] = []
        """Each build's time, by its place (:attr:`RunBatch.build`)."""
        self.origins: list[RunBuild] = []
        """Each build's :class:`.RunBuild`, which its runs share."""
        # a test's history and hosts are the same from build to build: found once
        self._numbers: dict[str | None, dict[str, int]] = {}
        # by the id of a test's attributes, which runs share: its hosts and environment
        self._machines: dict[int, tuple[str, str]] = {}
        # per testbed and list of test ids a store's codes index (kept, so no
        # other list comes to have its id): each code's history number, -1 none yet
        self._code_numbers: dict[tuple[str | None, int], tuple[list[Any], npt.NDArray[np.intp]]]
        self._code_numbers = {}
        self._heads: dict[int, TestResult | TestHead] = {}
        """Each history's newest test, by number, once taken (see :meth:`heads`)."""

    def add(
        self, builds: Iterable[Build], accept: Callable[[TestResult], bool] | None = None
    ) -> None:
        """Gather the runs of ``builds``, after those gathered before, in the order given."""
        columnar = accept is None and self.latency is None
        stored: list[Build] = []  # read from the columns together (see metric_rows_of)
        stored_tests = 0
        for build in builds:
            tests = build.tests
            if columnar and type(tests) is StoredTests:
                stored.append(build)
                stored_tests += len(tests)
                if stored_tests < STORED_BATCH:
                    continue
            if stored:
                self.add_stored(stored)
                stored, stored_tests = [], 0
            if type(tests) is not StoredTests or not columnar:
                self.add_made(build, accept)
        if stored:
            self.add_stored(stored)

    def resume(
        self,
        histories: list[tuple[str | None, str]],
        builds: list[tuple[datetime, RunBuild]],
        batches: list[RunBatch],
    ) -> None:
        """Go on from a gathering kept from an earlier build (see :mod:`.kept_histories`):
        its histories' (testbed, test id) in their numbers' order, its builds' times
        and origins, and its runs; only runs of builds after those are added then."""
        if self.keys or self.times:
            raise ValueError("a gathering resumes before it gathers anything")
        for number, (testbed, test_id) in enumerate(histories):
            self._numbers.setdefault(testbed, {})[test_id] = number
            self.keys.append(history_key(testbed, test_id))
            self.testbeds.append(testbed)
        for time, origin in builds:
            self.times.append(time)
            self.origins.append(origin)
        self.batches.extend(batches)

    def _numbered(self, testbed: str | None, test_ids: list[str]) -> list[int]:
        """The number of each test's history on ``testbed``, new ones numbered on."""
        known = self._numbers.setdefault(testbed, {})
        numbers = list(map(known.get, test_ids))
        if None in numbers:
            for at, test_id in enumerate(test_ids):
                if numbers[at] is not None:
                    continue
                number = known.get(test_id)  # numbered already if twice in this build
                if number is None:
                    number = known[test_id] = len(self.keys)
                    self.keys.append(history_key(testbed, test_id))
                    self.testbeds.append(testbed)
                numbers[at] = number
        return numbers  # type: ignore[return-value]

    def _numbered_codes(self, testbed: str | None, test_ids: CodedTexts) -> npt.NDArray[np.intp]:
        """:meth:`_numbered` of a store's coded test ids: each id a build shares with
        the builds before it is looked up once per list of ids, not once per run."""
        key = (testbed, id(test_ids.names))
        entry = self._code_numbers.get(key)
        if entry is None:
            entry = self._code_numbers[key] = (
                test_ids.names,
                np.full(len(test_ids.names), -1, dtype=np.intp),
            )
        numbers = entry[1]
        found = numbers[test_ids.codes]
        unnumbered = found < 0
        if not unnumbered.any():
            return found
        new = np.unique(test_ids.codes[unnumbered])  # numbered in the order of their codes
        names = list(map(test_ids.names.__getitem__, new.tolist()))
        numbers[new] = self._numbered(testbed, names)  # type: ignore[arg-type]
        return numbers[test_ids.codes]

    def _build(self, build: Build) -> int:
        """``build``'s place among the gathering's, its time and origin noted."""
        self.times.append(build.time)
        self.origins.append(RunBuild.of(build.job, build.build, build.dut_version, build.testbed))
        return len(self.times) - 1

    def add_stored(self, builds: list[Build]) -> None:
        """Builds read from a store (each one's tests a :class:`StoredTests`): their
        columns are read in one pass, then kept build by build."""
        tests = [cast(StoredTests, build.tests) for build in builds]
        for build, rows in zip(builds, metric_rows_of(tests, self.metric), strict=True):
            self._add_rows(build, cast(StoredTests, build.tests), rows)

    def _add_rows(self, build: Build, tests: StoredTests, rows: MetricRows) -> None:
        """The hot loop of a site (a run per test and build): the work goes a build
        at a time, none of it per run in Python but the statistics the store lacks."""
        numbers = self._numbered_codes(build.testbed, rows.test_ids)
        count = len(numbers)
        values = rows.trials
        averages, stdevs = rows.averages, rows.stdevs
        unknown = np.flatnonzero(np.isnan(averages) & rows.with_metric)
        if len(unknown):  # a metric the store keeps no statistics for
            averages, stdevs = averages.copy(), stdevs.copy()
            for at in unknown.tolist():
                average, stdev = trial_statistics(values[at])
                if average is not None:
                    averages[at], stdevs[at] = average, stdev
        nothing = SameValue((), count)  # no percentiles nor histograms: not a latency
        details = (rows.statuses, rows.messages, rows.hosts, nothing, nothing, rows.environments)
        self.batches.append(
            RunBatch.of(
                numbers,
                tests,
                rows.units,
                (rows.with_metric, rows.measured, rows.failed),
                self._build(build),
                (averages, stdevs),  # type: ignore[arg-type]
                values,  # type: ignore[arg-type]
                details,
            )
        )

    def add_made(self, build: Build, accept: Callable[[TestResult], bool] | None) -> None:
        tests = [test for test in build.tests if accept is None or accept(test)]
        numbers = self._numbered(build.testbed, [test.test_id for test in tests])
        units: list[str | None] = []
        details = []
        trials: list[Sequence[float]] = []
        averages: list[float | None] = []
        stdevs: list[float | None] = []
        for test in tests:
            attributes = test.attributes
            machine = self._machines.get(id(attributes)) if attributes else ("", "")
            if machine is None:
                machine = (test.attribute("hosts") or "", environment_text(attributes))
                self._machines[id(attributes)] = machine
            details.append(_detail(test, self.latency, *machine))
            measurement = test.measurement(self.metric)
            values = measurement.values if measurement else ()
            average, stdev = trial_statistics(values)
            trials.append(values)
            averages.append(average)
            stdevs.append(stdev)
            units.append(None if measurement is None else measurement.unit)
        masks = (
            np.array([unit is not None for unit in units], dtype=bool),
            np.array([bool(test.measurements) for test in tests], dtype=bool),
            np.array([not test.passed for test in tests], dtype=bool),
        )
        self.batches.append(
            RunBatch.of(
                numbers,
                tests,
                units,
                masks,
                self._build(build),
                (averages, stdevs),
                trials,
                tuple(map(list, zip(*details, strict=True))) or tuple([] for _ in DETAIL_FIELDS),
            )
        )

    def _columns(self, numbers: list[int]) -> list[RunColumns]:
        """The runs of each history of ``numbers`` as columns, oldest first.

        Every build's runs are put in history order by one stable sort (a
        history's runs stay in build order, a test twice in one build in
        its order there); each history's columns are then slices of them.

        The trials and details are joined on a second thread meanwhile:
        most of this is NumPy filling new memory with the interpreter let
        go, and a new build's first touch of it is what the histories of a
        long history cost (at 1.5 million runs, 0.21 s against 0.07 s for
        the same call again).  With the joins beside the rest, the phase
        took 0.28 s instead of 0.36 and 0.38 s instead of 0.42 (medians of
        new builds in turn, two sets); at a sixth of the runs it gains nothing.
        """
        batches = self.batches
        if not numbers:
            return []
        with ThreadPoolExecutor(max_workers=1) as beside:
            joined = beside.submit(_joined_rows, batches)
            owners = np.concatenate([batch.histories for batch in batches])
            order = np.argsort(owners, kind="stable")
            bounds = [0, *np.cumsum(np.bincount(owners, minlength=len(self.keys))).tolist()]
            builds = np.concatenate([batch.row_builds() for batch in batches])
            averages = np.concatenate([batch.averages for batch in batches])
            stdevs = np.concatenate([batch.stdevs for batch in batches])
            trials, details = joined.result()
        table = RunTable(self.times, self.origins, builds, trials, details, averages, stdevs, order)
        return [RunColumns(table, bounds[number], bounds[number + 1]) for number in numbers]

    def _settled(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], list[int]]:
        """Per history, the batch of its newest run and of its newest run that
        measured the metric (-1: none did); and the histories of tests that
        failed without ever measuring any metric."""
        count = len(self.keys)
        newest = np.full(count, -1, dtype=np.intp)
        with_unit = np.full(count, -1, dtype=np.intp)
        measured = np.zeros(count, dtype=bool)
        failed = np.zeros(count, dtype=bool)
        for number, batch in enumerate(self.batches):
            newest[batch.histories] = number  # a later build's number written over
            with_unit[batch.histories[batch.with_metric]] = number
            measured[batch.histories[batch.measured]] = True
            failed[batch.histories[batch.failed]] = True
        return newest, with_unit, np.flatnonzero(failed & ~measured).tolist()

    def _units(self, with_unit: npt.NDArray[np.intp]) -> dict[int, str | None]:
        """The unit of each history that measured the metric, from its newest run that did."""
        units: dict[int, str | None] = {}
        for number in np.unique(with_unit[with_unit >= 0]).tolist():
            batch = self.batches[number]
            tests = np.flatnonzero(batch.with_metric)
            histories = batch.histories[tests]
            own = with_unit[histories] == number
            # a history's last row here is its newest (a kept batch has many a history)
            last = np.full(len(self.keys), -1, dtype=np.intp)
            np.maximum.at(last, histories[own], tests[own])
            numbered = np.flatnonzero(last >= 0)
            units.update(zip(numbered.tolist(), batch.units_of(last[numbered]), strict=True))
        return units

    def _newest(
        self, numbers: list[int], batches: npt.NDArray[np.intp]
    ) -> list[TestResult | TestHead]:
        """Each history's newest test; a store's only as its :class:`.TestHead`,
        taken a build at a time."""
        wanted: defaultdict[int, list[int]] = defaultdict(list)
        for number in numbers:
            wanted[int(batches[number])].append(number)
        found: dict[int, TestResult | TestHead] = {}
        for number, named in wanted.items():
            batch = self.batches[number]
            tests = batch.tests
            if isinstance(tests, KeptHeads):
                found.update(zip(named, tests.of(named), strict=True))
                continue
            # a test twice in one build: its last run is the newest, as in the runs
            position = {history: at for at, history in enumerate(batch.histories.tolist())}
            indices = [position[history] for history in named]
            if isinstance(tests, StoredTests):
                found.update(zip(named, tests.heads(indices), strict=True))
            else:
                found.update(zip(named, map(tests.__getitem__, indices), strict=True))
        return [found[number] for number in numbers]

    def numbered(self) -> list[tuple[str | None, str]]:
        """Every history's testbed and test id, by number: what :meth:`resume` takes."""
        return [
            (testbed, key[len(testbed) + 1 :] if testbed else key)
            for testbed, key in zip(self.testbeds, self.keys, strict=True)
        ]

    def heads(self) -> list[TestResult | TestHead]:
        """The newest test of every history, by number: what a kept gathering keeps
        of its tests (see :meth:`resume`).  Those :meth:`histories` took are not
        taken again."""
        missing = [number for number in range(len(self.keys)) if number not in self._heads]
        if missing:
            self._heads.update(zip(missing, self._newest(missing, self._settled()[0]), strict=True))
        return [self._heads[number] for number in range(len(self.keys))]

    def histories(self, keep_failing: bool, rules: DimensionRules) -> list[TestHistory]:
        newest, with_unit, failing = self._settled()
        units = self._units(with_unit)
        if keep_failing:
            units.update((number, None) for number in failing)
        numbers = sorted(units, key=self.keys.__getitem__)
        tests = self._newest(numbers, newest)
        self._heads.update(zip(numbers, tests, strict=True))
        dimensions = DimensionMemo(rules)
        result = []
        for number, test, columns in zip(numbers, tests, self._columns(numbers), strict=True):
            testbed = self.testbeds[number]
            result.append(
                TestHistory(
                    key=self.keys[number],
                    test_id=test.test_id,
                    name=test.name,
                    suite=test.suite,
                    tags=test.tags,
                    testbed=testbed,
                    thread_core=test.thread_core,
                    metric=self.metric,
                    unit=units[number],
                    runs=ColumnRuns(columns),
                    dimensions=dimensions.derive(test, testbed),
                )
            )
        return result


class KeptHeads:
    """The newest test of each history a kept gathering held, by history number:
    the tests of its batches (:attr:`RunBatch.tests`), whose own builds are not read."""

    def __init__(self, heads: Sequence[TestHead]) -> None:
        self._heads = heads

    def of(self, numbers: list[int]) -> list[TestHead]:
        return list(map(self._heads.__getitem__, numbers))


def _joined_rows(
    batches: Sequence[RunBatch],
) -> tuple[Sequence[Sequence[float]], list[Sequence[Any]]]:
    """The trials and each detail column of every build's rows, one after the other."""
    trials = _joined([batch.trials for batch in batches])
    details = [
        _joined([batch.details[field] for batch in batches]) for field in range(len(DETAIL_FIELDS))
    ]
    return trials, details


def _joined(parts: list[Sequence[Any]]) -> Sequence[Any]:
    """Every build's column one after the other: still unmade where every build's is
    a column of :mod:`.lazy_columns` (as read from a store), else a list."""
    kind = type(parts[0])
    if kind is not list and all(type(part) is kind for part in parts):
        return kind.joined(parts)  # type: ignore[attr-defined,no-any-return]
    return list(chain.from_iterable(parts))
