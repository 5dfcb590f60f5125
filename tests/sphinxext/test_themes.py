"""The site in the themes people use, measured in headless Chromium.

A table or graph that looks right under alabaster can spill out of furo's
content column, shrink to nothing in pydata's grid or turn unreadable in a
dark mode.  For alabaster, furo, pydata and Read the Docs this builds the
test site, screenshots a dashboard, a degradation table and a graph page,
and measures in the page (a script added to a copy of it):

* a table box is no wider than its content column; a wider table scrolls
  inside it, and the page itself does not scroll sideways;
* numbers are right-aligned, names and words left-aligned, names unbroken;
* every body cell's text contrasts with the background behind it (WCAG AA,
  4.5:1), also in furo's and pydata's dark mode, where coloured rows are
  most at risk; links, in the theme's own colour (Read the Docs' is 4.3:1 on
  white), at least 3:1 on our row tints;
* a graph is drawn at a real size inside the content column.

Screenshots go to ``tmp_path``; with TRENDING_SCREENSHOTS=DIR they are also
kept in DIR, for a person to look at (CI keeps them with its logs).
Chromium is required as in :mod:`tests.sphinxext.chromium`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.sphinxext.chromium import chromium, dump_dom, screenshot
from tests.sphinxext.conftest import SiteFactory

THEMES = ("alabaster", "furo", "pydata_sphinx_theme", "sphinx_rtd_theme")
DARK_THEMES = ("furo", "pydata_sphinx_theme")
"""Themes that follow the reader's dark-mode preference."""
DARK = ("--force-dark-mode", "--blink-settings=preferredColorScheme=0")
SIZE = (1100, 900)
KEEP = "TRENDING_SCREENSHOTS"
WCAG_AA = 4.5
LINKS = 3.0

PROBE = """<script>
(function () {
  function rgba(text) {
    var parts = text.match(/[\\d.]+/g).map(Number);
    return {r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1};
  }
  function over(top, bottom) {
    var a = top.a + bottom.a * (1 - top.a);
    function mix(c) { return a ? (top[c] * top.a + bottom[c] * bottom.a * (1 - top.a)) / a : 0; }
    return {r: mix("r"), g: mix("g"), b: mix("b"), a: a};
  }
  /* The colour behind an element: its own and its ancestors' backgrounds, composited. */
  function behind(element) {
    var layers = [];
    for (var node = element; node && node.nodeType === 1; node = node.parentElement) {
      layers.push(rgba(getComputedStyle(node).backgroundColor));
    }
    var colour = {r: 255, g: 255, b: 255, a: 1};
    for (var i = layers.length - 1; i >= 0; i--) { colour = over(layers[i], colour); }
    return colour;
  }
  function luminance(c) {
    function channel(v) {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    }
    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  }
  function contrast(element) {
    var back = behind(element);
    var text = over(rgba(getComputedStyle(element).color), back);
    var l1 = luminance(text), l2 = luminance(back);
    return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
  }
  function box(element) {
    var r = element.getBoundingClientRect();
    return {left: r.left, right: r.right, width: r.width, height: r.height};
  }
  function content(element) {
    /* the column the directive's output sits in: the nearest ancestor that is a block
       of the theme's layout, not one of our own boxes */
    var node = element.parentElement;
    while (node && /trending/.test(node.className)) { node = node.parentElement; }
    return box(node);
  }
  function measure() {
    var result = {page: {
      scroll: document.documentElement.scrollWidth, view: window.innerWidth,
      luminance: luminance(behind(document.querySelector("div.trending-table-box, main, body")))
    }};
    result.tables = Array.prototype.map.call(
      document.querySelectorAll("div.trending-table-box"), function (wrapper) {
        var cells = wrapper.querySelectorAll("tbody td");
        var links = wrapper.querySelectorAll("tbody td a");
        return {
          box: box(wrapper), content: content(wrapper),
          overflow: getComputedStyle(wrapper).overflowX,
          worst: Math.min.apply(null, Array.prototype.map.call(cells, contrast)),
          worstLink: Math.min.apply(null, Array.prototype.map.call(links, contrast)),
          cells: Array.prototype.map.call(wrapper.querySelector("tbody tr").cells, function (td) {
            var style = getComputedStyle(td);
            return {kind: td.className || "number", align: style.textAlign, wrap: style.whiteSpace};
          })
        };
      });
    result.graphs = Array.prototype.map.call(
      document.querySelectorAll("div.trending-graph-plot"), function (plot) {
        var drawn = !!plot.querySelector("svg.main-svg");
        return {box: box(plot), content: content(plot), drawn: drawn};
      });
    return result;
  }
  /* Reported at once and again until the first graph is drawn: the graph's data file
     loads in real time, so Chromium's virtual-time budget can end before it arrives,
     and a dump must then still carry the measures taken so far. */
  var tries = 0;
  function report() {
    document.body.setAttribute("data-probe", JSON.stringify(measure()));
    var plots = document.querySelectorAll("div.trending-graph-plot");
    var waiting = plots.length && !plots[0].querySelector("svg.main-svg");
    if (waiting && ++tries < 200) { setTimeout(report, 50); }
  }
  window.addEventListener("load", function () { setTimeout(report, 200); });
})();
</script>"""


@pytest.fixture(scope="module")
def browser() -> str:
    return chromium()


def _probe(browser: str, page: Path, flags: tuple[str, ...] = ()) -> dict:
    """The page's measures (see :data:`PROBE`), taken in a copy of it at :data:`SIZE`."""
    probed = page.with_name(f"probed-{page.name}")
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    size = (f"--window-size={SIZE[0]},{SIZE[1]}",)
    # The graph data file loads in real time, not in Chromium's virtual time: on a busy
    # machine one dump can end before it arrives (see test_browser.py), so up to five.
    for _attempt in range(5):
        found = dump_dom(browser, probed.as_uri(), *flags, *size).xpath("//body/@data-probe")
        measures = json.loads(found[0]) if found else {}
        if all(graph["drawn"] for graph in measures.get("graphs", [])) and found:
            break
    assert found, f"the probe did not report on {page.name}"
    return measures


def _shoot(browser: str, page: Path, name: str, flags: tuple[str, ...] = ()) -> Path:
    path = page.parent / f"{name}.png"
    screenshot(browser, page.as_uri(), path, SIZE, *flags)
    assert path.stat().st_size > 10_000, f"{path.name} is nearly empty"
    kept = os.environ.get(KEEP)
    if kept:
        Path(kept).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(kept) / path.name)
    return path


def _built(site: SiteFactory, theme: str) -> Path:
    app = site(confoverrides={"html_theme": theme})
    app.build()
    return Path(app.outdir)


def _assert_tables_fit_and_read(measures: dict, where: str) -> None:
    page = measures["page"]
    assert page["scroll"] <= page["view"], f"{where}: the page scrolls sideways"
    assert measures["tables"], f"{where}: no table"
    for table in measures["tables"]:
        assert table["box"]["width"] <= table["content"]["width"] + 1, f"{where}: {table}"
        assert table["box"]["right"] <= table["content"]["right"] + 1, f"{where}: {table}"
        assert table["overflow"] == "auto", f"{where}: a wide table must scroll in its box"
        assert table["worst"] >= WCAG_AA, f"{where}: cell contrast {table['worst']:.2f}"
        assert table["worstLink"] >= LINKS, f"{where}: link contrast {table['worstLink']:.2f}"


def _alignments(table: dict) -> dict[str, set[tuple[str, str]]]:
    found: dict[str, set[tuple[str, str]]] = {}
    for cell in table["cells"]:
        found.setdefault(cell["kind"], set()).add((cell["align"], cell["wrap"]))
    return found


@pytest.mark.parametrize("theme", THEMES)
def test_tables_and_graphs_fit_and_read_in_the_theme(
    browser: str, site: SiteFactory, theme: str
) -> None:
    outdir = _built(site, theme)
    for name in ("dashboard", "degradation", "graphs"):
        _shoot(browser, outdir / f"{name}.html", f"{theme}-{name}")

    dashboard = _probe(browser, outdir / "dashboard.html")
    _assert_tables_fit_and_read(dashboard, f"{theme} dashboard")
    aligned = _alignments(dashboard["tables"][0])
    assert aligned["number"] == {("right", "nowrap")}, aligned

    degradation = _probe(browser, outdir / "degradation.html")
    _assert_tables_fit_and_read(degradation, f"{theme} degradation")
    aligned = _alignments(degradation["tables"][0])
    assert aligned["trending-label"] == {("left", "nowrap")}, aligned  # test, baseline build
    assert {align for align, _wrap in aligned["trending-text"]} == {"left"}, aligned
    assert aligned["number"] == {("right", "nowrap")}, aligned

    graphs = _probe(browser, outdir / "graphs.html")
    assert graphs["graphs"], f"{theme}: no graph"
    first = graphs["graphs"][0]
    assert first["drawn"], f"{theme}: the first graph was not drawn"
    assert first["box"]["width"] >= 400 and first["box"]["height"] >= 300, first
    assert first["box"]["right"] <= first["content"]["right"] + 1, first


@pytest.mark.parametrize("theme", DARK_THEMES)
def test_coloured_rows_stay_legible_in_dark_mode(
    browser: str, site: SiteFactory, theme: str
) -> None:
    outdir = _built(site, theme)
    _shoot(browser, outdir / "dashboard.html", f"{theme}-dashboard-dark", DARK)
    measures = _probe(browser, outdir / "dashboard.html", DARK)
    assert measures["page"]["luminance"] < 0.1, f"{theme} did not turn dark: {measures['page']}"
    _assert_tables_fit_and_read(measures, f"{theme} dark dashboard")
