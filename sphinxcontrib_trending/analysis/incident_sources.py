"""The anomalies incidents are made of, from the news and from ``check``'s verdicts.

The news of a period and the gate's verdicts name where a change started
by its run; an :class:`~.incidents.Anomaly` needs the run's place in its
history, to find the last good run before it.
"""

from __future__ import annotations

from collections.abc import Iterable

from sphinxcontrib_trending.analysis.change_range import ChangeRange, streak_range
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.incidents import Anomaly, Kind
from sphinxcontrib_trending.analysis.news import NewsItem, failing_streak_start
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.analysis.verdicts import Reason, Verdict

_KINDS: dict[Reason, Kind] = {
    Reason.REGRESSION: "regression",
    Reason.PROGRESSION: "progression",
    Reason.FAILED: "failure",
}
"""The verdicts that are incidents' members: firm changes and failures, as in the news."""


def _index(history: TestHistory, job: str, build: str) -> int | None:
    """Where the run of ``job``'s ``build`` is; searched from the newest, where news is."""
    runs = history.runs
    for index in range(len(runs) - 1, -1, -1):
        if runs[index].job == job and runs[index].build == build:
            return index
    return None


def _run_index(history: TestHistory, run: Run) -> int | None:
    return _index(history, run.job, run.build)


def _last_good(found: ChangeRange | None) -> Run | None:
    return found.last_good if found is not None else None


def from_news(items: Iterable[NewsItem], source: str) -> list[Anomaly]:
    """One anomaly per news item of ``source``."""
    found = []
    for item in items:
        index = _run_index(item.history, item.since)
        if index is not None:
            found.append(
                Anomaly(
                    source,
                    item.kind,
                    item.history,
                    index,
                    item.relative_change,
                    item.provisional,
                    _last_good(item.change_range),
                )
            )
    return found


def from_verdicts(verdicts: Iterable[Verdict]) -> list[Anomaly]:
    """The gate's regressions, progressions and failures not yet acknowledged.

    A failure starts where its failing streak does, which may be builds
    before the judged one; a change detected late starts at its ``since``.
    """
    found = []
    for verdict in verdicts:
        kind = _KINDS.get(verdict.reason)
        if kind is None or verdict.acknowledged:
            continue
        judged = _index(verdict.history, verdict.job, verdict.build)
        if judged is None:
            continue
        start: int | None = judged
        found_range = verdict.change_range
        if kind == "failure":
            start = failing_streak_start(verdict.history.runs[: judged + 1])
            found_range = streak_range(verdict.history.runs, start)
        elif verdict.since is not None:
            start = _run_index(verdict.history, verdict.since)
        if start is not None:
            found.append(
                Anomaly(
                    verdict.source,
                    kind,
                    verdict.history,
                    start,
                    verdict.change,
                    verdict.provisional,
                    _last_good(found_range),
                )
            )
    return found
