"""The README's main job: the documentation site with its live demo builds with -W."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import lxml.html

from tests.sphinxext import built_html

ROOT = Path(__file__).resolve().parents[1]


def _shown(case: str, testbed: str = "2n-skx") -> str:
    """A demo test as every view names it: testbed, NIC, driver, frame size, cores, the rest."""
    frame_size, cores, rest = case.split("-", 2)
    return f"{testbed} 10ge2p1x710 dpdk {frame_size} {cores} {rest}"


def test_docs_build_without_warnings_and_render_the_demo(tmp_path: Path) -> None:
    out = tmp_path / "html"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(tmp_path / "doctrees"),
            str(ROOT / "docs"),
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    dashboard = lxml.html.parse(str(out / "demo" / "dashboard.html")).getroot()
    regressions = dashboard.xpath("//tr[contains(@class, 'trending-regression')]/td[1]")
    # dashboard rows carry the display name: testbed, NIC, driver, frame size, cores
    assert [cell.text_content().strip() for cell in regressions] == [
        "2n-skx 10ge2p1x710 dpdk 64b 1t1c ethip4-ip4base-mrr"
    ]
    progressions = dashboard.xpath("//tr[contains(@class, 'trending-progression')]/td[1]")
    assert [cell.text_content().strip() for cell in progressions] == [
        "2n-skx 10ge2p1x710 dpdk 64b 2t1c eth-l2bdbasemaclrn-mrr"
    ]
    comparison = lxml.html.parse(str(out / "demo" / "comparison.html")).getroot()
    changes = comparison.xpath("//table[contains(@class, 'trending-comparison')]")[1]
    cells = [
        [td.text_content().strip() for td in tr.xpath("./td")] for tr in changes.xpath(".//tr")
    ]
    assert [(row[0], row[9]) for row in cells if row] == [
        (_shown("64b-1t1c-ethip4-ip4base-mrr"), "Degradation, Welch's t-test"),
        # four runs at the old level, three at the new: the weekly mean's change
        # is not significant over seven run averages
        (_shown("64b-2t1c-eth-l2bdbasemaclrn-mrr"), "No Change, Welch's t-test"),
    ]
    assert float(cells[1][7]) < -10 and 4 < float(cells[2][7]) < 5
    news = lxml.html.parse(str(out / "demo" / "news.html")).getroot()
    week = news.xpath("//table[contains(@class, 'trending-news')]")[2]  # 7 days, 2n-skx
    assert [
        [td.text_content().strip() for td in tr.xpath("./td")][:2]
        for tr in week.xpath("./tbody/tr")
    ] == [
        [_shown("64b-1t1c-eth-l2xcbase-eth-2vhostvr1024-1vm-mrr"), "Failure"],
        # three runs in: it could still prove an outlier excursion
        [_shown("64b-2t1c-eth-l2bdbasemaclrn-mrr"), "Progression (provisional)"],
        [_shown("64b-1t1c-ethip4-ip4base-mrr"), "Regression"],
    ]
    assert all(href.startswith("graphs.html#") for href in week.xpath(".//td[1]//a/@href"))
    failed = lxml.html.parse(str(out / "demo" / "failed.html")).getroot()
    names = [td.text_content().strip() for td in failed.xpath("//tbody/tr/td[1]")]
    assert _shown("64b-1t1c-eth-l2xcbase-eth-2vhostvr1024-1vm-mrr") in names
    per_build = failed.xpath("//table[contains(@class, 'trending-per-build')]")
    assert [table.xpath("string(.//tbody/tr[1]/td[1])").strip() for table in per_build] == [
        _shown("64b-1t1c-eth-l2xcbase-eth-2vhostvr1024-1vm-mrr"),
        _shown("64b-2t1c-ethip4-ip4base-mrr", "3n-icx"),
    ]
    stats = lxml.html.parse(str(out / "demo" / "job_stats.html")).getroot()
    daily = stats.xpath("//table[contains(@class, 'trending-job-stats')]")[0]
    failed_builds = [
        tr.xpath("string(./td[1])").strip()
        for tr in daily.xpath("./tbody/tr")
        if tr.xpath("string(./td[5])").strip() != "0"
    ]
    assert failed_builds == [
        f"csit-vpp-perf-mrr-daily-master-2n-skx/{n}" for n in (480, 479, 477, 475, 421)
    ]
    assert len(stats.xpath("//div[@class='trending-graph']")) == 2
    # the demo's builds last as a CI's do: hours and minutes, never 0:00
    durations = [tr.xpath("string(./td[7])").strip() for tr in daily.xpath("./tbody/tr")]
    hours = [int(text.split(":")[0]) + int(text.split(":")[1]) / 60 for text in durations]
    assert all(1.0 < hour < 2.5 for hour in hours), durations
    incidents = lxml.html.parse(str(out / "demo" / "incidents.html")).getroot()
    overview = incidents.xpath("//table[contains(@class, 'trending-incidents')]")[0]
    assert [
        [td.text_content().strip() for td in tr.xpath("./td")][:2]
        for tr in overview.xpath("./tbody/tr")
    ] == [["Failure", "2"], ["Progression", "2"], ["Regression", "6"]]
    noise = lxml.html.parse(str(out / "demo" / "noise.html")).getroot()
    rows = {
        tr.xpath("string(./td[1])").strip(): [td.text_content().strip() for td in tr.xpath("./td")]
        for tr in noise.xpath("(//table[contains(@class, 'trending-noise')])[1]/tbody/tr")
    }
    assert rows[_shown("64b-1t1c-eth-l2xcbase-eth-2vhostvr1024-1vm-mrr")][5] == "1.1"
    assert rows[_shown("78b-2t1c-ethip6-ip6base-mrr")][3] == "0.8"
    assert all(0.3 < float(row[2]) < 1.0 for row in rows.values())
    assert (out / "_static" / "trending" / "plotly.min.js").exists()
    grouping_raw = (out / "methodology" / "grouping.html").read_text()
    grouping = lxml.html.fromstring(grouping_raw)
    assert len(grouping.xpath("//math")) >= 7  # rendered at build time, as MathML
    assert "mathjax" not in grouping_raw.lower()
    remote = [
        url
        for url in grouping.xpath("//script/@src | //link[@rel='stylesheet']/@href")
        if url.startswith(("http:", "https:", "//"))
    ]
    assert remote == []
    releases = lxml.html.parse(str(out / "demo" / "releases.html")).getroot()
    coverage = releases.xpath("//table[contains(@class, 'trending-coverage')]")
    assert [table.xpath("string(./caption)").strip(" ¶") for table in coverage] == [
        "coverage: 25.10-release, 4 tests",
        "releases: 25.06-release, 4 tests",
    ]
    boxes = list(built_html.figures(out / "demo", "releases").values())
    assert [figure["layout"]["xaxis"]["categoryarray"] for figure in boxes] == [
        ["25.02-release", "25.06-release", "25.10-release"]
    ] * 2
    # the injected NDR: 4 % up in 25.06, 10 % down from 25.02 in 25.10
    one_core = boxes[0]["data"][0]
    medians = [
        statistics.median(y for x, y in zip(one_core["x"], one_core["y"], strict=True) if x == v)
        for v in boxes[0]["layout"]["xaxis"]["categoryarray"]
    ]
    assert medians[1] > 1.02 * medians[0] and medians[2] < 0.92 * medians[0]
