"""One test's run in one build, and a history's runs kept as columns.

A site holds a run per test and build, 3.6 million at CSIT's size, yet
most views read only a few numbers of each: the grouping the averages, a
graph the averages, deviations, times and builds.  :class:`RunColumns`
keeps those as arrays and shared lists, and :class:`ColumnRuns` makes a
:class:`Run` of them only where a view asks for one.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from operator import attrgetter
from typing import Any, ClassVar, NamedTuple, overload

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.build_selection import build_name
from sphinxcontrib_trending.ingest.trials import Trials


class RunBuild(NamedTuple):
    """What every run of one build has alike: one object per build, where four
    fields of every run took 32 bytes of each of millions of runs."""

    job: str
    build: str
    dut_version: str | None
    testbed: str | None
    job_build: str
    """``JOB/BUILD`` (:func:`.build_name`): made once per build, not per run read."""

    @classmethod
    def of(cls, job: str, build: str, dut_version: str | None, testbed: str | None) -> RunBuild:
        return cls(job, build, dut_version, testbed, build_name(job, build))


class RunDetail(NamedTuple):
    """A run's outcome and machine: the same for most runs of a test (a pass, no
    message, the same hosts), so one object serves all of them (see :class:`Run`)."""

    status: str
    message: str
    hosts: str
    percentiles: tuple[tuple[str, float], ...]
    histograms: tuple[tuple[str, str], ...]
    environment: str


class RunCells(NamedTuple):
    """What a :class:`Run` holds itself: its fields of its own, then two it shares."""

    time: datetime
    values: Sequence[float]
    average: float | None
    stdev: float | None
    origin: RunBuild
    """Its build's job, build, DUT version and testbed, one object for the whole build."""
    detail: RunDetail


def _shared(path: str) -> Any:
    """A run's field kept in an object runs share (``"origin.job"``): read in C."""
    return property(attrgetter(path))


class Run(RunCells):
    """One test in one build: the unit the MDL grouping works on.

    ``average`` and ``stdev`` (population, over the finite trials) are
    computed once when the run is made: graphs, tables and the grouping all
    read them, thousands of times per page.

    A site makes one per test run, 3.6 million at CSIT's size, so a run is
    its six :class:`RunCells`, 96 bytes, where a named tuple of its fourteen
    fields took 160: its build's :class:`RunBuild` and a :class:`RunDetail`
    are shared with other runs (:func:`histories` shares every equal one).
    It is made, read, replaced, compared and pickled as the named tuple of
    its fourteen fields (:attr:`_fields`) was; runs are equal when every
    field is.  A tuple in C, not a class of its own: a run's fields are read
    millions of times per page.
    """

    __slots__ = ()

    _fields = (
        "time",
        "job",
        "build",
        "dut_version",
        "testbed",
        "status",
        "message",
        "values",
        "average",
        "stdev",
        "hosts",
        "percentiles",
        "histograms",
        "environment",
    )
    _field_defaults: ClassVar[dict[str, Any]] = {
        "hosts": "",
        "percentiles": (),
        "histograms": (),
        "environment": "",
    }
    __match_args__ = _fields

    def __new__(
        cls,
        time: datetime,
        job: str,
        build: str,
        dut_version: str | None,
        testbed: str | None,
        status: str,
        message: str,
        values: Sequence[float],
        average: float | None,
        stdev: float | None,
        hosts: str = "",
        percentiles: tuple[tuple[str, float], ...] = (),
        histograms: tuple[tuple[str, str], ...] = (),
        environment: str = "",
    ) -> Run:
        origin = RunBuild.of(job, build, dut_version, testbed)
        detail = RunDetail(status, message, hosts, percentiles, histograms, environment)
        return tuple.__new__(cls, (time, values, average, stdev, origin, detail))

    job: str = _shared("origin.job")
    build: str = _shared("origin.build")
    dut_version: str | None = _shared("origin.dut_version")
    testbed: str | None = _shared("origin.testbed")
    job_build: str = _shared("origin.job_build")
    status: str = _shared("detail.status")
    message: str = _shared("detail.message")
    hosts: str = _shared("detail.hosts")
    """The physical testbed's host addresses, space-separated, where the data names them."""
    percentiles: tuple[tuple[str, float], ...] = _shared("detail.percentiles")
    """A latency's HDR percentiles in this run (``("p99.9", 41.0)``, ...), for the hover."""
    histograms: tuple[tuple[str, str], ...] = _shared("detail.histograms")
    """A latency's run: every load's and direction's encoded HDR histogram, as
    ``("latency_pdr50_forward_hdrh", "HISTF...")``, for its percentile curves."""
    environment: str = _shared("detail.environment")
    """What else the run ran on (TG and DUT type, build pattern fields, ...): see
    :mod:`~sphinxcontrib_trending.ingest.environment`."""

    @property
    def fields(self) -> tuple[Any, ...]:
        """Every field, in the order of :attr:`_fields`."""
        time, values, average, stdev, origin, detail = self
        return (time, *origin[:4], *detail[:2], values, average, stdev, *detail[2:])

    @classmethod
    def _make(cls, iterable: Iterable[Any]) -> Run:  # type: ignore[override]
        return cls(*iterable)

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self.fields, strict=True))

    def _replace(self, **changes: Any) -> Run:  # type: ignore[override]
        unknown = changes.keys() - set(self._fields)
        if unknown:
            raise ValueError(f"Got unexpected field names: {sorted(unknown)!r}")
        return Run(**(self._asdict() | changes))

    def __getnewargs__(self) -> tuple[Any, ...]:
        return self.fields

    def __repr__(self) -> str:
        shown = (f"{name}={value!r}" for name, value in zip(self._fields, self.fields, strict=True))
        return f"Run({', '.join(shown)})"

    @property
    def measured(self) -> bool:
        return self.average is not None


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


class RunColumns:
    """A history's runs, a column per field: what views read of every run.

    A build's runs share their time and :class:`RunBuild`, and equal runs
    their :class:`RunDetail`, so those columns are lists of shared objects;
    the numbers are arrays a view computes with at once.
    """

    __slots__ = ("averages", "details", "measured", "origins", "stdevs", "times", "trials")

    def __init__(
        self,
        times: Sequence[datetime],
        origins: Sequence[RunBuild],
        details: Sequence[RunDetail],
        trials: Sequence[Sequence[float]],
        averages: npt.NDArray[np.float64],
        stdevs: npt.NDArray[np.float64],
        measured: npt.NDArray[np.bool_],
    ) -> None:
        self.times = times
        self.origins = origins
        self.details = details
        self.trials = trials
        self.averages = averages
        """Each run's average; NaN where it measured nothing (see :attr:`measured`)."""
        self.stdevs = stdevs
        """Each run's population deviation of its trials; NaN where it measured nothing."""
        self.measured = measured
        """Whether each run measured the metric (its :attr:`Run.average` is not None)."""

    @classmethod
    def of_runs(cls, runs: Sequence[Run]) -> RunColumns:
        """The columns of runs made one by one (parsed builds, tests' own histories)."""
        count = len(runs)
        averages = np.full(count, np.nan)
        stdevs = np.full(count, np.nan)
        measured = np.zeros(count, dtype=bool)
        for index, run in enumerate(runs):
            if run.average is not None:
                averages[index], stdevs[index], measured[index] = run.average, run.stdev, True
        return cls(
            [run.time for run in runs],
            [run.origin for run in runs],
            [run.detail for run in runs],
            [run.values for run in runs],
            averages,
            stdevs,
            measured,
        )

    def __len__(self) -> int:
        return len(self.times)

    def run(self, index: int) -> Run:
        """The run at ``index`` (negative counts from the newest), made on its own."""
        if self.measured[index]:
            average, stdev = float(self.averages[index]), float(self.stdevs[index])
        else:
            average = stdev = None
        cells = (
            self.times[index],
            self.trials[index],
            average,
            stdev,
            self.origins[index],
            self.details[index],
        )
        return tuple.__new__(Run, cells)

    def made(self) -> tuple[Run, ...]:
        """Every run, made in one pass (in C but for the lists of numbers)."""
        averages: list[float | None] = self.averages.tolist()
        stdevs: list[float | None] = self.stdevs.tolist()
        if not self.measured.all():
            for index in np.flatnonzero(~self.measured).tolist():
                averages[index] = stdevs[index] = None
        cells = zip(
            self.times, self.trials, averages, stdevs, self.origins, self.details, strict=True
        )
        return tuple(map(tuple.__new__, itertools.repeat(Run), cells))


class ColumnRuns(Sequence[Run]):
    """A history's runs, made of its :class:`RunColumns` the first time they are read.

    A history read from a store comes with its columns, which the grouping
    and the graphs read; a view that wants runs gets them as from a tuple
    (they are equal to, hash and pickle as the tuple of them).
    """

    __slots__ = ("_runs", "columns")

    def __init__(self, columns: RunColumns) -> None:
        self.columns = columns
        self._runs: tuple[Run, ...] | None = None

    def _made(self) -> tuple[Run, ...]:
        if self._runs is None:
            self._runs = self.columns.made()
        return self._runs

    def __len__(self) -> int:
        return len(self.columns)

    @overload
    def __getitem__(self, index: int) -> Run: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Run, ...]: ...

    def __getitem__(self, index: int | slice) -> Run | tuple[Run, ...]:
        if self._runs is not None or isinstance(index, slice):
            return self._made()[index]
        return self.columns.run(index)

    def __iter__(self) -> Iterator[Run]:
        return iter(self._made())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, ColumnRuns)):
            return self._made() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._made())

    def __add__(self, other: Sequence[Run]) -> tuple[Run, ...]:
        return self._made() + tuple(other)

    def __radd__(self, other: Sequence[Run]) -> tuple[Run, ...]:
        return tuple(other) + self._made()

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (self._made(),))

    def __repr__(self) -> str:
        return repr(self._made())
