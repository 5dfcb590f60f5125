"""The news page's Atom feed: written beside the page, linked from it and from its head.

``trending-news`` leaves a :class:`trending_feed` node holding the feed's
entries (read time knows the news but not the output); when the page is
resolved for an HTML builder, the feed becomes ``<page>.atom`` beside the
page (``<page>.2.atom`` for a second news directive), each entry linked to
its test's graph, and the node becomes a visible link to the file.  At
``html-page-context`` the page's head gets the ``<link rel="alternate">``
that lets browsers and feed readers discover it.  Other builders drop the
node: a PDF has no use for a feed.
"""

from __future__ import annotations

import posixpath
from datetime import datetime
from html import escape
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from sphinxcontrib_trending.analysis.identity import SeriesTarget
from sphinxcontrib_trending.render.atom import MEDIA_TYPE, Feed, FeedEntry, atom_document, stable_id
from sphinxcontrib_trending.sphinxext.env_records import anchor_owner
from sphinxcontrib_trending.sphinxext.page_files import interactive, write_page_file

LINK_CLASS = "trending-feed"


class trending_feed(nodes.General, nodes.Element):
    """Attributes: ``source``, ``entries`` (:class:`FeedEntry`, newest first) and
    ``updated`` (the source's newest build: the feed's time when it has no entry)."""


def feed_node(source: str, entries: list[FeedEntry], updated: datetime) -> trending_feed:
    return trending_feed(source=source, entries=entries, updated=updated)


def _page_link(app: Sphinx, docname: str) -> str:
    """The page's own address relative to its folder (``news.html``; ``./`` in dirhtml)."""
    uri = app.builder.get_target_uri(docname)
    return posixpath.basename(uri) or "./"


def _entry_link(app: Sphinx, docname: str, source: str, entry: FeedEntry) -> str:
    """The test's graph where the site has one, else the news page itself."""
    owner = anchor_owner(app.env, SeriesTarget(source, entry.ref))
    if owner is None:
        return _page_link(app, docname)
    page, anchor = owner
    return f"{app.builder.get_relative_uri(docname, page)}#{anchor}"


def _title(app: Sphinx, source: str) -> str:
    project = app.config.project
    return f"{project}: news of {source}" if project else f"News of {source}"


def _write(app: Sphinx, docname: str, node: trending_feed, number: int) -> nodes.paragraph:
    source = node["source"]
    entries: list[FeedEntry] = node["entries"]
    suffix = "atom" if number == 1 else f"{number}.atom"
    self_link = f"{posixpath.basename(docname)}.{suffix}"
    feed = Feed(
        id=stable_id(app.config.project or "", docname, source, str(number)),
        title=_title(app, source),
        author=app.config.project or "sphinx-trending",
        updated=max((entry.updated for entry in entries), default=node["updated"]),
        page=_page_link(app, docname),
        self_link=self_link,
    )
    links = [(entry, _entry_link(app, docname, source, entry)) for entry in entries]
    uri = write_page_file(app, docname, suffix, atom_document(feed, links))
    paragraph = nodes.paragraph(classes=["trending-feed-link"])
    text = "Subscribe to this news (Atom feed)"
    paragraph += nodes.reference(text, text, refuri=uri, classes=[LINK_CLASS], reftitle=feed.title)
    return paragraph


def write_feeds(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for number, node in enumerate(list(doctree.findall(trending_feed)), start=1):
        if interactive(app):
            node.replace_self(_write(app, docname, node, number))
        else:
            node.parent.remove(node)


def link_in_head(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Feed discovery: a ``<link rel="alternate">`` per feed in the page's ``<head>``."""
    if doctree is None:
        return
    links = [
        f'<link rel="alternate" type="{MEDIA_TYPE}" '
        f'title="{escape(node.get("reftitle", ""))}" href="{escape(node["refuri"])}" />'
        for node in doctree.findall(nodes.reference)
        if LINK_CLASS in node["classes"]
    ]
    if links:
        context["metatags"] = context.get("metatags", "") + "\n".join(links) + "\n"


def register(app: Sphinx) -> None:
    app.add_node(trending_feed)
    app.connect("doctree-resolved", write_feeds)
    app.connect("html-page-context", link_in_head)
