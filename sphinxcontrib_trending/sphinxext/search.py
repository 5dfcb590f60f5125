"""One search box over every graphed test of the site, answered in the browser.

A site of thousands of tests needs a way to the graph of one of them without
a server: the box's page loads an index of every graphed series (name,
metric, source and the page and anchor of its graph) written once per build
into ``_static``, and trending.js filters it as the user types.  The index
is loaded by ``<script src>``, which works from ``file://`` where ``fetch``
does not, and the results are built as DOM text, so no name is ever markup.
"""

from __future__ import annotations

import posixpath
from typing import Any, ClassVar

import orjson
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.writers.html5 import HTML5Translator

from sphinxcontrib_trending.sphinxext.env_records import (
    graph_index,
    has_search_pages,
    note_search_page,
)
from sphinxcontrib_trending.sphinxext.page_files import interactive

INDEX_FILE = "_static/trending-search-index.js"
INDEX_CALLBACK = "trendingSearchIndex"
"""The function the index file calls with its entries (defined in trending.js)."""


class trending_search(nodes.General, nodes.Element):
    """Attributes: ``placeholder`` (the text the empty box shows) and, once
    resolved, ``index`` and ``root`` (the index file's and the site root's
    paths from the page)."""


class SearchDirective(SphinxDirective):
    """``.. trending-search::``: the box; the index is the whole site's, not a source's."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"placeholder": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        note_search_page(self.env)
        placeholder = self.options.get("placeholder") or "Search tests: name, NIC, cores, metric"
        return [trending_search(placeholder=placeholder)]


def _settle(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Interactive HTML gets each box's paths to the index and the site root; other
    builders leave the box out, as it has nothing to search there."""
    for node in list(doctree.findall(trending_search)):
        if not interactive(app):
            node.parent.remove(node)
            continue
        page = posixpath.dirname(app.builder.get_target_uri(docname))
        root = posixpath.relpath(".", page or ".")
        node["index"] = posixpath.join(root, INDEX_FILE)
        node["root"] = f"{root}/"


def visit_search_html(translator: HTML5Translator, node: trending_search) -> None:
    """The box and an empty result list, with where the index and the site root are."""
    attval = translator.attval
    translator.body.append(
        f'<div class="trending-search" data-index="{attval(node["index"])}"'
        f' data-root="{attval(node["root"])}">'
        f'<input type="search" class="trending-search-input" aria-label="Search tests"'
        f' placeholder="{attval(node["placeholder"])}">'
        '<p class="trending-search-count" aria-live="polite"></p>'
        '<ul class="trending-search-results"></ul></div>\n'
    )
    raise nodes.SkipNode


def index_script(app: Sphinx) -> bytes:
    """The index file: each entry ``[title, detail, metric, source, href from the root]``."""
    entries = [
        [
            entry.title,
            entry.detail,
            entry.key[1],  # the metric
            entry.key[0],  # the source
            f"{app.builder.get_target_uri(entry.docname)}#{entry.anchor}",
        ]
        for entry in graph_index(app.env)
    ]
    # U+2028/U+2029 are valid in JSON but ended a string in older JavaScript
    body = orjson.dumps(entries).replace("\u2028".encode(), b"\\u2028")
    body = body.replace("\u2029".encode(), b"\\u2029")
    return f"{INDEX_CALLBACK}(".encode() + body + b");\n"


def _write_index(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or not interactive(app) or not has_search_pages(app.env):
        return
    target = app.outdir / INDEX_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    script = index_script(app)
    if not target.is_file() or target.read_bytes() != script:
        target.write_bytes(script)


def register(app: Sphinx) -> None:
    app.add_node(trending_search, html=(visit_search_html, None))
    app.add_directive("trending-search", SearchDirective)
    app.connect("doctree-resolved", _settle)
    app.connect("build-finished", _write_index)
