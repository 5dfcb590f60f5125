"""trending.js in a real browser (headless Chromium) on the built site, from file://.

What a parser cannot prove: the URL restores a filtered, sorted view; a click
on a header sorts numbers as numbers and writes the state into the URL; a
graph's data file loads by ``<script src>`` from ``file://`` and Plotly draws it.

Chromium is found as :mod:`tests.sphinxext.chromium` says: without it these
tests skip with the reason named, unless TRENDING_REQUIRE_BROWSER=1 (as in CI).
"""

from __future__ import annotations

import html
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import lxml.html
import pytest

from tests.hover import hover_lines
from tests.sphinxext import built_html, datasets
from tests.sphinxext.chromium import chromium, dump_dom
from tests.sphinxext.conftest import SiteFactory

HARNESS = """<!DOCTYPE html><html><body><pre id="result"></pre>
<iframe id="page" src="dashboard.html" width="1200" height="800"></iframe>
<script>
document.getElementById("page").addEventListener("load", function () {
  var win = this.contentWindow, doc = win.document;
  var runs = doc.querySelectorAll("table.trending-table thead th")[2];
  runs.click(); runs.click();
  var box = doc.querySelector(".trending-filter input[type=search]");
  box.value = "s";
  box.dispatchEvent(new Event("input"));
  var shown = Array.prototype.filter.call(
    doc.querySelectorAll("table.trending-table tbody tr"), function (row) { return !row.hidden; }
  ).map(function (row) { return row.cells[0].textContent.trim(); });
  document.getElementById("result").textContent =
    win.location.search + "\\n" + runs.getAttribute("aria-sort") + "\\n" + shown.join("|");
});
</script></body></html>
"""


@pytest.fixture(scope="module")
def browser() -> str:
    return chromium()


@pytest.fixture
def outdir(site: SiteFactory) -> Path:
    app = site()
    app.build()
    return Path(app.outdir)


def _shown_names(dom: lxml.html.HtmlElement) -> list[str]:
    return [
        row.xpath("./td")[0].text_content().strip()
        for row in dom.xpath("//table[contains(@class, 'trending-table')]/tbody/tr")
        if row.get("hidden") is None
    ]


def test_the_url_restores_filter_and_a_numeric_sort(browser: str, outdir: Path) -> None:
    # Runs descending: 30, 30, 28, 6, 4; as text it would be 6, 4, 30, 30, 28.
    dom = dump_dom(browser, (outdir / "dashboard.html").as_uri() + "?s1=-3")
    assert _shown_names(dom) == [datasets.EVIL_NAME, "stable", "flaky", "regress", "progress"]
    assert dom.xpath("//thead//th")[2].get("aria-sort") == "descending"
    dom = dump_dom(browser, (outdir / "dashboard.html").as_uri() + "?f1=S&c1=1")
    # "stable" and the script name hold an "s" too, but did not change
    assert _shown_names(dom) == ["regress", "progress"]


def test_clicks_and_typing_sort_filter_and_write_the_url(browser: str, outdir: Path) -> None:
    (outdir / "harness.html").write_text(HARNESS)
    dom = dump_dom(browser, (outdir / "harness.html").as_uri())
    search, sort_state, shown = dom.xpath("//pre[@id='result']")[0].text.split("\n")
    assert search == "?s1=-3&f1=s"
    assert sort_state == "descending"
    assert shown.split("|") == [datasets.EVIL_NAME, "stable", "regress", "progress"]  # no "flaky"


def test_a_graph_loads_its_data_file_from_file_url_and_is_drawn(browser: str, outdir: Path) -> None:
    # The data file loads from disk in real time, not Chromium's virtual time: on a
    # machine busy with the rest of the suite one dump can end before it arrives
    # (seen once in a CI run); a graph must be drawn within three dumps.
    for _attempt in range(3):
        dom = dump_dom(browser, (outdir / "graphs.html").as_uri())
        plots = dom.xpath("//div[contains(@class, 'trending-graph-plot')]")
        assert len(plots) == len(datasets.TESTS)
        drawn = [plot for plot in plots if plot.xpath(".//svg[contains(@class, 'main-svg')]")]
        if drawn:
            break
    assert drawn, "no graph drawn"
    data_scripts = dom.xpath("//head/script/@src")
    assert any(src.startswith("graphs.trending-graph-") for src in data_scripts)


HOVER_HARNESS = """<!DOCTYPE html><html><body><pre id="result"></pre>
<iframe id="page" src="graphs.html" width="1200" height="800"></iframe>
<script>
var tries = 0;
function hoverFirstRun() {
  var win = document.getElementById("page").contentWindow;
  var plots = win.document.querySelectorAll(".trending-graph-plot");
  for (var i = 0; i < plots.length; i++) {
    var graph = plots[i];
    if (graph._fullData && graph.data[0].name === "flaky") {
      win.Plotly.Fx.hover(graph, [{curveNumber: 0, pointNumber: 0}]);
      var lines = graph.querySelectorAll("g.hovertext text.nums tspan.line");
      document.getElementById("result").textContent = Array.prototype.map.call(
        lines, function (line) { return line.textContent; }
      ).join("\\n") || "no hover";
      return;
    }
  }
  if (++tries < 400) { setTimeout(hoverFirstRun, 25); }
  else {
    document.getElementById("result").textContent = "no graph: " + Array.prototype.map.call(
      plots, function (plot) { return plot._fullData ? plot.data[0].name : "-"; }).join("|");
  }
}
document.getElementById("page").addEventListener("load", hoverFirstRun);
</script></body></html>
"""


def test_plotly_fills_a_runs_hover_from_its_meta_and_customdata(browser: str, outdir: Path) -> None:
    """The texts every run shares travel once in the trace's ``meta``: Plotly puts them back."""
    (outdir / "hover.html").write_text(HOVER_HARNESS)
    for _attempt in range(3):  # the data file loads in real time (see the test above)
        dom = dump_dom(browser, (outdir / "hover.html").as_uri())
        shown = dom.xpath("//pre[@id='result']")[0].text or ""
        if shown != "no graph":
            break
    figure = next(
        figure
        for figure in built_html.figures(outdir, "graphs").values()
        if figure["data"][0]["name"] == "flaky"
    )
    assert "meta" in figure["data"][0]
    assert shown.split("\n") == [html.unescape(line) for line in hover_lines(figure["data"][0], 0)]
    assert "CI job build: csit-vpp-perf-mrr-daily-master-2n-skx/1" in shown.split("\n")


def test_the_search_box_lists_matching_tests_as_text_linked_to_their_graphs(
    browser: str, outdir: Path
) -> None:
    dom = dump_dom(browser, (outdir / "find.html").as_uri() + "?q=2n-skx%20regress")
    links = dom.xpath("//ul[@class='trending-search-results']/li/a")
    assert [link.text_content() for link in links] == ["regress"]
    assert links[0].get("href") == "./graphs.html#trending-perf-mrr-2n-skx-tests-perf-regress"
    assert dom.xpath("//p[@class='trending-search-count']")[0].text_content() == "1 test"
    dom = dump_dom(browser, (outdir / "find.html").as_uri() + "?q=script")
    (link,) = dom.xpath("//ul[@class='trending-search-results']/li/a")
    assert link.text_content() == datasets.EVIL_NAME
    assert not dom.xpath("//ul[@class='trending-search-results']//script")


def test_ticks_tell_apart_builds_of_one_day(browser: str, site: SiteFactory) -> None:
    """Eight builds three hours apart, all on one day: each tick names its hour."""
    app = site()
    data = Path(app.srcdir) / "data"
    for old in data.glob("*.jsonl"):
        old.unlink()
    start = datetime(2026, 1, 5, 0, 0, tzinfo=timezone.utc)
    rows = [
        {
            "job": datasets.JOB,
            "build": str(number),
            "time": (start + timedelta(hours=3 * number)).isoformat(),
            "test": "tests.perf.hourly",
            "name": "hourly",
            "tags": ["MRR"],
            "status": "PASS",
            "message": "",
            "metric": "mrr",
            "unit": "pps",
            "values": [1e6, 1.1e6],
            "testbed": datasets.TESTBED,
        }
        for number in range(8)
    ]
    (data / "hourly.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    app.build()
    page = (Path(app.outdir) / "graphs.html").as_uri()
    for _attempt in range(3):  # the data file loads in real time (see above)
        dom = dump_dom(browser, page)
        ticks = [text.text_content() for text in dom.xpath("//g[contains(@class, 'xtick')]/text")]
        if ticks:
            break
    assert len(ticks) >= 2, ticks
    assert len(set(ticks)) == len(ticks), ticks  # a day format would repeat "Jan 05"
    assert all(":" in tick for tick in ticks), ticks


CLICK_HARNESS = """<!DOCTYPE html><html><body><pre id="result"></pre>
<iframe id="page" src="graphs.html#trending-perf-mrr-2n-skx-tests-perf-regress"
width="1200" height="800"></iframe>
<script>
/* Moves the mouse onto point ?point= of trace ?curve= of the regress graph (?shift= pixels
   below it), presses and releases it as a user would, and lists what the page opened. */
var tries = 0, opened = [], asked = new URLSearchParams(location.search);
function mouse(win, target, type, at) {
  target.dispatchEvent(new win.MouseEvent(type, {bubbles: true, cancelable: true,
    clientX: at[0], clientY: at[1], buttons: type === "mousedown" ? 1 : 0, view: win}));
}
function place(graph) {
  var layout = graph._fullLayout, trace = graph._fullData[Number(asked.get("curve"))];
  var point = Number(asked.get("point")), box = graph.getBoundingClientRect();
  return [box.left + layout.xaxis._offset + layout.xaxis.d2p(trace.x[point]),
          box.top + layout.yaxis._offset + layout.yaxis.d2p(trace.y[point])
          + Number(asked.get("shift"))];
}
function clickPoint() {
  var win = document.getElementById("page").contentWindow;
  win.open = function (address, target, features) {
    opened.push(address + " " + target + " " + features);
  };
  var graph = Array.prototype.find.call(win.document.querySelectorAll(".trending-graph-plot"),
    function (plot) { return plot._fullData && plot.data[0].name === "regress"; });
  if (!graph) {
    if (++tries < 400) { setTimeout(clickPoint, 25); }
    else { document.getElementById("result").textContent = "no graph"; }
    return;
  }
  var drag = graph.querySelector(".nsewdrag"), at = place(graph);
  mouse(win, drag, "mousemove", at);
  setTimeout(function () {  /* Plotly settles the hover before the press */
    mouse(win, drag, "mousedown", at);
    mouse(win, drag, "mouseup", at);
    setTimeout(function () {
      document.getElementById("result").textContent = opened.join("\\n") || "nothing opened";
    }, 300);
  }, 150);
}
document.getElementById("page").addEventListener("load", clickPoint);
</script></body></html>
"""


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("curve=0&point=0&shift=0", f"https://ci.example.org/job/{datasets.JOB}/1/"),
        ("curve=2&point=0&shift=0", f"https://ci.example.org/job/{datasets.JOB}/25/"),
        ("curve=2&point=0&shift=5", "https://git.example.org/compare/26.02-rc0~24...26.02-rc0~25"),
    ],
    ids=["run", "the anomaly's run", "the anomaly's ring"],
)
def test_a_click_opens_a_runs_build_and_an_anomalys_commit_range(
    browser: str, site: SiteFactory, query: str, expected: str
) -> None:
    """The frame opens the regressing test's anchor, which draws its graph at once; the
    ring around an anomaly's first run is bigger than the run's dot, so a click on the dot
    opens the run's build and a click on the ring the commits between."""
    app = site(
        confoverrides={
            "trending_build_url": "https://ci.example.org/job/{job}/{build}/",
            "trending_compare_url": "https://git.example.org/compare/{last_good}...{first_bad}",
        }
    )
    app.build()
    outdir = Path(app.outdir)
    (outdir / "click.html").write_text(CLICK_HARNESS)
    for _attempt in range(3):  # the data file loads in real time (see the tests above)
        dom = dump_dom(browser, f"{(outdir / 'click.html').as_uri()}?{query}")
        shown = dom.xpath("//pre[@id='result']")[0].text or ""
        if shown != "no graph":
            break
    assert shown == f"{expected} _blank noopener"
