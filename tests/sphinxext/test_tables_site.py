"""Tables people can use, read from the built site: CSV downloads beside each page,
graph data loaded from files beside the page, in html and dirhtml."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.sphinxext import built_html, datasets
from tests.sphinxext.conftest import SiteFactory

TABLE_PAGES = ("dashboard", "failed", "degradation")


def _downloads(outdir: Path, page: str, html_name: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each table's shown first column next to the rows of the CSV its link points at."""
    html_path = outdir / html_name
    tree = built_html.page(outdir, html_name.removesuffix(".html"))
    result = []
    for box in tree.xpath("//div[contains(@class, 'trending-table-box')]"):
        (table,) = box.xpath("./table")
        # the table's own CSV first; a comparison adds its raw samples after it
        link, *_ = box.xpath("following-sibling::p[1][@class='trending-downloads']/a/@href")
        rows = list(csv.reader(io.StringIO((html_path.parent / link).read_text())))
        assert {len(row) for row in rows} == {len(rows[0])}, link  # raw row fits its header
        result.append(([row[0] for row in built_html.cells(table)], rows))
    assert result, page
    return result


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_every_table_links_a_csv_of_its_rows(site: SiteFactory, builder: str) -> None:
    app = site(builder=builder)
    app.build()
    out = Path(app.outdir)
    for page in TABLE_PAGES:
        html_name = f"{page}.html" if builder == "html" else f"{page}/index.html"
        for shown, rows in _downloads(out, page, html_name):
            assert [row[0] for row in rows[1:]] == shown, page


def test_dashboard_csv_holds_raw_values_with_units(site: SiteFactory) -> None:
    app = site()
    app.build()
    ((_shown, rows),) = _downloads(Path(app.outdir), "dashboard", "dashboard.html")
    header, *body = rows
    assert header == [
        "Test Case",
        "Trend [pps]",
        "Runs [#]",
        "Short-Term Change [%]",
        "Long-Term Change [%]",
        "Regressions [#]",
        "Progressions [#]",
        "Outliers [#]",
        "Latest Change [last good .. first bad]",
    ]
    by_name = {row[0]: row for row in body}
    assert float(by_name["regress"][1]) == 8e6
    assert float(by_name["regress"][4]) == pytest.approx(-20.0)
    assert datasets.EVIL_NAME in by_name  # the data as it is, in a file no page parses


def test_a_formula_in_a_test_name_is_inert_in_the_download(site: SiteFactory) -> None:
    app = site()
    data = Path(app.srcdir) / "data"
    for path in data.glob("*.jsonl"):
        path.write_text(path.read_text().replace('"name": "stable"', '"name": "=cmd|calc"'))
    app.build()
    ((shown, rows),) = _downloads(Path(app.outdir), "dashboard", "dashboard.html")
    assert "=cmd|calc" in shown
    assert "'=cmd|calc" in [row[0] for row in rows]


def test_graph_page_holds_no_figure_and_loads_one_data_file_per_graph(
    site: SiteFactory,
) -> None:
    app = site()
    app.build()
    out = Path(app.outdir)
    html = (out / "graphs.html").read_text()
    assert '"hovertemplate"' not in html and "application/json" not in html
    figures = built_html.figures(out, "graphs")
    assert len(figures) == len(datasets.TESTS)
    assert sorted(path.name for path in out.glob("graphs.*.js")) == sorted(
        [f"graphs.{plot_id.removesuffix('-figure')}.js" for plot_id in figures]
        + ["graphs.trending-runs.js"]  # what the page's figures share, once
    )


def test_singlehtml_stays_interactive_with_its_files_at_the_root(site: SiteFactory) -> None:
    app = site(builder="singlehtml")
    app.build()
    out = Path(app.outdir)
    assert len(built_html.figures(out, "index")) == len(datasets.TESTS)
    links = built_html.page(out, "index").xpath("//p[@class='trending-downloads']/a/@href")
    assert links and all((out / link).is_file() for link in links)


def test_news_and_comparison_tables_download_their_rows(site: SiteFactory) -> None:
    app = site()
    srcdir = Path(app.srcdir)
    (srcdir / "news.rst").write_text("News\n====\n\n.. trending-news::\n   :source: perf\n")
    (srcdir / "comparison.rst").write_text(
        "Comparison\n==========\n\n.. trending-comparison::\n   :source: perf\n"
    )
    app.build()
    out = Path(app.outdir)
    for page in ("news", "comparison"):
        for shown, rows in _downloads(out, page, f"{page}.html"):
            assert [row[0] for row in rows[1:]] == shown, page
    ((_, rows),) = _downloads(out, "comparison", "comparison.html")
    assert "95 % CI Low [%]" in rows[0] and "A Mean [pps]" in rows[0]
    regress = next(row for row in rows if row[0] == "regress")
    mean_a = rows[0].index("A Mean [pps]")
    assert float(regress[mean_a]) > 1e6  # pps, not Mpps
