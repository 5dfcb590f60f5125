"""Graph figures kept in files outside the doctrees instead of inside them.

A figure is the bulk of a trend page: tens of kilobytes per graph, tens of
megabytes for a page of two thousand graphs.  Sphinx holds every doctree in
memory from the moment the page is read until the page is written, and
pickles it in between; at CSIT's size figures inside the doctrees cost
most of a gigabyte for the whole build, and the time to pickle them.  In an
interactive HTML build the directive writes each figure as the graph's
data file in the output, once, while the page is read, and the node names
the graph (:class:`_Output`); a build that does not find them there (gone,
or written by another builder or to another folder) reads the page again.
Every other builder gets each figure written to its page's file under the
doctree directory, and the node names where it lies; the writer reads it
back when it draws the graph's image.  A page's table of what its figures
share (:func:`page_runs`) is written beside its figures, once.

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
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from sphinxcontrib_trending.render.page_runs import PageRuns, expand_figure
from sphinxcontrib_trending.render.script_data import script_bytes
from sphinxcontrib_trending.sphinxext import background_writes
from sphinxcontrib_trending.sphinxext.env_records import FigureHome, figure_homes, note_figure_home
from sphinxcontrib_trending.sphinxext.page_files import PageFiles, data_place, interactive

FOLDER = "trending-figures"
SUFFIX = ".figures"
RUNS_SUFFIX = ".runs"
"""The page's table of what its figures share (:mod:`~.render.page_runs`), as JSON."""

_STASH = "trending_figures_stash"
"""``env.temp_data``: the file of the page being read, open for writing its figures."""
_RUNS = "trending_page_runs"
"""``env.temp_data``: the :class:`.PageRuns` of the page being read."""
_OUTPUT = "trending_figures_output"
"""``env.temp_data``: the data files of the page being read, in an interactive HTML build."""

DATA_CALLBACK = "trendingFigure"
"""The function each graph data file calls (defined in trending.js)."""
RUNS_CALLBACK = "trendingRuns"
"""The function a page's table of shared run texts calls (defined in trending.js)."""
RUNS_FILE = "trending-runs.js"
"""The name of a page's table of shared run texts, after the page's own."""


def data_file(graph_id: str, figure: bytes, table: str | None) -> bytes:
    """A graph's data file: it hands the figure to trending.js when loaded, and names
    its page's ``table`` if the figure shares one.

    The figure JSON is script-safe (no ``<``, ``>`` or ``&``), the id is
    ours and the table's name JSON, so the file runs nothing but the one
    call.  Made of the figure's bytes: a page's thousands of figures are
    not decoded only to be encoded again.
    """
    call = f"{DATA_CALLBACK}({json.dumps(f'{graph_id}-figure')},".encode()
    named = b"" if table is None else b"," + json.dumps(table).encode()
    return b"".join((call, figure, named, b");\n"))


@dataclass(frozen=True)
class DataFiles:
    """The graph data files of the page being read, for a figure drawn in another process
    to be written there as its data file (see :mod:`.figure_workers`): the page's files,
    and the name of its table, which such a figure shares."""

    files: PageFiles
    table: str

    def write(self, graph_id: str, figure: bytes) -> None:
        """Write the data file of graph ``graph_id`` (as :func:`stash_figure` would)."""
        self.files.write(f"{graph_id}.js", data_file(graph_id, figure, self.table))


def data_files(env: BuildEnvironment) -> DataFiles | None:
    """Where the page being read writes its figures as they are drawn: None unless it is
    an interactive HTML build's (see :class:`_Output`)."""
    output: _Output | None = env.temp_data.get(_OUTPUT)
    return None if output is None else DataFiles(output.files, env.docname)


def note_written(env: BuildEnvironment, graph_id: str) -> str:
    """The key of graph ``graph_id``'s figure, sharing its page's table, that
    :meth:`DataFiles.write` wrote (what :func:`stash_figure` returns had it written it)."""
    output: _Output = env.temp_data[_OUTPUT]
    output.names.append(output.files.name(f"{graph_id}.js"))
    return f"{env.docname}/{graph_id}{IN_OUTPUT}{SHARES_TABLE}"


def runs_file(table: str, data: bytes) -> bytes:
    """The file of page ``table``'s table (script-safe JSON ``data``), handed to trending.js."""
    return b"".join((f"{RUNS_CALLBACK}(".encode(), json.dumps(table).encode(), b",", data, b");\n"))


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
    data = figure if isinstance(figure, bytes) else figure.encode("utf-8")
    output: _Output | None = env.temp_data.get(_OUTPUT)
    if output is not None:
        output.write(name, data, env.docname if shares_table else None)
        return f"{env.docname}/{name}{IN_OUTPUT}{SHARES_TABLE if shares_table else ''}"
    stash: _Stash | None = env.temp_data.get(_STASH)
    if stash is None:
        path = _page_file(env, env.docname)
        path.parent.mkdir(parents=True, exist_ok=True)
        # open for the whole read of the page: closed when the read ends (_finish_page)
        stash = _Stash(open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o666), "wb"))  # noqa: SIM115
        env.temp_data[_STASH] = stash
    offset = stash.length
    stash.length += len(data)
    background_writes.submit(stash.file.write, data)
    return f"{env.docname}/{name}:{offset}:{len(data)}{SHARES_TABLE if shares_table else ''}"


SHARES_TABLE = ":t"
"""The end of the key of a figure that names rows of its page's table."""
IN_OUTPUT = ":out"
"""Ends the key of a figure written as its data file while the page was read (then
:data:`SHARES_TABLE` if it shares its page's table)."""


def in_output(key: str) -> bool:
    """Whether the figure of ``key`` lies in its data file, written while its page was read."""
    return key.removesuffix(SHARES_TABLE).endswith(IN_OUTPUT)


def shares_table(key: str) -> bool:
    return key.endswith(SHARES_TABLE)


def _parts(key: str) -> tuple[str, str, str]:
    """The page and graph, the offset and the length a key names."""
    if in_output(key):
        raise OSError("it was written to an HTML build's output")
    name, offset, length = key.removesuffix(SHARES_TABLE).rsplit(":", 2)
    return name, offset, length


def output_home(app: Sphinx) -> str:
    """Where this build writes the figures of the pages it reads: the output of an
    interactive HTML build (``builder:outdir``), or "" for beside the doctrees."""
    return f"{app.builder.name}:{app.outdir}" if interactive(app) else ""


class _Output:
    """The data files of the page being read, written to an interactive HTML build's
    output as the page's figures are drawn: each figure is written once, not kept
    beside the doctree and copied to its data file when the page is written.

    The build knows where they are (:class:`.FigureHome`): a build of
    another builder or output, or one that finds a file gone, reads the
    page again (:func:`_outdated_figures`).
    """

    def __init__(self, app: Sphinx, docname: str) -> None:
        self.home = output_home(app)
        self.folder, stem = data_place(app, docname)
        self.files = PageFiles(app, docname, (self.folder, stem))
        self.names: list[str] = []

    def write(self, graph_id: str, figure: bytes, table: str | None) -> None:
        self.names.append(
            self.files.write_in_background(f"{graph_id}.js", data_file(graph_id, figure, table))
        )

    def finish(self, docname: str, runs: PageRuns | None) -> FigureHome | None:
        """Write the page's table, if any; return where its files are, once written."""
        if runs:
            table = runs_file(docname, script_bytes(runs.table()))
            self.names.append(self.files.write_in_background(RUNS_FILE, table))
        background_writes.wait()  # a parallel reader's process ends with its pages
        if not self.names:
            return None
        return FigureHome(self.home, "\n".join(posixpath.join(self.folder, n) for n in self.names))


def _start_page(app: Sphinx, docname: str, source: list[str]) -> None:
    """In an interactive HTML build, the page's figures go to its data files as drawn."""
    if interactive(app):
        app.env.temp_data[_OUTPUT] = _Output(app, docname)


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
    bare = key.removesuffix(SHARES_TABLE)
    if bare.endswith(IN_OUTPUT):
        return bare.removesuffix(IN_OUTPUT)
    return bare.rsplit(":", 2)[0]


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
        """The figure kept under ``key``, as UTF-8; ``OSError`` if its file is gone or
        the figure was written to an HTML build's output (:func:`in_output`)."""
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
        if not shares_table(key):
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
    keep the table its figures share, if any; note where they lie."""
    env, docname = app.env, app.env.docname
    _remove_figures_of_before(env, docname)
    runs: PageRuns | None = env.temp_data.pop(_RUNS, None)
    output: _Output | None = env.temp_data.pop(_OUTPUT, None)
    table = _page_file(env, docname, RUNS_SUFFIX)
    if output is not None:
        table.unlink(missing_ok=True)
        _page_file(env, docname).unlink(missing_ok=True)
        note_figure_home(env, docname, output.finish(docname, runs))
        return
    if runs:
        table.parent.mkdir(parents=True, exist_ok=True)
        background_writes.submit(table.write_bytes, script_bytes(runs.table()))
    else:
        table.unlink(missing_ok=True)
    stash: _Stash | None = env.temp_data.pop(_STASH, None)
    if stash is None:
        _page_file(env, docname).unlink(missing_ok=True)
        note_figure_home(env, docname, None)
        return
    with stash.file:
        background_writes.wait()
        stash.file.truncate(stash.length)
    kept = [docname + SUFFIX, *([docname + RUNS_SUFFIX] if runs else [])]
    note_figure_home(env, docname, FigureHome("", "\n".join(kept)))


def _outdated_figures(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Pages to read again because their figures are not where this build finds them:
    written to another builder's or folder's output, or beside the doctrees for an
    interactive HTML build (or the other way round), or with a file gone."""
    home = output_home(app)
    root = str(app.outdir) if home else os.path.join(env.doctreedir, FOLDER)
    listed: dict[str, set[str]] = {}
    outdated = []
    for docname, kept in figure_homes(env).items():
        if docname in removed or docname in changed:
            continue
        if kept.output != home or not _all_there(root, kept.files.split("\n"), listed):
            outdated.append(docname)
    return outdated


def _all_there(root: str, paths: list[str], listed: dict[str, set[str]]) -> bool:
    """Whether every file of ``paths`` (relative to ``root``) is there; each folder is
    listed once (``listed``), not each file looked up."""
    for path in paths:
        folder, name = posixpath.split(path)
        names = listed.get(folder)
        if names is None:
            try:
                names = listed[folder] = set(os.listdir(os.path.join(root, folder)))
            except OSError:
                names = listed[folder] = set()
        if name not in names:
            return False
    return True


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
    app.connect("source-read", _start_page)
    app.connect("doctree-read", _finish_page)
    app.connect("env-purge-doc", purge_doc)
    app.connect("env-get-outdated", _outdated_figures)
