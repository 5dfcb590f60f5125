"""Trust measures per test: relative noise, anomaly, outlier and failure rates."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import timedelta

import pytest

from sphinxcontrib_trending.analysis import summary
from sphinxcontrib_trending.analysis.classify import Classification
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.noise import measure, single_run_groups, worst_first
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from tests.hand_built import build_time, builds

LAST = 60
END = build_time(LAST)
WINDOW = timedelta(days=30)

LEVELS = {
    "noisy": lambda n: 10e6 * (1.05 if n % 2 else 0.95),  # +-5 % around 10 Mpps
    "steady": lambda n: 10e6,
    "jumpy": lambda n: 10e6 if (n // 10) % 2 else 5e6,  # a change every 10 days
    "flaky": lambda n: None if n % 10 == 0 else 4e6,  # fails every 10th build
    "young": lambda n: None if n < 55 else 7e6,  # only its newest runs measured
}


def _trends() -> dict[str, summary.TestTrend]:
    data = builds(LEVELS, range(1, LAST + 1))
    return {
        history.name: summarize(history, TrendOptions(), END) for history in histories(data, "mrr")
    }


def test_relative_noise_of_the_current_group() -> None:
    trends = _trends()
    assert measure(trends["noisy"], END, WINDOW).relative_noise == pytest.approx(0.05)
    assert measure(trends["steady"], END, WINDOW).relative_noise == 0.0
    newest = builds({"jump": lambda n: 5e6 if n < LAST else 9e6}, range(1, LAST + 1))
    (history,) = histories(newest, "mrr")
    jumped = measure(summarize(history, TrendOptions(), END), END, WINDOW)
    assert jumped.trend.runs_in_last_group == 1 and jumped.relative_noise is None


def test_rates_per_30_days_over_the_window() -> None:
    trends = _trends()
    jumpy = measure(trends["jumpy"], END, WINDOW)
    assert jumpy.anomalies_per_30_days == pytest.approx(3.0)  # builds 31, 40, 50 in (30, 60]
    flaky = measure(trends["flaky"], END, WINDOW)
    assert flaky.failures_per_30_days == pytest.approx(3.0)  # builds 40, 50, 60
    assert flaky.anomalies_per_30_days == 0.0
    # a window longer than the history: the rate is over the 59 days it covers
    long = measure(trends["flaky"], END, 2 * WINDOW)
    assert long.failures_per_30_days == pytest.approx(30 * 6 / 59)  # 59 days of runs
    assert measure(trends["steady"], END, WINDOW).failures_per_30_days == 0.0


def test_rates_of_a_short_history_use_the_days_it_covers() -> None:
    young = measure(_trends()["young"], END, WINDOW)
    # failed in builds 31..54: 24 runs in the 30 days of the window
    assert young.failures_per_30_days == pytest.approx(24.0)
    newcomer = builds({"new": lambda n: None if n == 55 else 6e6}, range(51, LAST + 1))
    (history,) = histories(newcomer, "mrr")
    noise = measure(summarize(history, TrendOptions(), END), END, WINDOW)
    assert noise.failures_per_30_days == pytest.approx(30 / 9)  # builds 51..60 span 9 days


def test_single_run_groups_stand_in_for_outliers() -> None:
    trends = _trends()
    spike = {**LEVELS, "spike": lambda n: 20e6 if n == 45 else 3e6}
    data = builds(spike, range(1, LAST + 1))
    (history,) = [h for h in histories(data, "mrr") if h.name == "spike"]
    trend = summarize(history, TrendOptions(outlier_runs=0), END)
    assert [i for i, alone in enumerate(single_run_groups(trend)) if alone] == [44]
    noise = measure(trend, END, WINDOW)
    assert not noise.outliers_flagged
    assert noise.outlier_share == pytest.approx(1 / 30)
    assert measure(trends["steady"], END, WINDOW).outlier_share == 0.0


def test_the_outlier_rule_flags_the_spike_itself() -> None:
    spike = {**LEVELS, "spike": lambda n: 20e6 if n == 45 else 3e6}
    data = builds(spike, range(1, LAST + 1))
    (history,) = [h for h in histories(data, "mrr") if h.name == "spike"]
    noise = measure(summarize(history, TrendOptions(), END), END, WINDOW)
    assert noise.outliers_flagged
    assert noise.outlier_share == pytest.approx(1 / 30)


@dataclass(frozen=True)
class FlaggingClassification(Classification):
    """A grouping with the outlier rule: the runs it flags, and its ``K``."""

    flagged: tuple[int, ...] = ()
    outlier_runs: int = 3

    @property
    def outliers(self) -> tuple[int, ...]:
        return self.flagged


def _flagging(trend: summary.TestTrend, flagged: tuple[int, ...], k: int) -> summary.TestTrend:
    fields = {
        field.name: getattr(trend.result, field.name)
        for field in dataclasses.fields(Classification)
    }
    fields["outlier_runs"] = k
    return dataclasses.replace(trend, result=FlaggingClassification(**fields, flagged=flagged))


def test_flagged_outliers_are_read_when_the_grouping_has_them() -> None:
    trend = _trends()["steady"]
    noise = measure(_flagging(trend, (50, 55, 59), 3), END, WINDOW)
    assert noise.outliers_flagged
    assert noise.outlier_share == pytest.approx(3 / 30)
    off = measure(_flagging(trend, (), 0), END, WINDOW)  # the rule turned off
    assert not off.outliers_flagged and off.outlier_share == 0.0


def test_worst_first_by_the_chosen_measure() -> None:
    noises = [measure(trend, END, WINDOW) for trend in _trends().values()]
    by_noise = [noise.trend.history.name for noise in worst_first(noises)]
    assert by_noise[0] == "noisy"
    by_failures = [noise.trend.history.name for noise in worst_first(noises, "failures")]
    assert by_failures[:2] == ["young", "flaky"]
    by_anomalies = [noise.trend.history.name for noise in worst_first(noises, "anomalies")]
    assert by_anomalies[0] == "jumpy"
