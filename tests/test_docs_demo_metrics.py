"""The live demo's NDR/PDR, latency and telemetry pages find the changes injected into their data.

The pages and the archive are the docs' own (``docs/demo/ndrpdr.rst``,
``latency.rst``, ``telemetry.rst``, ``docs/demo/json``), built with the ``ndrpdr`` source of
``docs/conf.py`` in a site of their own, so this runs without the whole docs.
"""

from __future__ import annotations

import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import lxml.html
import pytest

from tests.hover import hover_lines
from tests.sphinxext import built_html

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "docs" / "demo"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("metric-demo")
    source = runpy.run_path(str(ROOT / "docs" / "conf.py"))["trending_sources"]["ndrpdr"]
    (site / "demo").mkdir()
    shutil.copytree(DEMO / "json", site / "demo" / "json")
    for page in ("ndrpdr", "latency", "telemetry"):
        shutil.copy(DEMO / f"{page}.rst", site / "demo" / f"{page}.rst")
    (site / "conf.py").write_text(
        f"extensions = [\"sphinxcontrib_trending\"]\ntrending_sources = {{'ndrpdr': {source!r}}}\n"
    )
    (site / "index.rst").write_text(
        "Demo\n====\n\n.. _metric-table:\n\nTable\n-----\n\n"
        ".. _percentile-graph:\n\nPercentiles\n-----------\n\n"
        ".. _telemetry:\n\nTelemetry\n---------\n\n"
        ".. toctree::\n\n   demo/ndrpdr\n   demo/latency\n   demo/telemetry\n"
    )
    out = site / "html"
    completed = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(site), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return out / "demo"


def _rows(page: lxml.html.HtmlElement, css: str) -> list[str]:
    return [
        td.text_content().strip() for td in page.xpath(f"//tr[contains(@class, '{css}')]/td[1]")
    ]


def _dashboards(page: lxml.html.HtmlElement, count: int) -> list[dict[str, float]]:
    """Each of the page's ``count`` dashboards as its tests' trends (second column)."""
    tables = page.xpath("//table[contains(@class, 'trending-dashboard')]")
    per_dashboard = len(tables) // count
    assert per_dashboard * count == len(tables)
    return [
        {
            tr.xpath("./td")[0].text_content().strip(): float(tr.xpath("./td")[1].text_content())
            for table in tables[first : first + per_dashboard]
            for tr in table.xpath("./tbody/tr")
        }
        for first in range(0, len(tables), per_dashboard)
    ]


def test_ndrpdr_page_finds_the_throughput_regression_and_the_failure(built: Path) -> None:
    page = lxml.html.parse(str(built / "ndrpdr.html")).getroot()
    # NDR, PDR and NDR bandwidth dashboards: the one injected drop, in each;
    # its cores as csit-dash reads them from the case name (64b-1c-), not the 2T1C tag.
    assert (
        _rows(page, "trending-regression")
        == ["2n-icx 25ge2p1xxv710 avf 64b 1c ethip4-ip4base-ndrpdr"] * 3
    )
    assert _rows(page, "trending-progression") == []
    headers = [th.text_content().strip() for th in page.xpath("//table//thead//th[2]")]
    assert headers[:6] == ["Trend [Mpps]"] * 4 + ["Trend [Mbps]"] * 2
    # each dashboard (a table per core count) shows its own metric: PDR above NDR
    ndr, pdr, bandwidth = _dashboards(page, 3)
    assert ndr.keys() == pdr.keys() == bandwidth.keys() and len(ndr) == 4
    assert all(pdr[test] > ndr[test] for test in ndr)
    assert all(bandwidth[test] != ndr[test] for test in ndr)
    failed = page.xpath("//table[contains(@class, 'trending-failed')]//tbody/tr/td")
    cells = [td.text_content().strip() for td in failed]
    assert cells[0] == "2n-icx 25ge2p1xxv710 avf 64b 2c eth-l2bdbasemaclrn-ndrpdr"
    assert "csit-vpp-perf-ndrpdr-weekly-master-2n-icx/239" in cells


def test_latency_page_trends_lower_is_better_with_percentiles_on_hover(built: Path) -> None:
    page = lxml.html.parse(str(built / "latency.html")).getroot()
    # A rise is a regression without any direction set, for avg and for p99.
    assert (
        _rows(page, "trending-regression")
        == ["2n-icx 25ge2p1xxv710 avf 64b 1c eth-l2bdbasemaclrn-ndrpdr"] * 2
    )
    assert _rows(page, "trending-progression") == []
    headers = [th.text_content().strip() for th in page.xpath("//table//thead//th[2]")]
    assert set(headers) == {"Trend [us]"}
    forward_average, reverse_p99 = _dashboards(page, 2)
    assert all(reverse_p99[test] > forward_average[test] for test in forward_average)
    figures = list(built_html.figures(built, "latency").values())
    assert len(figures) == 2
    markers = figures[0]["data"][0]
    text = hover_lines(markers, len(markers["x"]) - 1)[-1]
    assert text.startswith("percentiles [us]: p50 ") and ", p99.9 " in text
    anomalies = [trace for trace in figures[0]["data"] if trace["name"].endswith("anomalies")]
    assert anomalies and hover_lines(anomalies[0], 0)[0].startswith("regression")

    # the injected rise at build 237 moves every curve of the 1-core test up
    views = figures[0]["percentiles"]
    assert len(views["sets"]) == 2 * 20  # two tests, :percentile-runs: 20
    one_core = [s for s in views["sets"] if " 1c eth-l2bdbasemaclrn" in s["title"]]
    before, after = (
        next(s for s in one_core if f"ndrpdr-weekly-master-2n-icx/{build}," in s["title"])
        for build in (236, 237)
    )
    for old, new in zip(before["data"], after["data"], strict=True):
        assert old["name"] == new["name"]
        assert new["y"][0] > 1.3 * old["y"][0]
    assert len(after["data"]) == 8


def _changes(page: lxml.html.HtmlElement) -> list[dict[str, float]]:
    """Each dashboard's tests with their long-term change [%] (the fifth column)."""
    return [
        {
            tr.xpath("./td")[0].text_content().strip(): float(tr.xpath("./td")[4].text_content())
            for tr in table.xpath("./tbody/tr")
        }
        for table in page.xpath("//table[contains(@class, 'trending-dashboard')]")
    ]


def test_telemetry_page_trends_the_counters_each_label_set_names(built: Path) -> None:
    page = lxml.html.parse(str(built / "telemetry.html")).getroot()
    ip4_1c = "2n-icx 25ge2p1xxv710 avf 64b 1c ethip4-ip4base-ndrpdr"
    clocks_1c, clocks_2c, vectors_1c, vectors_2c = _changes(page)
    # ip4-lookup runs in the ip4 tests alone; its clocks per vector rose 25 % at the
    # build whose NDR (and so the vectors a trial sends) fell to 90 %: 1.25 x 0.9
    assert list(clocks_1c) == [ip4_1c] and list(clocks_2c) == [ip4_1c.replace("1c", "2c")]
    assert clocks_1c[ip4_1c] == pytest.approx(12.5, abs=1.0)
    assert abs(next(iter(clocks_2c.values()))) < 1.0
    # avf-input is in every test; only the ip4 1c test's vectors fell, by the NDR's 10 %
    assert len(vectors_1c) + len(vectors_2c) == 4
    assert vectors_1c[ip4_1c] == pytest.approx(-10.0, abs=1.0)
    others = [change for name, change in {**vectors_1c, **vectors_2c}.items() if name != ip4_1c]
    assert all(abs(change) < 1.0 for change in others)
    assert _rows(page, "trending-progression") == [ip4_1c]
    assert _rows(page, "trending-regression") == [ip4_1c]
    graph = page.xpath("//div[contains(@class, 'trending-graph-plot')]")
    assert len(graph) == 1
