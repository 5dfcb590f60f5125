"""The percentile graphs a latency trend opens on a click, precomputed into its figure.

A site is static and must work from ``file://``: nothing can decode a
histogram when the reader clicks.  So the curves of the newest runs of each
series (:data:`PERCENTILE_RUNS` by default) are drawn here, at build time,
into the trend figure's ``percentiles`` entry, beside Plotly's ``data`` and
``layout``::

    {"layout": {...}, "sets": [{"title": "...", "data": [...]}, ...],
     "points": [[trace, point, set], ...]}

``points`` says which set a clicked point of the trend opens (trending.js
draws it under the graph); older runs have none, which bounds the data file
to ``PERCENTILE_RUNS`` runs of a few hundred numbers per series.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.latency_curves import Curve, run_curves
from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.ingest.metrics import latency_base

PERCENTILE_RUNS = 10
"""How many of a series' newest runs with histograms get a percentile graph."""

NINES_TICKS = {
    1: "0",
    2: "50",
    10: "90",
    20: "95",
    100: "99",
    1_000: "99.9",
    10_000: "99.99",
    100_000: "99.999",
    1_000_000: "99.9999",
}
"""Ticks of the nines axis: where a percentile sits, and the percentile."""

PLACE_COLORS = {
    "pdr0": "#1f77b4",
    "pdr10": "#ff7f0e",
    "pdr50": "#9467bd",
    "pdr90": "#8c564b",
    "ndr": "#17becf",
    "pdr": "#e377c2",
}
OTHER_COLOR = "#7f7f7f"


def percentile_layout() -> dict[str, Any]:
    """What every percentile graph shares; trending.js sets each one's title."""
    return {
        "hovermode": "closest",
        "showlegend": True,
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 40},
        "xaxis": {
            "type": "log",
            "title": {"text": "Percentile [%]"},
            "tickvals": list(NINES_TICKS),
            "ticktext": list(NINES_TICKS.values()),
        },
        "yaxis": {"title": {"text": "One-way latency [us]"}, "rangemode": "tozero"},
    }


def curve_trace(curve: Curve) -> dict[str, Any]:
    """One stream's steps: each value holds from its position to the next.

    Forward is drawn solid, reverse dashed, in the colour of the load.
    """
    reached = (*curve.percentiles, curve.percentiles[-1])
    shown = (*curve.values, curve.values[-1])
    return {
        "type": "scatter",
        "mode": "lines",
        "name": curve.name,
        "legendgroup": curve.place,
        "x": [float(f"{position:.5g}") for position in curve.positions],
        "y": [int(value) if value.is_integer() else value for value in shown],
        "customdata": [round(percentile, 5) for percentile in reached],
        "hovertemplate": f"{curve.name}<br>up to %{{customdata}} %: %{{y}} us<extra></extra>",
        "line": {
            "shape": "hv",
            "color": PLACE_COLORS.get(curve.place, OTHER_COLOR),
            "width": 2 if curve.direction == "forward" else 1.5,
            "dash": "solid" if curve.direction == "forward" else "dash",
        },
    }


def newest_with_histograms(history: TestHistory, most: int) -> list[int]:
    """The indices of the ``most`` newest measured runs that kept histograms, oldest first.

    Walked from the newest run back, in the history's columns: no run is made.
    """
    columns = history.columns
    measured, histograms = columns.measured, columns.histograms
    found: list[int] = []
    for index in range(len(columns) - 1, -1, -1):
        if len(found) >= most:
            break
        if measured[index] and histograms[index]:
            found.append(index)
    return found[::-1]


def percentile_views(
    plotted: Sequence[tuple[int, TestTrend, Sequence[int]]],
    title: Callable[[TestTrend, Run], str],
    most_runs: int = PERCENTILE_RUNS,
) -> dict[str, Any] | None:
    """The figure's ``percentiles`` entry, or None when no run has a curve.

    ``plotted`` names, for each trace whose points are runs, its place in
    the figure, its series and the run behind each point; ``title`` gives a
    run's graph its escaped title.
    """
    sets: list[dict[str, Any]] = []
    opened: dict[tuple[int, int], int] = {}  # (id of the trend, run) -> its set
    for trend in {id(trend): trend for _trace, trend, _runs in plotted}.values():
        if latency_base(trend.history.metric) is None:
            continue  # only a latency's runs keep histograms: no walk over the others
        runs = trend.history.runs
        for index in newest_with_histograms(trend.history, most_runs):
            run = runs[index]
            curves, _errors = run_curves(run.histograms)  # reported when read
            if not curves:
                continue
            opened[(id(trend), index)] = len(sets)
            sets.append({"title": title(trend, run), "data": [curve_trace(c) for c in curves]})
    if not sets:
        return None
    points = [
        [trace, point, opened[(id(trend), run)]]
        for trace, trend, runs in plotted
        for point, run in enumerate(runs)
        if (id(trend), run) in opened
    ]
    return {"layout": percentile_layout(), "sets": sets, "points": points}
