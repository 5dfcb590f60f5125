"""Files that belong to one page (CSV downloads, graph data), written beside it.

They are written while the page's doctree is resolved, which Sphinx does in
the main process even for a parallel write, so no two workers write one
file.  A file is linked relative to its page, so the site works from any
folder and from ``file://``.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from sphinx.application import Sphinx

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
    name = f"{posixpath.basename(docname)}.{suffix}"
    path = Path(app.outdir, page_dir(app, docname), name)
    data = text.encode("utf-8")
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        if size == len(data) and path.read_bytes() == data:
            return name
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o666), "wb") as out:
        out.write(data)
        out.truncate()
    return name
