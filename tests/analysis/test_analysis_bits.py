"""The exact bit formula equals the reference's, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jumpavg.bit_counting_stats import BitCountingStats

from sphinxcontrib_trending.analysis import classify
from sphinxcontrib_trending.analysis.bits import BitModel, perturb, resolve_unit

positive = st.floats(1e-6, 1e12, allow_nan=False, allow_infinity=False)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(
    size=st.integers(1, 3000),
    avg_fraction=st.floats(0.0, 1.0),
    stdev_fraction=st.floats(0.0, 1.0),
    prev_fraction=st.none() | st.floats(0.0, 1.0),
    max_value=positive,
    sbps=st.sampled_from([1.0, 4.0, 12.0, 20.0]),
)
def test_group_bits_match_the_reference(
    size, avg_fraction, stdev_fraction, prev_fraction, max_value, sbps
) -> None:
    unit = resolve_unit(max_value, None, sbps)
    avg = avg_fraction * max_value
    stdev = stdev_fraction * max_value / 2
    prev = None if prev_fraction is None else prev_fraction * max_value
    expected = BitCountingStats(
        size=size, avg=avg, stdev=stdev, max_value=max_value, unit=unit, prev_avg=prev
    ).bits
    model = BitModel(max_value, unit, size)
    assert model.group_bits(size, avg, stdev, prev) == expected


def test_ranking_bits_agree_with_the_exact_formula() -> None:
    """The fast path only reorders the sum and swaps the logarithm."""
    model = BitModel(1e7, resolve_unit(1e7, None, None), 50)
    sizes = np.arange(2, 51)
    stdevs = np.linspace(0.0, 3e5, len(sizes))
    fast = model.ranking_bits(sizes, stdevs.copy()) + model.first_avg_bits
    exact = [
        model.group_bits(int(n), 5e6, float(s), None) for n, s in zip(sizes, stdevs, strict=True)
    ]
    assert fast == pytest.approx(exact, rel=1e-12)


def test_perturb_is_what_the_reference_recomputes() -> None:
    avg, stdev = perturb(3, 0.1 + 0.2, 1.1)
    assert avg == (0.1 + 0.2) * 3 / 3
    assert stdev == math.sqrt(1.1 * 1.1 * 3 / 3)


def test_model_refuses_a_zero_scale() -> None:
    with pytest.raises(ValueError, match="positive"):
        BitModel(0.0, 1.0, 3)


def test_models_share_size_tables_but_keep_their_own_length() -> None:
    """A small model made after a large one still sees tables of its own size (the
    searches size theirs by them), with the values a fresh computation gives."""
    large = BitModel(100.0, 0.5, 5000)
    small = BitModel(100.0, 0.5, 7)
    assert len(large.length_bits) == 5001
    assert len(small.length_bits) == len(small.sphere_head) == len(small.sphere_tail) == 8
    for n in (1, 2, 7):
        assert small.length_bits[n] == math.log(n * (n + 1)) / math.log(2)
    assert small.sphere_head[1] == small.sphere_tail[1] == 0.0
    assert small.sphere_head[7] == math.log(2) + math.log(math.pi) * 3 - math.lgamma(3)
    assert large.length_bits[7] == small.length_bits[7]


@pytest.mark.parametrize("values", [[5e-324], [1e-320, 2e-320, 1e-320], [5e-324, 0.0, 1e-323]])
def test_values_too_small_for_a_resolution_are_still_grouped(values: list[float]) -> None:
    """max / (2**13 - 1) underflows to zero for them; the smallest double stands in."""
    assert resolve_unit(max(values), None, None) == math.ulp(0.0)
    groups = classify(values).groups
    assert groups[0].start == 0 and groups[-1].stop == len(values)
    assert resolve_unit(1e7, None, None) == 1e7 / 8191  # nothing changes above the underflow
