"""Dashboard tables: one row per test, one table per group-by combination.

"Outliers" counts the outlier runs of the current level (the last group):
runs that left it and came straight back, which the grouping does not count
as changes (see :mod:`~sphinxcontrib_trending.analysis.outliers`).

The last column names the range of the newest regression or progression the
counts include: the last good and the first bad version (see
:mod:`~sphinxcontrib_trending.analysis.change_range`), linked to the commits
between them where ``trending_compare_url`` says.

A short- or long-term change that cannot be had is not left blank: its cell
says why in a word or two, and in a sentence on hover.  Anomalies of the
window that came with an environment change (see
:mod:`~sphinxcontrib_trending.analysis.environment_changes`) name it on the
hover of the Regressions and Progressions cells.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from sphinxcontrib_trending.analysis.change_range import ChangeRange, change_range
from sphinxcontrib_trending.analysis.compliance import Compliance
from sphinxcontrib_trending.analysis.environment_changes import labelled
from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.display import display_unit, percent
from sphinxcontrib_trending.render.grouping import split
from sphinxcontrib_trending.render.ranges import range_cell
from sphinxcontrib_trending.render.table import LABEL, NUMBER, Row, Table, raw_percent


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
        "Latest Change [last good .. first bad]",
    )


KINDS = (LABEL, *(NUMBER,) * 7, LABEL)


NO_VALUE = ("no value", "No run of this test has a value: every run failed.")
TOO_NEW = (
    "too new",
    "No measured run is older than the short-term window: the history is shorter "
    "than the window, so there is no earlier trend to compare with.",
)
FROM_ZERO = ("from 0", "The earlier trend is 0, from which no relative change can be computed.")


def _change(
    change: float | None, reference: float | None, compliance: Compliance
) -> tuple[str, str]:
    """A change's cell and, when it has no value, the reason why."""
    if change is not None:
        return percent(change), ""
    if compliance.trend is None:
        return NO_VALUE
    return FROM_ZERO if reference == 0.0 else TOO_NEW


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


def _newest_range(trend: TestTrend) -> ChangeRange | None:
    if trend.newest_change is None:
        return None
    return change_range(trend.history.runs, trend.result.groups, trend.newest_change)


def _row(trend: TestTrend, links: LinkTemplates) -> Row:
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
    regressed, progressed = (
        "; ".join(
            labelled(change) for comment, change in trend.environment_in_window if comment == kind
        )
        for kind in ("regression", "progression")
    )
    if regressed or progressed:
        classes.append("trending-environment")
    history = trend.history
    found = trend.compliance
    short, short_reason = _change(found.short_change, found.short_reference, found)
    long, long_reason = _change(found.long_change, found.long_reference, found)
    latest, compare = range_cell(_newest_range(trend), links)
    return Row(
        cells=(
            trend.history.display_name,
            unit.format(trend.trend),
            str(trend.runs_in_last_group),
            short,
            long,
            str(trend.regressions),
            str(trend.progressions),
            str(trend.outliers_in_last_group),
            latest,
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
            latest or None,
        ),
        reasons=("", "", "", short_reason, long_reason, regressed, progressed, "", "")
        if short_reason or long_reason or regressed or progressed
        else (),
        links=(*(None,) * 8, compare) if compare else (),
    )


def dashboard_tables(
    trends: Iterable[TestTrend],
    group_by: Sequence[str],
    normalised: str = "",
    links: LinkTemplates | None = None,
) -> list[Table]:
    """``normalised`` (``normalised to 2 GHz``) joins the unit in the trend header;
    ``links`` turn each latest change's range into a link to its commits."""
    links = links or LinkTemplates()
    tables = []
    for caption, members in split(trends, group_by, lambda trend: trend.history):
        unit = members[0].history.unit
        unit_label = display_unit(unit).label
        if normalised:
            unit_label = f"{unit_label}, {normalised}"
        rows = tuple(_row(trend, links) for trend in sorted(members, key=_sort_key))
        tables.append(
            Table(
                caption=caption,
                header=header(unit_label),
                rows=rows,
                raw_header=header(unit or "value"),
                kinds=KINDS,
            )
        )
    return tables
