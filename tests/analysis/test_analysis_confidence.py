"""Confidence of each change: bits saved against the merge, its probability, serial correlation."""

from __future__ import annotations

import itertools
import math
import random

import jumpavg
import numpy as np
import pytest
from analysis_series import make_series, series_cases
from hypothesis import given, settings
from jumpavg.avg_stdev_stats import AvgStdevStats

from sphinxcontrib_trending.analysis import classify, split_confidence
from sphinxcontrib_trending.analysis.confidence import (
    discounted_bits,
    serial_correlation_per_group,
)


def _oracle_bits(runs: list, bounds: list[tuple[int, int]], unit: float) -> float:
    """Bits of a partition of ``runs`` (present runs only) priced by jumpavg 0.4.2."""
    largest = max(max(run) if isinstance(run, list) else run for run in runs)
    processed = [run if isinstance(run, float) else AvgStdevStats.for_runs(run) for run in runs]
    groups = jumpavg.BitCountingGroupList(max_value=largest, unit=unit)
    for start, stop in bounds:
        groups.append_group_of_runs(processed[start:stop])
    return groups.bits


def _saved_by_oracle(runs: list, starts: list[int], index: int, unit: float) -> float:
    """Bits of the partition with group ``index`` merged into its predecessor, minus
    the bits of the partition itself."""
    stops = [*starts[1:], len(runs)]
    bounds = list(zip(starts, stops, strict=True))
    merged = [*bounds[: index - 1], (bounds[index - 1][0], bounds[index][1]), *bounds[index + 1 :]]
    return _oracle_bits(runs, merged, unit) - _oracle_bits(runs, bounds, unit)


@settings(max_examples=60, deadline=None)
@given(series_cases(max_length=30))
def test_bits_saved_is_the_oracle_price_of_the_merge(case) -> None:
    """Re-pricing the whole merged partition with the reference gives the same bits.

    This covers the group after the merged pair, whose previous average changes.
    """
    runs, unit, sbps = case
    result = classify(runs, unit=unit, sbps=sbps, outlier_runs=0)
    if result.unit is None:
        return
    starts = [group.start for group in result.groups]
    for index, group in enumerate(result.groups):
        if index == 0:
            assert group.bits_saved is None and group.confidence is None
            continue
        expected = _saved_by_oracle(runs, starts, index, result.unit)
        tolerance = 1e-6 * (1.0 + abs(result.bits))
        assert group.bits_saved == pytest.approx(expected, rel=1e-9, abs=tolerance)
        assert group.confidence == split_confidence(group.bits_saved)


@settings(max_examples=80, deadline=None)
@given(series_cases(max_length=40))
def test_no_merge_of_the_exact_partition_saves_bits(case) -> None:
    """The exact search is optimal, so undoing any split can only cost bits."""
    runs, unit, sbps = case
    result = classify(runs, unit=unit, sbps=sbps, outlier_runs=0)
    for group in result.groups[1:]:
        assert group.bits_saved >= -1e-9 * (1.0 + abs(result.bits))
        assert 0.5 - 1e-9 <= group.confidence <= 1.0


def test_the_confidence_grows_with_the_evidence() -> None:
    rng = random.Random(7)
    noise = [rng.gauss(0.0, 1.0) for _ in range(80)]
    confidences = []
    for step in (4.0, 8.0, 16.0):
        runs = [100.0 + value for value in noise[:40]] + [100.0 + step + v for v in noise[40:]]
        result = classify(runs)
        assert [group.start for group in result.groups] == [0, 40]
        confidences.append(result.groups[1].confidence)
    assert confidences == sorted(confidences)
    assert confidences[-1] > 1 - 1e-9


def test_jumpavg_search_keeps_its_partition_and_gets_confidences_too() -> None:
    runs = make_series(random.Random(3), 60, 1e3, "floats")
    result = classify(runs, search="jumpavg")
    reference = jumpavg.classify(runs)
    assert result.bits == reference.bits
    assert len(result.groups) == len(reference.group_list)
    assert all(group.confidence is not None for group in result.groups[1:])


def test_single_group_and_all_zero_inputs_have_no_confidence() -> None:
    assert classify([5.0, 5.0, 5.0]).groups[0].bits_saved is None
    zeros = classify([0.0, 0.0, 0.0])
    assert (zeros.groups[0].confidence, zeros.groups[0].serial_correlation) == (None, None)


@pytest.mark.parametrize(
    ("bits", "expected"),
    [(0.0, 0.5), (1.0, 2 / 3), (-1.0, 1 / 3), (math.log2(99), 0.99), (math.inf, 1.0)],
)
def test_split_confidence_is_the_equal_prior_posterior(bits, expected) -> None:
    assert split_confidence(bits) == pytest.approx(expected, rel=1e-12)


def test_split_confidence_never_overflows() -> None:
    assert split_confidence(1e6) == 1.0
    assert split_confidence(-1e6) == 0.0
    assert split_confidence(-math.inf) == 0.0


def _lag_one(residuals: list[list[float]]) -> float:
    """Pooled lag-1 autocorrelation, pairing neighbours within each list only."""
    squares = sum(value * value for part in residuals for value in part)
    products = sum(a * b for part in residuals for a, b in itertools.pairwise(part))
    return products / squares


def test_serial_correlation_is_the_pooled_lag_one_autocorrelation() -> None:
    rng = random.Random(11)
    runs: list = [rng.gauss(100.0, 1.0) for _ in range(30)]
    runs += [rng.gauss(130.0, 1.0) for _ in range(30)]
    runs.insert(10, None)  # a missing run pairs its neighbours, as the grouping sees them
    result = classify(runs)
    first, second = result.groups
    present = [value for value in runs if value is not None]
    expected = _lag_one(
        [[v - first.avg for v in present[:30]], [v - second.avg for v in present[30:]]]
    )
    assert second.serial_correlation == pytest.approx(expected, rel=1e-12)
    assert abs(second.serial_correlation) < 0.4


def test_a_trend_cut_into_steps_shows_strong_serial_correlation() -> None:
    result = classify([100.0 + 2.0 * index for index in range(60)])
    assert len(result.groups) > 2
    assert all(group.serial_correlation > 0.5 for group in result.groups[1:])


def test_discounted_bits_shrink_by_the_effective_sample_size() -> None:
    assert discounted_bits(30.0, 0.0) == 30.0
    assert discounted_bits(30.0, -0.5) == 30.0
    assert discounted_bits(30.0, 0.5) == pytest.approx(10.0)
    assert discounted_bits(30.0, 1.0) == 0.0


def test_numpy_input_gets_the_same_confidences() -> None:
    runs = make_series(random.Random(5), 50, 50.0, "floats")
    assert classify(np.array(runs)).groups == classify(runs).groups


def test_the_confidence_depends_on_the_resolution_as_the_anomalies_page_says() -> None:
    """The example of docs/methodology/anomalies.rst: a 2 % step in 1 % noise."""
    rng = random.Random(2)
    runs = [100 * (1 + rng.gauss(0, 0.01)) for _ in range(30)]
    runs += [98 * (1 + rng.gauss(0, 0.01)) for _ in range(30)]
    found = {}
    for sbps in (None, 8, 6, 5, 4):
        result = classify(runs, sbps=sbps)
        found[sbps] = [(g.start, round(g.confidence, 4)) for g in result.groups[1:]]
    assert found == {
        None: [(30, 0.995)],
        8: [(30, 0.9952)],
        6: [(30, 0.7982)],
        5: [],
        4: [],
    }
    assert classify(runs).groups[1].bits_saved == pytest.approx(7.63, abs=0.005)
    assert classify(runs, sbps=6).groups[1].bits_saved == pytest.approx(1.98, abs=0.005)


@pytest.mark.parametrize(
    ("confidence", "bits"), [(0.9, 3.1699), (0.95, 4.2479), (0.99, 6.6294), (0.999, 9.9643)]
)
def test_the_thresholds_table_is_exact(confidence: float, bits: float) -> None:
    assert split_confidence(bits) == pytest.approx(confidence, abs=2e-6)
    assert math.log2(confidence / (1 - confidence)) == pytest.approx(bits, abs=5e-5)


@pytest.mark.parametrize(
    ("avgs", "starts"),
    [
        ([5.0], [0]),
        ([5.0, 7.0], [0, 1]),
        ([1.0, 2.0, 4.0], [0]),
        ([1.0, 3.0, 2.0, 9.0, 8.0, 9.5, 20.0], [0, 3, 6]),
        ([1.0, 1.0, 2.0, 5.0, 4.0, 5.0, 7.0, 7.5], [0, 2, 3, 6]),
    ],
)
def test_serial_correlation_per_group_pairs_neighbours_within_each_group(avgs, starts) -> None:
    """Short groups and single runs at either end: each value is the pooled lag-one
    autocorrelation of the two groups' residuals, pairs across a boundary left out
    (0.0 where neither group spreads)."""
    bounds = [*starts, len(avgs)]
    groups = [avgs[low:high] for low, high in itertools.pairwise(bounds)]
    means = [sum(group) / len(group) for group in groups]
    found = serial_correlation_per_group(np.array(avgs), starts, means)
    residuals = [[v - mean for v in group] for group, mean in zip(groups, means, strict=True)]
    expected = [None] + [
        _lag_one(pair) if any(value != 0.0 for part in pair for value in part) else 0.0
        for pair in itertools.pairwise(residuals)
    ]
    assert found[0] is None  # the first group has no group before it
    assert found[1:] == pytest.approx(expected[1:], rel=1e-12)
