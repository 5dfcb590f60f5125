"""Custom doctree nodes: the trend graph and the link to a test's graph.

In the interactive HTML builders a graph becomes an empty ``<div>``; its
figure (kept outside the doctree while the page waits to be written, see
:mod:`.figure_files`) goes to a data file beside the page
(``<page>.<graph id>.js``), which
the browser loads with a ``<script src>`` when the graph comes into view.
A page of two thousand graphs thus stays small, and the site still works
from ``file://``, where browsers refuse ``fetch()`` of local files.  Every
other builder gets a static image of the same figure
(render/static_figure.py) where its writer can show one (LaTeX, epub), and
a readable placeholder paragraph elsewhere (text, man, Texinfo, ...); the substitution happens at
``doctree-resolved`` so it covers builders this module has never heard of.

Graph anchors and the links from tables to graphs are resolved late, at
``doctree-resolved``, from the claims recorded on the environment: which page
owns a test's anchor is known only once every page is read, and a dashboard
page need not be re-read when the graph moves to another page.

A graph drawn per test is headed by the test's name, a rubric; the page
keeps that name on the graph node until it is resolved, and only then is
the rubric put before the graph (:func:`place_headings`).  A page of two
thousand graphs is thus two thousand nodes, not six thousand (rubric, its
text, graph), while every Sphinx transform walks it when it is read and
again when it is resolved, and while the doctree is pickled; the writers,
the search index and every builder still get the rubric as before.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.writers.html5 import HTML5Translator

from sphinxcontrib_trending.analysis.identity import SeriesTarget
from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.render.static_figure import IMAGE_FORMATS, write_static_figure
from sphinxcontrib_trending.sphinxext.env_records import anchor_owner, note_links, settle_anchors
from sphinxcontrib_trending.sphinxext.figure_files import FigureReader, figure_name, stash_figure
from sphinxcontrib_trending.sphinxext.page_files import PageFiles, interactive, page_dir
from sphinxcontrib_trending.sphinxext.table_nodes import link_targets, trending_link, trending_table
from sphinxcontrib_trending.sphinxext.warnings import warn

DATA_CALLBACK = "trendingFigure"
"""The function each graph data file calls (defined in trending.js)."""


class trending_graph(nodes.General, nodes.Element):
    """Attributes: ``figure`` (names the script-safe JSON :func:`graph_node` kept),
    ``title``, ``tests`` (count);
    ``data`` (the data file's URL) once resolved in an interactive builder.

    ``claims`` lists the :class:`~.SeriesTarget` of the tests whose anchor this
    graph may hold; ``heading``, the name of the test it shows, to be put
    above it as a rubric when the page is resolved (:func:`place_headings`),
    which then carries the anchors, so a link shows the heading too.
    """


def graph_node(
    env: BuildEnvironment,
    figure: str | bytes,
    title: str,
    tests: int,
    claims: list[SeriesTarget],
    heading: str = "",
) -> trending_graph:
    """A graph of the page being read, its figure (script-safe JSON, or its UTF-8) kept
    beside the doctree."""
    graph_id = f"trending-graph-{env.new_serialno('trending-graph')}"
    graph = trending_graph(
        figure=stash_figure(env, graph_id, figure),
        title=title,
        tests=tests,
        claims=claims,
        ids=[graph_id],
    )
    if heading:
        graph["heading"] = heading
    return graph


HEADING_CLASS = "trending-graph-heading"


def place_headings(graphs: list[trending_graph]) -> dict[int, nodes.rubric]:
    """Put each headed graph's rubric right before it; return the rubrics by the graph's id.

    Each parent's children are laid out anew in one pass: inserting before
    each graph walked the parent once per graph.  The rubrics are made with
    the cycle collector paused, as the directives make their nodes
    (:meth:`.TrendingDirective.run`): a page's two thousand rubrics, a dozen
    objects each, otherwise set off collections that walked every doctree
    waiting to be written, five times the rubrics' own cost.
    """
    with collector_paused():
        return _headed(graphs)


def _headed(graphs: list[trending_graph]) -> dict[int, nodes.rubric]:
    rubrics: dict[int, nodes.rubric] = {}
    parents = {id(graph.parent): graph.parent for graph in graphs if graph.get("heading")}
    for parent in parents.values():
        children: list[nodes.Node] = []
        for child in parent.children:
            if isinstance(child, trending_graph) and child.get("heading"):
                heading = child.attributes.pop("heading")
                rubric = nodes.rubric(
                    heading, heading, classes=[HEADING_CLASS], support_smartquotes=False
                )
                rubrics[id(child)] = rubric
                children.append(rubric)
            children.append(child)
        parent[:] = children
    return rubrics


def visit_graph_html(translator: HTML5Translator, node: trending_graph) -> None:
    # Test anchors owned by this graph follow its own id: keep every id.
    graph_id, *other_ids = node["ids"] or ["trending-graph"]
    figure_id = f"{graph_id}-figure"
    anchors = "".join(f'<span id="{anchor}"></span>' for anchor in other_ids)
    translator.body.append(
        f'<div class="trending-graph" id="{graph_id}">{anchors}'
        f'<div class="trending-graph-plot" data-figure="{figure_id}"'
        f' data-src="{translator.attval(node["data"])}"'
        f' role="img" aria-label="{translator.attval(node["title"] or "trend graph")}"></div>'
        "</div>\n"
    )
    raise nodes.SkipNode


def _write_data(files: PageFiles, graph: trending_graph, figure: bytes) -> None:
    """The figure as a data file that hands it to trending.js when loaded.

    The figure JSON is script-safe (no ``<``, ``>`` or ``&``) and the id is
    ours, so the file runs nothing but the one call.  Made of the figure's
    bytes as read: a page's thousands of figures are not decoded only to be
    encoded again.
    """
    graph_id = graph["ids"][0]
    call = f"{DATA_CALLBACK}({json.dumps(f'{graph_id}-figure')},".encode()
    graph["data"] = files.write(f"{graph_id}.js", b"".join((call, figure, b");\n")))


def _placeholder(node: trending_graph) -> nodes.paragraph:
    title = node["title"] or "Trend graph"
    text = f"{title}: interactive graph of {node['tests']} test(s), shown in the HTML version."
    return nodes.paragraph(text, text, classes=["trending-graph-placeholder"])


IMAGE_BUILDER_FORMATS = frozenset({"latex", "html"})
"""Output formats whose writers find an image where we write it (LaTeX, epub).

Texinfo looks for images in a folder of its own naming; it keeps the placeholder.
"""


def _image_format(app: Sphinx) -> str | None:
    if app.builder.format not in IMAGE_BUILDER_FORMATS:
        return None
    supported = app.builder.supported_image_types
    return next((suffix for kind, suffix in IMAGE_FORMATS.items() if kind in supported), None)


def _static_image(
    app: Sphinx, graph: trending_graph, docname: str, suffix: str, figure: bytes
) -> nodes.image:
    """The graph drawn into the builder's image folder, named by what it shows.

    An image whose figure has not changed is not drawn again.  HTML-like
    pages (epub) link it relative to the page; LaTeX reads it relative to
    the output root.
    """
    digest = hashlib.sha256(figure).hexdigest()[:20]
    relative = posixpath.join(app.builder.imagedir, "trending", f"graph-{digest}.{suffix}")
    path = Path(app.outdir, relative)
    if not path.is_file():
        write_static_figure(json.loads(figure), path)
    if app.builder.format == "html":
        relative = posixpath.relpath(relative, page_dir(app, docname) or ".")
    title = graph["title"] or "Trend graph"
    image = nodes.image(uri=relative, alt=title, classes=["trending-graph-image"])
    image["candidates"] = {"*": relative}
    return image


def _place_anchors(
    env: BuildEnvironment, graph: trending_graph, docname: str, rubric: nodes.rubric | None
) -> None:
    """Ids of the tests whose anchor this graph holds, on its heading's ``rubric`` if any."""
    owned = []
    for target in graph.get("claims", []):
        owner = anchor_owner(env, target)
        if owner is not None and owner[0] == docname:
            owned.append(owner[1])
    if not owned:
        return
    holder: nodes.Element = graph if rubric is None else rubric
    holder["ids"].extend(owned)


def _resolve_graph(
    app: Sphinx,
    graph: trending_graph,
    docname: str,
    figures: FigureReader,
    files: PageFiles | None,
    image_format: str | None,
    rubric: nodes.rubric | None,
) -> None:
    """A graph as its builder shows it: a data file, an image or a placeholder.

    ``files`` writes the page's data files in an interactive HTML builder;
    every other builder has none.
    """
    if files is None and image_format is None:
        graph.replace_self(_placeholder(graph))
        return
    try:
        figure = figures.data(graph["figure"])
    except OSError as error:
        warn(
            f"the data of graph {figure_name(graph['figure'])!r} is gone ({error}); "
            "build again with -E to redraw it",
            "cache",
            location=graph,
        )
        graph.replace_self(_placeholder(graph))
        return
    if files is not None:
        _place_anchors(app.env, graph, docname, rubric)
        _write_data(files, graph, figure)
    elif image_format is not None:
        graph.replace_self(_static_image(app, graph, docname, image_format, figure))


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    is_html = interactive(app)
    image_format = _image_format(app)
    graphs = list(doctree.findall(trending_graph))
    rubrics = place_headings(graphs)
    files = PageFiles(app, docname) if is_html else None
    with FigureReader(app.env) as figures:
        for graph in graphs:
            rubric = rubrics.get(id(graph))
            _resolve_graph(app, graph, docname, figures, files, image_format, rubric)
    for link in list(doctree.findall(trending_link)):
        target = anchor_owner(app.env, SeriesTarget(link["source"], link["key"]))
        text = link.astext()
        if target is None or not is_html:
            link.replace_self(nodes.Text(text))
            continue
        target_doc, anchor = target
        uri = app.builder.get_relative_uri(docname, target_doc) + "#" + anchor
        reference = nodes.reference(text, text, internal=True, refuri=uri)
        link.replace_self(reference)


def _record_links(app: Sphinx, doctree: nodes.document) -> None:
    targets = {SeriesTarget(link["source"], link["key"]) for link in doctree.findall(trending_link)}
    for table in doctree.findall(trending_table):
        targets |= link_targets(table)
    note_links(app.env, app.env.docname, targets)


_read_now: list[str] = []


def _remember_read(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    _read_now[:] = docnames


def _settle(app: Sphinx, env: BuildEnvironment) -> list[str]:
    return settle_anchors(env, _read_now)


def register(app: Sphinx) -> None:
    app.add_node(trending_graph, html=(visit_graph_html, None))
    app.connect("doctree-read", _record_links)
    app.connect("env-before-read-docs", _remember_read)
    app.connect("env-updated", _settle)
    app.connect("doctree-resolved", resolve)
