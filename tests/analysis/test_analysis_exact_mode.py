"""search="exact" finds the fewest bits over all partitions, never more than jumpavg.

The brute force prices every partition with the reference library's own
BitCountingGroupList, so the oracle shares no code with the search.
"""

from __future__ import annotations

import random

import pytest
from analysis_series import make_series, resolution, series_cases
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from jumpavg.avg_stdev_stats import AvgStdevStats
from jumpavg.bit_counting_group_list import BitCountingGroupList

from sphinxcontrib_trending.analysis import classify, exact

RELATIVE = 1e-9

LOW, HIGH = 1000.0, 7559.206812664216
# a CI failure: floats and trial lists of one value, at sbps=24 (unit ~2e-10 of it)
REPEATED_VALUES_AT_A_FINE_UNIT: tuple[list[float | list[float]], float | None, float | None] = (
    [
        *[LOW] * 5,
        [LOW, LOW],
        [LOW],
        [HIGH] * 5,
        [HIGH] * 2,
        [HIGH],
        HIGH,
        HIGH,
        [HIGH] * 5,
        [HIGH] * 4,
        HIGH,
        HIGH,
        [HIGH] * 4,
        [HIGH] * 4,
        [HIGH] * 2,
        HIGH,
        [HIGH],
        [HIGH] * 2,
        [HIGH, HIGH, HIGH, 3104.993935459829, HIGH],
        HIGH,
        HIGH,
        HIGH,
        4855.289910289708,
    ],
    None,
    24.0,
)


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


def starts_of(result) -> tuple[int, ...]:
    return tuple(group.start for group in result.groups)


def jumpavg_bits(runs: list[float | list[float]], unit: float | None, sbps: float | None) -> float:
    """Bits of jumpavg's partition as the reference counts those groups given whole.

    The reference's search reports its partition's bits with the last-bit noise
    of its run-by-run merges; exact and jumpavg are compared on equal terms.
    """
    greedy = classify(runs, unit=unit, sbps=sbps, search="jumpavg")
    return price(runs, starts_of(greedy), unit, sbps)


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
    found = classify(runs, unit=unit, sbps=sbps, search="exact", outlier_runs=0)
    priced = brute_force(runs, unit, sbps)
    (lowest, best_starts), *others = priced
    assert found.bits == pytest.approx(lowest, rel=RELATIVE)
    assert found.bits <= jumpavg_bits(runs, unit, sbps)
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
@example(REPEATED_VALUES_AT_A_FINE_UNIT)
def test_exact_never_counts_more_bits_than_jumpavg(case) -> None:
    runs, unit, sbps = case
    found = classify(runs, unit=unit, sbps=sbps, search="exact", outlier_runs=0)
    assert found.bits <= jumpavg_bits(runs, unit, sbps)
    # the bits reported are those the reference counts for the groups reported
    assert found.bits == price(runs, starts_of(found), unit, sbps)


def test_repeated_values_make_a_group_of_zero_spread() -> None:
    """Identical values merged from floats and trial lists: no last-bit spread.

    The reference's search re-derives the average after every run and ends at
    a spread of ~1e-12 here, a billionth of the bits at ``sbps=24``.
    """
    runs, unit, sbps = REPEATED_VALUES_AT_A_FINE_UNIT
    found = classify(runs, unit=unit, sbps=sbps, search="exact", outlier_runs=0)
    level = next(group for group in found.groups if group.start == 7)
    assert (level.avg, level.stdev) == (HIGH, 0.0)
    assert found.bits == price(runs, starts_of(found), unit, sbps)


def test_exact_beats_jumpavg_where_its_search_is_greedy() -> None:
    """The reference's search misses the optimum on some inputs; exact finds it."""
    rng = random.Random(7)
    improved = 0
    for _ in range(400):
        runs = [rng.choice((rng.random() * 100.0, float(rng.randint(0, 5)))) for _ in range(10)]
        if max(runs) == 0.0:
            continue
        found = classify(runs, search="exact", outlier_runs=0)
        greedy_bits = jumpavg_bits(runs, None, None)
        assert found.bits <= greedy_bits
        if found.bits < greedy_bits:
            improved += 1
            (lowest, _), *_ = brute_force(runs, None, None)
            assert found.bits == pytest.approx(lowest, rel=RELATIVE)
    assert improved >= 2


def test_without_pruning_the_result_is_the_same(monkeypatch) -> None:
    """A pruning slack so wide that no predecessor is dropped changes nothing."""
    rng = random.Random(11)
    cases = [make_series(rng, rng.randint(3, 9), 1e3, "mixed") for _ in range(40)]
    pruned = [classify(runs, search="exact", outlier_runs=0) for runs in cases]
    monkeypatch.setattr(exact, "RELATIVE_SLACK", 1e6)
    for runs, expected in zip(cases, pruned, strict=True):
        unpruned = classify(runs, search="exact", outlier_runs=0)
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
        found = classify(runs, unit=unit, sbps=sbps, search="exact", outlier_runs=0)
        assert found.bits <= jumpavg_bits(runs, unit, sbps)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=8), st.floats(0.1, 3.0))
def test_exact_is_the_minimum_with_negative_values(case, depth) -> None:
    """Negative series are priced as the series shifted to 0, and exact finds its minimum."""
    runs, unit, sbps = case
    floats = [run if isinstance(run, float) else run[0] for run in runs]
    lowered = [value - depth * max(floats) for value in floats]
    smallest = min(*lowered, 0.0)  # a series with no negative value is not shifted
    found = classify(lowered, unit=unit, sbps=sbps, search="exact", outlier_runs=0)
    shifted: list[float | list[float]] = [value - smallest for value in lowered]
    if max(shifted) <= 0.0:
        assert len(found.groups) == 1
        return
    (lowest, best_starts), *others = brute_force(shifted, unit, sbps)
    assert found.bits == pytest.approx(lowest, rel=RELATIVE)
    if not others or others[0][0] > lowest * (1 + 1e-6):
        assert tuple(group.start for group in found.groups) == best_starts
