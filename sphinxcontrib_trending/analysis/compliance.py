"""Trend compliance: how the current trend compares with a week and a quarter ago.

With ``AVG[t]`` the trend (group average) of the newest measured run at or
before ``t``, ``end`` the end of every window and ``last`` the newest
measured run at or before it::

    short-term change = (AVG[last] - AVG[end - short]) / |AVG[end - short]|
    long-term change  = (AVG[last] - best AVG over [end - long, end - short])
                        / |that best|

"Best" is the maximum when higher values are better, the minimum when lower
are.  The windows are placed by :func:`window_marks`, the one place that
decides where a window starts and ends; the anomaly counts and the
failed-tests table use the same rule (:func:`in_window`).
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Container, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TypeGuard, TypeVar

from sphinxcontrib_trending.analysis.classify import Classification
from sphinxcontrib_trending.analysis.grading import (
    VERDICTS,
    AnomalyPolicy,
    AnomalyVerdict,
    change_ratio,
    judge,
    measured_between,
    missing_runs,
)
from sphinxcontrib_trending.analysis.windows import WindowMode as Mode

_Window = TypeVar("_Window", timedelta, int)


def in_window(time: datetime, start: datetime) -> bool:
    """Whether a run at ``time`` lies inside a window that starts at ``start``.

    A window is half-open, ``(start, end]``: the moment it starts belongs to
    the past, because the level in force at that moment is the reference the
    window's changes are measured against.  Seven daily runs, not eight, fall
    in a seven-day window.
    """
    return time > start


@dataclass(frozen=True)
class WindowMarks:
    """Where the compliance windows of one series start and end, as run indices.

    Every window ends at ``end``, the newest build of the whole source (never
    the wall clock, never the test's own newest run), so a dashboard row, its
    anomaly counts and the failed-tests table describe the same stretch, and
    rebuilding the same data gives the same page.  In ``"runs"`` mode the
    windows count measured runs back from the newest measured run at or
    before ``end``, for compliance and anomaly counts alike.
    """

    last: int | None
    """The newest measured run at or before ``end`` (``AVG[last]``)."""
    short_reference: int | None
    """The newest measured run at or before the short window's start; None
    when no measured run is that old (the short change is then blank)."""
    long_start: int | None
    """The measured run whose level was in force when the long window
    started; the oldest measured run when the history is younger than the
    long window (whatever part of the window exists is used)."""
    recent_from: int
    """The first run inside the short window: anomalies whose group starts
    here or later are the short window's (``run_count`` when none is)."""


def window_marks(
    times: Sequence[datetime],
    result: Classification,
    short: timedelta | int | None = None,
    long: timedelta | int | None = None,
    mode: Mode = "time",
    end: datetime | None = None,
) -> WindowMarks:
    """Place the short and long windows of one classified series.

    Args:
        times: One timezone-aware time per run, oldest first.
        result: The classification of those runs.
        short: Short window: a :class:`~datetime.timedelta` in ``"time"`` mode
            (default 7 days), a count of measured runs in ``"runs"`` mode
            (default 14).
        long: Long window, same kind as ``short`` and not shorter (default 90
            days or 180 runs).
        mode: ``"time"`` or ``"runs"``.
        end: Where every window ends: the newest build time of the source,
            not before the series' newest run.  Default: the series' newest
            run, measured or not.
    """
    _check_times(times, result)
    if mode == "time":
        short_span, long_span = _time_windows(short, long)
    elif mode == "runs":
        short_count, long_count = _run_windows(short, long)
    else:
        raise ValueError(f"mode must be 'time' or 'runs', got {mode!r}")
    missing = missing_runs(result)
    if end is None:
        end = times[-1] if times else None
    elif end.tzinfo is None:
        raise ValueError("end must be timezone-aware")
    elif times and end < times[-1]:
        raise ValueError(f"end {end.isoformat()} is before the newest run of the series")
    if end is None or len(missing) == result.run_count:
        return WindowMarks(None, None, None, result.run_count)
    if mode == "runs":
        return _run_marks(times, result, end, short_count, long_count)
    # the newest measured run not inside each window (see in_window)
    last = _measured_before(missing, bisect.bisect_right(times, end))
    if last is None:
        return WindowMarks(None, None, None, result.run_count)
    long_start = _measured_before(missing, bisect.bisect_right(times, end - long_span))
    return WindowMarks(
        last=last,
        short_reference=_measured_before(missing, bisect.bisect_right(times, end - short_span)),
        long_start=_first_measured(missing) if long_start is None else long_start,
        recent_from=_first_inside(times, end - short_span),
    )


def _measured_before(missing: list[int], stop: int) -> int | None:
    """The newest measured run before run ``stop``, given :func:`missing_runs`; None
    if none is.

    Walked back over the few missing runs, not found among a list of every
    measured run's time: a site places the windows of every series on every
    build, and those lists were most of a series' summary.
    """
    run = stop - 1
    at = bisect.bisect_left(missing, stop) - 1
    while at >= 0 and missing[at] == run:
        run -= 1
        at -= 1
    return run if run >= 0 else None


def _first_measured(missing: list[int]) -> int:
    """The oldest measured run, given :func:`missing_runs` (some run is measured)."""
    run = 0
    while run < len(missing) and missing[run] == run:  # missing runs are ascending
        run += 1
    return run


def _run_marks(
    times: Sequence[datetime],
    result: Classification,
    end: datetime,
    short_count: int,
    long_count: int,
) -> WindowMarks:
    """:func:`window_marks` in ``"runs"`` mode: windows of measured runs."""
    measured = _measured_runs(result)
    measured_times = (
        times if len(measured) == len(times) else list(map(times.__getitem__, measured))
    )
    last_mark = bisect.bisect_right(measured_times, end) - 1
    if last_mark < 0:
        return WindowMarks(None, None, None, result.run_count)
    short_mark = last_mark - short_count
    long_mark = last_mark - long_count
    if short_mark < 0:  # the whole history is inside
        recent_from = 0
    elif short_mark == last_mark:  # a window of 0 runs holds none
        recent_from = result.run_count
    else:
        recent_from = measured[short_mark + 1]
    return WindowMarks(
        last=measured[last_mark],
        short_reference=measured[short_mark] if short_mark >= 0 else None,
        long_start=measured[max(long_mark, 0)],
        recent_from=recent_from,
    )


@dataclass(frozen=True)
class Compliance:
    """Relative trend changes (0.05 = 5 % up); None where a window had no value."""

    short_change: float | None
    long_change: float | None
    trend: float | None
    """``AVG[last]``: the newest measured run's group average."""
    short_reference: float | None
    long_reference: float | None


def compliance(
    times: Sequence[datetime],
    result: Classification,
    short: timedelta | int | None = None,
    long: timedelta | int | None = None,
    mode: Mode = "time",
    end: datetime | None = None,
) -> Compliance:
    """Short- and long-term trend change of one classified series.

    The arguments are those of :func:`window_marks`.  The long-term change
    uses whatever part of the long window the history covers: a test with 30
    days of history compares with the best level of those days up to the
    short window's start.  Both changes are blank (None) when no measured run
    is older than the short window.
    """
    return compliance_in(window_marks(times, result, short, long, mode, end), result)


def compliance_in(marks: WindowMarks, result: Classification) -> Compliance:
    """Compliance over windows already placed by :func:`window_marks`."""
    if marks.last is None:
        return Compliance(None, None, None, None, None)
    missing = missing_runs(result)
    last_trend = _level(result, missing, marks.last)
    assert last_trend is not None  # a measured run is in a group
    if marks.short_reference is None or marks.long_start is None:
        return Compliance(None, None, last_trend, None, None)
    short_reference = _level(result, missing, marks.short_reference)
    # AVG is a step function: the level in force at the window's start counts
    long_window = _levels_between(result, missing, marks.long_start, marks.short_reference + 1)
    long_reference = max(long_window) if result.direction == "higher" else min(long_window)
    return Compliance(
        short_change=None if short_reference is None else change_ratio(last_trend, short_reference),
        long_change=change_ratio(last_trend, long_reference),
        trend=last_trend,
        short_reference=short_reference,
        long_reference=long_reference,
    )


def _level(result: Classification, missing: list[int], run: int) -> float | None:
    """Run ``run``'s level: its group's average; None if it is missing or in no group.

    Looked for from the newest group back (groups are in order and apart): the
    runs asked about are the newest measured one and the short window's
    reference, mostly in the last groups.
    """
    at = bisect.bisect_left(missing, run)
    if at < len(missing) and missing[at] == run:
        return None
    for group in reversed(result.groups):
        if group.start <= run:
            return group.avg if run < group.stop else None
    return None


def _levels_between(
    result: Classification, missing: list[int], start: int, stop: int
) -> list[float]:
    """The levels (group averages) of the measured runs in ``[start, stop)``, oldest
    first, a level once per group: :func:`~.per_run.trend_per_run` of those runs
    but for missing ones, a group's repeats made one (their maximum or minimum
    is the same).

    Found from the groups and the missing runs (:func:`missing_runs`), not
    by a level per run: a site asks this of every series on every build.
    """
    found = []
    for group in result.groups:
        low, high = max(group.start, start), min(group.stop, stop)
        if low < high and measured_between(missing, low, high):
            found.append(group.avg)
    return found


def _measured_runs(result: Classification) -> list[int]:
    """The runs not missing, ascending (marked in a list, then picked in C)."""
    if not result.missing:
        return list(range(result.run_count))
    kept = [True] * result.run_count
    for index in missing_runs(result):
        kept[index] = False
    return list(itertools.compress(range(result.run_count), kept))


@dataclass(frozen=True)
class AnomalyCounts:
    """Anomalies of one series in a window, by verdict.

    Acknowledged anomalies are counted only in :attr:`acknowledged`, never in
    the other columns.
    """

    regressions: int
    progressions: int
    maybe_regressions: int
    maybe_progressions: int
    provisional: int
    """How many of the counted (firm or maybe) anomalies are provisional."""
    acknowledged: int
    """Anomalies left out of every other count because a known change covers them."""


def anomaly_counts(
    times: Sequence[datetime],
    result: Classification,
    since: datetime | int,
    policy: AnomalyPolicy | None = None,
    acknowledged: Container[int] = (),
    judged: Sequence[AnomalyVerdict] | None = None,
) -> AnomalyCounts:
    """Anomalies in a window, judged by ``policy``.

    ``since`` is the window's first run index (the dashboard passes
    :attr:`WindowMarks.recent_from`), or the moment the window starts:
    anomalies whose group starts at a run timed after it (see
    :func:`in_window`).  ``acknowledged`` holds the first runs (indices) of
    acknowledged anomalies, for example the keys of
    :func:`~.acknowledged.acknowledged_anomalies`.  ``judged`` is
    ``judge(result, policy)`` when the caller has it already.
    """
    _check_times(times, result)
    first = since if isinstance(since, int) else _first_inside(times, since)
    return counted_anomalies(result, first, policy, acknowledged, judged)


def counted_anomalies(
    result: Classification,
    first: int,
    policy: AnomalyPolicy | None = None,
    acknowledged: Container[int] = (),
    judged: Sequence[AnomalyVerdict] | None = None,
) -> AnomalyCounts:
    """:func:`anomaly_counts` from run ``first`` on, for a caller that placed its
    windows with :func:`window_marks` (which checked the times): each series'
    summary checked every run's time twice."""
    # a dict of every count, not a Counter: making one cost a summary more than its counts
    tally = dict.fromkeys(_TALLIED, 0)
    for verdict in judge(result, policy) if judged is None else judged:
        if not verdict.anomaly or verdict.start < first:
            continue
        if verdict.start in acknowledged:
            tally["acknowledged"] += 1
            continue
        tally[verdict.verdict] += 1
        tally["provisional"] += verdict.provisional
    return AnomalyCounts(
        regressions=tally["regression"],
        progressions=tally["progression"],
        maybe_regressions=tally["maybe regression"],
        maybe_progressions=tally["maybe progression"],
        provisional=tally["provisional"],
        acknowledged=tally["acknowledged"],
    )


_TALLIED = (*VERDICTS, "provisional", "acknowledged")


def count_anomalies(
    times: Sequence[datetime],
    result: Classification,
    since: datetime | int,
    policy: AnomalyPolicy | None = None,
    acknowledged: Container[int] = (),
) -> tuple[int, int]:
    """(regressions, progressions) among groups starting in the window ``since`` opens.

    Only firm, unacknowledged ones count (see :func:`anomaly_counts` for the
    "maybe" and acknowledged ones); without a policy every change is firm.
    """
    counts = anomaly_counts(times, result, since, policy, acknowledged)
    return counts.regressions, counts.progressions


def _first_inside(times: Sequence[datetime], start: datetime) -> int:
    """Index of the first run inside the window that opens at ``start`` (see :func:`in_window`).

    ``times`` are in order (:func:`_check_times`), so the runs after ``start``
    are those from its bisection on.
    """
    if start.tzinfo is None:
        raise ValueError("since must be timezone-aware")
    return bisect.bisect_right(times, start)


def _time_windows(
    short: timedelta | int | None, long: timedelta | int | None
) -> tuple[timedelta, timedelta]:
    short = timedelta(days=7) if short is None else short
    long = timedelta(days=90) if long is None else long
    if not isinstance(short, timedelta) or not isinstance(long, timedelta):
        raise ValueError(f"windows must be timedeltas in 'time' mode, got {short!r}, {long!r}")
    return _ordered(short, long, timedelta())


def _run_windows(short: timedelta | int | None, long: timedelta | int | None) -> tuple[int, int]:
    short = 14 if short is None else short
    long = 180 if long is None else long
    if not _is_count(short) or not _is_count(long):
        raise ValueError(f"windows must be run counts in 'runs' mode, got {short!r}, {long!r}")
    return _ordered(short, long, 0)


def _is_count(window: object) -> TypeGuard[int]:
    return isinstance(window, int) and not isinstance(window, bool)


def _ordered(short: _Window, long: _Window, zero: _Window) -> tuple[_Window, _Window]:
    if short < zero or long < zero:
        raise ValueError(f"windows must not be negative, got {short!r}, {long!r}")
    if long < short:
        raise ValueError(f"long window ({long!r}) is shorter than the short one ({short!r})")
    return short, long


_ZONE = operator.attrgetter("tzinfo")
_last_checked: list[list[datetime]] = []
"""A copy of the times :func:`_check_times` last found in fixed offsets and in order."""


def _check_times(times: Sequence[datetime], result: Classification) -> None:
    """Every time aware and none before the one before it; the error names the run.

    A site checks thousands of series on every page, so the usual case (every
    time in a fixed offset, UTC as ingest gives them, in order) is checked
    with C-level loops; only a failure, or another kind of zone, goes time
    by time.  Series of one testbed ran in the same builds: times equal to
    the last ones checked (an aware time never equals a naive one) pass
    without checking each again.
    """
    if len(times) != result.run_count:
        raise ValueError(f"got {len(times)} times for {result.run_count} runs")
    if _last_checked and _last_checked[0] == times:
        return
    # a fixed offset is aware at every moment: only other zones are asked
    fixed = all(isinstance(zone, timezone) for zone in set(map(_ZONE, times)))
    if fixed and all(map(operator.le, times, times[1:])):
        _last_checked[:] = [list(times)]
        return
    for index, time in enumerate(times):
        if not fixed and (time.tzinfo is None or time.utcoffset() is None):
            raise ValueError(f"time of run {index} is not timezone-aware: {time!r}")
        if index and time < times[index - 1]:
            raise ValueError(f"time of run {index} is earlier than the run before it")
