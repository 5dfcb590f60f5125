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
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sphinxcontrib_trending.analysis.classify import Classification
from sphinxcontrib_trending.analysis.expand import trend_per_run

Mode = Literal["time", "runs"]

DEFAULT_WINDOWS: dict[str, tuple[timedelta | int, timedelta | int]] = {
    "time": (timedelta(days=7), timedelta(days=90)),
    "runs": (14, 180),
}


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
        short: Short window: a :class:`~datetime.timedelta` in ``"time"`` mode,
            a run count in ``"runs"`` mode.
        long: Long window, same kind as ``short`` and not shorter.
        mode: ``"time"`` or ``"runs"``.
    """
    short, long = _windows(mode, short, long)
    _check_times(times, result)
    trends = trend_per_run(result)
    measured = [index for index, trend in enumerate(trends) if trend is not None]
    if not measured:
        return Compliance(None, None, None, None, None)
    last_trend = trends[measured[-1]]
    assert last_trend is not None
    if mode == "time":
        window = _time_window(times, trends, measured, short, long)  # type: ignore[arg-type]
    else:
        window = _run_window(trends, measured, short, long)  # type: ignore[arg-type]
    short_reference, long_window = window
    pick = max if result.direction == "higher" else min
    long_reference = pick(long_window) if long_window else None
    return Compliance(
        short_change=_change(last_trend, short_reference),
        long_change=_change(last_trend, long_reference),
        trend=last_trend,
        short_reference=short_reference,
        long_reference=long_reference,
    )


def count_anomalies(
    times: Sequence[datetime], result: Classification, since: datetime
) -> tuple[int, int]:
    """(regressions, progressions) among groups starting at a run timed at or after ``since``."""
    _check_times(times, result)
    if since.tzinfo is None:
        raise ValueError("since must be timezone-aware")
    regressions = progressions = 0
    for group in result.groups:
        if times[group.start] >= since:
            regressions += group.comment == "regression"
            progressions += group.comment == "progression"
    return regressions, progressions


def _windows(
    mode: str, short: timedelta | int | None, long: timedelta | int | None
) -> tuple[timedelta | int, timedelta | int]:
    if mode not in DEFAULT_WINDOWS:
        raise ValueError(f"mode must be 'time' or 'runs', got {mode!r}")
    default_short, default_long = DEFAULT_WINDOWS[mode]
    short = default_short if short is None else short
    long = default_long if long is None else long
    for name, window in (("short", short), ("long", long)):
        if mode == "time" and not isinstance(window, timedelta):
            raise ValueError(f"{name} must be a timedelta in 'time' mode, got {window!r}")
        if mode == "runs" and (not isinstance(window, int) or isinstance(window, bool)):
            raise ValueError(f"{name} must be a run count in 'runs' mode, got {window!r}")
        if window < type(window)():
            raise ValueError(f"{name} window must not be negative, got {window!r}")
    if long < short:  # type: ignore[operator]
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


def _time_window(
    times: Sequence[datetime],
    trends: list[float | None],
    measured: list[int],
    short: timedelta,
    long: timedelta,
) -> tuple[float | None, list[float]]:
    """AVG at the short mark, and the AVG values over the long window."""
    measured_times = [times[index] for index in measured]
    end = measured_times[-1]

    def position_at(moment: datetime) -> int:
        """Position (in ``measured``) of the newest measured run at or before ``moment``."""
        return bisect.bisect_right(measured_times, moment) - 1

    short_position = position_at(end - short)
    if short_position < 0:
        return None, []
    first = max(position_at(end - long), 0)
    return _trend_at(trends, measured, short_position), [
        _trend_at(trends, measured, position) for position in range(first, short_position + 1)
    ]


def _run_window(
    trends: list[float | None], measured: list[int], short: int, long: int
) -> tuple[float | None, list[float]]:
    """Like :func:`_time_window` with time counted in measured runs."""
    last = len(measured) - 1
    short_position = last - short
    if short_position < 0:
        return None, []
    first = max(last - long, 0)
    return _trend_at(trends, measured, short_position), [
        _trend_at(trends, measured, position) for position in range(first, short_position + 1)
    ]


def _trend_at(trends: list[float | None], measured: list[int], position: int) -> float:
    trend = trends[measured[position]]
    assert trend is not None
    return trend


def _change(value: float, reference: float | None) -> float | None:
    """Relative change; None without a reference or when it is zero."""
    if reference is None or reference == 0.0:
        return None
    return (value - reference) / reference
