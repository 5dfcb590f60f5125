"""Two periods (weeks, releases, build ranges) side by side, test by test.

A period is a set of builds; a test's observations in it are, by default
(``samples="runs"``), the averages of its passed runs: trials of one run
share that run's conditions (the testbed's state that day), so pooling them
as independent values would make the interval too narrow as soon as runs
differ.  A side with a single run has nothing but its trials and uses them,
as ``check --baseline`` does for its single build; ``samples="trials"`` pools
every trial of every run.  The verdict comes from the same degradation
strategies ``check --baseline`` resolves, run on those observations with A
as the baseline and B as the target, so a table of two single builds says
what the gate says.

Runs are keyed by testbed and test id (:func:`.history_key`), so the same
test on two testbeds is two rows and never one mixed sample.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import numpy as np

from sphinxcontrib_trending.analysis.build_selection import SEPARATOR, build_name, find_build
from sphinxcontrib_trending.analysis.degradation.builds import single_method, with_direction
from sphinxcontrib_trending.analysis.degradation.report import LOWER_IS_BETTER, Report
from sphinxcontrib_trending.analysis.degradation.strategies import (
    Strategies,
    Subject,
    check_with_strategies,
)
from sphinxcontrib_trending.analysis.history import history_key
from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.ingest.dimensions import DimensionRules, rules_for
from sphinxcontrib_trending.ingest.model import Build, TestResult

DEFAULT_DAYS = 7
CONFIDENCE_LEVEL = 0.95
RANGE = ".."
PERIOD_KINDS = ("dates", "version", "builds")


class PeriodError(ValueError):
    """A period option that names no usable set of builds; the message says why."""


@dataclass(frozen=True)
class Period:
    """The builds one side of the comparison reads, and how to name them."""

    label: str
    builds: tuple[Build, ...]


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise PeriodError(f"{text.strip()!r} is not a date (YYYY-MM-DD)") from None


def _ends(value: str, what: str) -> tuple[str, str]:
    first, separator, last = value.partition(RANGE)
    if not separator or not first.strip() or not last.strip():
        raise PeriodError(f"{what} need FIRST{RANGE}LAST, got {value!r}")
    return first.strip(), last.strip()


def _at_midnight(day: date, like: datetime) -> datetime:
    return datetime.combine(day, time(), tzinfo=like.tzinfo)


def _dates(builds: Sequence[Build], value: str) -> Period:
    first, last = (_day(end) for end in _ends(value, "dates"))
    if last < first:
        raise PeriodError(f"dates {value!r} end before they start")
    if not builds:
        return Period(f"{first}..{last}", ())
    start = _at_midnight(first, builds[0].time)
    stop = _at_midnight(last + timedelta(days=1), builds[0].time)
    return Period(f"{first}..{last}", tuple(b for b in builds if start <= b.time < stop))


def _build_range(
    builds: Sequence[Build], value: str, deprecated: Callable[[str], None] | None
) -> Period:
    first_name, last_name = _ends(value, "builds")
    first = find_build(builds, first_name, deprecated)
    if SEPARATOR not in last_name:
        last_name = build_name(first.job, last_name)
    last = find_build(builds, last_name, deprecated)
    if last.job != first.job:
        raise PeriodError(f"builds {value!r} span two jobs; a range stays within one job")
    own = [build for build in builds if build.job == first.job]
    start, stop = own.index(first), own.index(last)
    if stop < start:
        raise PeriodError(f"builds {value!r}: {last_name} comes before {first_name}")
    label = f"{build_name(first.job, first.build)}{RANGE}{last.build}"
    return Period(label, tuple(own[start : stop + 1]))


def parse_period(
    builds: Sequence[Build], spec: str, deprecated: Callable[[str], None] | None = None
) -> Period:
    """The period ``spec`` names among ``builds`` (oldest first).

    ``dates 2026-10-01..2026-10-07`` (whole UTC days, both included),
    ``version 26.02-release`` (every build of that DUT version) or
    ``builds JOB/10..JOB/20`` (a job's builds from one to the other, in the
    source's order; the last may be a bare build id of the same job).
    Raises :class:`PeriodError` or :class:`.UnknownBuild`.
    """
    kind, _, value = spec.strip().partition(" ")
    value = value.strip()
    if kind not in PERIOD_KINDS or not value:
        raise PeriodError(
            f"{spec!r}: write 'dates FIRST..LAST', 'version VERSION' or 'builds FIRST..LAST'"
        )
    if kind == "dates":
        return _dates(builds, value)
    if kind == "version":
        return Period(value, tuple(b for b in builds if b.dut_version == value))
    return _build_range(builds, value, deprecated)


def default_periods(builds: Sequence[Build], days: int = DEFAULT_DAYS) -> tuple[Period, Period]:
    """The ``days`` before the newest build (B) and the ``days`` before those (A).

    Both windows are half-open at their start, so a build exactly ``days``
    before the newest one belongs to A, never to both.
    """
    if not builds:
        return Period("", ()), Period("", ())
    newest = max(build.time for build in builds)
    middle = newest - timedelta(days=days)
    oldest = middle - timedelta(days=days)

    def window(start: datetime, end: datetime) -> Period:
        label = f"{start:%Y-%m-%d %H:%M}..{end:%Y-%m-%d %H:%M}"
        return Period(label, tuple(b for b in builds if start < b.time <= end))

    return window(oldest, middle), window(middle, newest)


@dataclass(frozen=True)
class SideStats:
    """One test in one period: builds with a value, trials, the observations' mean and stdev.

    ``stdev`` is the sample standard deviation (n - 1) of the observations
    (run averages, or trials, see the module), None for one observation.
    """

    runs: int
    trials: int
    mean: float
    stdev: float | None


@dataclass(frozen=True)
class ComparisonRow:
    """One test: its two sides, B's relative change from A with its interval, the verdicts.

    ``change`` is ``mean_B / mean_A - 1``; ``interval`` its confidence
    interval (:func:`relative_change_interval`).  ``reports`` holds one
    report per strategy rule that applies to the test.
    """

    key: SeriesRef
    test_id: str
    name: str
    a: SideStats | None
    b: SideStats | None
    change: float | None
    interval: tuple[float, float] | None
    reports: tuple[Report, ...]
    testbed: str | None = None
    samples_a: tuple[float, ...] = ()
    samples_b: tuple[float, ...] = ()
    """Each side's observations before any trimming (the raw-samples download)."""


def relative_change_interval(
    a: Sequence[float], b: Sequence[float], level: float = CONFIDENCE_LEVEL
) -> tuple[float, float] | None:
    """Confidence interval of ``mean(b) / mean(a) - 1`` by the delta method.

    The ratio's variance is approximately ``vB/(nB mA^2) + mB^2 vA/(nA mA^4)``
    (sample variances), with Welch-Satterthwaite degrees of freedom over
    those two terms and Student's t quantile.  None when a side has fewer
    than two values or A's mean is zero: no interval can be had.
    """
    before, after = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if before.size < 2 or after.size < 2:
        return None
    mean_a, mean_b = float(before.mean()), float(after.mean())
    if mean_a == 0:
        return None
    change = mean_b / mean_a - 1.0
    term_a = mean_b**2 * float(before.var(ddof=1)) / (before.size * mean_a**4)
    term_b = float(after.var(ddof=1)) / (after.size * mean_a**2)
    total = term_a + term_b
    if total == 0:
        return change, change
    freedom = total**2 / (term_a**2 / (before.size - 1) + term_b**2 / (after.size - 1))
    # imported here: scipy.stats costs half a second at every build's start, and few use it
    from scipy import stats

    half = float(stats.t.ppf(0.5 + level / 2, freedom)) * math.sqrt(total)
    return change - half, change + half


def _side(runs: Sequence[list[float]], observations: Sequence[float]) -> SideStats:
    array = np.asarray(observations, dtype=float)
    stdev = float(array.std(ddof=1)) if array.size > 1 else None
    trials = sum(len(run) for run in runs)
    return SideStats(runs=len(runs), trials=trials, mean=float(array.mean()), stdev=stdev)


def observations(runs: Sequence[list[float]], samples: str) -> list[float]:
    """What one side's statistics and verdict are computed on (see the module)."""
    if samples == "trials" or len(runs) == 1:
        return [value for run in runs for value in run]
    return [math.fsum(run) / len(run) for run in runs]


KeyOf = Callable[[Build, TestResult], "tuple[str, str] | None"]
"""Which row a test's run belongs to, and the row's name; None leaves the run out."""


def by_series(rules: DimensionRules) -> KeyOf:
    """A row per test and testbed (:func:`.history_key`), named as every view names it."""

    def key_of(build: Build, test: TestResult) -> tuple[str, str]:
        return history_key(build.testbed, test.test_id), rules.display_name(test, build.testbed)

    return key_of


def _runs(
    period: Period,
    metric: str,
    accept: Callable[[TestResult], bool] | None,
    key_of: KeyOf,
    tests: dict[str, tuple[str, str | None, TestResult]],
) -> dict[str, list[list[float]]]:
    """The finite trials of each passed run of ``metric`` in the period, per row key."""
    runs: dict[str, list[list[float]]] = {}
    for build in period.builds:
        for test in build.tests:
            if accept is not None and not accept(test):
                continue
            measurement = test.measurement(metric) if test.passed else None
            values = [v for v in measurement.values if math.isfinite(v)] if measurement else []
            if not values:
                continue
            row = key_of(build, test)
            if row is None:
                continue
            key, name = row
            tests.setdefault(key, (name, build.testbed, test))
            runs.setdefault(key, []).append(values)
    return runs


def within_fences(values: Sequence[float], reach: float = 3.0) -> list[float]:
    """The values inside ``Q1 - reach * IQR`` .. ``Q3 + reach * IQR``, as csit-dash trims
    each side of a comparison: one broken run must not move a mean or a verdict."""
    if len(values) < 4:
        return list(values)
    first, third = np.percentile(values, [25, 75])
    spread = reach * (third - first)
    return [value for value in values if first - spread <= value <= third + spread]


@dataclass(frozen=True)
class Judging:
    """What a comparison's verdicts are made with, whatever its two sides are.

    ``samples`` is ``"runs"`` or ``"trials"``: what a side's observations are
    (see the module); ``accept`` keeps a test in the comparison.
    """

    metric: str
    source: str
    direction: str
    strategies: Strategies | None = None
    accept: Callable[[TestResult], bool] | None = None
    samples: str = "runs"


def compare_periods(
    a: Period, b: Period, judging: Judging, rules: DimensionRules | None = None
) -> list[ComparisonRow]:
    """One row per test measured in A or B, by key; A is the baseline, B the target.

    A row is named as every view names its test, by the source's dimension
    ``rules`` (the built-in ones when None).
    """
    naming = by_series(rules or rules_for())
    return compare_sides((a, naming), (b, naming), judging)


def compare_sides(
    a: tuple[Period, KeyOf], b: tuple[Period, KeyOf], judging: Judging, trim: bool = False
) -> list[ComparisonRow]:
    """One row per key of either side; each side's runs are its period's, keyed its way.

    Two periods key both sides by test (:func:`compare_periods`); two values
    of a dimension key each side's tests by what they share
    (:mod:`.dimension_comparison`).  ``trim`` drops observations outside
    :func:`within_fences` before the statistics and the verdict.
    """
    metric, samples = judging.metric, judging.samples
    if samples not in ("runs", "trials"):
        raise ValueError(f"samples must be 'runs' or 'trials', got {samples!r}")
    tests: dict[str, tuple[str, str | None, TestResult]] = {}
    runs_a = _runs(a[0], metric, judging.accept, a[1], tests)
    runs_b = _runs(b[0], metric, judging.accept, b[1], tests)
    raw_a = {key: observations(runs, samples) for key, runs in runs_a.items()}
    raw_b = {key: observations(runs, samples) for key, runs in runs_b.items()}
    before = {key: within_fences(o) if trim else o for key, o in raw_a.items()}
    after = {key: within_fences(o) if trim else o for key, o in raw_b.items()}
    keys = sorted(tests)
    subjects = {key: Subject(tests[key][2].tags, metric, judging.source) for key in keys}
    reports = check_with_strategies(
        with_direction(judging.strategies or single_method(), judging.direction),
        subjects,
        before,
        after,
    )
    by_key: dict[str, list[Report]] = {}
    for report in reports:
        by_key.setdefault(report.location, []).append(report)
    rows = []
    for key in keys:
        side_a = before.get(key)
        side_b = after.get(key)
        stats_a = _side(runs_a[key], side_a) if side_a else None
        stats_b = _side(runs_b[key], side_b) if side_b else None
        change = None
        if stats_a is not None and stats_b is not None and stats_a.mean != 0:
            change = stats_b.mean / stats_a.mean - 1.0
        name, testbed, test = tests[key]
        rows.append(
            ComparisonRow(
                key=SeriesRef(metric, history_key(testbed, test.test_id)),
                test_id=test.test_id,
                name=name,
                a=stats_a,
                b=stats_b,
                change=change,
                interval=relative_change_interval(side_a, side_b) if side_a and side_b else None,
                reports=tuple(by_key.get(key, ())),
                testbed=testbed,
                samples_a=tuple(raw_a.get(key, ())),
                samples_b=tuple(raw_b.get(key, ())),
            )
        )
    return rows


def worst_first(rows: Sequence[ComparisonRow], direction: str) -> list[ComparisonRow]:
    """Rows by change, the worst first: the largest rise when lower is better,
    the largest fall when higher is better; rows without a change last, by name."""
    sign = 1.0 if direction == LOWER_IS_BETTER else -1.0
    return sorted(
        rows,
        key=lambda row: (row.change is None, -sign * (row.change or 0.0), row.name, row.key),
    )


def larger_than(rows: Sequence[ComparisonRow], min_change: float) -> list[ComparisonRow]:
    """Rows whose relative change (0.05 = 5 %) is larger than ``min_change`` either way."""
    return [row for row in rows if row.change is not None and abs(row.change) > min_change]
