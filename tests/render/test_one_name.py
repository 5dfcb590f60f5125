"""One test, one name: every view names a test as the dashboard does, with its dimensions.

Two CSIT tests that differ only by NIC share their case name
(``64b-1c-ethip4-ip4base-mrr``); a table naming them by it alone shows two
rows a reader cannot tell apart.  Each view here must show the display name
the dimension rules give, and so two different names.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sphinxcontrib_trending.alerts.message import Addresses, compose
from sphinxcontrib_trending.analysis.comparison import Judging, compare_periods, default_periods
from sphinxcontrib_trending.analysis.degradation.builds import compare_builds
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.news import news
from sphinxcontrib_trending.analysis.noise import measure
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.analysis.verdicts import DEFAULT_FAIL_ON, judge_latest
from sphinxcontrib_trending.ingest.dimensions import overrides_from, rules_for
from sphinxcontrib_trending.ingest.model import Build
from sphinxcontrib_trending.render.comparison import comparison_table
from sphinxcontrib_trending.render.failed import failed_tables
from sphinxcontrib_trending.render.news import news_tables
from sphinxcontrib_trending.render.noise import noise_tables
from sphinxcontrib_trending.render.per_build import per_build_failures
from sphinxcontrib_trending.reports.junit import verdict_case
from sphinxcontrib_trending.reports.records import GraphLinks, record
from sphinxcontrib_trending.reports.text import verdict_table
from tests.hand_built import build_time, builds

CASE = "64b-1c-ethip4-ip4base-mrr"
NICS = ("100ge2p1e810cq", "100ge2p1cx6dx")
NAMES = {f"2n-skx {nic} dpdk 64b 1c ethip4-ip4base-mrr" for nic in NICS}
"""The dashboard's names of the two tests: testbed, NIC, driver, frame size, cores, the rest."""
LAST = 20


def _level(number: int) -> float | None:
    """A regression at build 15, a failure in the newest build."""
    if number == LAST:
        return None
    return 10e6 if number < 15 else 8e6


def _data() -> list[Build]:
    """The same CSIT case on two NICs of one testbed."""
    data = builds(dict.fromkeys(NICS, _level), range(1, LAST + 1))
    return [
        replace(
            build,
            tests=tuple(
                replace(
                    test,
                    test_id=f"tests.vpp.perf.ip4.2n1l-{test.name}-ethip4-ip4base-mrr.{CASE}",
                    name=CASE,
                )
                for test in build.tests
            ),
        )
        for build in data
    ]


def test_trend_views_name_each_test_with_its_dimensions() -> None:
    data = _data()
    end = build_time(LAST)
    trends = [summarize(h, TrendOptions(), end) for h in histories(data, "mrr")]
    (news_table,) = news_tables(news(trends, end, 7), 7)
    assert {row.cells[0] for row in news_table.rows} == NAMES
    assert {row.raw[0] for row in news_table.rows} == NAMES  # the CSV download
    noises = [measure(trend, end, timedelta(days=30)) for trend in trends]
    assert {row.cells[0] for table in noise_tables(noises) for row in table.rows} == NAMES


def test_build_views_name_each_test_with_its_dimensions() -> None:
    data = _data()
    rules = rules_for()
    (per_build,) = per_build_failures(data, rules, metric="mrr")
    assert {row.cells[0] for row in per_build.rows} == NAMES
    (failed,) = failed_tables(data, build_time(1), metric="mrr", rules=rules)
    assert {row.cells[0] for row in failed.rows} == NAMES
    a, b = default_periods(data, days=10)
    rows = compare_periods(a, b, Judging("mrr", "perf", "higher"), rules)
    table = comparison_table(rows, a, b, "pps")
    assert {row.cells[0] for row in table.rows} == NAMES
    assert {row.raw[0] for row in table.rows} == NAMES
    compared = compare_builds(
        data, data[-2], metric="mrr", source="perf", direction="higher", rules=rules
    )
    assert set(compared.names.values()) == NAMES


def test_a_sources_own_rules_name_its_comparison_rows() -> None:
    data = _data()
    a, b = default_periods(data, days=10)
    rules = rules_for(overrides_from({"testbed": ""}))
    rows = compare_periods(a, b, Judging("mrr", "perf", "higher"), rules)
    assert {row.name for row in rows} == {name.removeprefix("2n-skx ") for name in NAMES}


def test_check_outputs_and_the_alert_name_each_test_with_its_dimensions() -> None:
    *older, newest = _data()
    # failures alike but for the NIC fold into one line of the e-mail: these differ
    tests = tuple(
        replace(test, message=f"port {number} down") for number, test in enumerate(newest.tests)
    )
    data = [*older, replace(newest, tests=tests)]
    found = histories(data, "mrr", keep_failing=True)
    verdicts = judge_latest("perf", found, data, TrendOptions())
    assert len(verdicts) == 2
    assert {record(verdict)["name"] for verdict in verdicts} == NAMES
    links = GraphLinks()
    assert {verdict_case(verdict, DEFAULT_FAIL_ON, links).name for verdict in verdicts} == NAMES
    text = "\n".join(verdict_table(verdicts, DEFAULT_FAIL_ON))
    assert all(name in text for name in NAMES)
    message = compose(verdicts, DEFAULT_FAIL_ON, Addresses("ci@example.org", ()))
    body = message.get_body(("plain",)).get_content()
    assert all(name in body for name in NAMES)
