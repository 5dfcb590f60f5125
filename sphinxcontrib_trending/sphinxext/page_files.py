"""Files that belong to one page (CSV downloads, graph data), written beside it.

They are written while the page's doctree is resolved, which Sphinx does in
the main process even for a parallel write, so no two workers write one
file.  A file is linked relative to its page, so the site works from any
folder and from ``file://``.
"""

from __future__ import annotations

import os
import posixpath

from sphinx.application import Sphinx

from sphinxcontrib_trending.sphinxext import background_writes

INTERACTIVE_BUILDERS = frozenset({"html", "dirhtml", "singlehtml"})
"""Builders whose pages run our JavaScript: graphs drawn by Plotly, CSV links.

Epub is HTML too, but readers run no scripts and its manifest takes no CSV,
so it gets static images like LaTeX.
"""


def interactive(app: Sphinx) -> bool:
    return app.builder.format == "html" and app.builder.name in INTERACTIVE_BUILDERS


def page_dir(app: Sphinx, docname: str) -> str:
    """The output folder of a page, relative to the output root."""
    return posixpath.dirname(app.builder.get_target_uri(docname))


def data_place(app: Sphinx, docname: str) -> tuple[str, str]:
    """The folder (relative to the output root) and the name's stem of the graph data
    files of page ``docname``, written while it is read: beside the page, or where
    its source lies for a builder that gathers every page into one (single HTML),
    so no two pages' files share a name."""
    if app.builder.name == "singlehtml":
        return posixpath.dirname(docname), posixpath.basename(docname)
    return page_dir(app, docname), posixpath.basename(docname)


def write_page_file(app: Sphinx, docname: str, suffix: str, text: str) -> str:
    """Write ``<page>.<suffix>`` beside the page; return its URL relative to the page.

    An unchanged file is left alone, so a rebuild keeps its time stamp.  A
    changed one is written over in place and then cut to its new length,
    not emptied first: emptying frees the file's blocks, and on a busy disk
    each freeing waited on the file system's journal (a graph page's
    thousands of data files, every one changed by a new build, took
    seconds).  Written over, the file keeps its blocks and grows by the new
    run's bytes.
    """
    return PageFiles(app, docname).write(suffix, text.encode("utf-8"))


class PageFiles:
    """The files of one page, as :func:`write_page_file` writes them, of bytes already encoded.

    A graph page writes thousands of these: the page's folder is found once,
    not per file, and each file is written with the operating system's calls
    alone (no buffered file object), cut only when it was longer than its
    new bytes.
    """

    def __init__(self, app: Sphinx, docname: str, place: tuple[str, str] | None = None) -> None:
        """The files of page ``docname``; ``place`` (folder and stem, as
        :func:`data_place` gives them) if not beside the page."""
        folder, self._stem = place or (page_dir(app, docname), posixpath.basename(docname))
        self._folder = os.path.join(app.outdir, folder)

    def name(self, suffix: str) -> str:
        """The name of the page's file ending in ``suffix``."""
        return f"{self._stem}.{suffix}"

    def write(self, suffix: str, data: bytes) -> str:
        name = self.name(suffix)
        self._write(name, data)
        return name

    def write_in_background(self, suffix: str, data: bytes) -> str:
        """:meth:`write` on the writing thread (:mod:`.background_writes`), which the
        build waits for before it ends: a graph page's thousands of data files."""
        name = self.name(suffix)
        background_writes.submit(self._write, name, data)
        return name

    def _write(self, name: str, data: bytes) -> None:
        path = os.path.join(self._folder, name)
        try:
            size = os.stat(path).st_size
        except FileNotFoundError:
            os.makedirs(self._folder, exist_ok=True)
            size = 0
        else:
            if size == len(data) and _read(path) == data:
                return
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
        try:
            written = 0
            while written < len(data):  # a write may take only part of a large file
                written += os.pwrite(descriptor, data[written:], written)
            if size > len(data):
                os.ftruncate(descriptor, len(data))
        finally:
            os.close(descriptor)


def _read(path: str) -> bytes:
    with open(path, "rb") as existing:
        return existing.read()
