"""Graph figures wait for the writer in files beside the doctrees, not inside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docutils import nodes
from sphinx.environment import BuildEnvironment
from sphinx.testing.util import SphinxTestApp

from sphinxcontrib_trending.sphinxext import figure_files
from sphinxcontrib_trending.sphinxext.figure_files import (
    FOLDER,
    RUNS_SUFFIX,
    SHARES_TABLE,
    SUFFIX,
    FigureReader,
    figure_text,
)
from sphinxcontrib_trending.sphinxext.nodes import (
    DATA_CALLBACK,
    RUNS_CALLBACK,
    RUNS_FILE,
    GraphEntry,
    graph_entries,
    resolve,
    trending_graph,
    trending_graphs,
)
from tests.sphinxext.conftest import SiteFactory


def _entries(doctree: nodes.document) -> list[GraphEntry]:
    """The per-test graphs of a page, as its doctree keeps them."""
    return [entry for group in doctree.findall(trending_graphs) for entry in graph_entries(group)]


def _figures(app: SphinxTestApp, page: str, suffix: str = SUFFIX) -> Path:
    return Path(app.doctreedir, FOLDER, page + suffix)


def test_the_doctree_names_its_figures_and_the_data_files_carry_them(
    site: SiteFactory,
) -> None:
    app = site()
    app.build()
    graphs = _entries(app.env.get_doctree("graphs"))
    assert len(graphs) == 5  # one per test of the data set
    pickled = Path(app.doctreedir, "graphs.doctree").read_bytes()
    outdir = Path(app.outdir)
    figures = []
    for graph in graphs:
        graph_id = graph.graph_id
        assert graph.figure.startswith(f"graphs/{graph_id}:")
        assert graph.figure.endswith(SHARES_TABLE)
        figure = figure_text(app.env, graph.figure)
        figures.append(figure)
        assert json.loads(figure)["data"]  # a figure, with its traces
        assert figure[:200].encode() not in pickled
        data_file = (outdir / f"graphs.{graph_id}.js").read_text()
        call = (
            f"{DATA_CALLBACK}({json.dumps(graph_id + '-figure')},{figure},{json.dumps('graphs')});"
        )
        assert data_file == call + "\n"
    # the page's file holds its figures one after another, and nothing else
    assert _figures(app, "graphs").read_text(encoding="utf-8") == "".join(figures)
    # and the table they share, once, beside them and in a file of the page
    table = _figures(app, "graphs", RUNS_SUFFIX).read_text(encoding="utf-8")
    assert json.loads(table)["shown"]
    shared = (outdir / f"graphs.{RUNS_FILE}").read_text()
    assert shared == f'{RUNS_CALLBACK}("graphs",{table});\n'


def test_a_page_read_again_keeps_only_the_figures_of_that_read(site: SiteFactory) -> None:
    app = site()
    app.build()
    before = _figures(app, "graphs").stat().st_size
    page = Path(app.srcdir, "graphs.rst")
    page.write_text(page.read_text().replace(":per-test:", ":tests: regress"))
    app.build()
    (graph,) = app.env.get_doctree("graphs").findall(trending_graph)
    figure = figure_text(app.env, graph["figure"])
    assert graph["figure"] == f"graphs/trending-graph-0:0:{len(figure.encode())}{SHARES_TABLE}"
    assert _figures(app, "graphs").read_text(encoding="utf-8") == figure  # no old tail
    assert len(figure.encode()) < before


def test_a_page_read_again_without_graphs_loses_its_figures(site: SiteFactory) -> None:
    app = site()
    app.build()
    assert _figures(app, "graphs").is_file()
    page = Path(app.srcdir, "graphs.rst")
    page.write_text("Graphs\n======\n\nNo graph here any more.\n")
    app.build()
    assert not _figures(app, "graphs").exists()


def test_a_removed_page_takes_its_figures_with_it(site: SiteFactory) -> None:
    app = site()
    app.build()
    assert _figures(app, "graphs").is_file()
    assert _figures(app, "graphs", RUNS_SUFFIX).is_file()
    Path(app.srcdir, "graphs.rst").unlink()
    app.build()
    assert not _figures(app, "graphs").exists()
    assert not _figures(app, "graphs", RUNS_SUFFIX).exists()
    assert _figures(app, "graphs").parent.is_dir()


def test_a_figure_file_gone_before_the_page_is_written_is_a_located_warning(
    site: SiteFactory,
) -> None:
    app = site()
    app.build()
    _figures(app, "graphs").unlink()
    app.builder.build_all()  # writes every page, reads none
    warnings = app.warning.getvalue()
    assert "graphs.rst" in warnings
    assert "the data of graph 'graphs/trending-graph-0' is gone" in warnings
    assert "[trending.cache]" in warnings
    html = Path(app.outdir, "graphs.html").read_text()
    assert "interactive graph of 1 test(s), shown in the HTML version" in html
    assert 'class="trending-graph-plot"' not in html


def test_a_table_gone_before_the_page_is_written_is_a_located_warning(
    site: SiteFactory,
) -> None:
    app = site()
    app.build()
    _figures(app, "graphs", RUNS_SUFFIX).unlink()
    app.builder.build_all()  # writes every page, reads none
    warnings = app.warning.getvalue()
    assert "the data of graph 'graphs/trending-graph-0' is gone" in warnings
    html = Path(app.outdir, "graphs.html").read_text()
    assert 'class="trending-graph-plot"' not in html  # no graph left to draw half a figure


def test_a_page_read_again_removes_the_figure_files_of_earlier_releases(
    site: SiteFactory,
) -> None:
    app = site()
    app.build()
    old = Path(app.doctreedir, FOLDER, "graphs")
    old.mkdir()
    (old / "trending-graph-0.json").write_text("{}")
    page = Path(app.srcdir, "graphs.rst")
    page.write_text(page.read_text() + "\n")
    app.build()
    assert not old.exists()
    assert _figures(app, "graphs").is_file()


def test_a_page_s_figures_are_read_from_its_file_opened_once(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = site()
    app.build()
    doctree = app.env.get_doctree("graphs")
    keys = [graph.figure for graph in _entries(doctree)]
    expected = [figure_text(app.env, key) for key in keys]
    opened = []
    page_file = figure_files._page_file

    def counted(env: BuildEnvironment, docname: str, suffix: str = SUFFIX) -> Path:
        opened.append(docname + suffix)
        return page_file(env, docname, suffix)

    monkeypatch.setattr(figure_files, "_page_file", counted)
    with FigureReader(app.env) as figures:
        assert [figures.data(key).decode() for key in reversed(keys)] == expected[::-1]
    assert opened == ["graphs" + SUFFIX]
    opened.clear()
    resolve(app, doctree, "graphs")  # as the writer does, for the page's five graphs
    assert opened == ["graphs" + SUFFIX, "graphs" + RUNS_SUFFIX]
