"""How far each test's numbers can be trusted, before anyone believes an alarm.

Four measures, each over the runs in a window that ends at the source's
newest build (the same half-open rule as every other window):

- **relative noise**: the current group's stdev over its average: the
  spread a new run is judged against.  A test at 5 % noise cannot show a
  2 % regression;
- **anomalies per 30 days**: regressions and progressions (maybe-changes
  included, known changes left out) whose group starts in the window, as a
  rate: a stable system changes seldom, a test that changes every week is
  reporting its own noise;
- **outlier share**: the share of measured runs the grouping flagged as
  outliers of their group.  When it flags none (no outlier rule, or the rule
  turned off), the share of runs that form a group of their own stands in
  for it: the grouping had to give such a run its own level because it fits
  neither neighbour;
- **failures per 30 days**: failed runs, as a rate: flaky tests show here;
- **stated false alarms per 100 runs**: how often the test would report a
  firm change where nothing changed, under its own measured noise and the
  policy it is judged by (see :mod:`.sensitivity`): the rate an alarm of
  this test is to be weighed against.

Rates divide by the part of the window the test's history covers (from its
first run, or the window's start when it is older; at least a day), so a
test added last week is not made to look calm by a 90-day divisor.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, get_args

from sphinxcontrib_trending.analysis.compliance import in_window
from sphinxcontrib_trending.analysis.summary import TestTrend, TrendOptions, stated_sensitivity

NoiseOrder = Literal["noise", "anomalies", "outliers", "failures"]
NOISE_ORDERS: tuple[NoiseOrder, ...] = get_args(NoiseOrder)

RATE_DAYS = 30


@dataclass(frozen=True)
class TestNoise:
    """The trust measures of one test; None where there is nothing to measure."""

    __test__ = False  # a result class, not a pytest test class (its name starts with Test)

    trend: TestTrend
    relative_noise: float | None
    """Current group's ``stdev / |avg|``; None without a group of two runs or more, or at a
    zero average."""
    anomalies_per_30_days: float
    outlier_share: float | None
    """Share of measured runs in the window; None when the window has none."""
    outliers_flagged: bool
    """True when the share counts flagged outliers, False for single-run groups."""
    failures_per_30_days: float
    false_alarms_per_100_runs: float | None = None
    """The stated rate (:mod:`.sensitivity`); None for a history too short to measure."""


def outlier_flags(trend: TestTrend) -> list[bool] | None:
    """Per run: whether the grouping flagged it as an outlier of its group.

    None when the grouping flags no outliers at all: an analysis without
    the outlier rule (``Classification.outliers``), or one run with the rule
    turned off (``outlier_runs`` of 0, as with the jumpavg search).
    """
    result = trend.result
    outliers = getattr(result, "outliers", None)
    if outliers is None or not getattr(result, "outlier_runs", 0):
        return None
    flagged = set(outliers)
    return [index in flagged for index in range(len(trend.history.runs))]


def single_run_groups(trend: TestTrend) -> list[bool]:
    """Per run: whether it is the only measured run of its group."""
    alone = [False] * len(trend.history.runs)
    missing = set(trend.result.missing)
    for group in trend.result.groups:
        measured = [i for i in range(group.start, group.stop) if i not in missing]
        if len(measured) == 1:
            alone[measured[0]] = True
    return alone


def _relative_noise(trend: TestTrend) -> float | None:
    """None for a current group of one run: its zero spread says nothing yet."""
    if not trend.result.groups or trend.runs_in_last_group < 2:
        return None
    current = trend.result.groups[-1]
    return None if current.avg == 0 else current.stdev / abs(current.avg)


def measure(
    trend: TestTrend, end: datetime, window: timedelta, options: TrendOptions | None = None
) -> TestNoise:
    """The trust measures of one test over ``(end - window, end]``.

    The stated false-alarm rate is the whole history's, measured under
    ``options`` (the ones the trend was made with); without them, only the
    one a false-alarm target already measured.
    """
    runs = trend.history.runs
    since = end - window
    inside = [i for i, run in enumerate(runs) if in_window(run.time, since)]
    covered_from = max(runs[0].time, since) if runs else end
    days = max((end - covered_from) / timedelta(days=1), 1.0)
    anomalies = sum(
        1 for i in inside if trend.verdicts[i] is not None and i not in trend.acknowledged
    )
    failures = sum(1 for i in inside if runs[i].status != "PASS")
    measured = [i for i in inside if runs[i].measured]
    flags = outlier_flags(trend)
    marked = flags if flags is not None else single_run_groups(trend)
    share = sum(1 for i in measured if marked[i]) / len(measured) if measured else None
    return TestNoise(
        trend=trend,
        relative_noise=_relative_noise(trend),
        anomalies_per_30_days=anomalies * RATE_DAYS / days,
        outlier_share=share,
        outliers_flagged=flags is not None,
        failures_per_30_days=failures * RATE_DAYS / days,
        false_alarms_per_100_runs=_stated_rate(trend, options),
    )


def _stated_rate(trend: TestTrend, options: TrendOptions | None) -> float | None:
    stated = trend.sensitivity if options is None else stated_sensitivity(trend, options)
    return None if stated is None else stated.false_alarms_per_100_runs


def _value(noise: TestNoise, order: NoiseOrder) -> float:
    """The measure ``order`` names; a missing one counts as the best (lowest)."""
    value = {
        "noise": noise.relative_noise,
        "anomalies": noise.anomalies_per_30_days,
        "outliers": noise.outlier_share,
        "failures": noise.failures_per_30_days,
    }[order]
    return -1.0 if value is None else value


def worst_first(noises: Iterable[TestNoise], order: NoiseOrder = "noise") -> list[TestNoise]:
    """Least trustworthy first by ``order``, ties broken by the other measures, then name."""
    ranking = (order, *(other for other in NOISE_ORDERS if other != order))
    return sorted(
        noises,
        key=lambda noise: (
            *(-_value(noise, measure_name) for measure_name in ranking),
            noise.trend.history.display_name,
        ),
    )
