"""Reading a built test site's HTML pages and table cells, for the site tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lxml.html

from sphinxcontrib_trending.render.page_runs import expand_figure

DATA_CALL = re.compile(r"^trendingFigure\((.*)\);\n$", re.DOTALL)
RUNS_CALL = re.compile(r"^trendingRuns\((.*)\);\n$", re.DOTALL)


def page(outdir: str | Path, name: str) -> lxml.html.HtmlElement:
    return lxml.html.fromstring((Path(outdir) / f"{name}.html").read_bytes())


def cells(table: lxml.html.HtmlElement) -> list[list[str]]:
    """The stripped text of each body row's data cells."""
    return [
        [td.text_content().strip() for td in tr.xpath("./td")] for tr in table.xpath("./tbody/tr")
    ]


def figures(outdir: str | Path, name: str) -> dict[str, dict]:
    """Each graph's figure on a page, by figure id, read from the data file it loads and
    put back together with its page's table, as trending.js does (see
    :func:`~.page_runs.expand_figure`, checked against the script in test_page_runs)."""
    return {
        figure_id: expand_figure(figure, table)
        for figure_id, (figure, table) in data_files(outdir, name).items()
    }


def data_files(outdir: str | Path, name: str) -> dict[str, tuple[dict, dict | None]]:
    """Each graph's figure on a page as its data file holds it, and its page's table (None
    if it names none), by figure id."""
    html = page(outdir, name)
    folder = (Path(outdir) / name).parent
    result = {}
    for plot in html.xpath("//div[@class='trending-graph-plot']"):
        text = (folder / plot.get("data-src")).read_text()
        call = DATA_CALL.match(text)
        assert call is not None, text[:200]
        figure_id, figure, *names = json.loads(f"[{call.group(1)}]")
        assert figure_id == plot.get("data-figure"), text[:200]
        table = None
        if names:
            runs = RUNS_CALL.match((folder / plot.get("data-runs")).read_text())
            assert runs is not None
            table_name, table = json.loads(f"[{runs.group(1)}]")
            assert names == [table_name]
        result[figure_id] = (figure, table)
    return result


def dashboard_rows(page: lxml.html.HtmlElement) -> dict[str, dict[str, str]]:
    """The page's one dashboard: each row by its test name, its cells by column header."""
    (table,) = page.xpath("//table[contains(@class, 'trending-dashboard')]")
    header = [th.text_content().strip() for th in table.xpath("./thead//th")]
    return {row[0]: dict(zip(header, row, strict=True)) for row in cells(table)}


def change_counts(outdir: str | Path) -> tuple[str, str]:
    """The Regressions and Progressions cells of the index page's one table row."""
    (row,) = dashboard_rows(page(outdir, "index")).values()
    return row["Regressions [#]"], row["Progressions [#]"]


def traces(outdir: str | Path, name: str = "index") -> dict[str, dict]:
    """The traces of the page's one graph, by trace name."""
    (figure,) = figures(outdir, name).values()
    return {trace["name"]: trace for trace in figure["data"]}
