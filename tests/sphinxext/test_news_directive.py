"""``trending-news`` on the test site: what is new per period, read from the HTML.

The site's data (:mod:`tests.sphinxext.datasets`) has 30 daily builds ending
at build 30.  ``regress`` drops at build 25 (5 days before the end),
``progress`` rises at build 27 (3 days) and ``flaky`` fails in builds 28 and
30, so its current failing streak started in build 30.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.sphinxext.built_html import cells
from tests.sphinxext.built_html import page as built_page
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.datasets import EVIL_NAME, TESTBED, build_time


def test_news_per_period_newest_first_linked_to_graphs(site: SiteFactory) -> None:
    app = site()
    srcdir = Path(app.srcdir)
    (srcdir / "news.rst").write_text("News\n====\n\n.. trending-news::\n   :source: perf\n")
    app.build()
    assert "trending-news" not in app._warning.getvalue()
    page = built_page(app.outdir, "news")
    tables = page.xpath("//table[contains(@class, 'trending-news')]")
    captions = [table.xpath("./caption/span[@class='caption-text']")[0].text for table in tables]
    assert captions == [
        f"Last day, testbed {TESTBED}",
        f"Last 7 days, testbed {TESTBED}",
        f"Last 30 days, testbed {TESTBED}",
    ]
    day, week, month = (cells(table) for table in tables)
    assert [row[:2] for row in day] == [["flaky", "Failure"]]
    assert day[0][3:] == [
        "26.02-rc0~30",
        "csit-vpp-perf-mrr-daily-master-2n-skx/30",
        "26.02-rc0~29 .. 26.02-rc0~30",  # the last passed run, then the failing one
        "",
    ]
    assert [(row[0], row[1].split(" ")[0], row[3]) for row in week] == [
        ("flaky", "Failure", "26.02-rc0~30"),
        ("progress", "Progression", "26.02-rc0~27"),
        ("regress", "Regression", "26.02-rc0~25"),
    ]
    assert week[1][5] == "26.02-rc0~26 .. 26.02-rc0~27"
    assert week[1][6] == "20.00" and week[2][6] == "-20.00"
    assert month == week  # nothing older than a week happened
    classes = [tr.get("class") or "" for tr in tables[1].xpath("./tbody/tr")]
    assert ["trending-failure" in classes[0], "trending-regression" in classes[2]] == [True, True]
    graph_ids = set(built_page(app.outdir, "graphs").xpath("//@id"))
    links = tables[1].xpath("./tbody/tr/td[1]//a/@href")
    assert len(links) == 3
    for href in links:
        target, anchor = href.split("#")
        assert target == "graphs.html" and anchor in graph_ids


def test_custom_periods_and_nothing_new(site: SiteFactory) -> None:
    app = site(builds=range(1, 25))  # ends before every change of the data
    (Path(app.srcdir) / "news.rst").write_text(
        "News\n====\n\n"
        ".. trending-news::\n   :source: perf\n   :periods: 2, 20\n\n"
        ".. trending-news::\n   :source: perf\n   :periods: 1, 0\n"
    )
    app.build()
    warnings = app._warning.getvalue()
    assert "trending-news: :periods: '0' is not a whole number of days" in warnings
    page = built_page(app.outdir, "news")
    assert not page.xpath("//table[contains(@class, 'trending-news')]")
    notes = [p.text_content() for p in page.xpath("//p[contains(@class, 'trending-news')]")]
    assert notes == ["Last 2 days: nothing new.", "Last 20 days: nothing new."]


def test_names_from_the_data_stay_text(site: SiteFactory) -> None:
    app = site()
    srcdir = Path(app.srcdir)
    evil_testbed = "<b>tb</b>"
    runs = [
        {
            "job": "evil-job",
            "build": str(build),
            "time": build_time(build).isoformat(),
            "test": "tests.evil",
            "name": EVIL_NAME,
            "tags": ["MRR"],
            "status": status,
            "message": "",
            "metric": "mrr",
            "unit": "pps",
            "values": [1e6, 1.1e6] if status == "PASS" else [],
            "testbed": evil_testbed,
        }
        for build, status in ((29, "PASS"), (30, "FAIL"))
    ]
    (srcdir / "data" / "evil.jsonl").write_text("".join(json.dumps(run) + "\n" for run in runs))
    (srcdir / "news.rst").write_text("News\n====\n\n.. trending-news::\n   :periods: 1\n")
    app.build()
    assert "trending-news" not in app._warning.getvalue()
    page = built_page(app.outdir, "news")
    tables = page.xpath("//table[contains(@class, 'trending-news')]")
    evil = tables[1]  # testbeds in name order: "2n-skx" < "<b>tb</b>"
    caption = evil.xpath("./caption/span[@class='caption-text']")[0]
    assert caption.text == f"Last day, testbed {evil_testbed}" and not caption.xpath(".//b")
    assert cells(evil)[0][:2] == [EVIL_NAME, "Failure"]
    assert not page.xpath("//script[contains(., 'alert(1)')]")
