"""search="jumpavg" reproduces jumpavg 0.4.2: partitions, tie-breaks, bits, labels."""

from __future__ import annotations

import random

import jumpavg
import jumpavg.bit_counting_stats
import pytest
from analysis_series import make_series, reference_starts, resolution, series_cases
from hypothesis import HealthCheck, given, settings

from sphinxcontrib_trending.analysis import classify, greedy

RELATIVE = 1e-9


def assert_same_as_reference(
    runs: list[float | list[float]], unit: float | None, sbps: float | None
) -> None:
    ours = classify(runs, unit=unit, sbps=sbps, search="jumpavg")
    reference = jumpavg.classify(runs, unit=unit, sbps=sbps)
    assert [group.start for group in ours.groups] == reference_starts(reference)
    assert ours.bits == pytest.approx(reference.bits, rel=RELATIVE)
    assert [group.comment for group in ours.groups] == [group.comment for group in reference]
    for group, expected in zip(ours.groups, reference, strict=True):
        assert group.avg == pytest.approx(expected.stats.avg, rel=1e-12)
        assert group.stdev == pytest.approx(expected.stats.stdev, rel=1e-9, abs=1e-300)
        assert group.size == expected.stats.size


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases())
def test_random_series_match_the_reference(case) -> None:
    runs, unit, sbps = case
    assert_same_as_reference(runs, unit, sbps)


@pytest.mark.slow
def test_seeded_sweep_matches_the_reference_bit_for_bit() -> None:
    """A deterministic sweep, longer series; here even the bits are identical."""
    rng = random.Random(20240501)
    for _ in range(600):
        magnitude = rng.choice((1e-3, 1.0, 1e3, 1e7, 1e12))
        trials = rng.choice(("floats", "trials", "mixed"))
        runs = make_series(rng, rng.randint(1, 80), magnitude, trials)
        unit, sbps = resolution(rng, magnitude)
        ours = classify(runs, unit=unit, sbps=sbps, search="jumpavg")
        reference = jumpavg.classify(runs, unit=unit, sbps=sbps)
        assert [group.start for group in ours.groups] == reference_starts(reference), runs
        assert ours.bits == reference.bits, runs


@pytest.mark.parametrize(
    "runs",
    [
        [5.0] * 30,
        [1.0, 2.0] * 15,
        [1.0, 1.0, 2.0, 2.0, 3.0, 3.0] * 5,
        [[3.0, 3.0], [3.0, 3.0], [4.0, 4.0], [4.0, 4.0]] * 4,
        [0.0, 1.0, 0.0, 1.0, 1.0, 0.0] * 5,
        [7.0] * 10 + [8.0] * 10 + [7.0] * 10,
    ],
    ids=["constant", "alternating", "steps", "equal-trials", "binary", "there-and-back"],
)
def test_every_decision_repriced_exactly_gives_the_same_result(monkeypatch, runs) -> None:
    """A huge margin routes every decision through the exact re-pricing.

    The result must not change: the fast ranking only decides when the exact
    formula agrees, and the re-pricing alone reproduces the reference.
    """
    assert_same_as_reference(runs, None, None)
    repriced = []
    original = greedy._reprice
    monkeypatch.setattr(greedy, "_reprice", lambda *args: repriced.append(1) or original(*args))
    monkeypatch.setattr(greedy, "RELATIVE_MARGIN", 1e6)
    assert_same_as_reference(runs, None, None)
    assert len(repriced) == len(runs) - 1


@pytest.mark.parametrize("seed", range(40))
def test_exact_ties_are_broken_like_the_reference(monkeypatch, seed) -> None:
    """In a world where bits depend on a group's size alone, candidates tie exactly.

    The reference keeps the earliest strictly cheapest candidate in the order
    "new group", then oldest start first; patching both bit formulas the same
    way shows ours resolves every tie the same.
    """

    def tie_bits(size: int, first: bool) -> float:
        return float(size % 3) + (0.5 if first else 0.0)

    def reference_post_init(stats) -> None:
        stats.bits = tie_bits(stats.size, stats.prev_avg is None) if stats.size else 0.0

    def our_group_bits(self, size, avg, stdev, prev_avg) -> float:
        return tie_bits(size, prev_avg is None)

    monkeypatch.setattr(
        jumpavg.bit_counting_stats.BitCountingStats, "__post_init__", reference_post_init
    )
    monkeypatch.setattr(greedy.BitModel, "group_bits", our_group_bits)
    monkeypatch.setattr(greedy, "RELATIVE_MARGIN", 1e6)
    rng = random.Random(seed)
    runs = make_series(rng, rng.randint(2, 30), 10.0, rng.choice(("floats", "mixed")))
    ours = classify(runs, search="jumpavg")
    reference = jumpavg.classify(runs)
    assert [group.start for group in ours.groups] == reference_starts(reference)
    assert ours.bits == reference.bits


def test_int_values_are_accepted_like_the_reference() -> None:
    runs = [3, 3, 4, 9, 9, 9, 2, 2]
    assert_same_as_reference(runs, None, None)
