"""A run's HDR histograms become percentile curves on the nines scale, bounded in size."""

from __future__ import annotations

import math

import pytest

from sphinxcontrib_trending.analysis.latency_curves import (
    MAX_STEPS,
    PERCENTILE_CAP,
    nines,
    run_curves,
    thinned,
)
from tests.latency_data import hdrh_of


def test_the_nines_scale_puts_each_nine_a_decade_further() -> None:
    assert nines(0.0) == 1.0
    assert nines(50.0) == 2.0
    assert nines(90.0) == pytest.approx(10.0)
    assert nines(99.9) == pytest.approx(1000.0)
    assert nines(100.0) == nines(PERCENTILE_CAP)  # not infinity


def test_each_recorded_value_is_a_step_up_to_the_percentile_it_reaches() -> None:
    (curve,), errors = run_curves([("latency_pdr50_forward_hdrh", hdrh_of(7, 9, 9, 12))])
    assert errors == []
    assert (curve.place, curve.direction, curve.name) == ("pdr50", "forward", "50 % PDR, forward")
    assert curve.percentiles == (25.0, 75.0, 100.0)
    assert curve.values == (7.0, 9.0, 12.0)
    assert curve.positions == (1.0, nines(25.0), nines(75.0), nines(100.0))


def test_curves_come_by_load_then_direction_and_other_attributes_are_ignored() -> None:
    pairs = [
        ("latency_pdr90_reverse_hdrh", hdrh_of(30)),
        ("hosts", "10.0.0.1"),
        ("latency_pdr0_forward_hdrh", hdrh_of(5)),
        ("latency_pdr10_reverse_hdrh", hdrh_of(6)),
        ("latency_pdr90_forward_hdrh", hdrh_of(20)),
        ("latency_pdr10_forward_hdrh", ""),  # not measured: no curve, no error
    ]
    curves, errors = run_curves(pairs)
    assert [(c.place, c.direction) for c in curves] == [
        ("pdr0", "forward"),
        ("pdr10", "reverse"),
        ("pdr90", "forward"),
        ("pdr90", "reverse"),
    ]
    assert errors == []


def test_a_histogram_that_does_not_decode_gives_no_curve_but_says_why() -> None:
    curves, errors = run_curves(
        [
            ("latency_pdr50_forward_hdrh", "HISTFAAAAnotahistogram"),
            ("latency_pdr50_reverse_hdrh", hdrh_of(8)),
        ]
    )
    assert [c.direction for c in curves] == ["reverse"]
    (error,) = errors
    assert "corrupt HDR histogram" in error and "latency_pdr50_forward" in error


def test_a_wide_histogram_is_thinned_to_the_bound_keeping_the_highest_values() -> None:
    values = [10 + step * 7 for step in range(2000)]  # 2000 distinct values, 1 sample each
    (curve,), _errors = run_curves([("latency_pdr50_forward_hdrh", hdrh_of(*values))])
    assert len(curve.values) <= MAX_STEPS
    assert list(curve.values) == sorted(curve.values)
    assert curve.percentiles[-1] == 100.0
    assert curve.values[-1] >= max(values)  # the tail is kept whole
    assert curve.values[0] >= min(values)


def test_thinning_keeps_a_short_curve_as_it_is_and_merges_one_span_into_its_maximum() -> None:
    steps = [(10.0, 1.0), (20.0, 2.0)]
    assert thinned(steps) == steps
    crowded = [(10.0 + i * 1e-6, 1.0 + i) for i in range(5)]
    assert thinned(crowded, most=2) == [crowded[-1]]
    assert all(math.isfinite(position) for position, _ in thinned(crowded, most=2))
