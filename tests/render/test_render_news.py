"""News tables: one per testbed, in name order, rows kept newest first."""

from __future__ import annotations

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.analysis.news import news
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.render.news import HEADER, news_tables
from tests.hand_built import build_time, builds

LEVELS = {
    "drop": lambda n: 10e6 if n < 15 else 8e6,
    "broke": lambda n: 7e6 if n < 20 else None,
}


def test_one_table_per_testbed_with_linked_rows() -> None:
    data = sorted(
        builds(LEVELS, range(1, 21), testbed="3n-icx") + builds(LEVELS, range(1, 21)),
        key=lambda build: build.time,
    )
    end = build_time(20)
    trends = [summarize(h, TrendOptions(), end) for h in histories(data, "mrr")]
    tables = news_tables(news(trends, end, 7), 7)
    assert [table.caption for table in tables] == [
        "Last 7 days, testbed 2n-skx",
        "Last 7 days, testbed 3n-icx",
    ]
    for table, testbed in zip(tables, ("2n-skx", "3n-icx"), strict=True):
        assert table.header == HEADER
        assert [row.cells[:2] for row in table.rows] == [
            ("broke", "Failure"),
            ("drop", "Regression"),
        ]
        assert [row.link_key for row in table.rows] == [
            SeriesRef("mrr", f"{testbed}/tests.perf.broke"),
            SeriesRef("mrr", f"{testbed}/tests.perf.drop"),
        ]
        assert table.rows[0].classes == ("trending-failure",)
        assert table.rows[1].cells[2:] == (
            "2026-01-15 06:00 UTC",
            "26.02-rc0~15",
            "csit-vpp-perf-mrr-daily-master-2n-skx/15",
            "26.02-rc0~14 .. 26.02-rc0~15",
            "-20.00",
        )
        assert table.rows[0].cells[5] == "26.02-rc0~19 .. 26.02-rc0~20"  # last passed run


def test_a_news_range_links_to_the_commits_between_and_quotes_them() -> None:
    data = builds(LEVELS, range(1, 21))
    end = build_time(20)
    trends = [summarize(h, TrendOptions(), end) for h in histories(data, "mrr")]
    compare = LinkTemplates(compare="https://git.example.org/compare/{last_good}...{first_bad}")
    (table,) = news_tables(news(trends, end, 7), 7, compare)
    assert [row.links[5] for row in table.rows] == [
        "https://git.example.org/compare/26.02-rc0~19...26.02-rc0~20",
        "https://git.example.org/compare/26.02-rc0~14...26.02-rc0~15",
    ]


def test_no_testbed_no_name_in_the_caption() -> None:
    data = builds(LEVELS, range(1, 21), testbed=None)
    end = build_time(20)
    trends = [summarize(h, TrendOptions(), end) for h in histories(data, "mrr")]
    assert [table.caption for table in news_tables(news(trends, end, 1), 1)] == ["Last day"]
    assert news_tables([], 1) == []
