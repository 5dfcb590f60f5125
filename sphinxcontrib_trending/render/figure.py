"""Plotly trend figures as plain JSON-ready dicts.

Building dicts (Plotly's documented JSON schema) instead of
``plotly.graph_objects`` keeps a thousand-test site fast; the browser-side
plotly.js validates nothing we would not.  Every string that came from the
data is HTML-escaped, because Plotly renders names and hover text as a subset
of HTML.
"""

from __future__ import annotations

import colorsys
import html
import json
from collections.abc import Sequence
from typing import Any

from sphinxcontrib_trending.analysis import anomaly_per_run, trend_per_run
from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.render.units import DisplayUnit, display_unit

REGRESSION_COLOR = "#d62728"
PROGRESSION_COLOR = "#2ca02c"
RANGE_BUTTONS = (
    {"count": 14, "label": "2w", "step": "day", "stepmode": "backward"},
    {"count": 1, "label": "1m", "step": "month", "stepmode": "backward"},
    {"count": 2, "label": "2m", "step": "month", "stepmode": "backward"},
    {"count": 3, "label": "3m", "step": "month", "stepmode": "backward"},
    {"label": "all", "step": "all"},
)


_ALLOWED_HUES = ((0.06, 0.18), (0.47, 0.93))
"""Hue arcs for series: red and green are kept for the anomaly markers."""


def color(index: int) -> str:
    """Distinct colours for any number of tests.

    Golden-ratio steps spread consecutive hues far apart; each step is then
    mapped onto the allowed arcs, so no series is drawn in anomaly red or
    green.
    """
    position = (0.3 + index * 0.618033988749895) % 1.0
    total = sum(high - low for low, high in _ALLOWED_HUES)
    offset = position * total
    for low, high in _ALLOWED_HUES:
        if offset < high - low:
            hue = low + offset
            break
        offset -= high - low
    lightness = 0.40 if index % 2 else 0.48
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, 0.65)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


def _escaped(text: str | None) -> str:
    return html.escape(text or "", quote=True)


def _hover(trend: TestTrend, index: int, unit: DisplayUnit) -> str:
    run = trend.history.runs[index]
    lines = [
        f"date: {run.time:%Y-%m-%d %H:%M}",
        f"value [{unit.label}]: {unit.format(run.average, 3)}",
        f"stdev [{unit.label}]: {unit.format(run.stdev, 3)}",
        f"DUT version: {_escaped(run.dut_version)}",
        f"CI job build: {_escaped(run.job_build)}",
        f"testbed: {_escaped(run.testbed)}",
    ]
    return "<br>".join(lines)


def _traces(trend: TestTrend, index: int, with_testbed: bool) -> list[dict[str, Any]]:
    history = trend.history
    unit = display_unit(history.unit)
    series_color = color(index)
    label = f"{history.name} ({history.testbed})" if with_testbed else history.name
    name = _escaped(label)
    measured = [i for i, run in enumerate(history.runs) if run.measured]
    times = [history.runs[i].time.isoformat() for i in measured]
    trend_values = trend_per_run(trend.result)
    labels = anomaly_per_run(trend.result)
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "markers",
            "name": name,
            "legendgroup": history.key,
            "x": times,
            "y": [history.runs[i].average * unit.scale for i in measured],
            "text": [_hover(trend, i, unit) for i in measured],
            "hoverinfo": "text",
            "marker": {"color": series_color, "size": 6},
        },
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"{name} trend",
            "legendgroup": history.key,
            "showlegend": False,
            "x": times,
            "y": [trend_values[i] * unit.scale for i in measured],
            "text": [f"trend [{unit.label}]: {unit.format(trend_values[i], 3)}" for i in measured],
            "hoverinfo": "text",
            "line": {"color": series_color, "width": 1.5, "shape": "hv"},
        },
    ]
    anomalies = [i for i in measured if labels[i]]
    if anomalies:
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"{name} anomalies",
                "legendgroup": history.key,
                "showlegend": False,
                "x": [history.runs[i].time.isoformat() for i in anomalies],
                "y": [trend_values[i] * unit.scale for i in anomalies],
                "text": [f"{labels[i]}<br>{_hover(trend, i, unit)}" for i in anomalies],
                "hoverinfo": "text",
                "marker": {
                    "symbol": "circle-open",
                    "size": 15,
                    "line": {"width": 2},
                    "color": [
                        REGRESSION_COLOR if labels[i] == "regression" else PROGRESSION_COLOR
                        for i in anomalies
                    ],
                },
            }
        )
    return traces


def trend_figure(trends: Sequence[TestTrend], title: str = "") -> dict[str, Any]:
    """A complete Plotly figure (data, layout, config) for the given tests."""
    with_testbed = len({trend.history.testbed for trend in trends}) > 1
    data = [
        trace for index, trend in enumerate(trends) for trace in _traces(trend, index, with_testbed)
    ]
    first = trends[0].history if trends else None
    unit_label = display_unit(first.unit).label if first else ""
    metric = first.metric.upper() if first else ""
    return {
        "data": data,
        "layout": {
            "title": {"text": _escaped(title)},
            "hovermode": "closest",
            "showlegend": True,
            "legend": {"orientation": "h", "y": -0.25},
            "margin": {"l": 60, "r": 20, "t": 60 if title else 30, "b": 40},
            "xaxis": {
                "type": "date",
                "tickformat": "%m%d",
                "title": {"text": "Date [MMDD]"},
                "rangeselector": {"buttons": list(RANGE_BUTTONS)},
            },
            "yaxis": {"title": {"text": f"{metric} [{unit_label}]"}},
        },
        "config": {"displaylogo": False, "responsive": True},
    }


def script_json(figure: dict[str, Any]) -> str:
    """JSON safe to place inside a ``<script>`` element.

    ``<``, ``>`` and ``&`` become ``\\u`` escapes, so no data string can close
    the element or open a new one, whatever it contains.
    """
    text = json.dumps(figure, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
