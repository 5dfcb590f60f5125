"""Dashboard tables: one row per test, one table per group-by combination.

"Outliers" counts the outlier runs of the current level (the last group):
runs that left it and came straight back, which the grouping does not count
as changes (see :mod:`~sphinxcontrib_trending.analysis.outliers`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.display import display_unit, percent
from sphinxcontrib_trending.render.grouping import split
from sphinxcontrib_trending.render.table import Row, Table, raw_percent


def header(unit_label: str) -> tuple[str, ...]:
    return (
        "Test Case",
        f"Trend [{unit_label}]",
        "Runs [#]",
        "Short-Term Change [%]",
        "Long-Term Change [%]",
        "Regressions [#]",
        "Progressions [#]",
        "Outliers [#]",
    )


def _sort_key(trend: TestTrend) -> tuple[int, int, float, str]:
    """Regressions first, then progressions, then the worst long-term change.

    A missing long-term change sorts after every number instead of dropping
    the row, which is what the reference did.
    """
    long_change = trend.compliance.long_change
    return (
        -trend.regressions,
        -trend.progressions,
        math.inf if long_change is None else long_change,
        trend.history.display_name,
    )


def _row(trend: TestTrend) -> Row:
    unit = display_unit(trend.history.unit)
    counts = trend.counts
    classes = []
    if counts.regressions:
        classes.append("trending-regression")
    elif counts.progressions:
        classes.append("trending-progression")
    elif counts.maybe_regressions or counts.maybe_progressions:
        classes.append("trending-maybe")
    elif counts.acknowledged:
        classes.append("trending-acknowledged")
    history = trend.history
    return Row(
        cells=(
            trend.history.display_name,
            unit.format(trend.trend),
            str(trend.runs_in_last_group),
            percent(trend.compliance.short_change),
            percent(trend.compliance.long_change),
            str(trend.regressions),
            str(trend.progressions),
            str(trend.outliers_in_last_group),
        ),
        link_key=trend.history.ref,
        classes=tuple(classes),
        raw=(
            history.display_name,
            trend.trend,
            trend.runs_in_last_group,
            raw_percent(trend.compliance.short_change),
            raw_percent(trend.compliance.long_change),
            trend.regressions,
            trend.progressions,
            trend.outliers_in_last_group,
        ),
    )


def dashboard_tables(
    trends: Iterable[TestTrend], group_by: Sequence[str], normalised: str = ""
) -> list[Table]:
    """``normalised`` (``normalised to 2 GHz``) joins the unit in the trend header."""
    tables = []
    for caption, members in split(trends, group_by, lambda trend: trend.history):
        unit = members[0].history.unit
        unit_label = display_unit(unit).label
        if normalised:
            unit_label = f"{unit_label}, {normalised}"
        rows = tuple(_row(trend) for trend in sorted(members, key=_sort_key))
        tables.append(
            Table(
                caption=caption,
                header=header(unit_label),
                rows=rows,
                raw_header=header(unit or "value"),
            )
        )
    return tables
