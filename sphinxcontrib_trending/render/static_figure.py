"""A trend figure drawn as a static image (SVG, PDF or PNG) with matplotlib.

The builders that run no JavaScript (LaTeX/PDF, epub, Texinfo) show the
same figure the HTML pages draw with Plotly: it is drawn from the very
figure dict ``render/figure.py`` builds, trace by trace, so the series,
the trend lines of each group, the anomaly circles and the failed-run
crosses cannot drift apart from the interactive graph.  matplotlib is a
plain pip dependency; Plotly's own exporter (kaleido) needs a Chrome.

Each drawn trace carries the SVG id ``trending-series-<n>``, so tests can
count what an image holds.
"""

from __future__ import annotations

import html
import math
from datetime import datetime
from pathlib import Path
from typing import Any

IMAGE_FORMATS = {"image/svg+xml": "svg", "application/pdf": "pdf", "image/png": "png"}
"""What each image type is written as, best first: vector where the builder takes it."""

_MARKERS = {
    "circle": "o",
    "square": "s",
    "diamond": "D",
    "triangle-up": "^",
    "cross": "P",
    "star": "*",
    "hexagon": "h",
    "circle-open": "o",
    "x-thin-open": "x",
}
_DASHES: dict[str, Any] = {
    "solid": "-",
    "dash": "--",
    "dot": ":",
    "dashdot": "-.",
    "longdash": (0, (8, 3)),
    "longdashdot": (0, (8, 3, 2, 3)),
}
SIZE_INCHES = (10.0, 4.8)


def _text(value: str) -> str:
    """Figure text is HTML-escaped for Plotly; matplotlib shows it as plain text."""
    return html.unescape(value).replace("$", r"\$")


def _times(values: list[str]) -> list[datetime]:
    return [datetime.strptime(value, "%Y-%m-%d %H:%M:%S") for value in values]


def _draw(axes: Any, trace: dict[str, Any], number: int, categories: dict[str, int] | None) -> None:
    x = _times(trace["x"]) if categories is None else [categories[value] for value in trace["x"]]
    y = trace["y"]
    label = _text(trace["name"]) if trace.get("showlegend", True) else "_nolegend_"
    if trace["mode"] == "lines":
        line = trace["line"]
        (artist,) = axes.step(
            x,
            y,
            where="post",
            color=line["color"],
            linewidth=line.get("width", 1.5),
            linestyle=_DASHES.get(line.get("dash", "solid"), "-"),
            label=label,
        )
    else:
        marker = trace["marker"]
        symbol = marker.get("symbol", "circle")
        sizes = marker.get("size", 6)
        area = [size**2 for size in sizes] if isinstance(sizes, list) else sizes**2
        color = marker.get("color", marker.get("line", {}).get("color"))
        if symbol == "circle-open":
            width = marker.get("line", {}).get("width", 1)
            artist = axes.scatter(
                x,
                y,
                s=area,
                marker="o",
                facecolors="none",
                edgecolors=color,
                linewidths=width,
                label=label,
            )
        else:
            artist = axes.scatter(
                x, y, s=area, marker=_MARKERS.get(symbol, "o"), color=color, label=label
            )
    artist.set_gid(f"trending-series-{number}")


def date_ticks(axes: Any) -> None:
    """Tick labels that adapt to the span, as the interactive graph's do: the hour
    when builds are under a day apart, so two builds of one day are told apart."""
    import matplotlib.dates as mdates

    locator = mdates.AutoDateLocator()
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))


def category_ticks(axes: Any, names: list[str], most: int) -> None:
    """At most ``most`` evenly spaced labels of the builds or versions the runs are
    placed by, as many as the interactive graph shows."""
    step = max(1, math.ceil(len(names) / most))
    places = list(range(0, len(names), step))
    axes.set_xticks(places, [_text(names[place]) for place in places], rotation=30, ha="right")


def write_static_figure(figure: dict[str, Any], path: Path) -> int:
    """Draw ``figure`` (a Plotly figure dict) into ``path``; return the traces drawn.

    The file type follows the suffix (``.svg``, ``.pdf`` or ``.png``).
    """
    # Imported here: HTML builds never pay for matplotlib.
    import matplotlib
    from matplotlib.figure import Figure

    layout = figure.get("layout", {})
    drawing = Figure(figsize=SIZE_INCHES)
    axes = drawing.subplots()
    x_axis = layout.get("xaxis", {})
    names = x_axis.get("categoryarray") if x_axis.get("type") == "category" else None
    categories = None if names is None else {name: place for place, name in enumerate(names)}
    for number, trace in enumerate(figure["data"]):
        _draw(axes, trace, number, categories)
    title = layout.get("title", {}).get("text", "")
    if title:
        axes.set_title(_text(title))
    axes.set_ylabel(_text(layout.get("yaxis", {}).get("title", {}).get("text", "")))
    if names is None:
        axes.set_xlabel("Date [UTC]")
        date_ticks(axes)
    else:
        axes.set_xlabel(_text(x_axis.get("title", {}).get("text", "")))
        category_ticks(axes, names, x_axis["nticks"])
    axes.grid(True, color="#e5e5e5")
    if any(trace.get("showlegend", True) for trace in figure["data"]):
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3, fontsize="small")
    drawing.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    # No creation date and fixed SVG ids: an unchanged figure gives the same bytes.
    metadata = {"png": None, "svg": {"Date": None}, "pdf": {"CreationDate": None}}
    with matplotlib.rc_context({"svg.hashsalt": "sphinxcontrib-trending"}):
        drawing.savefig(path, metadata=metadata[path.suffix.lstrip(".")])
    return len(figure["data"])
