"""Noise tables: the outlier column names what it counts."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.noise import measure
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.render.noise import OUTLIERS_LABEL, SINGLE_RUN_LABEL, noise_tables
from tests.hand_built import build_time, builds


def test_outlier_column_says_whether_outliers_are_flagged() -> None:
    data = builds({"a": lambda n: 5e6, "b": lambda n: 6e6}, range(1, 11), testbed=None)
    end = build_time(10)
    noises = [
        measure(summarize(history, TrendOptions(outlier_runs=0), end), end, timedelta(days=30))
        for history in histories(data, "mrr")
    ]
    (table,) = noise_tables(noises)
    assert table.caption == "" and table.header[4] == SINGLE_RUN_LABEL
    assert [row.cells[0] for row in table.rows] == ["a", "b"]
    flagged = [replace(noise, outliers_flagged=True) for noise in noises]
    assert noise_tables(flagged)[0].header[4] == OUTLIERS_LABEL
    mixed = [flagged[0], noises[1]]
    assert noise_tables(mixed)[0].header[4] == SINGLE_RUN_LABEL
