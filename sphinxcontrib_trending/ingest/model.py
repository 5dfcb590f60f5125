"""The normalised model every input format is parsed into.

Robot Framework archives, CSV and JSON Lines all end up as these frozen
dataclasses, so analysis, rendering, the CLI and the Sphinx directives never
know which format a number came from.  They are plain data (picklable, no
Sphinx, no lxml objects) so that the on-disk cache and Sphinx's parallel
workers can carry them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple


@dataclass(frozen=True, slots=True)
class Measurement:
    """The trial values one test produced for one metric in one build.

    ``values`` holds every trial (MRR gives ten one-second trials); a metric
    with a single number (NDR lower bound) has one.  Parsers give a tuple,
    a store read gives :class:`~.trials.Trials`, which equals that tuple.
    """

    metric: str
    unit: str
    values: Sequence[float]


@dataclass(frozen=True, slots=True)
class TestResult:
    """One test case as it ran in one build, passed or failed.

    A failed test keeps its row with no measurements: the failed-tests table
    and the CI gate need to know it ran and failed.  ``attributes`` keeps
    what a format knows about the run beyond these fields (``dut_type``,
    ``hosts``, ...) as sorted (name, text) pairs, so a new piece of metadata
    needs no new field.
    """

    __test__ = False  # a model class, not a pytest test class (its name starts with Test)

    test_id: str
    name: str
    suite: str
    tags: tuple[str, ...]
    status: str
    start: datetime | None
    message: str
    measurements: tuple[Measurement, ...] = ()
    thread_core: str | None = None
    attributes: tuple[tuple[str, str], ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "PASS"

    def attribute(self, name: str) -> str | None:
        return dict(self.attributes).get(name)

    def measurement(self, metric: str) -> Measurement | None:
        for measurement in self.measurements:
            if measurement.metric == metric:
                return measurement
        return None


class TestHead(NamedTuple):
    """What names a test and says what it is, without how it ran: the fields of a
    :class:`TestResult` a history takes of its newest test.  A store gives these
    without making the run's measurements, status and message
    (:meth:`~.stored_tests.StoredTests.heads`); a tuple, made in half a frozen
    dataclass's time."""

    __test__ = False  # a model class, not a pytest test class

    test_id: str
    name: str
    suite: str
    tags: tuple[str, ...]
    thread_core: str | None
    attributes: tuple[tuple[str, str], ...]

    def attribute(self, name: str) -> str | None:
        return dict(self.attributes).get(name)


@dataclass(frozen=True, slots=True)
class Build:
    """One CI job build: where it came from and what it tested."""

    job: str
    build: str
    time: datetime
    dut_version: str | None
    testbed: str | None
    origin: str
    tests: tuple[TestResult, ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        """Identity used to spot the same build archived twice."""
        return (self.job, self.build)


@dataclass(frozen=True, slots=True)
class Problem:
    """A bad input that was skipped or repaired, reported instead of raised.

    ``subtype`` is one of ``source``, ``parse``, ``data``, ``duplicate``,
    ``cache``; it becomes the Sphinx warning subtype, so users can silence a
    class of problems with ``suppress_warnings``.
    """

    origin: str
    message: str
    subtype: str = "parse"
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.origin}:{self.line}" if self.line else self.origin
        return f"{where}: {self.message}"


@dataclass(slots=True)
class Dataset:
    """Everything one source yielded: builds in time order, problems, files.

    ``files`` lists every local file that was read (archives and cached
    downloads), for the counts a build reports;
    ``parsed`` the inputs that had to be parsed because the cache had no
    valid entry, so builds can say how much work a change cost.
    """

    builds: list[Build] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    parsed: list[str] = field(default_factory=list)

    def reading_note(self) -> str:
        """How the inputs were read: all parsed now, all from the results store, or some of each.

        A cold build (or one without a cache) parses everything; saying "the
        rest from the store" then would send a user looking for a store.
        """
        parsed, files = len(self.parsed), len(self.files)
        if files == 0 and parsed == 0:
            return "nothing read"
        if parsed >= files:
            return "all parsed"
        if parsed == 0:
            return "all from the store"
        return f"{parsed} parsed, the rest from the store"


def metrics_in(builds: Iterable[Build]) -> list[str]:
    """Every metric some test of ``builds`` measured, sorted.

    Messages about a metric that matched nothing list these, so a user who
    guessed the metric name sees the right one at once; ``:labels:`` chooses
    among the telemetry series they hold.  A store read's tests list their
    metrics from its columns (``metrics()``), so none is made for this.
    """
    found: set[str] = set()
    for build in builds:
        listed = getattr(build.tests, "metrics", None)
        if listed is not None:
            found |= listed()
            continue
        found.update(
            measurement.metric for test in build.tests for measurement in test.measurements
        )
    return sorted(found)


def metrics_note(builds: Iterable[Build]) -> str:
    """``"metrics in the data: a, b"``, or that the data measured none.

    A telemetry name is listed once, with how many label sets it has: a
    test's counters are thousands of series, and the note is for a reader.
    """
    found = metrics_in(builds)
    if not found:
        return "the data has no measured metric"
    label_sets: dict[str, int] = {}
    for metric in found:
        name = metric.partition("{")[0] if metric.startswith("telemetry:") else metric
        label_sets[name] = label_sets.get(name, 0) + 1
    shown = [
        name if count == 1 else f"{name} ({count:,} label sets)"
        for name, count in label_sets.items()
    ]
    return f"metrics in the data: {', '.join(shown)}"
