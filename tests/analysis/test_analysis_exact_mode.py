"""search="exact" finds the fewest bits over all partitions, never more than jumpavg.

The brute force prices every partition with the reference library's own
BitCountingGroupList, so the oracle shares no code with the search.
"""

from __future__ import annotations

import random

import pytest
from analysis_series import make_series, resolution, series_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jumpavg.avg_stdev_stats import AvgStdevStats
from jumpavg.bit_counting_group_list import BitCountingGroupList

from sphinxcontrib_trending.analysis import classify, exact

RELATIVE = 1e-9


def price(
    runs: list[float | list[float]],
    starts: tuple[int, ...],
    unit: float | None,
    sbps: float | None,
) -> float:
    """Bits of one partition as the reference library counts them."""
    processed = [run if isinstance(run, float) else AvgStdevStats.for_runs(run) for run in runs]
    largest = max(max(run) if isinstance(run, list) else run for run in runs)
    if not unit:
        unit = largest / (pow(2.0, (sbps or 12.0) + 1.0) - 1.0)
    groups = BitCountingGroupList(max_value=largest, unit=unit)
    for start, stop in zip(starts, (*starts[1:], len(runs)), strict=True):
        groups.append_group_of_runs(list(processed[start:stop]))
    return groups.bits


def brute_force(
    runs: list[float | list[float]], unit: float | None, sbps: float | None
) -> list[tuple[float, tuple[int, ...]]]:
    """(bits, starts) of every partition, cheapest first, priced by the reference."""
    count = len(runs)
    priced = []
    for mask in range(1 << (count - 1)):
        starts = (0, *(index for index in range(1, count) if mask >> (index - 1) & 1))
        priced.append((price(runs, starts, unit, sbps), starts))
    return sorted(priced)


def assert_exact_is_the_minimum(
    runs: list[float | list[float]], unit: float | None, sbps: float | None
) -> None:
    found = classify(runs, unit=unit, sbps=sbps, search="exact")
    greedy = classify(runs, unit=unit, sbps=sbps, search="jumpavg")
    priced = brute_force(runs, unit, sbps)
    (lowest, best_starts), *others = priced
    assert found.bits == pytest.approx(lowest, rel=RELATIVE)
    assert found.bits <= greedy.bits
    unique = not others or others[0][0] > lowest * (1 + 1e-6)
    if unique:
        assert tuple(group.start for group in found.groups) == best_starts


@pytest.mark.slow
@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=9))
def test_exact_equals_brute_force(case) -> None:
    runs, unit, sbps = case
    assert_exact_is_the_minimum(runs, unit, sbps)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=60))
def test_exact_never_counts_more_bits_than_jumpavg(case) -> None:
    runs, unit, sbps = case
    found = classify(runs, unit=unit, sbps=sbps, search="exact")
    greedy = classify(runs, unit=unit, sbps=sbps, search="jumpavg")
    assert found.bits <= greedy.bits
    # the bits reported are those of the groups reported
    starts = tuple(group.start for group in found.groups)
    assert found.bits == pytest.approx(price(runs, starts, unit, sbps), rel=RELATIVE)


def test_exact_beats_jumpavg_where_its_search_is_greedy() -> None:
    """The reference's search misses the optimum on some inputs; exact finds it."""
    rng = random.Random(7)
    improved = 0
    for _ in range(400):
        runs = [rng.choice((rng.random() * 100.0, float(rng.randint(0, 5)))) for _ in range(10)]
        if max(runs) == 0.0:
            continue
        found = classify(runs, search="exact")
        greedy = classify(runs, search="jumpavg")
        assert found.bits <= greedy.bits
        if found.bits < greedy.bits:
            improved += 1
            (lowest, _), *_ = brute_force(runs, None, None)
            assert found.bits == pytest.approx(lowest, rel=RELATIVE)
    assert improved >= 2


def test_without_pruning_the_result_is_the_same(monkeypatch) -> None:
    """A pruning slack so wide that no predecessor is dropped changes nothing."""
    rng = random.Random(11)
    cases = [make_series(rng, rng.randint(3, 9), 1e3, "mixed") for _ in range(40)]
    pruned = [classify(runs, search="exact") for runs in cases]
    monkeypatch.setattr(exact, "RELATIVE_SLACK", 1e6)
    for runs, expected in zip(cases, pruned, strict=True):
        unpruned = classify(runs, search="exact")
        assert unpruned.bits == expected.bits
        (lowest, _), *_ = brute_force(runs, None, None)
        assert unpruned.bits == pytest.approx(lowest, rel=RELATIVE)


@pytest.mark.slow
def test_seeded_sweep_of_longer_series_never_worse_than_jumpavg() -> None:
    rng = random.Random(4242)
    for _ in range(150):
        magnitude = rng.choice((1.0, 1e3, 1e7))
        runs = make_series(rng, rng.randint(20, 200), magnitude, rng.choice(("floats", "mixed")))
        unit, sbps = resolution(rng, magnitude)
        found = classify(runs, unit=unit, sbps=sbps, search="exact")
        greedy = classify(runs, unit=unit, sbps=sbps, search="jumpavg")
        assert found.bits <= greedy.bits


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=8), st.floats(0.1, 3.0))
def test_exact_is_the_minimum_with_negative_values(case, depth) -> None:
    """Negative series are priced as the series shifted to 0, and exact finds its minimum."""
    runs, unit, sbps = case
    floats = [run if isinstance(run, float) else run[0] for run in runs]
    lowered = [value - depth * max(floats) for value in floats]
    smallest = min(*lowered, 0.0)  # a series with no negative value is not shifted
    found = classify(lowered, unit=unit, sbps=sbps, search="exact")
    shifted: list[float | list[float]] = [value - smallest for value in lowered]
    if max(shifted) <= 0.0:
        assert len(found.groups) == 1
        return
    (lowest, best_starts), *others = brute_force(shifted, unit, sbps)
    assert found.bits == pytest.approx(lowest, rel=RELATIVE)
    if not others or others[0][0] > lowest * (1 + 1e-6):
        assert tuple(group.start for group in found.groups) == best_starts
