"""Graph figures kept in files beside the doctrees instead of inside them.

A figure is the bulk of a trend page: tens of kilobytes per graph, tens of
megabytes for a page of two thousand graphs.  Sphinx holds every doctree in
memory from the moment the page is read until the page is written, and
pickles it in between; at CSIT's size figures inside the doctrees cost
most of a gigabyte for the whole build, and the time to pickle them.  The
directive writes each figure to its page's folder under the doctree
directory and the node names the file; the writer reads it back when it
writes the page's data file or image.

A page's folder is emptied when the page is read again or removed, so the
folder holds exactly the figures of the doctrees Sphinx keeps.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

FOLDER = "trending-figures"

_EMPTIED = "trending_figures_emptied"
"""``env.temp_data`` flag: this read of the page has emptied its folder."""


def _folder(env: BuildEnvironment, docname: str) -> Path:
    return Path(env.doctreedir, FOLDER, docname)


def stash_figure(env: BuildEnvironment, name: str, figure: str) -> str:
    """Keep ``figure`` (JSON text) for the page being read; return what names it.

    The key names the page too: builders that gather pages into one
    document (LaTeX, single HTML) resolve a graph under another page's name.

    The first figure of a read empties the folder: a fresh environment
    (``-E``) reads a page without purging what an earlier build left.
    """
    folder = _folder(env, env.docname)
    if not env.temp_data.get(_EMPTIED):
        shutil.rmtree(folder, ignore_errors=True)
        env.temp_data[_EMPTIED] = True
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(figure, encoding="utf-8")
    return f"{env.docname}/{name}"


def figure_text(env: BuildEnvironment, key: str) -> str:
    """The figure :func:`stash_figure` kept under ``key``; ``OSError`` if its file is gone."""
    return Path(env.doctreedir, FOLDER, f"{key}.json").read_text(encoding="utf-8")


def purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    shutil.rmtree(_folder(env, docname), ignore_errors=True)


def register(app: Sphinx) -> None:
    app.connect("env-purge-doc", purge_doc)
