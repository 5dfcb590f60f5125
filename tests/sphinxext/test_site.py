"""The rendered site: numbers, links, graph JSON, escaping, assets, builders."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lxml.html
import pytest

from tests.hover import hover_lines
from tests.sphinxext import built_html, datasets
from tests.sphinxext.conftest import SiteFactory


def _page(app, name: str) -> lxml.html.HtmlElement:
    return built_html.page(app.outdir, name)


def _rows(page: lxml.html.HtmlElement) -> list[list[str]]:
    return [
        [cell.text_content().strip() for cell in row.xpath("./td")]
        for row in page.xpath("//table[contains(@class, 'trending-table')]/tbody/tr")
    ]


@pytest.fixture
def built(site: SiteFactory):
    app = site()
    app.build()
    return app


def test_dashboard_holds_the_expected_numbers_in_order(built) -> None:
    page = _page(built, "dashboard")
    captions = [c.text_content().rstrip("¶") for c in page.xpath("//table/caption")]
    assert captions == ["Testbed 2n-skx, cores 2T1C"]
    header = [th.text_content().strip() for th in page.xpath("//table/thead//th")]
    assert header == [
        "Test Case",
        "Trend [Mpps]",
        "Runs [#]",
        "Short-Term Change [%]",
        "Long-Term Change [%]",
        "Regressions [#]",
        "Progressions [#]",
        "Outliers [#]",
        "Latest Change [last good .. first bad]",
    ]
    rows = {row[0]: row for row in _rows(page)}
    assert [row[0] for row in _rows(page)][:2] == ["regress", "progress"]
    assert rows["regress"] == [
        *("regress", "8.00", "6", "-20.00", "-20.00", "1", "0", "0"),
        "26.02-rc0~24 .. 26.02-rc0~25",
    ]
    assert rows["progress"] == [
        *("progress", "6.00", "4", "20.00", "20.00", "0", "1", "0"),
        "26.02-rc0~26 .. 26.02-rc0~27",
    ]
    assert rows["stable"][1:] == ["3.00", "30", "0.00", "0.00", "0", "0", "0", ""]
    # flaky failed twice: the failed runs are gaps, not zeros, and do not split the group
    assert rows["flaky"][1:] == ["2.00", "28", "0.00", "0.00", "0", "0", "0", ""]
    classes = {
        row.xpath("./td")[0].text_content().strip(): row.get("class", "")
        for row in page.xpath("//table/tbody/tr")
    }
    assert "trending-regression" in classes["regress"]
    assert "trending-progression" in classes["progress"]
    assert "trending-" not in classes["stable"]


def test_test_names_link_to_their_graph_anchors(built) -> None:
    dashboard = _page(built, "dashboard")
    graphs = _page(built, "graphs")
    links = dashboard.xpath("//table/tbody/tr/td[1]//a/@href")
    assert len(links) == len(datasets.TESTS)
    # a graph drawn per test holds its anchor on its heading, right before it
    headed = set(
        graphs.xpath(
            "//p[contains(@class, 'rubric')]"
            "[following-sibling::*[1][contains(@class, 'trending-graph')]]/@id"
        )
    )
    for href in links:
        page, anchor = href.split("#")
        assert page == "graphs.html"
        assert anchor in headed
    failed_links = _page(built, "failed").xpath("//table/tbody/tr/td[1]//a/@href")
    assert failed_links and all(href.startswith("graphs.html#") for href in failed_links)


def test_failed_tests_table(built) -> None:
    rows = _rows(_page(built, "failed"))
    assert rows == [
        [
            "flaky",
            "2",
            "2026-01-30 06:00 UTC",
            "26.02-rc0~30",
            "csit-vpp-perf-mrr-daily-master-2n-skx/30",
        ],
    ]


def test_changes_only_box_is_offered_only_where_rows_carry_change_classes(built) -> None:
    """trending.js adds the "changes only" box to tables of class trending-changes."""
    for page, expected in (("dashboard", True), ("degradation", True), ("failed", False)):
        tables = _page(built, page).xpath("//table[contains(@class, 'trending-table')]")
        assert tables
        assert all(("trending-changes" in t.get("class").split()) == expected for t in tables)
    script = (Path(built.outdir) / "_static" / "trending.js").read_text()
    assert 'classList.contains("trending-changes")' in script


def test_graph_json_holds_points_trend_and_anomaly_markers(built) -> None:
    figures = list(built_html.figures(built.outdir, "graphs").values())
    assert len(figures) == len(datasets.TESTS)
    by_name = {figure["data"][0]["name"]: figure for figure in figures}
    regress = by_name["regress"]["data"]
    markers, trend, anomalies = regress
    assert len(markers["x"]) == 30
    assert markers["y"][0] == pytest.approx(10.0)
    assert markers["y"][-1] == pytest.approx(8.0)
    # a step line: a point where the level changes (the 25th run) and at the newest run
    assert trend["x"] == [markers["x"][0], markers["x"][24], markers["x"][-1]]
    assert trend["y"] == pytest.approx([10.0, 8.0, 8.0])
    assert trend["line"]["shape"] == "hv"
    assert anomalies["x"] == [datasets.build_time(25).strftime("%Y-%m-%d %H:%M:%S")]
    assert anomalies["marker"]["color"] == ["#d62728"]
    assert anomalies["marker"]["symbol"] == "circle-open"
    progress_anomalies = by_name["progress"]["data"][2]
    assert progress_anomalies["marker"]["color"] == ["#2ca02c"]
    flaky_markers = by_name["flaky"]["data"][0]
    assert len(flaky_markers["x"]) == 28
    assert "2026-01-30" not in " ".join(flaky_markers["x"])
    assert hover_lines(markers, 0) == [
        f"date: {datasets.build_time(1):%Y-%m-%d %H:%M} UTC",
        "value [Mpps]: 10.000",
        "stdev [Mpps]: 0.050",
        "DUT version: 26.02-rc0~1",
        "CI job build: csit-vpp-perf-mrr-daily-master-2n-skx/1",
        "testbed: 2n-skx",
    ]
    # the texts every run shares travel once, in the trace's meta
    assert markers["meta"] == ["csit-vpp-perf-mrr-daily-master-2n-skx", "2n-skx"]
    assert hover_lines(anomalies, 0)[0].startswith("regression, confidence ")
    assert hover_lines(anomalies, 0)[1] == "range: 26.02-rc0~24 .. 26.02-rc0~25"
    assert hover_lines(anomalies, 0)[6] == "CI job build: csit-vpp-perf-mrr-daily-master-2n-skx/25"
    layout = regress and by_name["regress"]["layout"]
    assert "tickformatstops" in layout["xaxis"]
    labels = [button["label"] for button in layout["xaxis"]["rangeselector"]["buttons"]]
    assert labels == ["2w", "1m", "2m", "3m", "all"]


def test_data_strings_are_escaped_in_html_and_json(built) -> None:
    for name in ("dashboard", "graphs"):
        raw = (Path(built.outdir) / f"{name}.html").read_text()
        assert "<script>alert(1)</script>" not in raw
    dashboard = _page(built, "dashboard")
    assert datasets.EVIL_NAME in [row[0] for row in _rows(dashboard)]
    graphs_raw = (Path(built.outdir) / "graphs.html").read_text()
    assert "\\u003cscript\\u003e" in graphs_raw or "&lt;script&gt;" in graphs_raw


def test_plotly_is_bundled_once_and_only_on_graph_pages(built) -> None:
    out = Path(built.outdir)
    assert (out / "_static" / "trending" / "plotly.min.js").stat().st_size > 1_000_000
    graph_scripts = _page(built, "graphs").xpath("//script/@src")
    assert sum("plotly.min.js" in src for src in graph_scripts) == 1
    assert any(src.split("?")[0].endswith("_static/trending.js") for src in graph_scripts)
    dashboard_scripts = _page(built, "dashboard").xpath("//script/@src")
    assert not any("plotly" in src for src in dashboard_scripts)
    assert any("_static/trending.js" in src for src in dashboard_scripts)
    index_scripts = _page(built, "index").xpath("//script/@src")
    assert not any("plotly" in src or "trending.js" in src for src in index_scripts)


def test_text_builder_gets_tables_and_a_graph_placeholder(site: SiteFactory) -> None:
    app = site(builder="text")
    app.build()
    out = Path(app.outdir)
    assert "regress" in (out / "dashboard.txt").read_text()
    graphs = " ".join((out / "graphs.txt").read_text().split())
    assert "regress (2n-skx): interactive graph of 1 test(s), shown in the HTML version" in graphs


def test_latex_builder_includes_a_pdf_image_per_graph(site: SiteFactory) -> None:
    app = site(builder="latex")
    app.build()
    out = Path(app.outdir)
    tex = next(out.glob("*.tex")).read_text()
    assert "shown in the HTML version" not in tex
    included = re.findall(r"\\sphinxincludegraphics\{\{(trending/graph-[0-9a-f]+)\}\.pdf\}", tex)
    assert len(included) == len(datasets.TESTS)
    for name in included:
        assert (out / f"{name}.pdf").read_bytes().startswith(b"%PDF-")
    # pdfLaTeX stops on a control picture (ESC shown as U+241B) unless it is declared
    assert "\\DeclareUnicodeCharacter{241B}{\\fbox{\\tiny ESC}}" in tex


def test_epub_gets_an_svg_image_per_graph_and_no_script(site: SiteFactory) -> None:
    app = site(builder="epub")
    app.build()
    out = Path(app.outdir)
    page = lxml.html.fromstring((out / "graphs.xhtml").read_bytes())
    sources = page.xpath("//img[contains(@class, 'trending-graph-image')]/@src")
    assert len(sources) == len(datasets.TESTS)
    assert all((out / source).read_text().lstrip().startswith("<?xml") for source in sources)
    assert not page.xpath("//div[@class='trending-graph-plot']")
    assert all(source in (out / "content.opf").read_text() for source in sources)


def test_degradation_tables_compare_the_newest_build(built) -> None:
    page = _page(built, "degradation")
    tables = page.xpath("//table[contains(@class, 'trending-degradation')]")
    assert len(tables) == 2
    caption = tables[0].xpath("./caption")[0].text_content().rstrip("¶")
    assert caption == "csit-vpp-perf-mrr-daily-master-2n-skx/30 (2026-01-30 06:00 UTC)"
    nearest = {
        row[0]: row
        for row in (
            [cell.text_content().strip() for cell in tr.xpath("./td")]
            for tr in tables[0].xpath("./tbody/tr")
        )
    }
    assert nearest["regress"][1:5] == [
        "No Change",
        "mean",
        "Welch's t-test",
        "csit-vpp-perf-mrr-daily-master-2n-skx/29",
    ]
    assert nearest["flaky"][1:3] == ["Unknown", "missing target"]
    pinned = {
        tr.xpath("./td")[0].text_content().strip(): tr for tr in tables[1].xpath("./tbody/tr")
    }
    cells = [cell.text_content().strip() for cell in pinned["regress"].xpath("./td")]
    assert cells[1:5] == [
        "No Change",
        "ratio",
        "Average Amount Threshold",
        "csit-vpp-perf-mrr-daily-master-2n-skx/24",
    ]
    assert cells[5:8] == ["10.000", "8.000", "-20.00"]
    links = tables[0].xpath(".//td[1]//a/@href")
    assert links and all(href.startswith("graphs.html#") for href in links)


def test_each_anchor_exists_once_and_a_second_page_warns(site: SiteFactory) -> None:
    app = site()
    srcdir = Path(app.srcdir)
    (srcdir / "graphs.rst").write_text(
        (srcdir / "graphs.rst").read_text()
        + "\n.. trending-graph::\n   :source: perf\n   :tests: regress\n"
    )
    (srcdir / "more.rst").write_text(
        "More\n====\n\n.. trending-graph::\n   :source: perf\n   :tests: progress\n"
    )
    (srcdir / "index.rst").write_text((srcdir / "index.rst").read_text() + "   more\n")
    app.build()
    ids = _page(app, "graphs").xpath("//@id")
    assert len(ids) == len(set(ids))
    warnings = app.warning.getvalue()
    assert (
        "test '2n-skx/tests.perf.progress' (metric 'mrr') already has its graph anchor "
        "on page 'graphs'" in warnings
    )
    assert "[trending.link]" in warnings
    assert "regress" not in warnings


HOSTILE_NAME = 'ctl-\x1b[31m-\x00-\x07-"quoted" it\'s'


def test_control_characters_are_visible_and_quotes_kept(site: SiteFactory) -> None:
    app = site()
    rows = [
        {
            "job": datasets.JOB,
            "build": str(build),
            "time": datasets.build_time(build).isoformat(),
            "test": "tests.perf.hostile",
            "name": HOSTILE_NAME,
            "status": "FAIL" if build == 30 else "PASS",
            "message": "bell \x07 here" if build == 30 else "",
            "metric": "mrr",
            "unit": "pps",
            "values": [] if build == 30 else [1e6],
            "testbed": datasets.TESTBED,
            "version": "v\x1b1",
        }
        for build in range(1, 31)
    ]
    (Path(app.srcdir) / "data" / "hostile.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows)
    )
    app.build()
    shown = 'ctl-␛[31m-␀-␇-"quoted" it\'s'
    for page in ("dashboard", "failed", "graphs"):
        raw = (Path(app.outdir) / f"{page}.html").read_text()
        for control in ("\x00", "\x07", "\x1b"):
            assert control not in raw, (page, control)
        assert "“" not in raw and "”" not in raw and "’" not in raw, page
    names = [row[0] for row in _rows(_page(app, "dashboard"))]
    assert shown in names
    assert shown in [row[0] for row in _rows(_page(app, "failed"))]
    graphs = _page(app, "graphs")
    labels = graphs.xpath("//div[@class='trending-graph-plot']/@aria-label")
    assert f"{shown} (2n-skx)" in labels
    headings = [h.text_content() for h in graphs.xpath("//p[contains(@class, 'rubric')]")]
    assert f"{shown} (2n-skx)" in headings
    figure = next(
        figure
        for figure in built_html.figures(app.outdir, "graphs").values()
        if "ctl-" in figure["data"][0]["name"]
    )
    assert "DUT version: v␛1" in hover_lines(figure["data"][0], 0)
    failed = next(trace for trace in figure["data"] if trace["name"].endswith(" failed"))
    assert failed["customdata"][0][1] == "bell ␇ here"
