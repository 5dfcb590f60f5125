"""Release views as tables and figures: a version's coverage, a family across versions.

The coverage table reads as csit-dash's: NDR and PDR in Mpps and Gbps, then
the latency percentiles in microseconds; the download keeps every number
unrounded in the unit the data gave.  The releases' figure draws a box per
test and version, every run a point of it, the versions in the order they
were first tested.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sphinxcontrib_trending.analysis.latency_curves import PLACE_NAMES
from sphinxcontrib_trending.analysis.release_views import (
    COVERAGE_RATES,
    CoverageRow,
    ReleaseBox,
)
from sphinxcontrib_trending.display import DisplayUnit, axis_label, display_unit, metric_label
from sphinxcontrib_trending.render.figure import (
    CATEGORY_TICKS,
    LEGEND_BELOW_TICKS,
    _escaped,
    color,
    series_label,
)
from sphinxcontrib_trending.render.table import LABEL, NUMBER, RawValue, Row, Table


def shown_unit(metric: str, unit: str) -> DisplayUnit:
    """Bandwidth in Gbps, as csit-dash shows it; packet rates in Mpps; latency as measured."""
    if metric.endswith("_bandwidth") and unit == "bps":
        return DisplayUnit(1e-9, "Gbps")
    return display_unit(unit or None)


def _latency_header(metric: str) -> str:
    """``P99 50 % PDR reverse`` for ``latency_pdr50_reverse_p99``."""
    place, direction, percentile = metric.removeprefix("latency_").split("_")
    return f"{percentile.upper()} {PLACE_NAMES.get(place, place)} {direction}"


def _header(metric: str) -> str:
    if metric in COVERAGE_RATES:
        return metric_label(metric.removesuffix("_bandwidth"))
    return _latency_header(metric)


def _unit_of(rows: Sequence[CoverageRow], metric: str) -> str:
    return next((row.units[metric] for row in rows if row.units.get(metric)), "")


def coverage_table(
    rows: Sequence[CoverageRow], metrics: Sequence[str], version: str, source: str
) -> Table:
    """A row per test: its name, runs, then each metric's median (blank where not measured).

    Rates show two decimals and latencies none, as csit-dash shows them.
    """
    units = {metric: _unit_of(rows, metric) for metric in metrics}
    shown = {metric: shown_unit(metric, units[metric]) for metric in metrics}
    header = (
        "Test",
        "Runs [#]",
        *(f"{_header(metric)} [{shown[metric].label}]" for metric in metrics),
    )
    raw_header = (
        "Test",
        "Runs [#]",
        *(f"{_header(metric)} [{units[metric] or 'value'}]" for metric in metrics),
    )
    table_rows = []
    for row in rows:
        values = [row.values.get(metric) for metric in metrics]
        cells = [
            "" if value is None else shown[m].format(value, 2 if m in COVERAGE_RATES else 0)
            for m, value in zip(metrics, values, strict=True)
        ]
        raw: list[RawValue] = [series_label(row.history), row.runs, *values]
        table_rows.append(
            Row(
                cells=(series_label(row.history), str(row.runs), *cells),
                link_key=row.history.ref,
                raw=tuple(raw),
            )
        )
    return Table(
        caption=f"{source}: {version}, {len(rows)} test{'' if len(rows) == 1 else 's'}",
        header=header,
        rows=tuple(table_rows),
        raw_header=raw_header,
        kinds=(LABEL, *(NUMBER,) * (len(header) - 1)),
    )


def releases_figure(
    boxes: Sequence[ReleaseBox], versions: Sequence[str], metric: str, title: str = ""
) -> dict[str, Any]:
    """A box per test and version; each test one colour, its boxes side by side per version.

    The traces carry ``mode`` (which Plotly's boxes ignore) so that the
    static image of non-HTML builders draws their runs as points.
    """
    unit = next((box.history.unit for box in boxes if box.history.unit), None)
    scale = display_unit(unit).scale
    traces: dict[str, dict[str, Any]] = {}
    for box in boxes:
        history = box.history
        trace = traces.get(history.key)
        if trace is None:
            trace = traces[history.key] = {
                "type": "box",
                "mode": "markers",
                "name": _escaped(series_label(history)),
                "x": [],
                "y": [],
                "customdata": [],
                "boxpoints": "all",
                "jitter": 0.4,
                "pointpos": 0,
                "marker": {"color": color(len(traces)), "size": 5},
                "hovertemplate": "%{x}<br>%{y:.3f}<br>%{customdata}<extra>%{fullData.name}</extra>",
            }
        version = _escaped(box.version)
        for run in box.runs:
            trace["x"].append(version)
            trace["y"].append((run.average or 0.0) * scale)
            trace["customdata"].append(_escaped(run.job_build))
    return {
        "data": list(traces.values()),
        "layout": {
            "title": {"text": _escaped(title)},
            "boxmode": "group",
            "hovermode": "closest",
            "showlegend": True,
            "legend": dict(LEGEND_BELOW_TICKS),
            "margin": {"l": 60, "r": 20, "t": 60 if title else 30, "b": 40},
            "xaxis": {
                "type": "category",
                "categoryorder": "array",
                "categoryarray": [_escaped(version) for version in versions],
                "title": {"text": "DUT version"},
                "automargin": True,
                "nticks": CATEGORY_TICKS,
            },
            "yaxis": {"title": {"text": _escaped(axis_label(metric, unit))}},
        },
        "config": {"displaylogo": False, "responsive": True},
    }
