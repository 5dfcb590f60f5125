"""Trend compliance: how the current trend compares with a week and a quarter ago.

With ``AVG[t]`` the trend (group average) of the newest measured run at or
before ``t`` and ``last`` the newest measured run::

    short-term change = (AVG[last] - AVG[last - short]) / AVG[last - short]
    long-term change  = (AVG[last] - best AVG over [last - long, last - short])
                        / that best

"Best" is the maximum when higher values are better, the minimum when lower
are.  Windows end at the newest measured run, not at the wall clock, so a
dashboard built later shows the same numbers.  ``mode="time"`` measures the
windows in time (default 7 and 90 days); ``mode="runs"`` in measured runs
(default 14 and 180, the reference's behaviour).  A window in which ``AVG`` is
undefined (no measured run at or before its end) gives None, never an error.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Container, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, TypeGuard, TypeVar

from sphinxcontrib_trending.analysis.classify import Classification
from sphinxcontrib_trending.analysis.expand import trend_per_run
from sphinxcontrib_trending.analysis.grading import AnomalyPolicy, change_ratio, judge

Mode = Literal["time", "runs"]
_Window = TypeVar("_Window", timedelta, int)


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
) -> Compliance:
    """Short- and long-term trend change of one classified series.

    Args:
        times: One timezone-aware time per run (same numbering as the runs
            given to :func:`~.classify`), oldest first.
        result: The classification of those runs.
        short: Short window: a :class:`~datetime.timedelta` in ``"time"`` mode
            (default 7 days), a run count in ``"runs"`` mode (default 14).
        long: Long window, same kind as ``short`` and not shorter (default 90
            days or 180 runs).
        mode: ``"time"`` or ``"runs"``.
    """
    _check_times(times, result)
    trends = trend_per_run(result)
    measured = [index for index, trend in enumerate(trends) if trend is not None]
    measured_trends = [trend for trend in trends if trend is not None]
    if mode == "time":
        short_time, long_time = _time_windows(short, long)
        if not measured:
            return Compliance(None, None, None, None, None)
        measured_times = [times[index] for index in measured]
        end = measured_times[-1]
        # position (among measured runs) of the newest run at or before a moment
        short_mark = bisect.bisect_right(measured_times, end - short_time) - 1
        long_mark = bisect.bisect_right(measured_times, end - long_time) - 1
    elif mode == "runs":
        short_runs, long_runs = _run_windows(short, long)
        if not measured:
            return Compliance(None, None, None, None, None)
        short_mark = len(measured) - 1 - short_runs
        long_mark = len(measured) - 1 - long_runs
    else:
        raise ValueError(f"mode must be 'time' or 'runs', got {mode!r}")
    last_trend = measured_trends[-1]
    if short_mark < 0:
        return Compliance(None, None, last_trend, None, None)
    short_reference = measured_trends[short_mark]
    # AVG is a step function: the level in force at the window's start counts
    long_window = measured_trends[max(long_mark, 0) : short_mark + 1]
    long_reference = max(long_window) if result.direction == "higher" else min(long_window)
    return Compliance(
        short_change=change_ratio(last_trend, short_reference),
        long_change=change_ratio(last_trend, long_reference),
        trend=last_trend,
        short_reference=short_reference,
        long_reference=long_reference,
    )


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
    since: datetime,
    policy: AnomalyPolicy | None = None,
    acknowledged: Container[int] = (),
) -> AnomalyCounts:
    """Anomalies whose group starts at a run timed at or after ``since``, judged by ``policy``.

    ``acknowledged`` holds the first runs (indices) of acknowledged anomalies,
    for example the keys of :func:`~.acknowledged.acknowledged_anomalies`.
    """
    _check_times(times, result)
    if since.tzinfo is None:
        raise ValueError("since must be timezone-aware")
    tally: Counter[str] = Counter()
    for verdict in judge(result, policy):
        if not verdict.anomaly or times[verdict.start] < since:
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


def count_anomalies(
    times: Sequence[datetime],
    result: Classification,
    since: datetime,
    policy: AnomalyPolicy | None = None,
    acknowledged: Container[int] = (),
) -> tuple[int, int]:
    """(regressions, progressions) among groups starting at a run timed at or after ``since``.

    Only firm, unacknowledged ones count (see :func:`anomaly_counts` for the
    "maybe" and acknowledged ones); without a policy every change is firm.
    """
    counts = anomaly_counts(times, result, since, policy, acknowledged)
    return counts.regressions, counts.progressions


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


def _check_times(times: Sequence[datetime], result: Classification) -> None:
    if len(times) != result.run_count:
        raise ValueError(f"got {len(times)} times for {result.run_count} runs")
    for index, time in enumerate(times):
        if time.tzinfo is None or time.utcoffset() is None:
            raise ValueError(f"time of run {index} is not timezone-aware: {time!r}")
        if index and time < times[index - 1]:
            raise ValueError(f"time of run {index} is earlier than the run before it")


