"""Custom doctree nodes: the trend graph and the link to a test's graph.

In the interactive HTML builders a graph becomes an empty ``<div>``; its
figure (never in the doctree: written to a data file beside the page,
``<page>.<graph id>.js``, while the page is read, see :mod:`.figure_files`)
is loaded by the browser with a ``<script src>`` when the graph comes into
view, with the page's table of what its figures share
(``<page>.trending-runs.js``, see :mod:`~.render.page_runs`).
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

A graph drawn per test is headed by the test's name, a rubric.  A
directive's per-test graphs are one node, :class:`trending_graphs`, that
holds each graph as a :class:`GraphEntry` (data, not nodes) until the page
is resolved: a page of two thousand graphs is one node, not two thousand
(or six thousand with the rubrics and their text), while every Sphinx
transform walks it when it is read and again when it is resolved, while
the doctree is pickled and unpickled, and while the writer visits it.  At
``doctree-resolved`` every builder but the interactive HTML ones gets the
graphs back as nodes, each after its rubric (:func:`expanded_graphs`), and
shows them as before; the HTML writer writes the entries' rubrics and
graphs itself, as Sphinx's writer would write those nodes, and the search
index gets the headings' text as before.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.writers.html5 import HTML5Translator

from sphinxcontrib_trending.analysis.identity import SeriesTarget
from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.render.script_data import script_bytes
from sphinxcontrib_trending.render.static_figure import IMAGE_FORMATS, write_static_figure
from sphinxcontrib_trending.sphinxext.env_records import (
    Key,
    anchor_owner,
    key_of,
    note_links,
    owner_of,
    settle_anchors,
    target_of,
)
from sphinxcontrib_trending.sphinxext.figure_files import (
    RUNS_FILE,
    FigureReader,
    data_file,
    figure_name,
    figure_page,
    in_output,
    note_written,
    runs_file,
    shares_table,
    stash_figure,
)
from sphinxcontrib_trending.sphinxext.page_files import (
    PageFiles,
    data_place,
    interactive,
    page_dir,
)
from sphinxcontrib_trending.sphinxext.table_nodes import link_targets, trending_link, trending_table
from sphinxcontrib_trending.sphinxext.warnings import warn


class trending_graph(nodes.General, nodes.Element):
    """Attributes: ``figure`` (names the script-safe JSON :func:`graph_node` kept),
    ``title``, ``tests`` (count);
    ``data`` (the data file's URL) once resolved in an interactive builder.

    ``claims`` lists the :class:`~.SeriesTarget` of the tests whose anchor this
    graph may hold; ``heading``, the name of the test it shows, to be put
    above it as a rubric when the page is resolved (:func:`place_headings`),
    which then carries the anchors, so a link shows the heading too.
    """


class GraphEntry(NamedTuple):
    """One graph of a page while it waits to be written, as :func:`graph_entry` made it."""

    graph_id: str
    figure: str
    """Names the script-safe JSON kept beside the doctree (:func:`.stash_figure`)."""
    title: str
    tests: int
    claims: tuple[Key, ...]
    """The environment's keys of the tests whose anchor it may hold."""
    heading: str
    """The name of the test it shows, put above it as a rubric; empty for none."""


class trending_graphs(nodes.General, nodes.Element):
    """A directive's graphs, headed each by its test's name: ``graphs`` lists their
    :class:`GraphEntry` as plain tuples (see :func:`graph_entries`).

    Resolved in the interactive HTML builders, it also holds ``written``: per
    graph, the anchors it holds and its data file's URL; and the headings as
    its one text, for the search index.  Every other builder gets the graphs
    as nodes instead (:func:`expanded_graphs`).
    """


def new_graph_id(env: BuildEnvironment) -> str:
    """The id of the next graph of the page being read."""
    return f"trending-graph-{env.new_serialno('trending-graph')}"


def graph_entry(
    env: BuildEnvironment,
    figure: str | bytes | None,
    title: str,
    tests: int,
    claims: list[SeriesTarget],
    heading: str = "",
    shares_table: bool = False,
    graph_id: str | None = None,
) -> GraphEntry:
    """A graph of the page being read, its figure (script-safe JSON, or its UTF-8) kept
    beside the doctree; ``shares_table`` if it names rows of the page's table
    (:func:`.figure_files.page_runs`).  A figure of ``graph_id`` (of :func:`new_graph_id`)
    given as None was written as its data file already (:class:`.figure_files.DataFiles`)."""
    graph_id = graph_id or new_graph_id(env)
    keys = tuple(key_of(target) for target in claims)
    if figure is None:
        key = note_written(env, graph_id)
    else:
        key = stash_figure(env, graph_id, figure, shares_table)
    return GraphEntry(graph_id, key, title, tests, keys, heading)


def graph_node(
    env: BuildEnvironment,
    figure: str | bytes,
    title: str,
    tests: int,
    claims: list[SeriesTarget],
    heading: str = "",
) -> trending_graph:
    """One graph as a node of its own (see :func:`graph_entry`)."""
    return single_graph(graph_entry(env, figure, title, tests, claims, heading))


def single_graph(entry: GraphEntry) -> trending_graph:
    graph = trending_graph(
        figure=entry.figure,
        title=entry.title,
        tests=entry.tests,
        claims=[target_of(key) for key in entry.claims],
        ids=[entry.graph_id],
    )
    if entry.heading:
        graph["heading"] = entry.heading
    return graph


def graph_group(entries: list[GraphEntry]) -> trending_graphs:
    """The graphs as one node until the page is resolved.

    Kept as plain tuples of strings, which pickle knows without asking them
    how: a named tuple of frozen dataclasses took nine times as long to
    pickle (a CSIT-sized site's doctrees hold 20,000 of them, pickled when
    each page is read and again to a parallel reader's parent).
    """
    return trending_graphs(graphs=[tuple(entry) for entry in entries])


def graph_entries(group: trending_graphs) -> list[GraphEntry]:
    return [GraphEntry._make(entry) for entry in group["graphs"]]


HEADING_CLASS = "trending-graph-heading"


def heading_rubric(heading: str) -> nodes.rubric:
    return nodes.rubric(heading, heading, classes=[HEADING_CLASS], support_smartquotes=False)


def expanded_graphs(group: trending_graphs) -> list[trending_graph]:
    """The group's graphs as nodes of their own, in its place, each keeping its heading.

    What a builder that shows graphs its own way (an image, a placeholder)
    gets; :func:`place_headings` then puts each heading before its graph.
    """
    with collector_paused():  # see place_headings
        graphs = [single_graph(entry) for entry in graph_entries(group)]
        group.replace_self(graphs)
        return graphs


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
                rubric = heading_rubric(child.attributes.pop("heading"))
                rubrics[id(child)] = rubric
                children.append(rubric)
            children.append(child)
        parent[:] = children
    return rubrics


def visit_graph_html(translator: HTML5Translator, node: trending_graph) -> None:
    # Test anchors owned by this graph follow its own id: keep every id.
    graph_id, *other_ids = node["ids"] or ["trending-graph"]
    data, runs = node["data"], node.get("runs", "")
    html = _graph_html(translator, graph_id, other_ids, data, runs, node["title"])
    translator.body.append(html)
    raise nodes.SkipNode


def _graph_html(
    translator: HTML5Translator,
    graph_id: str,
    anchors: list[str],
    data: str,
    runs: str,
    title: str,
) -> str:
    """The graph's box; ``runs`` is the URL of the table its figure shares, "" for none."""
    spans = "".join(f'<span id="{translator.attval(anchor)}"></span>' for anchor in anchors)
    shared = f' data-runs="{translator.attval(runs)}"' if runs else ""
    return (
        f'<div class="trending-graph" id="{graph_id}">{spans}'
        f'<div class="trending-graph-plot" data-figure="{graph_id}-figure"'
        f' data-src="{translator.attval(data)}"{shared}'
        f' role="img" aria-label="{translator.attval(title or "trend graph")}"></div>'
        "</div>\n"
    )


def visit_graphs_html(translator: HTML5Translator, node: trending_graphs) -> None:
    """Each graph after its heading, as the writer writes a rubric and a graph node.

    A writer whose rubrics or tags differ from Sphinx's own (a theme's
    translator) is given those nodes to write.
    """
    if not _writes_rubrics_as_sphinx(translator):
        for laid_out in _as_nodes(node):
            laid_out.walkabout(translator)
        raise nodes.SkipNode
    body = translator.body
    for entry, (anchors, data, runs) in zip(graph_entries(node), node["written"], strict=True):
        if entry.heading:
            body.append(_rubric_html(translator, entry.heading, anchors))
            anchors = []
        body.append(_graph_html(translator, entry.graph_id, anchors, data, runs, entry.title))
    raise nodes.SkipNode


def _writes_rubrics_as_sphinx(translator: HTML5Translator) -> bool:
    kind = type(translator)
    return all(
        getattr(kind, method) is getattr(HTML5Translator, method)
        for method in ("visit_rubric", "depart_rubric", "visit_Text", "starttag", "attval")
    )


def _rubric_html(translator: HTML5Translator, heading: str, anchors: list[str]) -> str:
    """``<p class="... rubric" id=...>``: the first id on the tag, the others as spans in it."""
    first = f' id="{translator.attval(anchors[0])}"' if anchors else ""
    spans = "".join(f'<span id="{translator.attval(anchor)}"></span>' for anchor in anchors[1:])
    return f'<p class="{HEADING_CLASS} rubric"{first}>{spans}{translator.encode(heading)}</p>\n'


def _as_nodes(group: trending_graphs) -> list[nodes.Element]:
    """The resolved group as the rubric and graph nodes it stands for."""
    laid_out: list[nodes.Element] = []
    for entry, (anchors, data, runs) in zip(graph_entries(group), group["written"], strict=True):
        graph = trending_graph(title=entry.title, tests=entry.tests, ids=[entry.graph_id])
        graph["data"] = data
        if runs:
            graph["runs"] = runs
        if entry.heading:
            rubric = heading_rubric(entry.heading)
            rubric["ids"].extend(anchors)
            laid_out.append(rubric)
        else:
            graph["ids"].extend(anchors)
        laid_out.append(graph)
    return laid_out


class _DataFiles:
    """The URLs of a page's graph data files and of the tables of what their figures
    share (:mod:`~.render.page_runs`), relative to the page.

    Most were written while their page was read (:func:`.in_output`); the
    others are written here, from the figures kept beside the doctrees,
    with their page's table once.  A page's graphs share its own table;
    the graphs of a builder that gathers pages into one (single HTML)
    share their own page's.
    """

    def __init__(self, app: Sphinx, figures: FigureReader, docname: str) -> None:
        self._app = app
        self._files = PageFiles(app, docname)
        self._figures = figures
        self._docname = docname
        self._here = page_dir(app, docname) or "."
        self._tables: dict[str, str] = {}
        self._stems: dict[str, str] = {}

    def write(self, graph_id: str, key: str) -> tuple[str, str]:
        """The URL of the data file of the figure of ``key`` and of its table ("" for
        none), the files written if they were not; ``OSError`` if the figure is gone."""
        if in_output(key):
            stem = self._stem(figure_page(key))
            return f"{stem}.{graph_id}.js", f"{stem}.{RUNS_FILE}" if shares_table(key) else ""
        figure = self._figures.data(key)
        runs = self._table(key)
        name = figure_page(key) if runs else None
        data = data_file(graph_id, figure, name)
        return self._files.write_in_background(f"{graph_id}.js", data), runs

    def _stem(self, page: str) -> str:
        """Where the data files page ``page`` wrote while read lie, relative to this
        page, and their names' stem (``graphs``, ``../graphs``), found once a page."""
        found = self._stems.get(page)
        if found is None:
            folder, stem = data_place(self._app, page)
            relative = posixpath.relpath(folder or ".", self._here)
            found = self._stems[page] = stem if relative == "." else f"{relative}/{stem}"
        return found

    def _table(self, key: str) -> str:
        """The URL of the table the figure of ``key`` names, written the first time; ""
        for a figure that names none."""
        table = self._figures.table(key)
        if table is None:
            return ""
        page = figure_page(key)
        found = self._tables.get(page)
        if found is None:
            suffix = RUNS_FILE
            if page != self._docname:
                suffix = f"{hashlib.sha256(page.encode()).hexdigest()[:16]}.{RUNS_FILE}"
            data = runs_file(page, table)
            found = self._tables[page] = self._files.write_in_background(suffix, data)
        return found


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
    app: Sphinx, graph: trending_graph, docname: str, suffix: str, figure: dict[str, Any]
) -> nodes.image:
    """The graph drawn into the builder's image folder, named by what it shows (its
    whole figure: see :meth:`.FigureReader.figure`).

    An image whose figure has not changed is not drawn again.  HTML-like
    pages (epub) link it relative to the page; LaTeX reads it relative to
    the output root.
    """
    digest = hashlib.sha256(script_bytes(figure)).hexdigest()[:20]
    relative = posixpath.join(app.builder.imagedir, "trending", f"graph-{digest}.{suffix}")
    path = Path(app.outdir, relative)
    if not path.is_file():
        write_static_figure(figure, path)
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
    owned = _owned_anchors(env, [key_of(target) for target in graph.get("claims", [])], docname)
    if not owned:
        return
    holder: nodes.Element = graph if rubric is None else rubric
    holder["ids"].extend(owned)


def _owned_anchors(env: BuildEnvironment, claims: Iterable[Key], docname: str) -> list[str]:
    owned = []
    for key in claims:
        owner = owner_of(env, key)
        if owner is not None and owner[0] == docname:
            owned.append(owner[1])
    return owned


def _resolve_graph(
    app: Sphinx,
    graph: trending_graph,
    docname: str,
    figures: FigureReader,
    files: _DataFiles | None,
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
        if files is not None:
            graph["data"], runs = files.write(graph["ids"][0], graph["figure"])
            if runs:
                graph["runs"] = runs
            _place_anchors(app.env, graph, docname, rubric)
        elif image_format is not None:
            figure = figures.figure(graph["figure"])
            graph.replace_self(_static_image(app, graph, docname, image_format, figure))
    except OSError as error:
        warn(
            f"the data of graph {figure_name(graph['figure'])!r} is gone ({error}); "
            "build again with -E to redraw it",
            "cache",
            location=graph,
        )
        graph.replace_self(_placeholder(graph))


def _write_group(app: Sphinx, group: trending_graphs, docname: str, files: _DataFiles) -> bool:
    """Write the group's data files and note what its graphs show; False if a figure is gone.

    A group with a figure gone is shown as its nodes (:func:`_resolve_graph`
    says which figure, and shows a placeholder for it).
    """
    written = []
    entries = graph_entries(group)
    for entry in entries:
        try:
            data, runs = files.write(entry.graph_id, entry.figure)
        except OSError:
            return False
        written.append((_owned_anchors(app.env, entry.claims, docname), data, runs))
    group["written"] = written
    headings = [entry.heading for entry in entries if entry.heading]
    if headings:  # the search index reads the headings' words, as it read the rubrics'
        group += nodes.Text("\n".join(headings))
    return True


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    is_html = interactive(app)
    image_format = _image_format(app)
    with FigureReader(app.env) as figures:
        files = _DataFiles(app, figures, docname) if is_html else None
        for group in list(doctree.findall(trending_graphs)):
            if files is None or not _write_group(app, group, docname, files):
                expanded_graphs(group)
        graphs = list(doctree.findall(trending_graph))
        rubrics = place_headings(graphs)
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
    app.add_node(trending_graphs, html=(visit_graphs_html, None))
    app.connect("doctree-read", _record_links)
    app.connect("env-before-read-docs", _remember_read)
    app.connect("env-updated", _settle)
    app.connect("doctree-resolved", resolve)
