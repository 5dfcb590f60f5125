"""A latency graph over the reference's Parquet opens each newest run's percentile curves.

The site test checks the curves' numbers in the graph's data file; the
browser test clicks a run in headless Chromium, from ``file://``, and reads
the percentile graph Plotly drew under the trend.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from sphinxcontrib_trending.analysis.latency_curves import nines
from tests.ndrpdr_reference import JOB, latency_samples, ndrpdr_row
from tests.reference_parquet import write_reference
from tests.sphinxext import built_html
from tests.sphinxext.chromium import chromium, dump_dom

pytestmark = pytest.mark.shared_data("csit")

BUILDS = 8
START = datetime(2026, 2, 1, 4, 0)
PAGE = """Latency
=======

.. trending-graph::
   :source: ndrpdr
   :metric: latency_pdr50_forward_avg
   :percentile-runs: 3
   :title: Latency at 50 % PDR
"""


def _latency(build: int) -> int:
    return 10 if build < 6 else 15


@pytest.fixture
def outdir(tmp_path: Path, make_app: Callable[..., SphinxTestApp]) -> Path:
    srcdir = tmp_path / "site"
    srcdir.mkdir()
    for build in range(1, BUILDS + 1):
        start = START + timedelta(days=build)
        row = ndrpdr_row(str(build), start, 11e6, 12e6, latency=_latency(build), message="")
        write_reference(srcdir / "data", "trending_ndrpdr", "ndrpdr", [row])
    source = {"paths": ["data"], "format": "parquet"}
    (srcdir / "conf.py").write_text(
        f"extensions = ['sphinxcontrib_trending']\ntrending_sources = {{'ndrpdr': {source!r}}}\n"
    )
    (srcdir / "index.rst").write_text(PAGE)
    app = make_app("html", srcdir=srcdir)
    app.build()
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    return Path(app.outdir)


def _curve(figure: dict, run: int, name: str) -> dict:
    views = figure["percentiles"]
    chosen = next(s for trace, point, s in views["points"] if (trace, point) == (0, run))
    return next(trace for trace in views["sets"][chosen]["data"] if trace["name"] == name)


def test_the_newest_runs_carry_their_curves_at_every_load(outdir: Path) -> None:
    (figure,) = built_html.figures(outdir, "index").values()
    views = figure["percentiles"]
    assert len(views["sets"]) == 3  # :percentile-runs: 3 of the 8 runs
    assert sorted(point for trace, point, _ in views["points"] if trace == 0) == [5, 6, 7]
    names = [trace["name"] for trace in views["sets"][-1]["data"]]
    assert names == [
        f"{place}, {direction}"
        for place in ("no load", "10 % PDR", "50 % PDR", "90 % PDR")
        for direction in ("forward", "reverse")
    ]
    newest = _curve(figure, BUILDS - 1, "50 % PDR, reverse")
    floor, *_rest, top = latency_samples("50", "reverse", _latency(BUILDS))
    assert (floor, top) == (180, 220)
    # seven samples of ten at the floor, then one each at +5, +10 and +40 us
    assert newest["y"] == [180.0, 185.0, 190.0, 220.0, 220.0]
    assert newest["customdata"] == [70.0, 80.0, 90.0, 100.0, 100.0]
    assert newest["x"][:3] == [1.0, pytest.approx(nines(70.0), rel=1e-4), 5.0]
    older = _curve(figure, 5, "50 % PDR, forward")  # build 6, the first at 15 us
    assert older["y"][0] == 90.0


CLICK_HARNESS = """<!DOCTYPE html><html><body><pre id="result"></pre>
<iframe id="page" src="index.html" width="1200" height="1400"></iframe>
<script>
var tries = 0;
function clickNewestRun() {
  var win = document.getElementById("page").contentWindow;
  var graph = win.document.querySelector(".trending-graph-plot");
  if (!graph || !graph._fullData) {
    if (++tries < 400) { setTimeout(clickNewestRun, 25); }
    else { document.getElementById("result").textContent = "no graph"; }
    return;
  }
  var runs = graph.data[0];
  graph.emit("plotly_click", {points: [{curveNumber: 0, pointNumber: runs.x.length - 1}]});
  var panel = win.document.querySelector(".trending-percentiles");
  var lines = [String(panel.hidden), panel.querySelectorAll("svg.main-svg").length > 0,
    win.document.querySelector(".trending-percentiles-note").textContent,
    panel.layout.title.text, panel.layout.xaxis.type];
  panel.data.forEach(function (trace) { lines.push(trace.name + ": " + trace.y.join(" ")); });
  graph.emit("plotly_click", {points: [{curveNumber: 0, pointNumber: 0}]});
  lines.push(win.document.querySelector(".trending-percentiles-note").textContent +
    " " + panel.hidden);
  panel.scrollIntoView();
  document.getElementById("result").textContent = lines.join("\\n");
}
document.getElementById("page").addEventListener("load", clickNewestRun);
</script></body></html>
"""


def test_a_click_on_a_run_draws_its_percentile_graph_in_the_browser(outdir: Path) -> None:
    browser = chromium()
    (outdir / "click.html").write_text(CLICK_HARNESS)
    for _attempt in range(3):  # the data file loads in real time (see test_browser.py)
        dom = dump_dom(browser, (outdir / "click.html").as_uri())
        shown = (dom.xpath("//pre[@id='result']")[0].text or "").split("\n")
        if shown != ["no graph"]:
            break
    hidden, drawn, note, title, axis, *curves, after = shown
    assert (hidden, drawn, axis) == ("false", "true", "log")
    assert note == "Latency percentiles of the run clicked:"
    assert title == (
        "2n-icx 25ge2p1xxv710 avf 64b 1c eth-l2bdbasemaclrn-ndrpdr<br>"
        f"{JOB}/8, 26.02-rc0, 2026-02-09 04:00:00 UTC"
    )
    assert len(curves) == 8
    assert "50 % PDR, reverse: 180 185 190 220 220" in curves
    assert after.startswith("This run has no percentile graph")
    assert after.endswith(" true")  # and the graph of the run before is put away
