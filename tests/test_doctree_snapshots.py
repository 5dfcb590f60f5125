"""Every directive's doctree compared with a stored snapshot (the sphinx-design pattern).

The site ``tests/roots/test-snapshots`` holds one page per directive over a
tiny data set (four tests, eight builds).  It is built once; each page's
doctree, as the directives left it, is printed with ``pformat()`` and
compared with ``tests/snapshots/<page>.txt`` (a table as the docutils table
it stands for, see ``sphinxext/table_nodes.py``; a graph with the heading
it is given when resolved, and a directive's per-test graphs as the nodes they
stand for, see ``sphinxext/nodes.py``).  A change to what a directive
emits shows up as a readable diff of nodes, classes and cell texts.

After an intended change, regenerate and review the diff::

    TRENDING_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_doctree_snapshots.py
    git diff tests/snapshots

The run that writes snapshots fails on purpose, so a forgotten variable in CI
cannot make these tests pass without comparing anything.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from sphinxcontrib_trending.sphinxext.figure_files import figure_name, in_output, whole_figure
from sphinxcontrib_trending.sphinxext.nodes import (
    expanded_graphs,
    place_headings,
    trending_graph,
    trending_graphs,
)
from sphinxcontrib_trending.sphinxext.table_nodes import expanded, trending_table
from tests.conftest import ROOTS
from tests.sphinxext import built_html

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = "TRENDING_UPDATE_SNAPSHOTS"
PAGES = ("dashboard", "failed", "graph", "degradation")
VOLATILE = ("source", "translation_progress")
"""Document attributes that hold the build's temporary path or vary by Sphinx version."""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SphinxTestApp]:
    srcdir = tmp_path_factory.mktemp("snapshots") / "site"
    shutil.copytree(ROOTS / "test-snapshots", srcdir)
    built = SphinxTestApp("html", srcdir=srcdir)
    try:
        built.build()
        yield built
    finally:
        built.cleanup()


def figure_summary(figure: str) -> str:
    """The figure's traces and title: what the graph shows, without Plotly's styling."""
    parsed = json.loads(figure)
    traces = ", ".join(
        f"{trace.get('name', '?')} ({len(trace.get('x', ()))} points)" for trace in parsed["data"]
    )
    title = parsed.get("layout", {}).get("title", {}).get("text", "")
    return f"traces: {traces}; title: {title}"


def normalised(app: SphinxTestApp, page: str) -> str:
    """``pformat()`` with no temporary path, Sphinx-version detail or figure JSON."""
    env = app.env
    copy = env.get_doctree(page).deepcopy()
    for name in VOLATILE:
        copy.attributes.pop(name, None)
    for group in list(copy.findall(trending_graphs)):  # its graphs are data until written
        expanded_graphs(group)
    graphs = list(copy.findall(trending_graph))
    place_headings(graphs)
    for graph in graphs:
        graph["figure"] = figure_summary(json.dumps(_figure(app, graph["figure"])))
    for table in list(copy.findall(trending_table)):  # its rows are data until written
        table.replace_self(expanded(table))
    return copy.pformat()


def _figure(app: SphinxTestApp, key: str) -> dict:
    """The whole figure of ``key``: kept beside the doctree, or in its page's data file."""
    if not in_output(key):
        return whole_figure(app.env, key)
    page, graph_id = figure_name(key).rsplit("/", 1)
    return built_html.figures(app.outdir, page)[f"{graph_id}-figure"]


def test_the_site_builds_without_warnings(app: SphinxTestApp) -> None:
    assert app._warning.getvalue() == ""


@pytest.mark.parametrize("page", PAGES)
def test_doctree_matches_its_snapshot(app: SphinxTestApp, page: str) -> None:
    actual = normalised(app, page)
    assert "/tmp" not in actual and str(app.srcdir) not in actual
    stored = SNAPSHOTS / f"{page}.txt"
    if os.environ.get(UPDATE, "") not in ("", "0"):
        SNAPSHOTS.mkdir(exist_ok=True)
        stored.write_text(actual, encoding="utf-8")
        pytest.fail(f"{stored} written; review it with git diff and rerun without {UPDATE}")
    assert stored.exists(), f"no snapshot {stored}: run with {UPDATE}=1 to write it"
    assert actual == stored.read_text(encoding="utf-8")


def test_figure_summary_names_every_trace() -> None:
    figure = json.dumps(
        {
            "data": [{"name": "a", "x": [1, 2, 3]}, {"name": "a trend", "x": [1, 3]}],
            "layout": {"title": {"text": "T"}},
        }
    )
    assert figure_summary(figure) == "traces: a (3 points), a trend (2 points); title: T"
