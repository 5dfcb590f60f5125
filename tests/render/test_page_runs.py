"""A page's figures name rows of its table of shared run texts; put back together, by
:func:`expand_figure` and by trending.js alike, each is the figure drawn without one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sphinxcontrib_trending.analysis.excluded import ExcludedRun, Exclusions
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TestTrend, TrendOptions, summarize
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.render.figure import X_AXES, figure_refs, trend_figure
from sphinxcontrib_trending.render.page_runs import RUNS, PageRuns, expand_figure
from sphinxcontrib_trending.render.script_data import script_bytes
from tests import hand_built
from tests.render import test_figure_columns, test_figure_links
from tests.sphinxext.chromium import REQUIRE

SCRIPT = Path(__file__).parents[2] / "sphinxcontrib_trending" / "static" / "trending.js"
PAGES = len(X_AXES) * 5


def _curated_beside_steady() -> list[TestTrend]:
    builds = hand_built.builds(
        {"steady": lambda n: 1e6, "curated": lambda n: 1e6 if n == 1 else None}, range(1, 6)
    )
    curated = ExcludedRun("testbed rebooted", "excluded.toml:1", test="*curated", build="1")
    options = TrendOptions(exclusions=Exclusions((curated,)))
    return [summarize(history, options, builds[-1].time) for history in histories(builds, "mrr")]


def _pages() -> list[tuple[str, list[list[TestTrend]], dict[str, Any]]]:
    """Pages of figures: a graph per test and one of all tests, of series whose runs
    ran in several jobs on several hosts (a latency's with percentiles, curated and
    failed runs, hostile job names; a run without a version, so without a version's
    link), of series of one job with a hostile version, and of a series whose one
    measured run is curated out beside one that shows every run."""
    varied = test_figure_columns._trends("columns")
    linked = test_figure_links._trends(hostile=True)
    pages = []
    for x_axis in X_AXES:
        for trends, links in (
            (varied, test_figure_columns.LINKS),
            (varied, LinkTemplates(version="https://git.example/tag/{version}")),
            (linked, test_figure_links.LINKS),
            (linked, None),
            (_curated_beside_steady(), test_figure_links.LINKS),
        ):
            graphs = [[trend] for trend in trends] + [trends]
            pages.append((x_axis, graphs, {"links": links, "x_axis": x_axis}))
    return pages


def _drawn(graphs: list[list[TestTrend]], options: dict[str, Any], page: PageRuns | None) -> list:
    return [
        json.loads(
            script_bytes(trend_figure(trends, shared_layout=True, page_runs=page, **options))
        )
        for trends in graphs
    ]


@pytest.mark.parametrize("at", range(PAGES))
def test_a_figure_put_back_together_is_the_figure_drawn_without_a_table(at: int) -> None:
    _axis, graphs, options = _pages()[at]
    page = PageRuns()
    shared = _drawn(graphs, options, page)
    table = json.loads(script_bytes(page.table()))
    assert all(RUNS in figure["data"][0] and "x" not in figure["data"][0] for figure in shared)
    whole = [expand_figure(figure, table) for figure in shared]
    assert whole == _drawn(graphs, options, None)


def test_the_texts_runs_share_are_in_the_table_once() -> None:
    _axis, graphs, options = _pages()[0]
    page = PageRuns()
    shared = _drawn(graphs, options, page)
    table = page.table()
    assert len(table["rows"]) == len(set(map(tuple, table["rows"])))
    runs = [len(trace["y"]) for figure in shared for trace in figure["data"] if RUNS in trace]
    assert len(table["rows"]) < sum(runs) / 2
    assert all(isinstance(figure["layout"], int) for figure in shared[:-1])


def test_a_figure_that_names_no_table_is_left_as_it_is() -> None:
    _axis, graphs, options = _pages()[0]
    (figure,) = _drawn(graphs[:1], options, None)
    assert expand_figure(json.loads(json.dumps(figure)), {"rows": [], "shown": []}) == figure


HARNESS = """
const fs = require("fs");
const vm = require("vm");
const [script, order, ...files] = process.argv.slice(2);
globalThis.window = globalThis;
window.location = { search: "", pathname: "/page.html", hash: "" };
window.history = { replaceState() {} };
const drawn = {};
const plots = [];
globalThis.document = {
  readyState: "complete",
  head: { appendChild() {} },
  createElement() { return {}; },
  querySelectorAll(selector) { return selector === ".trending-graph-plot" ? plots : []; },
};
globalThis.Plotly = {
  newPlot(plot, data, layout, config) {
    drawn[plot.dataset.figure] = { data: data, layout: layout, config: config };
    return Promise.resolve({ on() {}, parentNode: { insertBefore() {} } });
  },
};
const calls = files.map((file) => fs.readFileSync(file, "utf8"));
calls.forEach((call) => {
  const id = /^trendingFigure\\("([^"]+)"/.exec(call);
  if (id) { plots.push({ dataset: { figure: id[1], src: id[1] + ".js", runs: "runs.js" } }); }
});
vm.runInThisContext(fs.readFileSync(script, "utf8"));
(order === "table first" ? calls : calls.slice().reverse()).forEach((call) => {
  vm.runInThisContext(call);
});
setTimeout(() => process.stdout.write(JSON.stringify(drawn)), 0);
"""


def _node() -> str:
    found = shutil.which("node")
    if found is None:
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"no node on PATH, and {REQUIRE}=1")
        pytest.skip("no node on PATH")
    return found


@pytest.mark.parametrize("order", ["table first", "figures first"])
@pytest.mark.parametrize("at", range(PAGES))
def test_trending_js_draws_the_figure_drawn_without_a_table(
    at: int, order: str, tmp_path: Path
) -> None:
    """The page's script, run by node with a stand-in for the page and for Plotly, is
    handed the table and the figures as their files hand them, in either order."""
    node = _node()
    _axis, graphs, options = _pages()[at]
    page = PageRuns()
    shared = [script_bytes(figure) for figure in _figures(graphs, options, page)]
    files = [tmp_path / "runs.js"]
    files[0].write_bytes(b'trendingRuns("page",' + script_bytes(page.table()) + b");\n")
    for number, figure in enumerate(shared):
        files.append(tmp_path / f"{number}.js")
        files[-1].write_bytes(b'trendingFigure("g%d-figure",%s,"page");\n' % (number, figure))
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    arguments = [node, str(harness), str(SCRIPT), order, *map(str, files)]
    drawn = json.loads(subprocess.run(arguments, capture_output=True, check=True).stdout)
    whole = _drawn(graphs, options, None)
    assert len(drawn) == len(whole)
    for number, figure in enumerate(whole):
        figure.pop("percentiles", None)  # handed to the click handler as it came
        assert drawn[f"g{number}-figure"] == figure


def _figures(graphs: list[list[TestTrend]], options: dict[str, Any], page: PageRuns) -> list:
    return [
        trend_figure(trends, shared_layout=True, page_runs=page, **options) for trends in graphs
    ]


@pytest.mark.parametrize("at", range(PAGES))
def test_figures_drawn_from_entries_made_first_are_the_figures_drawn_with_the_table(
    at: int,
) -> None:
    """A page's entries made in its order, then its figures drawn from their numbers alone
    (as the build's workers draw them): the same bytes, and the same table."""
    _axis, graphs, options = _pages()[at]
    page = PageRuns()
    drawn = [
        script_bytes(trend_figure(trends, shared_layout=True, page_runs=page, **options))
        for trends in graphs
    ]
    first = PageRuns()
    refs = [figure_refs(trends, first, shared_layout=True, **options) for trends in graphs]
    table = script_bytes(first.table())
    from_refs = [
        script_bytes(trend_figure(trends, shared_layout=True, page_runs=ref, **options))
        for trends, ref in zip(graphs, refs, strict=True)
    ]
    assert from_refs == drawn
    assert script_bytes(first.table()) == table == script_bytes(page.table())
    assert any(ref.layout is not None for ref in refs) == (options["x_axis"] == "time")
