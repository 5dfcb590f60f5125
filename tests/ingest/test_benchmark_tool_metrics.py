"""The metrics of the benchmark tools' formats improve the way the tools mean them."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.ingest.metrics import metric_direction


@pytest.mark.parametrize(
    "metric",
    ["time", "mem", "peakmem", "time_median", "time_stddev", "real_time", "cpu_time_mean"],
)
def test_times_and_memory_are_better_lower(metric: str) -> None:
    assert metric_direction(metric) == "lower"


@pytest.mark.parametrize("metric", ["ops", "bytes_per_second", "items_per_second", "track"])
def test_rates_are_better_higher_and_track_is_higher_unless_told(metric: str) -> None:
    assert metric_direction(metric) == "higher"
    assert metric_direction(metric, "lower") == "lower"
