"""Stated false-alarm rates: what a test says of its own noise, checked against that noise.

The statement is only worth showing if it predicts: on many fresh series of
the same noise, with nothing changing, the alarms observed must be within a
factor 2 of the alarms stated.  A target rate must bring the statement down
to it by raising the threshold, never by lowering it.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from sphinxcontrib_trending.analysis import AnomalyPolicy, classify, judge
from sphinxcontrib_trending.analysis.calibration import SPREAD_POLICY, calibrated_unit
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.noise import measure
from sphinxcontrib_trending.analysis.sensitivity import (
    MIN_RUNS,
    residuals,
    sensitivity,
    threshold_for,
)
from sphinxcontrib_trending.analysis.summary import TrendOptions, run_samples, summarize
from sphinxcontrib_trending.analysis.verdicts import judge_latest
from tests.hand_built import build_time, builds

RUNS = 40
SERIES = 60


def _heavy_tailed(rng: random.Random) -> list[float]:
    """Timings of a shared runner: mostly tight, now and then a slow run, coarsely quantised."""
    values = []
    for _ in range(RUNS):
        value = rng.gauss(100.0, 1.0)
        if rng.random() < 0.08:
            value += rng.expovariate(1 / 6.0)
        values.append(round(value))
    return values


def _stated_and_observed(options: TrendOptions, series: int = SERIES) -> tuple[float, int]:
    rng = random.Random(5)
    stated = 0.0
    observed = 0
    for _ in range(series):
        values = _heavy_tailed(rng)
        result = classify(values, unit=calibrated_unit(values, options.calibration))
        rate = options.sensitivity(values)
        assert rate is not None
        stated += rate.false_alarms_per_100_runs * RUNS / 100
        policy = AnomalyPolicy(
            min_confidence=rate.min_confidence,
            discount_serial_correlation=options.policy.discount_serial_correlation,
        )
        observed += sum(verdict.firm for verdict in judge(result, policy))
    return stated, observed


@pytest.mark.parametrize(
    "options",
    [
        TrendOptions(calibration="seed"),
        TrendOptions(calibration="spread", policy=SPREAD_POLICY),
    ],
    ids=["seed", "spread"],
)
def test_the_stated_rate_predicts_the_alarms_on_fresh_noise_within_a_factor_two(
    options: TrendOptions,
) -> None:
    stated, observed = _stated_and_observed(options)
    assert observed > 0, "the noise must make some alarms for the check to mean anything"
    assert 0.5 <= observed / stated <= 2.0


def test_a_target_rate_brings_the_statement_and_the_alarms_down() -> None:
    free = TrendOptions(calibration="seed")
    stated, observed = _stated_and_observed(free)
    target = 0.25 * 100 * stated / (SERIES * RUNS)  # a quarter of the untargeted rate
    held = TrendOptions(calibration="seed", false_alarm_target=target)
    held_stated, held_observed = _stated_and_observed(held)
    # the rate is measured on shuffles other than those the threshold was fitted
    # to, so it lands near the target, not below it by construction
    assert held_stated <= stated / 2 and held_observed <= observed / 2


def test_a_target_only_raises_the_policys_threshold() -> None:
    values = _heavy_tailed(random.Random(1))
    strict = AnomalyPolicy(min_confidence=0.999)
    loose_target = sensitivity(values, GroupingSpec(), strict, target=1000.0)
    assert loose_target is not None and loose_target.min_confidence == 0.999


def test_threshold_for_keeps_room_for_the_allowed_alarms() -> None:
    confidences = [0.99, 0.9, 0.8, 0.6]
    assert 0.8 < threshold_for(confidences, 200, 1.0, 0.0) <= 0.9  # 2 allowed: 0.99 and 0.9
    assert threshold_for(confidences, 200, 2.0, 0.5) == 0.5  # all four fit
    assert threshold_for([1.0, 1.0], 100, 0.5, 0.0) == 1.0  # certainty cannot be raised past


def test_the_statement_is_reproducible_and_needs_enough_runs() -> None:
    values = _heavy_tailed(random.Random(2))
    first = sensitivity(values, GroupingSpec(), AnomalyPolicy())
    assert first == sensitivity(values, GroupingSpec(), AnomalyPolicy())
    assert sensitivity(values[: MIN_RUNS - 1], GroupingSpec(), AnomalyPolicy()) is None


def test_residuals_are_taken_around_the_firm_levels_only() -> None:
    rng = random.Random(3)
    noise = [rng.gauss(0.0, 1.0) for _ in range(60)]
    stepped = [100.0 + value for value in noise[:30]] + [150.0 + value for value in noise[30:]]
    centred = residuals(stepped)
    assert max(abs(value) for value in centred) < 5.0  # the step of 50 is taken out
    assert sum(centred[:30]) == pytest.approx(0.0, abs=1e-9)
    flat = [100.0 + value for value in noise]
    assert residuals([*flat[:20], None, *flat[20:]]) == pytest.approx(
        [value - sum(flat) / 60 for value in flat]
    )


def _noisy_history():
    rng = random.Random(9)
    levels = _heavy_tailed(rng) + _heavy_tailed(rng)
    data = builds({"t": lambda n: 1e6 * levels[n - 1]}, range(1, 2 * RUNS + 1), testbed=None)
    (history,) = histories(data, "mrr")
    return history, build_time(2 * RUNS)


def test_a_target_raises_the_threshold_of_a_noisy_test_on_its_page() -> None:
    history, end = _noisy_history()
    free = summarize(history, TrendOptions(), end)
    held = summarize(history, TrendOptions(false_alarm_target=0.01), end)
    firm = [verdict for verdict in free.verdicts if verdict is not None and verdict.firm]
    held_firm = [verdict for verdict in held.verdicts if verdict is not None and verdict.firm]
    assert free.sensitivity is None and held.sensitivity is not None
    assert held.sensitivity.min_confidence > 0.0
    assert len(held_firm) < len(firm)


def test_the_noise_table_states_the_rate_under_the_trends_options() -> None:
    history, end = _noisy_history()
    options = TrendOptions()
    trend = summarize(history, options, end)
    stated = sensitivity(run_samples(history, "runs"), options.grouping, options.policy)
    assert stated is not None and stated.false_alarms_per_100_runs > 0.0
    noise = measure(trend, end, timedelta(days=90), options)
    assert noise.false_alarms_per_100_runs == stated.false_alarms_per_100_runs
    assert measure(trend, end, timedelta(days=90)).false_alarms_per_100_runs is None


@pytest.mark.parametrize("runs", [[], [None, None]])
def test_a_history_without_values_states_nothing(runs: list[None]) -> None:
    assert residuals(runs) == []
    assert sensitivity(runs, GroupingSpec(), AnomalyPolicy()) is None


def test_check_states_rates_only_when_asked_or_targeted() -> None:
    """Stating costs a few groupings per test: only the JSON report and a target pay for it."""
    history, _end = _noisy_history()
    data = builds({"t": lambda n: 1.0}, range(1, 2 * RUNS + 1), testbed=None)

    def rate(options: TrendOptions) -> float | None:
        (verdict,) = judge_latest("s", [history], data, options)
        return verdict.false_alarms_per_100_runs

    assert rate(TrendOptions()) is None
    stated = rate(TrendOptions(stated_rates=True))
    assert stated is not None and stated > 0.0
    assert rate(TrendOptions(false_alarm_target=100.0)) is not None  # on its second shuffles
