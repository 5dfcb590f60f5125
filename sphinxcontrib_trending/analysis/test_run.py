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
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from operator import attrgetter
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar, overload

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.build_selection import build_name
from sphinxcontrib_trending.ingest.made_when_read import MadeWhenRead
from sphinxcontrib_trending.ingest.store.lazy_columns import CodedTexts, SameValue, TextColumn
from sphinxcontrib_trending.ingest.trials import Trials

_Value = TypeVar("_Value")


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


DETAIL_FIELDS = RunDetail._fields


class _Kept(Generic[_Value]):
    """A value worked out when first read, then kept in the instance.

    As :func:`functools.cached_property`, without its lock (Python 3.11
    takes one on every first read): a graph page reads five columns of
    each of thousands of fresh histories.
    """

    def __init__(self, make: Callable[[Any], _Value]) -> None:
        self._make = make
        self.__doc__ = make.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type) -> _Kept[_Value]: ...

    @overload
    def __get__(self, instance: object, owner: type) -> _Value: ...

    def __get__(self, instance: object | None, owner: type) -> _Value | _Kept[_Value]:
        if instance is None:
            return self
        value = instance.__dict__[self._name] = self._make(instance)
        return value


class RunTable:
    """Every run of a set of histories, a row each, in the order they were read.

    Its numbers are kept in the histories' order too (:attr:`order`), so a
    history's are a slice; its other fields stay as read, taken a history
    at a time when a view asks (:class:`RunColumns`).  A run's detail is
    kept as its fields' columns: at CSIT's size nearly every run's message
    is its own, so a detail object per run cost as much as the run.
    """

    def __init__(
        self,
        times: Sequence[datetime],
        origins: Sequence[RunBuild],
        builds: npt.NDArray[np.intp] | npt.NDArray[np.int32],
        trials: Sequence[Sequence[float]],
        details: Sequence[Sequence[Any]],
        averages: npt.NDArray[np.float64],
        stdevs: npt.NDArray[np.float64],
        order: npt.NDArray[np.intp],
    ) -> None:
        """``times`` and ``origins`` are per build, ``builds`` each row's build;
        ``details`` a column per :class:`RunDetail` field; ``order`` the rows in
        history order.  An average is NaN where the run measured nothing."""
        self.times = times
        self.origins = origins
        self.trials = trials
        self.details = details
        self.order = order
        self.builds = builds[order]
        self.averages = averages[order]
        self.stdevs = stdevs[order]
        self._last_times: tuple[bytes, list[datetime]] | None = None

    def times_of(self, low: int, high: int) -> list[datetime]:
        """The times of rows ``low`` to ``high`` (history order), not to be changed.

        The series of a site mostly ran in the same builds, one after the
        other in a table: a history whose runs ran in the builds of the one
        asked before shares its list, where making each its own cost every
        summary and figure a list of datetimes per run.
        """
        builds = self.builds[low:high]
        key = builds.tobytes()
        last = self._last_times
        if last is not None and last[0] == key:
            return last[1]
        made = list(map(self.times.__getitem__, builds.tolist()))
        self._last_times = key, made
        return made

    @classmethod
    def of_runs(cls, runs: Sequence[Run]) -> RunTable:
        """The table of runs made one by one (parsed builds, tests' own histories)."""
        count = len(runs)
        averages = np.array([run.average for run in runs], dtype=np.float64)  # None is NaN
        stdevs = np.array([run.stdev for run in runs], dtype=np.float64)
        stdevs[np.isnan(averages)] = np.nan
        rows = np.arange(count)
        details = [list(column) for column in zip(*(run.detail for run in runs), strict=True)]
        return cls(
            [run.time for run in runs],
            [run.origin for run in runs],
            rows,
            [run.values for run in runs],
            details or [[] for _ in DETAIL_FIELDS],
            averages,
            stdevs,
            rows,
        )


class RunColumns:
    """A history's runs, a column per field: what views read of every run.

    Its numbers are arrays; each other field is a list, made of the
    :class:`RunTable` the first time it is read.
    """

    def __init__(self, table: RunTable, low: int, high: int) -> None:
        """The history's runs are rows ``low`` to ``high`` of ``table`` in history order."""
        self._table = table
        self._low = low
        self._high = high
        self.averages = table.averages[low:high]
        """Each run's average; NaN where it measured nothing (see :attr:`measured`)."""
        self.stdevs = table.stdevs[low:high]
        """Each run's population deviation of its trials; NaN where it measured nothing."""

    @classmethod
    def of_runs(cls, runs: Sequence[Run]) -> RunColumns:
        return cls(RunTable.of_runs(runs), 0, len(runs))

    def __len__(self) -> int:
        return self._high - self._low

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its own runs: its table holds every other history's too."""
        return (RunColumns.of_runs, (self.made(),))

    @_Kept
    def measured(self) -> npt.NDArray[np.bool_]:
        """Whether each run measured the metric (its :attr:`Run.average` is not None);
        an average is never NaN (see :func:`trial_statistics`)."""
        return ~np.isnan(self.averages)

    @_Kept
    def _rows(self) -> list[int]:
        return self._table.order[self._low : self._high].tolist()

    @_Kept
    def _builds(self) -> list[int]:
        return self._table.builds[self._low : self._high].tolist()

    def _taken(self, column: Sequence[Any]) -> list[Any]:
        if type(column) is SameValue:  # a store's runs' percentiles: no call per run
            return column[: len(self)].made()
        if type(column) is CodedTexts:  # a store's runs' statuses and hosts: their codes
            # taken by the rows' array (by their list, numpy first copied it to one)
            return column.taken(self._table.order[self._low : self._high])
        return list(map(column.__getitem__, self._rows))

    @_Kept
    def times(self) -> list[datetime]:
        """Each run's time: a list histories that ran in the same builds share."""
        return self._table.times_of(self._low, self._high)

    @_Kept
    def origins(self) -> list[RunBuild]:
        """Each run's build's :class:`RunBuild` (one object per build)."""
        return list(map(self._table.origins.__getitem__, self._builds))

    @_Kept
    def trials(self) -> list[Sequence[float]]:
        return self._taken(self._table.trials)

    @_Kept
    def statuses(self) -> list[str]:
        return self._taken(self._table.details[0])

    @_Kept
    def hosts(self) -> list[str]:
        return self._taken(self._table.details[2])

    @_Kept
    def messages(self) -> list[str]:
        return self._taken(self._table.details[1])

    @_Kept
    def percentiles(self) -> list[tuple[tuple[str, float], ...]]:
        return self._taken(self._table.details[3])

    def any_percentiles(self) -> bool:
        """Whether a run has percentiles: a store's runs have none, told by their column
        (one value for every run) without a list of them per history."""
        column = self._table.details[3]
        if type(column) is SameValue:
            return len(self) > 0 and bool(column[0])
        return any(self.percentiles)

    @_Kept
    def histograms(self) -> list[tuple[tuple[str, str], ...]]:
        return self._taken(self._table.details[4])

    @_Kept
    def details(self) -> list[RunDetail]:
        columns = [self._taken(column) for column in self._table.details]
        return list(map(tuple.__new__, itertools.repeat(RunDetail), zip(*columns, strict=True)))

    def run(self, index: int) -> Run:
        """The run at ``index`` (negative counts from the newest), made on its own."""
        table = self._table
        at = range(self._low, self._high)[index]
        row = int(table.order[at])
        if np.isnan(table.averages[at]):
            average = stdev = None
        else:
            average, stdev = float(table.averages[at]), float(table.stdevs[at])
        build = int(table.builds[at])
        detail = tuple.__new__(RunDetail, [column[row] for column in table.details])
        cells = (
            table.times[build],
            table.trials[row],
            average,
            stdev,
            table.origins[build],
            detail,
        )
        return tuple.__new__(Run, cells)

    def same_runs(self, other: RunColumns) -> bool:
        """Whether ``other``'s runs ran in the same builds (so at the same times) and on the
        same hosts as these, run for run.

        Histories of one store read compare by the table's build numbers and host
        codes first, no column made: a graph page asks it of each series
        against the one before (they mostly ran alike), and making both
        columns to compare them cost a figure a tenth.
        """
        table = self._table
        hosts = table.details[2]
        if other._table is table and len(other) == len(self) and type(hosts) is CodedTexts:
            mine, theirs = slice(self._low, self._high), slice(other._low, other._high)
            order, codes, builds = table.order, hosts.codes, table.builds
            # compared as bytes: np.array_equal's checks cost five times the comparison
            if (
                builds[mine].tobytes() == builds[theirs].tobytes()
                and codes[order[mine]].tobytes() == codes[order[theirs]].tobytes()
            ):
                return True
        return (self.origins, self.hosts, self.times) == (other.origins, other.hosts, other.times)

    def numbers(self) -> tuple[list[float | None], list[float | None]]:
        """Each run's :attr:`Run.average` and :attr:`Run.stdev` (None where it measured nothing)."""
        averages: list[float | None] = self.averages.tolist()
        stdevs: list[float | None] = self.stdevs.tolist()
        if not self.measured.all():
            for index in np.flatnonzero(~self.measured).tolist():
                averages[index] = stdevs[index] = None
        return averages, stdevs

    def made(self) -> tuple[Run, ...]:
        """Every run, made in one pass (in C but for the lists of numbers)."""
        averages, stdevs = self.numbers()
        cells = zip(
            self.times, self.trials, averages, stdevs, self.origins, self.details, strict=True
        )
        return tuple(map(tuple.__new__, itertools.repeat(Run), cells))


class FailedRuns(NamedTuple):
    """A history's runs that measured nothing and did not pass, and their messages."""

    runs: list[int]
    messages: list[str]


def failed_runs(many: Sequence[RunColumns]) -> list[FailedRuns]:
    """The :class:`FailedRuns` of each of ``many`` histories' runs, found at once.

    A graph page crosses out the failed runs of thousands of series: their
    statuses and messages read a run at a time cost more than the rest of
    those crosses.  Histories of one table (one store read) are looked at
    together, their statuses by code and their messages in bulk.
    """
    found: list[FailedRuns] = [FailedRuns([], [])] * len(many)
    tables: dict[int, list[int]] = {}
    for position, columns in enumerate(many):
        tables.setdefault(id(columns._table), []).append(position)
    for positions in tables.values():
        for position, failed in zip(
            positions, _failed_in([many[at] for at in positions]), strict=True
        ):
            found[position] = failed
    return found


def _failed_in(many: list[RunColumns]) -> list[FailedRuns]:
    """:func:`failed_runs` of histories that share one :class:`RunTable`."""
    table = many[0]._table
    lows = np.array([columns._low for columns in many], dtype=np.intp)
    lengths = np.array([len(columns) for columns in many], dtype=np.intp)
    owners = np.repeat(np.arange(len(many)), lengths)
    starts = np.zeros(len(many), dtype=np.intp)
    np.cumsum(lengths[:-1], out=starts[1:])
    # every run of every history: its place in the table
    places = np.arange(len(owners)) - starts[owners] + lows[owners]
    unmeasured = np.isnan(table.averages[places])
    places, owners = places[unmeasured], owners[unmeasured]
    rows = table.order[places]
    statuses, messages = table.details[0], table.details[1]
    if type(statuses) is CodedTexts:
        passing = np.array([name == "PASS" for name in statuses.names], dtype=bool)
        failing = ~passing[statuses.codes[rows]] if len(passing) else np.ones(len(rows), bool)
    else:
        failing = np.array([statuses[row] != "PASS" for row in rows.tolist()], dtype=bool)
    places, owners, rows = places[failing], owners[failing], rows[failing]
    if type(messages) is TextColumn:
        texts = messages.taken(rows)
    else:
        texts = list(map(messages.__getitem__, rows.tolist()))
    indices = (places - lows[owners]).tolist()
    ends = np.cumsum(np.bincount(owners, minlength=len(many))).tolist()
    return [
        FailedRuns(indices[low:high], texts[low:high])
        for low, high in zip([0, *ends[:-1]], ends, strict=True)
    ]


class ColumnRuns(MadeWhenRead[Run]):
    """A history's runs, made of its :class:`RunColumns` the first time they are read.

    A history read from a store comes with its columns, which the grouping
    and the graphs read; a view that wants runs gets them as from a tuple
    (they are equal to, hash and pickle as the tuple of them).
    """

    __slots__ = ("_kept", "columns")

    def __init__(self, columns: RunColumns) -> None:
        super().__init__()
        self.columns = columns
        self._kept: dict[int, Run] | None = None

    def _make_all(self) -> tuple[Run, ...]:
        return self.columns.made()

    def _make_one(self, index: int) -> Run:
        """Run ``index``, kept once made: views read the same few runs again and again
        (a change's first run and the one before it, by the summary, the graph's
        marker and its range), and making one reads each of its fields' columns."""
        kept = self._kept
        if kept is None:
            kept = self._kept = {}
        made = kept.get(index)
        if made is None:
            made = kept[index] = self.columns.run(index)
        return made

    def __len__(self) -> int:
        return len(self.columns)
