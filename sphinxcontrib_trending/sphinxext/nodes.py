"""Custom doctree nodes: the trend graph and the link to a test's graph.

A graph becomes a ``<div>`` plus a JSON ``<script>`` in HTML.  Every other
builder (LaTeX, text, man, Texinfo, ...) gets a readable placeholder
paragraph instead; the substitution happens at ``doctree-resolved`` so it
covers builders this module has never heard of.

Links from tables to graphs are resolved late, at ``doctree-resolved``, from
the anchors recorded on the environment: a dashboard page need not be
re-read when the graph moves to another page.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.writers.html5 import HTML5Translator

from sphinxcontrib_trending.sphinxext.store import env_data


class trending_graph(nodes.General, nodes.Element):
    """Attributes: ``figure`` (script-safe JSON), ``title``, ``tests`` (count)."""


class trending_link(nodes.Inline, nodes.TextElement):
    """A test name to be linked to its graph; ``source`` and ``key`` name the test."""


def visit_graph_html(translator: HTML5Translator, node: trending_graph) -> None:
    # Test anchors may have been propagated onto this node: keep every id.
    graph_id, *other_ids = node["ids"] or ["trending-graph"]
    figure_id = f"{graph_id}-figure"
    anchors = "".join(f'<span id="{anchor}"></span>' for anchor in other_ids)
    translator.body.append(
        f'<div class="trending-graph" id="{graph_id}">{anchors}'
        f'<div class="trending-graph-plot" data-figure="{figure_id}"'
        f' role="img" aria-label="{translator.attval(node["title"] or "trend graph")}"></div>'
        f'<script type="application/json" id="{figure_id}">{node["figure"]}</script>'
        "</div>\n"
    )
    raise nodes.SkipNode


def _placeholder(node: trending_graph) -> nodes.paragraph:
    title = node["title"] or "Trend graph"
    text = f"{title}: interactive graph of {node['tests']} test(s), shown in the HTML version."
    return nodes.paragraph(text, text, classes=["trending-graph-placeholder"])


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    is_html = app.builder.format == "html"
    if not is_html:
        for graph in list(doctree.findall(trending_graph)):
            graph.replace_self(_placeholder(graph))
    anchors = env_data(app.env).anchors
    for link in list(doctree.findall(trending_link)):
        target = anchors.get((link["source"], link["key"]))
        text = link.astext()
        if target is None or not is_html:
            link.replace_self(nodes.Text(text))
            continue
        target_doc, anchor = target
        uri = app.builder.get_relative_uri(docname, target_doc) + "#" + anchor
        reference = nodes.reference(text, text, internal=True, refuri=uri)
        link.replace_self(reference)


def register(app: Sphinx) -> None:
    app.add_node(trending_graph, html=(visit_graph_html, None))
    app.add_node(trending_link)
    app.connect("doctree-resolved", resolve)
