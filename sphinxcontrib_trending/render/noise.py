"""Noise tables: per testbed, the least trustworthy test first."""

from __future__ import annotations

from collections.abc import Iterable

from sphinxcontrib_trending.analysis.noise import NoiseOrder, TestNoise, worst_first
from sphinxcontrib_trending.display import display_unit, percent
from sphinxcontrib_trending.render.grouping import split
from sphinxcontrib_trending.render.table import Row, Table

OUTLIERS_LABEL = "Outliers [%]"
SINGLE_RUN_LABEL = "Single-run groups [%]"
"""What the outlier column shows while the analysis flags no outliers (see analysis.noise)."""
FALSE_ALARMS_LABEL = "Stated false alarms [per 100 runs]"


def header(unit_label: str, flagged: bool) -> tuple[str, ...]:
    return (
        "Test Case",
        f"Trend [{unit_label}]",
        "Noise [%]",
        "Anomalies [per 30 days]",
        OUTLIERS_LABEL if flagged else SINGLE_RUN_LABEL,
        "Failures [per 30 days]",
        FALSE_ALARMS_LABEL,
    )


def _rate(value: float) -> str:
    return f"{value:.1f}"


def _stated(rate: float | None) -> str:
    """Two decimals: stated rates are often well below one per 100 runs."""
    return "" if rate is None else f"{rate:.2f}"


def _row(noise: TestNoise) -> Row:
    trend = noise.trend
    unit = display_unit(trend.history.unit)
    return Row(
        cells=(
            trend.history.display_name,
            unit.format(trend.trend),
            percent(noise.relative_noise),
            _rate(noise.anomalies_per_30_days),
            percent(noise.outlier_share),
            _rate(noise.failures_per_30_days),
            ""
            if noise.false_alarms_per_100_runs is None
            else f"{noise.false_alarms_per_100_runs:.2f}",
        ),
        link_key=trend.history.ref,
    )


def noise_tables(noises: Iterable[TestNoise], order: NoiseOrder = "noise") -> list[Table]:
    """One table per testbed (in name order), rows worst first by ``order``."""
    tables = []
    for caption, members in split(noises, ("testbed",), lambda noise: noise.trend.history):
        unit_label = display_unit(members[0].trend.history.unit).label
        flagged = all(noise.outliers_flagged for noise in members)
        rows = tuple(_row(noise) for noise in worst_first(members, order))
        tables.append(Table(caption=caption, header=header(unit_label, flagged), rows=rows))
    return tables
