"""Graph figures wait for the writer in files beside the doctrees, not inside them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from docutils import nodes
from sphinx.environment import BuildEnvironment
from sphinx.testing.util import SphinxTestApp

from sphinxcontrib_trending.sphinxext import figure_files
from sphinxcontrib_trending.sphinxext.figure_files import (
    FOLDER,
    IN_OUTPUT,
    RUNS_CALLBACK,
    RUNS_FILE,
    RUNS_SUFFIX,
    SHARES_TABLE,
    SUFFIX,
    FigureReader,
    figure_text,
)
from sphinxcontrib_trending.sphinxext.nodes import (
    GraphEntry,
    graph_entries,
    resolve,
    trending_graph,
    trending_graphs,
)
from sphinxcontrib_trending.sphinxext.page_files import PageFiles
from tests.sphinxext import built_html, datasets
from tests.sphinxext.conftest import SiteFactory


def _entries(doctree: nodes.document) -> list[GraphEntry]:
    """The per-test graphs of a page, as its doctree keeps them."""
    return [entry for group in doctree.findall(trending_graphs) for entry in graph_entries(group)]


def _figures(app: SphinxTestApp, page: str, suffix: str = SUFFIX) -> Path:
    return Path(app.doctreedir, FOLDER, page + suffix)


def test_an_html_build_writes_each_figure_once_as_its_data_file(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = site()
    app.build()
    graphs = _entries(app.env.get_doctree("graphs"))
    assert len(graphs) == 5  # one per test of the data set
    pickled = Path(app.doctreedir, "graphs.doctree").read_bytes()
    outdir = Path(app.outdir)
    table = json.dumps("graphs")
    for graph in graphs:
        graph_id = graph.graph_id
        assert graph.figure == f"graphs/{graph_id}{IN_OUTPUT}{SHARES_TABLE}"
        call = DATA_CALL.match((outdir / f"graphs.{graph_id}.js").read_text())
        assert call is not None and call.group(1) == json.dumps(f"{graph_id}-figure")
        assert call.group(3) == table  # the page's table, in a file of its own
        assert json.loads(call.group(2))["data"]  # a figure, with its traces
        assert call.group(2)[:200].encode() not in pickled
    shared = (outdir / f"graphs.{RUNS_FILE}").read_text()
    assert shared.startswith(f"{RUNS_CALLBACK}({table},")
    assert not _figures(app, "graphs").exists()  # nothing kept beside the doctrees
    assert not _figures(app, "graphs", RUNS_SUFFIX).exists()
    written = []
    write = PageFiles._write

    def noted(self: PageFiles, name: str, data: bytes) -> None:
        written.append(name)
        write(self, name, data)

    monkeypatch.setattr(PageFiles, "_write", noted)
    app.builder.build_all()  # writes every page, reads none
    assert not [name for name in written if name.endswith(".js")]  # written once, when read
    assert built_html.figures(outdir, "graphs")


DATA_CALL = re.compile(r'^trendingFigure\(("[^"]+"),(.*),("[^"]+")\);\n$', re.DOTALL)


def test_a_page_whose_data_file_is_gone_is_read_again(site: SiteFactory) -> None:
    app = site()
    app.build()
    gone = Path(app.outdir, "graphs.trending-graph-3.js")
    kept = gone.read_text()
    gone.unlink()
    app.build()
    assert gone.read_text() == kept  # only a read writes it


def test_another_builder_on_the_same_doctrees_reads_the_graph_pages_again(
    site: SiteFactory, make_app: Callable[..., SphinxTestApp]
) -> None:
    """The builders of ``make -M`` share one doctree folder: a LaTeX build after an HTML
    one finds no figure beside the doctrees, an HTML one after it none in its output."""
    html = site()
    html.build()
    latex = make_app("latex", srcdir=Path(html.srcdir))
    assert latex.doctreedir == html.doctreedir
    latex.build()
    assert "is gone" not in latex.warning.getvalue()
    tex = next(Path(latex.outdir).glob("*.tex")).read_text()
    assert "shown in the HTML version" not in tex
    assert tex.count("\\sphinxincludegraphics{{trending/graph-") == len(datasets.TESTS)
    Path(html.outdir, "graphs.trending-graph-0.js").unlink()
    again = make_app("html", srcdir=Path(html.srcdir))
    again.build()
    assert "is gone" not in again.warning.getvalue()
    assert len(built_html.figures(again.outdir, "graphs")) == len(datasets.TESTS)


def test_a_page_read_again_keeps_only_the_figures_of_that_read(site: SiteFactory) -> None:
    app = site(builder="text")  # kept beside the doctrees: no data file to write them to
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
    app = site(builder="text")
    app.build()
    assert _figures(app, "graphs").is_file()
    page = Path(app.srcdir, "graphs.rst")
    page.write_text("Graphs\n======\n\nNo graph here any more.\n")
    app.build()
    assert not _figures(app, "graphs").exists()


def test_a_removed_page_takes_its_figures_with_it(site: SiteFactory) -> None:
    app = site(builder="text")
    app.build()
    assert _figures(app, "graphs").is_file()
    assert _figures(app, "graphs", RUNS_SUFFIX).is_file()
    Path(app.srcdir, "graphs.rst").unlink()
    app.build()
    assert not _figures(app, "graphs").exists()
    assert not _figures(app, "graphs", RUNS_SUFFIX).exists()
    assert _figures(app, "graphs").parent.is_dir()


def test_a_page_whose_figures_are_gone_is_read_again(site: SiteFactory) -> None:
    app = site(builder="text")
    app.build()
    kept = _figures(app, "graphs").read_bytes()
    _figures(app, "graphs").unlink()
    app.build()
    assert _figures(app, "graphs").read_bytes() == kept


def _removed_once_read(app: SphinxTestApp, path: Path) -> None:
    """Remove ``path`` when the pages are read, before any is written."""
    app.connect("env-updated", lambda app, env: path.unlink())


def test_a_figure_file_gone_before_the_page_is_written_is_a_located_warning(
    site: SiteFactory,
) -> None:
    app = site(builder="latex")
    _removed_once_read(app, _figures(app, "graphs"))
    app.build()
    warnings = app.warning.getvalue()
    assert "graphs.rst" in warnings
    assert "the data of graph 'graphs/trending-graph-0' is gone" in warnings
    assert "[trending.cache]" in warnings
    tex = next(Path(app.outdir).glob("*.tex")).read_text()
    assert "interactive graph of 1 test(s), shown in the HTML version" in tex


def test_a_table_gone_before_the_page_is_written_is_a_located_warning(
    site: SiteFactory,
) -> None:
    app = site(builder="latex")
    _removed_once_read(app, _figures(app, "graphs", RUNS_SUFFIX))
    app.build()
    warnings = app.warning.getvalue()
    assert "the data of graph 'graphs/trending-graph-0' is gone" in warnings
    tex = next(Path(app.outdir).glob("*.tex")).read_text()
    assert "interactive graph of 1 test(s), shown in the HTML version" in tex  # not half drawn


def test_a_page_read_again_removes_the_figure_files_of_earlier_releases(
    site: SiteFactory,
) -> None:
    app = site(builder="text")
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
    app = site(builder="latex")
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
    resolve(app, doctree, "graphs")  # as the writer does, for the page's five images
    assert sorted(opened) == ["graphs" + SUFFIX, "graphs" + RUNS_SUFFIX]


@pytest.mark.parametrize("builder", ["html", "dirhtml", "singlehtml"])
def test_a_graph_page_in_a_folder_links_the_data_files_its_read_wrote(
    site: SiteFactory, builder: str
) -> None:
    app = site(builder=builder)
    source = Path(app.srcdir)
    (source / "sub").mkdir()
    (source / "sub" / "graphs.rst").write_text((source / "graphs.rst").read_text())
    index = source / "index.rst"
    index.write_text(index.read_text().replace("   graphs\n", "   graphs\n   sub/graphs\n"))
    app.build()
    page = {"html": "sub/graphs", "dirhtml": "sub/graphs/index", "singlehtml": "index"}[builder]
    plots = built_html.page(app.outdir, page).xpath("//div[@class='trending-graph-plot']")
    # a single page holds both graph pages' graphs, each page's own files linked
    assert len(plots) == len(datasets.TESTS) * (2 if builder == "singlehtml" else 1)
    sources = {plot.get("data-runs") for plot in plots}
    expected = {"singlehtml": {"graphs.trending-runs.js", "sub/graphs.trending-runs.js"}}
    assert sources == expected.get(builder, {"graphs.trending-runs.js"})
    assert built_html.figures(app.outdir, page)
