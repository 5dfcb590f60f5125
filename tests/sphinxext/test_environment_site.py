"""Environment changes on the site: named in the news, the dashboard's hover and the graph's."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path

import lxml.html
from sphinx.testing.util import SphinxTestApp

from tests.hover import hover_lines
from tests.sphinxext import built_html

PATTERN = r"(?P<job>[^_/]+)__(?P<build>\d+)__(?P<dut_host>s\d+)"
PAGES = """Machines
========

.. trending-dashboard::

.. trending-news::
   :periods: 30

.. trending-graph::
   :tests: moved
"""
CHANGE = "environment change: dut_host s55 -> s56"


def _value(name: str, build: int) -> float:
    level = 3.0 if name == "moved" and build > 15 else 2.0
    return level + (0.01 if build % 2 else -0.01)


def _site(tmp_path: Path, make_app: Callable[..., SphinxTestApp]) -> SphinxTestApp:
    srcdir = tmp_path / "machines"
    srcdir.mkdir()
    (srcdir / "conf.py").write_text(
        'extensions = ["sphinxcontrib_trending"]\n'
        'trending_sources = {"timing": {"paths": ["runs/*.jsonl"], "format": "jsonl",'
        f' "metric": "seconds", "direction": "lower", "build_pattern": {PATTERN!r}}}}}\n'
    )
    (srcdir / "index.rst").write_text(PAGES)
    (srcdir / "runs").mkdir()
    for build in range(1, 21):
        host = "s55" if build <= 15 else "s56"
        rows = [
            {"test": f"suite.{name}", "build": build, "time": f"2026-03-{build:02d}T00:00:00Z",
             "status": "PASS", "metric": "seconds", "unit": "s", "values": [_value(name, build)]}
            for name in ("moved", "steady")
        ]  # fmt: skip
        text = "".join(json.dumps(row) + "\n" for row in rows)
        (srcdir / "runs" / f"daily__{build}__{host}.jsonl").write_text(text)
    app = make_app("html", srcdir=srcdir)
    app.build()
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    return app


def test_a_step_at_a_host_swap_is_named_an_environment_change(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    app = _site(tmp_path, make_app)
    page = lxml.html.fromstring((Path(app.outdir) / "index.html").read_bytes())
    (news,) = page.xpath("//table[contains(@class, 'trending-news')]")
    (row,) = news.xpath("./tbody/tr")
    assert row.xpath("./td")[1].text_content().strip() == f"Regression, {CHANGE}"
    assert "trending-environment" in row.get("class")
    (dashboard,) = page.xpath("//table[contains(@class, 'trending-dashboard')]")
    (moved,) = [tr for tr in dashboard.xpath("./tbody/tr") if "moved" in tr.text_content()]
    assert moved.xpath(".//abbr/@title") == [CHANGE]
    (figure,) = built_html.figures(app.outdir, "index").values()
    (anomalies,) = [trace for trace in figure["data"] if trace["name"].endswith("anomalies")]
    lines = [html.unescape(line) for line in hover_lines(anomalies, 0)]  # Plotly shows entities
    assert lines[1].startswith("range: ") and lines[2] == CHANGE
