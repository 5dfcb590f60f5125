"""Every view shows the metric it names, whatever page Sphinx reads first.

One source with two metrics, one page per metric, each with every view that
shows a number or links to a graph.  The memo that shares analyses between
directives once forgot the metric in its key, so every page after the first
showed the first page's metric: no test built two metrics of one source, and
the site tests each read one metric.  Here each page must show its own
metric's values, unit and direction, with its names linking to its own
metric's graph, for both page orders, with ``-j 1`` and ``-j 2``, cold and warm.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import lxml.html
import pytest

from tests.sphinxext.built_html import figures

TESTS = ("tests.perf.alpha", "tests.perf.beta")
BUILDS = 20
STEP = 15
"""From this build on, every metric falls by a tenth."""


class Metric:
    """What a page of one metric must show: its unit, its values, its news."""

    def __init__(
        self,
        name: str,
        unit: str,
        shown_unit: str,
        before: float,
        after: float,
        shown_after: str,
        news: str,
    ) -> None:
        self.name = name
        self.unit = unit
        self.shown_unit = shown_unit
        self.before = before
        self.after = after
        self.shown_after = shown_after
        self.news = news


THROUGHPUT = Metric("ndr", "pps", "Mpps", 10e6, 9e6, "9.00", "Regression")
PDR = Metric("pdr", "pps", "Mpps", 20e6, 18e6, "18.00", "Regression")
"""The source's default metric's twin: same unit, same direction, other numbers."""
LOSS = Metric("reconf_loss", "packets", "packets", 5000.0, 4500.0, "4500.00", "Progression")
"""Lower is better for ``reconf_loss`` (the metric table says so): its fall is a progression."""
METRICS = (THROUGHPUT, PDR, LOSS)

VIEWS = (
    ("trending-dashboard", ()),
    ("trending-graph", (":per-test:",)),
    ("trending-news", ()),
    ("trending-noise", ()),
    ("trending-comparison", ()),
    ("trending-degradation", (f":target: perf-daily/{STEP}",)),
    ("trending-failed-tests", ()),
    ("trending-failed-tests", (":mode: per-build",)),
)
"""Every view that shows a metric's numbers or links to its graphs, with its own options."""


def _page(title: str, metric: Metric) -> str:
    named = () if metric is THROUGHPUT else (f":metric: {metric.name}",)
    blocks = [
        "\n".join([f".. {name}::", *(f"   {option}" for option in (*named, *options))])
        for name, options in VIEWS
    ]
    return f"{title}\n{'=' * len(title)}\n\n" + "\n\n".join(blocks) + "\n"


def _rows() -> list[dict]:
    rows = []
    for build in range(1, BUILDS + 1):
        for test in TESTS:
            failed = test == TESTS[1] and build == BUILDS
            for metric in METRICS:
                level = metric.after if build >= STEP else metric.before
                row = {
                    "test": test,
                    "job": "perf-daily",
                    "build": build,
                    "time": f"2026-03-{build:02d}T00:00:00Z",
                    "metric": metric.name,
                    "unit": metric.unit,
                    "status": "FAIL" if failed else "PASS",
                }
                if failed:
                    row["message"] = "lost the testbed"
                else:
                    row["values"] = [level * (1 + step / 1000) for step in (-2, -1, 0, 1, 2)]
                rows.append(row)
    return rows


def _site(folder: Path, order: tuple[Metric, ...]) -> Path:
    """Pages ``a``, ``b``, ``c`` (read in that order) show the metrics in ``order``."""
    folder.mkdir()
    (folder / "runs.jsonl").write_text("".join(json.dumps(row) + "\n" for row in _rows()))
    source = {"paths": ["runs.jsonl"], "format": "jsonl", "metric": THROUGHPUT.name}
    (folder / "conf.py").write_text(
        "extensions = ['sphinxcontrib_trending']\n"
        f"trending_sources = {{'perf': {source!r}}}\n"
        "trending_cache_dir = '_cache'\n"
    )
    (folder / "index.rst").write_text("Site\n====\n\n.. toctree::\n\n   a\n   b\n   c\n")
    for page, metric in zip("abc", order, strict=True):
        (folder / f"{page}.rst").write_text(_page(page, metric))
    return folder


def _build(site: Path, jobs: int) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-q",
            "-W",
            "-j",
            str(jobs),
            "-b",
            "html",
            str(site),
            str(site / "_build"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr


def _tables(html: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    return html.xpath("//table[contains(@class, 'trending-table')]")


def _column(table: lxml.html.HtmlElement, name: str) -> list[str]:
    header = [th.text_content().strip() for th in table.xpath("./thead//th")]
    index = next(i for i, cell in enumerate(header) if cell.startswith(name))
    return [tr.xpath("./td")[index].text_content().strip() for tr in table.xpath("./tbody/tr")]


def _assert_page_shows(out: Path, page: str, metric: Metric) -> None:
    html = lxml.html.fromstring((out / f"{page}.html").read_bytes())
    tables = _tables(html)
    assert len(tables) >= 6, f"{page}: {len(tables)} tables"
    headers = " ".join(th.text_content() for table in tables for th in table.xpath(".//th"))
    assert f"[{metric.shown_unit}]" in headers
    for other in METRICS:
        assert other.shown_unit == metric.shown_unit or f"[{other.shown_unit}]" not in headers
    scale = 1e6 if metric.shown_unit == "Mpps" else 1.0
    dashboard, *_ = (t for t in tables if "trending-dashboard" in t.get("class"))
    assert _column(dashboard, "Trend") == [metric.shown_after] * len(TESTS)
    news = [t for t in tables if "trending-news" in t.get("class")]
    kinds = {kind for t in news for kind in _column(t, "News")}
    assert kinds == {metric.news, "Failure"}, kinds
    noise, *_ = (t for t in tables if "trending-noise" in t.get("class"))
    assert _column(noise, "Trend") == [metric.shown_after] * len(TESTS)
    comparison, *_ = (t for t in tables if "trending-comparison" in t.get("class"))
    means = [float(cell) for cell in _column(comparison, "A Mean")]
    assert means == pytest.approx([metric.before / scale] * len(TESTS), rel=0.01)
    degradation, *_ = (t for t in tables if "trending-degradation" in t.get("class"))
    verdict = {"Regression": "Degradation", "Progression": "Optimization"}[metric.news]
    assert set(_column(degradation, "Result")) == {verdict}
    to = [float(cell) for cell in _column(degradation, "To")]
    assert to == pytest.approx([metric.after / scale] * len(TESTS), rel=0.01)
    # every linked name, failed tests' too, goes to this metric's graph on this page
    links = html.xpath("//table[contains(@class, 'trending-table')]//td//a/@href")
    assert len(links) >= 5 * len(TESTS)
    assert {link.split("#")[0] for link in links} == {""}
    anchors = {link.split("#")[1] for link in links}
    assert all(f"-{metric.name.replace('_', '-')}-" in anchor for anchor in anchors), anchors
    assert all(html.xpath(f"//*[@id='{anchor}']") for anchor in anchors)
    for figure in figures(out, page).values():
        title = figure["layout"]["yaxis"]["title"]["text"]
        assert metric.name.upper() in title.upper() and metric.shown_unit in title, title
        values = [y for trace in figure["data"] for y in trace.get("y", []) if y is not None]
        assert values and all(
            0.8 * metric.after / scale < y < 1.2 * metric.before / scale for y in values
        )


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("order", [METRICS, METRICS[::-1]], ids=["default-first", "named-first"])
def test_each_page_shows_its_own_metric(
    tmp_path: Path, order: tuple[Metric, ...], jobs: int
) -> None:
    site = _site(tmp_path / "site", order)
    _build(site, jobs)
    for page, metric in zip("abc", order, strict=True):
        _assert_page_shows(site / "_build", page, metric)
    # warm: one page read again, the others' analyses from the cache on disk
    (site / "b.rst").write_text((site / "b.rst").read_text() + "\n")
    _build(site, jobs)
    for page, metric in zip("abc", order, strict=True):
        _assert_page_shows(site / "_build", page, metric)
