"""One test history, fully analysed: grouping, compliance and anomaly counts.

Dashboards, graphs and the CI gate all need the same numbers for a test;
computing them in one place keeps the site and the gate from disagreeing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sphinxcontrib_trending.analysis import (
    AnomalyCounts,
    AnomalyPolicy,
    AnomalyVerdict,
    Classification,
    Compliance,
    classify,
    runs_in_last_group,
    verdict_per_run,
)
from sphinxcontrib_trending.analysis.acknowledged import (
    KnownChange,
    KnownChanges,
    acknowledged_anomalies,
)
from sphinxcontrib_trending.analysis.calibration import calibrated_unit
from sphinxcontrib_trending.analysis.compliance import (
    Mode,
    compliance_in,
    counted_anomalies,
    window_marks,
)
from sphinxcontrib_trending.analysis.environment_changes import environment_change
from sphinxcontrib_trending.analysis.excluded import NO_EXCLUSIONS, ExcludedRun, Exclusions
from sphinxcontrib_trending.analysis.grading import judge
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.runs import Run
from sphinxcontrib_trending.analysis.sensitivity import Sensitivity, sensitivity
from sphinxcontrib_trending.analysis.windows import Windows


@dataclass(frozen=True)
class TrendOptions:
    """How a history is turned into groups, anomaly labels and compliance numbers."""

    samples: str = "runs"
    search: str = "exact"
    direction: str = "higher"
    windows: Windows = field(default_factory=Windows)
    policy: AnomalyPolicy = field(default_factory=AnomalyPolicy)
    sbps: float | None = None
    outlier_runs: int | None = None
    """``K`` of the outlier rule; None for the search's default (see :func:`~.classify`)."""
    exclusions: Exclusions = NO_EXCLUSIONS
    """Curated runs left out of the grouping (see :mod:`.excluded`)."""
    hold_unconfirmed: bool = False
    """Judge a one-run regression's re-run (the first later run of its DUT version, see
    :mod:`.verdicts`) a Regression again when it holds the new
    level ("confirmed"), for a gate that lets the first, unconfirmed one pass
    (``check --unconfirmed=pass``); else that run is Normal, as the methodology has it."""
    calibration: str = "seed"
    """``"seed"`` or ``"spread"``, already resolved (see :mod:`.calibration`); the
    policy is the caller's to calibrate."""
    false_alarm_target: float | None = None
    """False alarms per 100 runs each test's ``min_confidence`` is raised to reach
    (see :mod:`.sensitivity`); None keeps the policy's for every test."""
    stated_rates: bool = False
    """Give ``check``'s verdicts each test's stated false-alarm rate: a few tens of
    milliseconds per test, so only for the JSON report (a target measures it anyway)."""

    def sensitivity(self, runs: Sequence[Run]) -> Sensitivity | None:
        """The stated false-alarm rate of a test with these ``runs``, under these options."""
        return sensitivity(runs, self.grouping, self.policy, self.false_alarm_target)

    @property
    def grouping(self) -> GroupingSpec:
        """The settings among these that change a grouping (windows and policy do not)."""
        return GroupingSpec(
            samples=self.samples,
            search=self.search,
            direction=self.direction,
            sbps=self.sbps,
            outlier_runs=self.outlier_runs,
            exclusions=self.exclusions,
            calibration=self.calibration,
        )


@dataclass(frozen=True)
class TestTrend:
    """Everything the pages show of one test.

    ``counts`` covers the short-term window; ``verdicts`` holds the graded
    anomaly on the first run of each changed group (None elsewhere),
    ``acknowledged`` the known change that covers an anomaly, by that run,
    and ``excluded`` the curated runs the grouping left out, by index.
    """

    history: TestHistory
    result: Classification
    compliance: Compliance
    counts: AnomalyCounts
    verdicts: list[AnomalyVerdict | None]
    acknowledged: dict[int, KnownChange]
    runs_in_last_group: int
    outliers_in_last_group: int = 0
    """Outlier runs of the current level (see :mod:`.outliers`), also in ``runs_in_last_group``."""
    newest_change: int | None = None
    """The first run of the newest firm, unacknowledged anomaly of the short-term
    window (one the counts include): the dashboard names its range."""
    excluded: dict[int, ExcludedRun] = field(default_factory=dict)
    environment: dict[int, str] = field(default_factory=dict)
    """What the machine changed at each anomaly that starts with such a change, by
    its first run (see :mod:`.environment_changes`)."""
    environment_in_window: tuple[tuple[str, str], ...] = ()
    """Those of the anomalies the short-term window counts, oldest first, each with
    its group's comment (``"regression"`` or ``"progression"``)."""
    sensitivity: Sensitivity | None = None
    """The test's stated false-alarm rate when a target set its threshold, else None
    (:func:`stated_sensitivity` measures it on demand)."""

    @property
    def regressions(self) -> int:
        return self.counts.regressions

    @property
    def progressions(self) -> int:
        return self.counts.progressions

    @property
    def trend(self) -> float | None:
        return self.result.groups[-1].avg if self.result.groups else None


def run_samples(
    history: TestHistory, samples: str, exclusions: Exclusions = NO_EXCLUSIONS
) -> list[float | Sequence[float] | None]:
    """Runs as the grouping sees them; unmeasured and excluded runs stay as None placeholders."""
    columns = history.columns  # no run is made: a site asks this of every history
    found: list[float | Sequence[float] | None]
    if samples == "trials":
        measured = columns.measured.tolist()
        found = [
            values if kept else None for values, kept in zip(columns.trials, measured, strict=True)
        ]
    else:
        found = columns.numbers()[0]  # type: ignore[assignment]
    for index in exclusions.in_history(history.test_id, history.runs):
        found[index] = None
    return found


def summarize(
    history: TestHistory,
    options: TrendOptions,
    end: datetime,
    known: KnownChanges | None = None,
    classified: Classification | None = None,
) -> TestTrend:
    """Analyse one history with every window ending at ``end``.

    ``end`` is the newest build time of the whole source, never the wall
    clock, so rebuilding the same data gives the same page.  Anomalies that
    ``known`` acknowledges are shown as such and left out of the counts.
    ``classified`` is the history's grouping when the caller already has it
    (from a cache or a worker), made with these ``options``.
    """
    # the runs as the grouping saw them, only where something reads them: a
    # grouping from the cache or a worker needs none, and walking every run
    # of every series made each build's summaries grow with the history
    samples = None
    if classified is None or options.false_alarm_target is not None:
        samples = run_samples(history, options.samples, options.exclusions)
    result = classified
    if result is None:
        assert samples is not None
        result = classify(
            samples,
            unit=calibrated_unit(samples, options.calibration),
            sbps=options.sbps,
            search=options.search,
            direction=options.direction,
            outlier_runs=options.outlier_runs,
        )
    times = history.columns.times  # read only: not copied (see RunColumns.times)
    windows = options.windows
    mode: Mode = "runs" if windows.mode == "runs" else "time"
    short: timedelta | int = windows.short_runs if mode == "runs" else windows.short
    long: timedelta | int = windows.long_runs if mode == "runs" else windows.long
    marks = window_marks(times, result, short, long, mode, end)
    acknowledged = (
        acknowledged_anomalies(known, history.test_id, history.runs, result) if known else {}
    )
    excluded = options.exclusions.in_history(history.test_id, history.runs)
    environment = _environment_changes(history, result, excluded)
    stated = None
    policy = options.policy
    if samples is not None and options.false_alarm_target is not None:
        stated = options.sensitivity(samples)
        if stated is not None:
            policy = replace(policy, min_confidence=stated.min_confidence)
    judged = judge(result, policy)  # once: the counts and the graph's marks both use it
    return TestTrend(
        history=history,
        result=result,
        compliance=compliance_in(marks, result),
        counts=counted_anomalies(result, marks.recent_from, policy, acknowledged, judged),
        verdicts=verdict_per_run(result, policy, judged),
        acknowledged=acknowledged,
        runs_in_last_group=runs_in_last_group(result),
        outliers_in_last_group=len(result.groups[-1].outliers) if result.groups else 0,
        newest_change=max(
            (
                verdict.start
                for verdict in judged
                if verdict.firm
                and verdict.start >= marks.recent_from
                and verdict.start not in acknowledged
            ),
            default=None,
        ),
        excluded=excluded,
        environment=environment,
        environment_in_window=_in_window(result, environment, marks.recent_from),
        sensitivity=stated,
    )


def _in_window(
    result: Classification, environment: dict[int, str], recent_from: int
) -> tuple[tuple[str, str], ...]:
    """The environment changes of the anomalies from run ``recent_from`` on, with their kind."""
    comments = {group.start: group.comment for group in result.groups}
    return tuple(
        (comments[start], change) for start, change in environment.items() if start >= recent_from
    )


def _environment_changes(
    history: TestHistory, result: Classification, excluded: dict[int, ExcludedRun]
) -> dict[int, str]:
    """The anomalies whose first run ran on another machine than the run before."""
    found = {}
    for group in result.groups[1:]:
        if group.comment != "normal":
            change = environment_change(history.runs, group.start, excluded)
            if change:
                found[group.start] = change
    return found


def stated_sensitivity(trend: TestTrend, options: TrendOptions) -> Sensitivity | None:
    """The test's stated false-alarm rate: the one its target gave, else measured now."""
    if trend.sensitivity is not None:
        return trend.sensitivity
    return options.sensitivity(run_samples(trend.history, options.samples, options.exclusions))
