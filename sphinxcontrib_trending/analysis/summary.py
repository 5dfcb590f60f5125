"""One test history, fully analysed: grouping, compliance and anomaly counts.

Dashboards, graphs and the CI gate all need the same numbers for a test;
computing them in one place keeps the site and the gate from disagreeing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sphinxcontrib_trending.analysis import (
    Classification,
    Compliance,
    classify,
    compliance,
    count_anomalies,
    runs_in_last_group,
)
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.settings import Windows


@dataclass(frozen=True)
class TrendOptions:
    """How a history is turned into groups and compliance numbers."""

    samples: str = "runs"
    search: str = "exact"
    direction: str = "higher"
    windows: Windows = field(default_factory=Windows)


@dataclass(frozen=True)
class TestTrend:
    history: TestHistory
    result: Classification
    compliance: Compliance
    regressions: int
    progressions: int
    runs_in_last_group: int

    @property
    def trend(self) -> float | None:
        return self.result.groups[-1].avg if self.result.groups else None


def run_samples(history: TestHistory, samples: str) -> list[float | Sequence[float] | None]:
    """Runs as the grouping sees them; unmeasured runs stay as None placeholders."""
    if samples == "trials":
        return [run.values if run.measured else None for run in history.runs]
    return [run.average for run in history.runs]


def summarize(history: TestHistory, options: TrendOptions, end: datetime) -> TestTrend:
    """Analyse one history with every window ending at ``end``.

    ``end`` is the newest build time of the whole source, never the wall
    clock, so rebuilding the same data gives the same page.
    """
    result = classify(
        run_samples(history, options.samples), search=options.search, direction=options.direction
    )
    times = history.times
    windows = options.windows
    if windows.mode == "runs":
        trend_compliance = compliance(
            times, result, short=windows.short_runs, long=windows.long_runs, mode="runs"
        )
        short_start_index = max(0, len(times) - windows.short_runs)
        since = times[short_start_index] if times else end
    else:
        trend_compliance = compliance(
            times, result, short=windows.short, long=windows.long, mode="time"
        )
        since = end - windows.short
    regressions, progressions = count_anomalies(times, result, since)
    return TestTrend(
        history=history,
        result=result,
        compliance=trend_compliance,
        regressions=regressions,
        progressions=progressions,
        runs_in_last_group=runs_in_last_group(result),
    )
