"""Graph figures kept in files beside the doctrees instead of inside them.

A figure is the bulk of a trend page: tens of kilobytes per graph, tens of
megabytes for a page of two thousand graphs.  Sphinx holds every doctree in
memory from the moment the page is read until the page is written, and
pickles it in between; at CSIT's size figures inside the doctrees cost
most of a gigabyte for the whole build, and the time to pickle them.  The
directive writes each figure to its page's file under the doctree
directory and the node names where it lies; the writer reads it back when
it writes the page's data file or image.

A page's figures are one file, written front to back while the page is
read (on the writing thread of :mod:`.background_writes`, while the page
goes on) and cut to length when the read ends: a file per figure cost a page
of two thousand graphs four thousand files removed and made again on every
read, each a wait on a busy disk's journal.  The file is written over in
place, not emptied, for the same reason (see
:func:`~.page_files.write_page_file`).  A page read without graphs, or
removed, loses its file, so the folder holds exactly the figures of the
doctrees Sphinx keeps.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, BinaryIO

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from sphinxcontrib_trending.render.page_runs import PageRuns, expand_figure
from sphinxcontrib_trending.render.script_data import script_bytes
from sphinxcontrib_trending.sphinxext import background_writes

FOLDER = "trending-figures"
SUFFIX = ".figures"
RUNS_SUFFIX = ".runs"
"""The page's table of what its figures share (:mod:`~.render.page_runs`), as JSON."""

_STASH = "trending_figures_stash"
"""``env.temp_data``: the file of the page being read, open for writing its figures."""
_RUNS = "trending_page_runs"
"""``env.temp_data``: the :class:`.PageRuns` of the page being read."""


def _page_file(env: BuildEnvironment, docname: str, suffix: str = SUFFIX) -> Path:
    return Path(env.doctreedir, FOLDER, docname + suffix)


def page_runs(env: BuildEnvironment) -> PageRuns:
    """The table of what the figures of the page being read share, kept with its figures
    when the read ends; the page's figures drawn with it name its rows."""
    runs: PageRuns | None = env.temp_data.get(_RUNS)
    if runs is None:
        runs = env.temp_data[_RUNS] = PageRuns()
    return runs


def stash_figure(
    env: BuildEnvironment, name: str, figure: str | bytes, shares_table: bool = False
) -> str:
    """Keep ``figure`` (JSON, a text or its UTF-8) for the page being read; return
    what names it.

    The key names the page, the graph and where its figure lies in the
    page's file (``graphs/trending-graph-0:0:38211``), and ends in
    :data:`SHARES_TABLE` if the figure names rows of the page's table
    (``shares_table``, see :func:`page_runs`).  It names the page because
    builders that gather pages into one document (LaTeX, single HTML)
    resolve a graph under another page's name.
    """
    stash: _Stash | None = env.temp_data.get(_STASH)
    if stash is None:
        path = _page_file(env, env.docname)
        path.parent.mkdir(parents=True, exist_ok=True)
        # open for the whole read of the page: closed when the read ends (_finish_page)
        stash = _Stash(open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o666), "wb"))  # noqa: SIM115
        env.temp_data[_STASH] = stash
    data = figure if isinstance(figure, bytes) else figure.encode("utf-8")
    offset = stash.length
    stash.length += len(data)
    background_writes.submit(stash.file.write, data)
    return f"{env.docname}/{name}:{offset}:{len(data)}{SHARES_TABLE if shares_table else ''}"


SHARES_TABLE = ":t"
"""The end of the key of a figure that names rows of its page's table."""


def _parts(key: str) -> tuple[str, str, str]:
    """The page and graph, the offset and the length a key names."""
    name, offset, length = key.removesuffix(SHARES_TABLE).rsplit(":", 2)
    return name, offset, length


class _Stash:
    """The file of the page being read, and how long it is once its figures are written.

    The figures are written on the writing thread (:mod:`.background_writes`)
    while the page goes on: where each one lies is known before it is written.
    """

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        self.length = 0


def figure_name(key: str) -> str:
    """The page and graph a key names (``graphs/trending-graph-0``), for messages."""
    return _parts(key)[0]


def figure_page(key: str) -> str:
    """The page whose read kept the figure of ``key``."""
    return figure_name(key).rsplit("/", 1)[0]


def figure_text(env: BuildEnvironment, key: str) -> str:
    """The figure :func:`stash_figure` kept under ``key``; ``OSError`` if its file is gone."""
    with FigureReader(env) as figures:
        return figures.data(key).decode("utf-8")


def whole_figure(env: BuildEnvironment, key: str) -> dict[str, Any]:
    """The figure :func:`stash_figure` kept under ``key``, whole (see
    :meth:`FigureReader.figure`); ``OSError`` if its file is gone."""
    with FigureReader(env) as figures:
        return figures.figure(key)


class FigureReader:
    """Reads the figures :func:`stash_figure` kept, each page's file opened once.

    A page of two thousand graphs opened its file two thousand times, once
    per figure, when it was written.  Use it as a context manager: the
    files close when it ends.
    """

    def __init__(self, env: BuildEnvironment) -> None:
        self._env = env
        self._files: dict[str, BinaryIO] = {}
        self._tables: dict[str, bytes] = {}

    def __enter__(self) -> FigureReader:
        return self

    def __exit__(self, *exception: object) -> None:
        for stash in self._files.values():
            stash.close()
        self._files.clear()

    def data(self, key: str) -> bytes:
        """The figure kept under ``key``, as UTF-8; ``OSError`` if its file is gone."""
        name, offset, length = _parts(key)
        docname = name.rsplit("/", 1)[0]
        stash = self._files.get(docname)
        if stash is None:
            stash = self._files[docname] = _page_file(self._env, docname).open("rb")
        stash.seek(int(offset))
        data = stash.read(int(length))
        if len(data) != int(length):
            raise OSError(f"the figures of {docname!r} are cut short")
        return data

    def table(self, key: str) -> bytes | None:
        """The table of the page whose figure ``key`` names (see :func:`page_runs`), as
        script-safe JSON; None if the figure names none; ``OSError`` if it is gone."""
        if not key.endswith(SHARES_TABLE):
            return None
        docname = figure_page(key)
        table = self._tables.get(docname)
        if table is None:
            table = self._tables[docname] = _page_file(self._env, docname, RUNS_SUFFIX).read_bytes()
        return table

    def figure(self, key: str) -> dict[str, Any]:
        """The figure kept under ``key``, whole: what it names of its page's table put back."""
        table = self.table(key)
        figure = json.loads(self.data(key))
        return expand_figure(figure, None if table is None else json.loads(table))


def _finish_page(app: Sphinx, doctree: nodes.document) -> None:
    """Cut the page's file after its last figure, or remove it when the read kept none;
    keep the table its figures share, if any."""
    _remove_figures_of_before(app.env, app.env.docname)
    runs: PageRuns | None = app.env.temp_data.pop(_RUNS, None)
    table = _page_file(app.env, app.env.docname, RUNS_SUFFIX)
    if runs:
        table.parent.mkdir(parents=True, exist_ok=True)
        background_writes.submit(table.write_bytes, script_bytes(runs.table()))
    else:
        table.unlink(missing_ok=True)
    stash: _Stash | None = app.env.temp_data.pop(_STASH, None)
    if stash is None:
        _page_file(app.env, app.env.docname).unlink(missing_ok=True)
        return
    with stash.file:
        background_writes.wait()
        stash.file.truncate(stash.length)


def _remove_figures_of_before(env: BuildEnvironment, docname: str) -> None:
    """Remove the figures of earlier releases, a file each (``<page>/<graph>.json``).

    They would otherwise stay for good: a full-size site's hundreds of
    megabytes.  The folder itself goes only if that empties it, for it may
    hold the files of pages below this one.
    """
    folder = Path(env.doctreedir, FOLDER, docname)
    try:
        old = [entry.path for entry in os.scandir(folder) if entry.name.endswith(".json")]
    except OSError:  # none: the usual case
        return
    for path in old:
        os.unlink(path)
    with contextlib.suppress(OSError):
        folder.rmdir()


def purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    """A removed page's figures go; a page about to be read again writes over its file."""
    if docname not in env.found_docs:
        _page_file(env, docname).unlink(missing_ok=True)
        _page_file(env, docname, RUNS_SUFFIX).unlink(missing_ok=True)


def register(app: Sphinx) -> None:
    app.connect("doctree-read", _finish_page)
    app.connect("env-purge-doc", purge_doc)
