"""Custom doctree nodes: the trend graph and the link to a test's graph.

A graph becomes a ``<div>`` plus a JSON ``<script>`` in HTML.  Every other
builder (LaTeX, text, man, Texinfo, ...) gets a readable placeholder
paragraph instead; the substitution happens at ``doctree-resolved`` so it
covers builders this module has never heard of.

Graph anchors and the links from tables to graphs are resolved late, at
``doctree-resolved``, from the claims recorded on the environment: which page
owns a test's anchor is known only once every page is read, and a dashboard
page need not be re-read when the graph moves to another page.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.writers.html5 import HTML5Translator

from sphinxcontrib_trending.sphinxext.env_records import anchor_owner, note_links, settle_anchors


class trending_graph(nodes.General, nodes.Element):
    """Attributes: ``figure`` (script-safe JSON), ``title``, ``tests`` (count).

    ``claims`` lists ``(source, key, anchor)`` of the tests whose anchor this
    graph may hold; ``heading`` says a rubric naming the test precedes it,
    which then carries the anchors, so a link shows the heading too.
    """


class trending_link(nodes.Inline, nodes.TextElement):
    """A test name to be linked to its graph; ``source`` and ``key`` name the test."""


def visit_graph_html(translator: HTML5Translator, node: trending_graph) -> None:
    # Test anchors owned by this graph follow its own id: keep every id.
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


def _place_anchors(env: BuildEnvironment, graph: trending_graph, docname: str) -> None:
    owned = [
        anchor
        for source, key, anchor in graph.get("claims", [])
        if anchor_owner(env, (source, key)) == (docname, anchor)
    ]
    if not owned:
        return
    holder: nodes.Element = graph
    position = graph.parent.index(graph)
    if graph.get("heading") and position > 0:
        heading = graph.parent[position - 1]
        if isinstance(heading, nodes.rubric):
            holder = heading
    holder["ids"].extend(owned)


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    is_html = app.builder.format == "html"
    for graph in list(doctree.findall(trending_graph)):
        if is_html:
            _place_anchors(app.env, graph, docname)
        else:
            graph.replace_self(_placeholder(graph))
    for link in list(doctree.findall(trending_link)):
        target = anchor_owner(app.env, (link["source"], link["key"]))
        text = link.astext()
        if target is None or not is_html:
            link.replace_self(nodes.Text(text))
            continue
        target_doc, anchor = target
        uri = app.builder.get_relative_uri(docname, target_doc) + "#" + anchor
        reference = nodes.reference(text, text, internal=True, refuri=uri)
        link.replace_self(reference)


def _record_links(app: Sphinx, doctree: nodes.document) -> None:
    targets = {(link["source"], link["key"]) for link in doctree.findall(trending_link)}
    note_links(app.env, app.env.docname, targets)


_read_now: list[str] = []


def _remember_read(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    _read_now[:] = docnames


def _settle(app: Sphinx, env: BuildEnvironment) -> list[str]:
    return settle_anchors(env, _read_now)


def register(app: Sphinx) -> None:
    app.add_node(trending_graph, html=(visit_graph_html, None))
    app.add_node(trending_link)
    app.connect("doctree-read", _record_links)
    app.connect("env-before-read-docs", _remember_read)
    app.connect("env-updated", _settle)
    app.connect("doctree-resolved", resolve)
