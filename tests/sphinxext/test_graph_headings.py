"""A per-test graph is one node while the page waits to be written; its heading
comes back as a rubric before it for every builder."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes

from sphinxcontrib_trending.sphinxext.nodes import trending_graph
from tests.sphinxext import datasets
from tests.sphinxext.conftest import SiteFactory


def test_a_page_s_doctree_keeps_each_heading_on_its_graph(site: SiteFactory) -> None:
    app = site()
    app.build()
    doctree = app.env.get_doctree("graphs")
    graphs = list(doctree.findall(trending_graph))
    assert len(graphs) == len(datasets.TESTS)
    assert not list(doctree.findall(nodes.rubric))
    assert all(graph["heading"] == graph["title"] for graph in graphs)
    (section,) = doctree.findall(nodes.section)
    assert len(section.children) == 1 + len(graphs)  # the title, then one node per graph


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
