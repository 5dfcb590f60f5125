"""A directive's per-test graphs are one node while the page waits to be written;
each heading comes back as a rubric before its graph for every builder."""

from __future__ import annotations

from pathlib import Path

import pytest
from docutils import nodes
from sphinx.testing.util import SphinxTestApp
from sphinx.writers.html5 import HTML5Translator

from sphinxcontrib_trending.sphinxext.nodes import (
    GraphEntry,
    _as_nodes,
    graph_entries,
    graph_group,
    trending_graph,
    trending_graphs,
    visit_graphs_html,
)
from tests.sphinxext import datasets
from tests.sphinxext.conftest import SiteFactory


def test_a_page_s_per_test_graphs_are_one_node_until_written(site: SiteFactory) -> None:
    app = site()
    app.build()
    doctree = app.env.get_doctree("graphs")
    (group,) = doctree.findall(trending_graphs)
    # plain tuples of strings, which pickle writes and reads without calling back
    assert {type(entry) for entry in group["graphs"]} == {tuple}
    assert {type(key) for entry in group["graphs"] for key in entry[4]} == {tuple}
    entries = graph_entries(group)
    assert len(entries) == len(datasets.TESTS)
    assert not list(doctree.findall(nodes.rubric))
    assert not list(doctree.findall(trending_graph))
    assert all(entry.heading == entry.title for entry in entries)
    (section,) = doctree.findall(nodes.section)
    assert len(section.children) == 2  # the title, then the directive's graphs


def _page(app: SphinxTestApp) -> nodes.document:
    """A page as the HTML writer gets it, with the writer's settings."""
    doctree = app.env.get_doctree("graphs")
    doctree.settings = app.builder.docsettings
    return doctree


def _translator(app: SphinxTestApp) -> HTML5Translator:
    doctree = _page(app)
    translator = app.builder.create_translator(doctree, app.builder)
    translator.body = []
    return translator


ESCAPED = 'a <b> & "c"'


def _hand_made_group() -> trending_graphs:
    """Headings to escape, a graph holding two anchors and one without a heading."""
    entries = [
        GraphEntry(
            "trending-graph-7", "page/trending-graph-7:0:2", 'a <b> & "c"', 1, (), 'a <b> & "c"'
        ),
        GraphEntry("trending-graph-8", "page/trending-graph-8:2:2", "plain", 1, (), "plain"),
        GraphEntry("trending-graph-9", "page/trending-graph-9:4:2", "", 2, (), ""),
    ]
    group = graph_group(entries)
    group["written"] = [
        (["trending-one", "trending-two"], "page.trending-graph-7.js", "page.trending-runs.js"),
        ([], "page.trending-graph-8.js", "page.trending-runs.js"),
        (["trending-three"], "page.trending-graph-9.js", ""),
    ]
    return group


def test_html_of_a_group_is_what_the_writer_writes_for_its_nodes(site: SiteFactory) -> None:
    """The rubric and graph nodes a group stands for, written by Sphinx's own writer."""
    app = site()
    app.build()
    group = _hand_made_group()
    by_nodes = _translator(app)
    for node in _as_nodes(group):
        node.walkabout(by_nodes)
    directly = _translator(app)
    with pytest.raises(nodes.SkipNode):
        visit_graphs_html(directly, group)
    assert "".join(directly.body) == "".join(by_nodes.body)
    assert '<span id="trending-two"></span>a &lt;b&gt; &amp; &quot;c&quot;</p>' in directly.body[0]
    assert "".join(directly.body).count(' data-runs="page.trending-runs.js"') == 2


def test_a_writer_of_its_own_rubrics_writes_a_group_s_rubrics(site: SiteFactory) -> None:
    app = site()
    app.build()
    translator = _translator(app)

    class Marked(type(translator)):  # type: ignore[misc]
        def visit_rubric(self, node: nodes.rubric) -> None:
            self.body.append('<p class="marked">')

    app.registry.translators["html"] = Marked  # as a theme's set_translator() does
    marked = app.builder.create_translator(_page(app), app.builder)
    marked.body = []
    with pytest.raises(nodes.SkipNode):
        visit_graphs_html(marked, _hand_made_group())
    assert "".join(marked.body).count('<p class="marked">') == 2


def test_the_site_s_html_and_search_index_show_each_heading(site: SiteFactory) -> None:
    app = site()
    app.build()
    html = (Path(app.outdir) / "graphs.html").read_text()
    assert html.count('<p class="trending-graph-heading rubric"') == len(datasets.TESTS)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    index = (Path(app.outdir) / "searchindex.js").read_text()
    assert '"alert":' in index  # a word only a heading (the evil test's name) has


def test_other_builders_get_the_heading_before_the_graph(site: SiteFactory) -> None:
    app = site(builder="text")
    app.build()
    lines = [line for line in (Path(app.outdir) / "graphs.txt").read_text().splitlines() if line]
    heading = lines.index("-[ regress (2n-skx) ]-")  # a rubric, as the text writer shows one
    assert lines[heading + 1].startswith("regress (2n-skx): interactive graph of 1 test(s)")


def test_test_names_are_not_offered_for_translation(site: SiteFactory) -> None:
    """Headings are data, made after Sphinx's i18n has read the page, like a table's cells."""
    app = site(builder="gettext")
    app.build()
    catalog = (Path(app.outdir) / "graphs.pot").read_text()
    assert 'msgid "Graphs"' in catalog
    assert "regress (2n-skx)" not in catalog
