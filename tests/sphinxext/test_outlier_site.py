"""Outliers on the site: a grey diamond with its legend entry, and the dashboard column."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import lxml.html
from sphinx.testing.util import SphinxTestApp

from sphinxcontrib_trending.render.figure import OUTLIER_COLOR, OUTLIER_SYMBOL
from tests.hover import hover_lines
from tests.sphinxext import built_html, datasets

PAGES = """Outliers
========

.. trending-dashboard::

.. trending-graph::
   :tests: spiky
"""
SPIKE = 16
LEVELS = {"spiky": 2.0, "steady": 3.0}


def _value(name: str, build: int) -> float:
    level = LEVELS[name]
    if name == "spiky" and build == SPIKE:
        return level * 0.5
    return level + (0.01 if build % 2 else -0.01)


def _site(tmp_path: Path, make_app: Callable[..., SphinxTestApp], conf: str = "") -> SphinxTestApp:
    srcdir = tmp_path / "outliers"
    srcdir.mkdir()
    (srcdir / "conf.py").write_text(
        'extensions = ["sphinxcontrib_trending"]\n'
        'trending_sources = {"timing": {"paths": ["runs.jsonl"], "format": "jsonl",'
        ' "metric": "seconds", "direction": "lower"}}\n' + conf
    )
    (srcdir / "index.rst").write_text(PAGES)
    datasets.write_timings(srcdir, LEVELS, _value)
    app = make_app("html", srcdir=srcdir)
    app.build()
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    return app


def test_a_spike_is_a_grey_marker_and_counted_as_an_outlier(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    app = _site(tmp_path, make_app)
    page = lxml.html.fromstring((Path(app.outdir) / "index.html").read_bytes())
    rows = built_html.dashboard_rows(page)
    assert rows["spiky"]["Outliers [#]"] == "1"
    assert (rows["spiky"]["Regressions [#]"], rows["spiky"]["Progressions [#]"]) == ("0", "0")
    assert rows["spiky"]["Runs [#]"] == "20"
    assert rows["steady"]["Outliers [#]"] == "0"
    traces = built_html.traces(app.outdir)
    outliers = traces["spiky outliers"]
    assert outliers.get("showlegend", True)
    assert outliers["marker"]["symbol"] == OUTLIER_SYMBOL
    assert outliers["marker"]["color"] == OUTLIER_COLOR
    assert outliers["x"] == [f"2026-03-{SPIKE:02d} 00:00:00"]
    assert outliers["y"] == [1.0]
    assert "outlier" in hover_lines(outliers, 0)[0]
    assert "spiky anomalies" not in traces
    # the trend line runs on through the spike at the group's level, first run to last
    trend = traces["spiky trend"]
    assert trend["x"] == [traces["spiky"]["x"][0], traces["spiky"]["x"][-1]]
    assert trend["y"][0] == trend["y"][1]


def test_with_outliers_off_the_spike_is_two_changes(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    app = _site(tmp_path, make_app, conf="trending_outlier_runs = 0\n")
    page = lxml.html.fromstring((Path(app.outdir) / "index.html").read_bytes())
    spiky = built_html.dashboard_rows(page)["spiky"]
    assert spiky["Outliers [#]"] == "0"
    # lower is better: the halved time is a progression, the way back a regression
    assert (spiky["Regressions [#]"], spiky["Progressions [#]"]) == ("1", "1")
    traces = built_html.traces(app.outdir)
    assert "spiky outliers" not in traces
    assert len(traces["spiky anomalies"]["x"]) == 2
