"""The news as an Atom feed (RFC 4287): one entry per new failure, regression, progression.

A team that reads the news page every morning can subscribe instead; a
feed reader shows each event once, so an entry's id must stay the same
from build to build while the event is news: it is derived from the
source, the kind of event, the test's series and the run the event started
at, never from the build's own time.  ``updated`` is that run's time too,
so an unchanged history gives a byte-identical feed and readers see nothing
new.

Data strings (test names, versions, job names) go through lxml, which
escapes them; control characters, which XML 1.0 cannot hold at all, are
first made visible as on the page.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from lxml import etree

from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.render.times import iso_time
from sphinxcontrib_trending.render.visible import visible

ATOM = "http://www.w3.org/2005/Atom"
MEDIA_TYPE = "application/atom+xml"
_NAMESPACE = uuid.UUID("6f1d8f5e-0c1b-5b7e-9a43-3c2e8d4a7b10")
"""Fixed, so that ids made from the same parts are the same in every build."""


@dataclass(frozen=True)
class FeedEntry:
    """One event, ready to write: ``ref`` is the series whose graph the entry links to."""

    id: str
    title: str
    updated: datetime
    summary: str
    ref: SeriesRef


@dataclass(frozen=True)
class Feed:
    """What the feed says about itself; links are relative to the feed's own folder."""

    id: str
    title: str
    author: str
    updated: datetime
    page: str
    """The page that shows the news (the feed's ``alternate`` link)."""
    self_link: str


def stable_id(*parts: str) -> str:
    """A ``urn:uuid:`` IRI decided by these parts alone (NUL-joined: they cannot run together)."""
    return uuid.uuid5(_NAMESPACE, "\0".join(parts)).urn


def _add(parent: etree._Element, tag: str, text: str | None = None, **attributes: str) -> None:
    element = etree.SubElement(parent, f"{{{ATOM}}}{tag}", attributes)
    if text is not None:
        element.text = visible(text)


def atom_document(feed: Feed, entries: Sequence[tuple[FeedEntry, str]]) -> str:
    """The feed's XML; each entry comes with its link (relative to the feed)."""
    root = etree.Element(f"{{{ATOM}}}feed", nsmap={None: ATOM})
    _add(root, "id", feed.id)
    _add(root, "title", feed.title)
    _add(root, "updated", iso_time(feed.updated))
    author = etree.SubElement(root, f"{{{ATOM}}}author")
    _add(author, "name", feed.author)
    _add(root, "link", rel="alternate", type="text/html", href=visible(feed.page))
    _add(root, "link", rel="self", type=MEDIA_TYPE, href=visible(feed.self_link))
    _add(root, "generator", "sphinxcontrib-trending")
    for entry, link in entries:
        element = etree.SubElement(root, f"{{{ATOM}}}entry")
        _add(element, "id", entry.id)
        _add(element, "title", entry.title)
        _add(element, "updated", iso_time(entry.updated))
        _add(element, "link", rel="alternate", type="text/html", href=visible(link))
        _add(element, "summary", entry.summary)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8", pretty_print=True).decode()
